#include "engine/src/query/plan.h"

#include <charconv>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "engine/src/query/statements.h"

namespace fenec::query {

std::string DescribeField(const Field& f) {
  if (f.type == FieldType::kVector) return fmt::format("vector({})", f.dim);
  return FieldTypeName(f.type);
}

namespace {

std::string DescribeValue(const Value& v) {
  if (v.is_null()) return "null";
  if (v.is_text()) return "a text";
  if (v.is_int()) return "an int";
  if (v.is_float()) return "a float";
  if (v.is_bool()) return "a bool";
  return fmt::format("a vector of {}", v.vector().size());
}

}  // namespace

Status CoerceLiteral(const Value& in, const Field& field, Value* out) {
  bool ok = false;
  switch (field.type) {
    case FieldType::kText: ok = in.is_text(); break;
    case FieldType::kInt: ok = in.is_int(); break;
    case FieldType::kBool: ok = in.is_bool(); break;
    case FieldType::kFloat:
      if (in.is_int()) {
        *out = Value(static_cast<double>(in.int_value()));
        return Status::OK();
      }
      ok = in.is_float();
      // The parser keeps a number past a double's range as an infinity.
      if (ok && !std::isfinite(in.float_value()))
        return Status::InvalidArgument(fmt::format(
            "field '{}' is float: the number is past a 64-bit float's range (+-1.7976931348623157e308)", field.name));
      break;
    case FieldType::kVector:
      if (in.is_vector() && in.vector().size() != field.dim) {
        return Status::InvalidArgument(
            fmt::format("field '{}' is vector({}), got a vector of {}", field.name, field.dim, in.vector().size()));
      }
      ok = in.is_vector();
      if (ok) {
        for (size_t i = 0; i < in.vector().size(); ++i)
          if (!std::isfinite(in.vector()[i]))
            return Status::InvalidArgument(
                fmt::format("field '{}': element {} is not a finite float", field.name, i));
      }
      break;
  }
  if (!ok)
    return Status::InvalidArgument(
        fmt::format("field '{}' is {}, got {}", field.name, DescribeField(field), DescribeValue(in)));
  *out = in;
  return Status::OK();
}

// The machinery every kind's planning shares (statements.h: the row's
// `plan` runs on it once the collection is resolved, if it is).
class Planner {
 public:
  Planner(const Statement& st, std::string_view text, const Database& db, const Limits& limits)
      : st_(st), text_(text), db_(db), limits_(limits) {}

  PlanResult Run() {
    auto plan = std::make_shared<Plan>();
    p_ = plan.get();
    p_->kind = st_.kind;
    p_->collection = st_.collection;
    p_->text_bytes = text_.size();
    const StatementDef& def = StatementOf(st_.kind);
    if (def.traits.resolves_collection && !Resolve()) return std::move(result_);
    if (!def.plan(*this)) return std::move(result_);
    return Done(plan);
  }

 private:
  // The collection's handle and schema, its field names hashed.
  bool Resolve() {
    auto cid = db_.FindCollection(st_.collection);
    if (!cid.ok()) {
      return Set(Fail(404, "unknown_collection", fmt::format("no collection named '{}'", st_.collection),
                      st_.collection_offset));
    }
    p_->cid = *cid;
    auto schema = db_.GetSchema(*cid);
    if (!schema.ok()) return Set(Fail(404, "unknown_collection", schema.status().ToString(), st_.collection_offset));
    p_->schema = std::move(*schema);
    p_->field_names.Reserve(p_->schema.fields.size());
    for (size_t i = 0; i < p_->schema.fields.size(); ++i) {
      p_->field_names.Insert(p_->schema.fields[i].name, static_cast<int>(i),
                             [&](int j) -> const std::string& { return p_->schema.fields[j].name; });
    }
    return true;
  }

  PlanResult Done(std::shared_ptr<Plan> plan) {
    // Positional parameters are bound from a JSON array by position: $1..$n
    // must all be used, or a client's array would silently shift.
    bool any_named = false, any_positional = false;
    size_t max_pos = 0;
    for (const auto& s : p_->slots) {
      if (s.positional) {
        any_positional = true;
        // std::stoul threw out_of_range (through the server's handler) on $99999999999999999999.
        size_t pos = Position(s.name);
        if (pos > limits_.max_params) {
          return Fail(400, "params",
                      fmt::format("${} is out of range: parameters are $1..${}", s.name, limits_.max_params),
                      s.offset);
        }
        max_pos = std::max(max_pos, pos);
      } else {
        any_named = true;
      }
    }
    if (any_named && any_positional) {
      return Fail(400, "params", "a statement takes $1, $2 ... or $name parameters, not both", p_->slots[0].offset);
    }
    if (any_positional && max_pos != p_->slots.size()) {
      return Fail(400, "params", fmt::format("parameters must be numbered $1..$n without gaps; ${} used with {} parameters",
                                             max_pos, p_->slots.size()),
                  p_->slots.back().offset);
    }
    p_->positional = any_positional;
    if (any_positional) RenumberSlots();
    PlanResult r;
    r.plan = std::move(plan);
    return r;
  }

  // slots' names, for slot_names.
  struct SlotNameOf {
    const Plan* p;
    const std::string& operator()(int i) const { return p->slots[i].name; }
  };
  SlotNameOf SlotName() const { return SlotNameOf{p_}; }

  // A positional parameter's number ("12" for $12), or SIZE_MAX when it has
  // more digits than a size_t (the lexer gives digits only).
  static size_t Position(const std::string& name) {
    size_t pos = 0;
    auto r = std::from_chars(name.data(), name.data() + name.size(), pos);
    return r.ec == std::errc{} ? pos : SIZE_MAX;
  }

  // Slots were made in first-use order; $k goes to slot k - 1. Done has
  // checked the names are 1..n, each once, so this is a permutation: each
  // slot is put in its place and each operand renumbered in one pass.
  void RenumberSlots() {
    const size_t n = p_->slots.size();
    std::vector<int> to(n);
    for (size_t i = 0; i < n; ++i) to[i] = static_cast<int>(Position(p_->slots[i].name) - 1);
    auto fix = [&](PlannedOperand& o) {
      if (o.slot >= 0) o.slot = to[o.slot];
    };
    fix(p_->id);
    fix(p_->limit);
    fix(p_->after);
    fix(p_->near_vector);
    fix(p_->ef);
    for (auto& c : p_->where) fix(c.value);
    for (auto& d : p_->docs) {
      for (auto& e : d.entries) fix(e.second);
    }
    if (p_->docs_slot >= 0) p_->docs_slot = to[p_->docs_slot];
    std::vector<ParamSlot> placed(n);
    for (size_t i = 0; i < n; ++i) placed[to[i]] = std::move(p_->slots[i]);
    p_->slots = std::move(placed);
    p_->slot_names.Clear();
    p_->slot_names.Reserve(n);
    for (size_t i = 0; i < n; ++i) p_->slot_names.Insert(p_->slots[i].name, static_cast<int>(i), SlotName());
  }


  PlanResult Fail(int http, std::string code, std::string message, size_t offset) {
    PlanResult r;
    r.error.http = http;
    r.error.code = std::move(code);
    r.error.message = std::move(message);
    r.error.where = "statement " + LineCol(text_, offset);
    r.error.offset = static_cast<int64_t>(offset);
    return r;
  }
  bool Set(PlanResult r) {
    result_ = std::move(r);
    return false;
  }

  int FieldAt(const std::string& name, size_t offset) {
    int i = p_->FieldIndex(name);
    if (i < 0) {
      Set(Fail(400, "unknown_field", fmt::format("collection '{}' has no field '{}'", st_.collection, name), offset));
    }
    return i;
  }

  // The slot a parameter occupies; a name used twice must want one type.
  bool Slot(const Operand& o, ParamSlot want, PlannedOperand* out) {
    want.name = o.param;
    want.positional = o.positional;
    want.offset = o.offset;
    const int i = p_->slot_names.Insert(o.param, static_cast<int>(p_->slots.size()), SlotName());
    if (i >= 0) {
      const ParamSlot& have = p_->slots[i];
      if (have.kind != want.kind || have.field.type != want.field.type || have.field.dim != want.field.dim) {
        return Set(Fail(400, "params", fmt::format("${} is used as {} and as {}", o.param, SlotDesc(have), SlotDesc(want)),
                        o.offset));
      }
      p_->slots[i].nullable = have.nullable && want.nullable;
      out->slot = i;
      return true;
    }
    if (p_->slots.size() == limits_.max_params) {
      return Set(PlanResult{nullptr, TooLarge(fmt::format("a statement takes at most {} parameters", limits_.max_params),
                          "statement " + LineCol(text_, o.offset), "max_params", limits_.max_params,
                          static_cast<int64_t>(o.offset))});
    }
    p_->slots.push_back(std::move(want));
    out->slot = static_cast<int>(p_->slots.size() - 1);
    return true;
  }

  static std::string SlotDesc(const ParamSlot& s) {
    switch (s.kind) {
      case SlotKind::kId: return "a document id";
      case SlotKind::kLimit: return "a limit";
      case SlotKind::kAfter: return "an id to start after";
      case SlotKind::kEf: return "an ef";
      case SlotKind::kDocs: return "documents";
      case SlotKind::kField: return fmt::format("field '{}' ({})", s.field.name, DescribeField(s.field));
    }
    return "?";
  }

  bool WholeNumber(const Operand& o, SlotKind kind, int64_t min, PlannedOperand* out) {
    if (o.kind == Operand::Kind::kParam) {
      ParamSlot s;
      s.kind = kind;
      s.field.type = FieldType::kInt;
      return Slot(o, s, out);
    }
    if (!o.literal.is_int() || o.literal.int_value() < min) {
      return Set(Fail(400, "type", fmt::format("expected {} (a whole number >= {}), got {}",
                                               kind == SlotKind::kId      ? "a document id"
                                               : kind == SlotKind::kEf    ? "an ef"
                                               : kind == SlotKind::kAfter ? "an id to start after"
                                                                          : "a limit",
                                               min,
                                               o.literal.is_int() ? fmt::format("{}", o.literal.int_value())
                                                                  : DescribeValue(o.literal)),
                      o.offset));
    }
    out->literal = o.literal;
    return true;
  }

 public:
  // The parts of the kinds' planning (PlanFind and the others, below).

  // CREATE: the schema to create.
  bool Create() {
    for (const auto& f : st_.fields) p_->schema.fields.push_back(f.field);
    return true;
  }

  bool Id() { return WholeNumber(st_.id, SlotKind::kId, 1, &p_->id); }

  bool Limit() {
    p_->after.literal = Value(int64_t{0});
    if (st_.after) {
      // Pages are in id order; a NEAR's answer is in distance order and has none.
      if (p_->near_field >= 0)
        return Set(Fail(400, "parse", "AFTER pages a FIND in id order; a NEAR has no pages", st_.after->offset));
      if (!WholeNumber(*st_.after, SlotKind::kAfter, 0, &p_->after)) return false;
    }
    if (!st_.limit) {
      p_->limit.literal = Value(int64_t{0});
      return true;
    }
    if (!WholeNumber(*st_.limit, SlotKind::kLimit, 0, &p_->limit)) return false;
    // A NEAR answers at most NearOptions::kMaxK: refused here when written
    // out, by the executor when a parameter.
    if (p_->near_field >= 0 && p_->limit.slot < 0) {
      int64_t k = p_->limit.literal.int_value();
      if (k < 1 || k > static_cast<int64_t>(NearOptions::kMaxK))
        return Set(Fail(400, "type", fmt::format("a NEAR's LIMIT is 1..{}, got {}", NearOptions::kMaxK, k),
                        st_.limit->offset));
    }
    return true;
  }

  // NEAR field vector [EF n]: the field must be a vector with @hnsw.
  bool Near() {
    if (st_.near_field.empty()) return true;
    int field = FieldAt(st_.near_field, st_.near_field_offset);
    if (field < 0) return false;
    const Field& f = p_->schema.fields[field];
    if (f.type != FieldType::kVector)
      return Set(Fail(400, "type", fmt::format("NEAR needs a vector field; '{}' is {}", f.name, DescribeField(f)),
                      st_.near_field_offset));
    if (!f.hnsw)
      return Set(Fail(400, "index", fmt::format("field '{}' has no @hnsw index: NEAR needs one", f.name),
                      st_.near_field_offset));
    p_->near_field = field;
    const Operand& v = st_.near_vector;
    if (v.kind == Operand::Kind::kParam) {
      ParamSlot s;
      s.kind = SlotKind::kField;
      s.field = f;
      if (!Slot(v, s, &p_->near_vector)) return false;
    } else if (v.literal.is_vector() && v.literal.vector().size() != f.dim) {
      return Set(Fail(400, "dim",
                      fmt::format("field '{}' is vector({}), got a vector of {}", f.name, f.dim, v.literal.vector().size()),
                      v.offset));
    } else if (Status st = CoerceLiteral(v.literal, f, &p_->near_vector.literal); !st.ok()) {
      return Set(Fail(400, "type", st.message(), v.offset));
    }
    if (!st_.ef) {
      p_->ef.literal = Value(int64_t{0});
      return true;
    }
    if (!WholeNumber(*st_.ef, SlotKind::kEf, 1, &p_->ef)) return false;
    if (p_->ef.slot < 0 && p_->ef.literal.int_value() > static_cast<int64_t>(NearOptions::kMaxEf))
      return Set(Fail(400, "type", fmt::format("a NEAR's EF is at most {}", NearOptions::kMaxEf), st_.ef->offset));
    return true;
  }

  // A value for `field`: a literal made its type now, or a typed slot.
  bool FieldValue(const Operand& o, int field, bool nullable, PlannedOperand* out) {
    const Field& f = p_->schema.fields[field];
    if (o.kind == Operand::Kind::kParam) {
      ParamSlot s;
      s.kind = SlotKind::kField;
      s.field = f;
      s.nullable = nullable;
      return Slot(o, s, out);
    }
    if (o.literal.is_null()) {
      if (nullable) return true;
      return Set(Fail(400, "type", fmt::format("a condition on '{}' needs a value, not null", f.name), o.offset));
    }
    if (Status st = CoerceLiteral(o.literal, f, &out->literal); !st.ok())
      return Set(Fail(400, "type", st.message(), o.offset));
    return true;
  }

  bool Where() {
    for (const auto& c : st_.where) {
      PlannedCond pc;
      pc.field = FieldAt(c.field, c.field_offset);
      if (pc.field < 0) return false;
      const Field& f = p_->schema.fields[pc.field];
      if (f.type == FieldType::kVector) {
        return Set(Fail(400, "type", fmt::format("field '{}' is a vector: it cannot be compared", f.name), c.field_offset));
      }
      if (c.op == CompareOp::kContains && f.type != FieldType::kText) {
        return Set(Fail(400, "type", fmt::format("CONTAINS needs a text field; '{}' is {}", f.name, DescribeField(f)),
                        c.field_offset));
      }
      pc.op = c.op;
      if (!FieldValue(c.value, pc.field, false, &pc.value)) return false;
      p_->where.push_back(std::move(pc));
    }
    return true;
  }

  bool Docs() {
    if (st_.docs_param) {
      ParamSlot s;
      s.kind = SlotKind::kDocs;
      PlannedOperand o;
      if (!Slot(*st_.docs_param, s, &o)) return false;
      p_->docs_slot = o.slot;
      return true;
    }
    // Each document lands as a value per field, whatever it gives.
    const size_t width = p_->schema.fields.size();
    if (st_.docs.size() > limits_.max_doc_values / width) {
      const size_t first_over = limits_.max_doc_values / width;
      return Set(PlanResult{nullptr, TooLarge(fmt::format("{} documents of {} fields each are over {} values", st_.docs.size(), width,
                                      limits_.max_doc_values),
                          "statement " + LineCol(text_, st_.docs[first_over].offset), "max_doc_values",
                          limits_.max_doc_values, static_cast<int64_t>(st_.docs[first_over].offset))});
    }
    for (const auto& d : st_.docs) {
      PlannedDoc pd;
      for (const auto& e : d.entries) {
        int field = FieldAt(e.field, e.offset);
        if (field < 0) return false;
        PlannedOperand o;
        if (!FieldValue(e.value, field, true, &o)) return false;
        pd.entries.emplace_back(field, std::move(o));
      }
      p_->docs.push_back(std::move(pd));
    }
    return true;
  }

  bool Aggs() {
    for (const auto& a : st_.aggs) {
      PlannedAgg pa;
      pa.fn = a.fn;
      pa.label = a.Label();
      if (!a.field.empty()) {
        pa.field = FieldAt(a.field, a.offset);
        if (pa.field < 0) return false;
        const Field& f = p_->schema.fields[pa.field];
        if (f.type == FieldType::kVector) {
          return Set(Fail(400, "type", fmt::format("{}: '{}' is a vector", pa.label, f.name), a.offset));
        }
        if (a.fn == AggFn::kSum && f.type != FieldType::kInt && f.type != FieldType::kFloat) {
          return Set(Fail(400, "type", fmt::format("{}: '{}' is {}, not a number", pa.label, f.name, DescribeField(f)),
                          a.offset));
        }
      }
      p_->aggs.push_back(std::move(pa));
    }
    if (!st_.group_by.empty()) {
      p_->group_field = FieldAt(st_.group_by, st_.group_by_offset);
      if (p_->group_field < 0) return false;
      if (p_->schema.fields[p_->group_field].type == FieldType::kVector) {
        return Set(Fail(400, "type", fmt::format("cannot group by the vector field '{}'", st_.group_by),
                        st_.group_by_offset));
      }
    }
    return true;
  }

 private:
  const Statement& st_;
  std::string_view text_;
  const Database& db_;
  const Limits& limits_;
  Plan* p_ = nullptr;
  PlanResult result_;
};

bool PlanCreate(Planner& p) { return p.Create(); }
bool PlanDrop(Planner&) { return true; }  // the engine finds the name (or answers 404)
bool PlanById(Planner& p) { return p.Id(); }
bool PlanFind(Planner& p) { return p.Near() && p.Where() && p.Limit(); }
bool PlanPut(Planner& p) { return p.Docs(); }
bool PlanAggregate(Planner& p) { return p.Where() && p.Aggs(); }

PlanResult Prepare(const Statement& st, std::string_view text, const Database& db, const Limits& limits) {
  return Planner(st, text, db, limits).Run();
}

}  // namespace fenec::query
