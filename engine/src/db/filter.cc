#include "engine/src/db/filter.h"

#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

namespace fenec {

std::vector<std::string> Tokenize(std::string_view text) {
  std::vector<std::string> terms;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) terms.push_back(cur.substr(0, 128));
    cur.clear();
  };
  for (unsigned char c : text) {
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c >= 0x80) {
      cur += static_cast<char>(c);
    } else if (c >= 'A' && c <= 'Z') {
      cur += static_cast<char>(c - 'A' + 'a');
    } else {
      flush();
    }
  }
  flush();
  return terms;
}

Status CompiledFilter::Compile(const Schema& schema, const Filter& filter, CompiledFilter* out) {
  out->conds_.clear();
  out->unique_eq_ = out->text_contains_ = -1;
  // Names are found by a map once a filter has many conditions: a scan of
  // the fields per condition would cost conditions x fields.
  std::unordered_map<std::string_view, int> by_name;
  if (filter.all.size() > 8) {
    by_name.reserve(schema.fields.size());
    for (size_t i = 0; i < schema.fields.size(); ++i) by_name.try_emplace(schema.fields[i].name, static_cast<int>(i));
  }
  for (const Condition& c : filter.all) {
    int idx = -1;
    if (by_name.empty()) {
      idx = schema.FieldIndex(c.field);
    } else if (auto it = by_name.find(c.field); it != by_name.end()) {
      idx = it->second;
    }
    if (idx < 0) return Status::InvalidArgument(fmt::format("filter: no field '{}'", c.field));
    const Field& f = schema.fields[idx];
    Cond cc;
    cc.field = idx;
    cc.type = f.type;
    cc.op = c.op;
    cc.constant = c.value;
    const Value& v = c.value;
    auto bad = [&] {
      return Status::InvalidArgument(
          fmt::format("filter: field '{}' is {}, cannot compare with {}", f.name, FieldTypeName(f.type), v.ToString()));
    };
    if (f.type == FieldType::kVector) return Status::InvalidArgument(fmt::format("filter: vector field '{}'", f.name));
    if (c.op == CompareOp::kContains) {
      if (f.type != FieldType::kText || !v.is_text())
        return Status::InvalidArgument(fmt::format("filter: contains needs a text field and text, on '{}'", f.name));
      cc.terms = Tokenize(v.text());
      if (cc.terms.empty()) return Status::InvalidArgument("filter: contains with no terms");
      if (f.text_indexed && out->text_contains_ < 0) out->text_contains_ = static_cast<int>(out->conds_.size());
    } else {
      switch (f.type) {
        case FieldType::kInt:
          if (v.is_int()) cc.int_exact = true;
          else if (v.is_float()) cc.d = v.float_value();
          else return bad();
          break;
        case FieldType::kFloat:
          if (!v.is_int() && !v.is_float()) return bad();
          cc.d = v.as_double();
          break;
        case FieldType::kText:
          if (!v.is_text()) return bad();
          break;
        case FieldType::kBool:
          if (!v.is_bool()) return bad();
          break;
        case FieldType::kVector: break;
      }
      if (c.op == CompareOp::kEq && f.unique && out->unique_eq_ < 0 &&
          (f.type != FieldType::kInt || cc.int_exact) && f.type != FieldType::kFloat)
        out->unique_eq_ = static_cast<int>(out->conds_.size());
    }
    out->conds_.push_back(std::move(cc));
  }
  return Status::OK();
}

template <typename T>
static bool Compare(CompareOp op, const T& a, const T& b) {
  switch (op) {
    case CompareOp::kEq: return a == b;
    case CompareOp::kNe: return a != b;
    case CompareOp::kLt: return a < b;
    case CompareOp::kLe: return a <= b;
    case CompareOp::kGt: return a > b;
    case CompareOp::kGe: return a >= b;
    case CompareOp::kContains: return false;
  }
  return false;
}

bool CompiledFilter::Eval(const Cond& c, const FieldRef& f) const {
  if (!f.present) return c.op == CompareOp::kNe;
  switch (c.type) {
    case FieldType::kInt:
      return c.int_exact ? Compare(c.op, f.i, c.constant.int_value()) : Compare(c.op, static_cast<double>(f.i), c.d);
    case FieldType::kFloat: return Compare(c.op, f.f, c.d);
    case FieldType::kBool: return Compare(c.op, f.b, c.constant.bool_value());
    case FieldType::kText: {
      if (c.op != CompareOp::kContains) return Compare(c.op, f.text, std::string_view(c.constant.text()));
      std::vector<std::string> have = Tokenize(f.text);
      for (const std::string& t : c.terms)
        if (std::find(have.begin(), have.end(), t) == have.end()) return false;
      return true;
    }
    case FieldType::kVector: return false;
  }
  return false;
}

bool CompiledFilter::Matches(const std::vector<FieldRef>& row) const {
  for (const Cond& c : conds_)
    if (!Eval(c, row[c.field])) return false;
  return true;
}

Status Aggregator::Make(const Schema& schema, const std::string& field, Aggregator* out) {
  *out = Aggregator();
  if (field.empty()) return Status::OK();
  int idx = schema.FieldIndex(field);
  if (idx < 0) return Status::InvalidArgument(fmt::format("aggregate: no field '{}'", field));
  if (schema.fields[idx].type == FieldType::kVector)
    return Status::InvalidArgument(fmt::format("aggregate: vector field '{}'", field));
  out->field_ = idx;
  out->type_ = schema.fields[idx].type;
  return Status::OK();
}

void Aggregator::Add(const std::vector<FieldRef>& row) {
  if (field_ < 0) {
    ++r_.count;
    return;
  }
  const FieldRef& f = row[field_];
  if (!f.present) return;
  ++r_.count;
  bool first = !any_;
  any_ = true;
  switch (type_) {
    case FieldType::kInt:
      r_.int_sum = static_cast<int64_t>(static_cast<uint64_t>(r_.int_sum) + static_cast<uint64_t>(f.i));
      r_.sum += static_cast<double>(f.i);
      if (first || f.i < imin_) imin_ = f.i;
      if (first || f.i > imax_) imax_ = f.i;
      break;
    case FieldType::kFloat:
      r_.sum += f.f;
      if (first || f.f < fmin_) fmin_ = f.f;
      if (first || f.f > fmax_) fmax_ = f.f;
      break;
    case FieldType::kText:
      if (first || f.text < smin_) smin_ = std::string(f.text);
      if (first || f.text > smax_) smax_ = std::string(f.text);
      break;
    case FieldType::kBool:
      if (first || f.b < bmin_) bmin_ = f.b;
      if (first || f.b > bmax_) bmax_ = f.b;
      break;
    case FieldType::kVector: break;
  }
}

AggregateResult Aggregator::result() const {
  AggregateResult r = r_;
  if (field_ < 0 || !any_) return r;
  switch (type_) {
    case FieldType::kInt: r.min = Value(imin_); r.max = Value(imax_); break;
    case FieldType::kFloat: r.min = Value(fmin_); r.max = Value(fmax_); break;
    case FieldType::kText: r.min = Value(smin_); r.max = Value(smax_); break;
    case FieldType::kBool: r.min = Value(bmin_); r.max = Value(bmax_); break;
    case FieldType::kVector: break;
  }
  return r;
}

}  // namespace fenec
