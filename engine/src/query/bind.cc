#include "engine/src/query/bind.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "engine/src/base/utf8.h"
#include "engine/src/query/number.h"

namespace fenec::query {

namespace {

// "where[i]" and "where.key": built for every parameter, document and
// field a request names, so appended rather than formatted at run time.
std::string ElementPath(const std::string& where, size_t i) {
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof digits, i);
  std::string at;
  at.reserve(where.size() + (r.ptr - digits) + 2);
  at.append(where).push_back('[');
  at.append(digits, r.ptr).push_back(']');
  return at;
}

std::string FieldPath(const std::string& where, std::string_view key) {
  std::string at;
  at.reserve(where.size() + 1 + key.size());
  at.append(where).push_back('.');
  at.append(key);
  return at;
}

}  // namespace

std::string DescribeJson(sj::json_type t) {
  switch (t) {
    case sj::json_type::array: return "an array";
    case sj::json_type::object: return "an object";
    case sj::json_type::number: return "a number";
    case sj::json_type::string: return "a string";
    case sj::json_type::boolean: return "a bool";
    case sj::json_type::null: return "null";
  }
  return "a value";
}

Error JsonReader::At(sj::value& v, int http, std::string code, std::string message, const std::string& where) {
  Error e;
  e.http = http;
  e.code = std::move(code);
  e.message = std::move(message);
  e.where = where;
  e.offset = OffsetOf(v.raw_json_token().data());
  return e;
}

Error JsonReader::Malformed(simdjson::error_code ec, const std::string& where, const char* at) {
  Error e;
  e.http = 400;
  e.code = "json";
  // simdjson says only "problem while parsing a string": name what it refuses there.
  e.message = ec == simdjson::STRING_ERROR
                  ? std::string("malformed JSON string: a bad escape, or a lone or swapped surrogate escape "
                                "(\\uD800-\\uDFFF not in a high-low pair)")
                  : fmt::format("malformed JSON: {}", simdjson::error_message(ec));
  e.where = where;
  e.offset = OffsetOf(at);
  return e;
}

std::optional<Error> JsonReader::CheckText(sj::value& v, std::string_view text, std::string_view what,
                                           const std::string& where) {
  size_t bad = base::FirstInvalidUtf8(text);
  if (bad == base::kUtf8Valid) return std::nullopt;
  return At(v, 400, "utf8",
            fmt::format("{} is not valid UTF-8 at byte {}: a lone or swapped surrogate escape (\\uD800-\\uDFFF "
                        "not in a high-low pair) or a byte that is not UTF-8",
                        what, bad),
            where);
}

std::optional<Error> JsonReader::ReadValue(sj::value v, const Field& field, bool nullable, const std::string& where,
                                           Value* out) {
  sj::json_type t;
  if (auto ec = v.type().get(t)) return Malformed(ec, where, v.raw_json_token().data());
  if (t == sj::json_type::null) {
    if (!nullable) return At(v, 400, "type", fmt::format("field '{}' needs a value here, not null", field.name), where);
    *out = Value();
    return std::nullopt;
  }
  auto wrong = [&]() {
    return At(v, 400, "type", fmt::format("field '{}' is {}, got {}", field.name, DescribeField(field), DescribeJson(t)),
              where);
  };
  switch (field.type) {
    case FieldType::kText: {
      if (t != sj::json_type::string) return wrong();
      std::string_view s;
      if (auto ec = v.get_string().get(s)) return Malformed(ec, where, v.raw_json_token().data());
      // simdjson checks the body's raw bytes; a lone-surrogate escape only
      // shows once unescaped, as bytes that are not UTF-8.
      if (auto err = CheckText(v, s, fmt::format("field '{}'", field.name), where)) return err;
      *out = Value(s);
      return std::nullopt;
    }
    case FieldType::kInt: {
      if (t != sj::json_type::number) return wrong();
      int64_t i = 0;
      if (auto ec = v.get_int64().get(i)) {
        if (ec == simdjson::NUMBER_ERROR || ec == simdjson::INCORRECT_TYPE || ec == simdjson::NUMBER_OUT_OF_RANGE) {
          std::string_view tok = TrimToken(v.raw_json_token());
          bool whole = IsJsonNumber(tok) && tok.find_first_of(".eE") == std::string_view::npos;
          if (whole) {
            return At(v, 400, "type",
                      fmt::format("field '{}' is int: {} does not fit in a 64-bit integer", field.name, tok), where);
          }
          return At(v, 400, "type", fmt::format("field '{}' is int, got {}", field.name, tok), where);
        }
        return Malformed(ec, where, v.raw_json_token().data());
      }
      *out = Value(i);
      return std::nullopt;
    }
    case FieldType::kFloat: {
      if (t != sj::json_type::number) return wrong();
      double d = 0;
      auto ec = v.get_double().get(d);
      if (ec == simdjson::SUCCESS && std::isfinite(d)) {
        *out = Value(d);
        return std::nullopt;
      }
      // Read again by the rules a FenecQL literal follows (number.h), so
      // a number past a double's range is `type` whichever way it came.
      std::string_view tok = TrimToken(v.raw_json_token());
      if (!IsJsonNumber(tok)) return Malformed(ec ? ec : simdjson::NUMBER_ERROR, where, tok.data());
      NumberRead r = ReadNumber(tok, &d);
      if (r == NumberRead::kOverflow) {
        return At(v, 400, "type",
                  fmt::format("field '{}' is float: {} is past a 64-bit float's range (+-1.7976931348623157e308)",
                              field.name, tok),
                  where);
      }
      if (r != NumberRead::kOk) return Malformed(ec ? ec : simdjson::NUMBER_ERROR, where, tok.data());
      *out = Value(d);
      return std::nullopt;
    }
    case FieldType::kBool: {
      if (t != sj::json_type::boolean) return wrong();
      bool b = false;
      if (auto ec = v.get_bool().get(b)) return Malformed(ec, where, v.raw_json_token().data());
      *out = Value(b);
      return std::nullopt;
    }
    case FieldType::kVector:
      if (t != sj::json_type::array) return wrong();
      return ReadVector(v, field, where, out);
  }
  return wrong();
}

// Each element's token is read by from_chars straight into its float and
// left unconsumed: On-Demand skips it when the loop advances, so every
// number's text is scanned once. The loop does nothing else for a good
// element (no string built, no double, no Value): a load's documents are
// mostly vectors' numbers, and their text is what a load costs.
std::optional<Error> JsonReader::ReadVector(sj::value v, const Field& field, const std::string& where, Value* out) {
  sj::array arr;
  if (auto ec = v.get_array().get(arr)) return Malformed(ec, where, v.raw_json_token().data());
  std::vector<float> vec;
  vec.reserve(field.dim);
  size_t n = 0;
  for (auto el_res : arr) {
    sj::value el;
    if (auto ec = el_res.get(el)) return Malformed(ec, where);
    float f = 0;
    if (!ReadJsonFloat(TrimToken(el.raw_json_token()), &f)) {
      if (auto err = ReadElement(el, field, where, n, &f)) return err;
    }
    if (n < field.dim) vec.push_back(f);
    ++n;
  }
  if (n != field.dim) {
    return At(v, 400, "dim", fmt::format("field '{}' is vector({}), got {} numbers", field.name, field.dim, n), where);
  }
  *out = Value(std::move(vec));
  return std::nullopt;
}

// What ReadJsonFloat left: a number below a float's smallest subnormal
// (rounds to a zero of its sign, as ReadNumber does), or an error.
std::optional<Error> JsonReader::ReadElement(sj::value& el, const Field& field, const std::string& where, size_t n,
                                             float* f) {
  std::string_view tok = TrimToken(el.raw_json_token());
  std::string at = ElementPath(where, n);
  // The JSON grammar first: from_chars alone would take "01" or "1." too.
  NumberRead r = IsJsonNumber(tok) ? ReadNumber(tok, f) : NumberRead::kSyntax;
  if (r == NumberRead::kSyntax) {
    sj::json_type t = sj::json_type::null;
    if (el.type().get(t) || t == sj::json_type::number) return Malformed(simdjson::NUMBER_ERROR, at, tok.data());
    return At(el, 400, "type", fmt::format("field '{}' is {}: element {} is {}, not a number", field.name,
                                           DescribeField(field), n, DescribeJson(t)),
              at);
  }
  // Past a float's range (about 3.4e38); below it, a number rounds to zero.
  if (r == NumberRead::kOverflow) {
    return At(el, 400, "type", fmt::format("field '{}': element {} does not fit in a float", field.name, n), at);
  }
  return std::nullopt;
}

std::optional<Error> JsonReader::ReadDoc(sj::value v, const Plan& plan, const std::string& where, Document* out) {
  return ReadDocIn(v, plan.schema, plan.field_names, where, out);
}

std::optional<Error> JsonReader::ReadDoc(sj::value v, const Schema& schema, const std::string& where, Document* out) {
  if (own_schema_ != &schema) {
    own_names_.Clear();
    own_names_.Reserve(schema.fields.size());
    for (size_t i = 0; i < schema.fields.size(); ++i) {
      own_names_.Insert(schema.fields[i].name, static_cast<int>(i),
                        [&](int j) -> const std::string& { return schema.fields[j].name; });
    }
    own_schema_ = &schema;
  }
  return ReadDocIn(v, schema, own_names_, where, out);
}

std::optional<Error> JsonReader::CountDoc(sj::value& v, size_t width, const std::string& where) {
  if (docs_read_ == limits_.max_docs) {
    return TooLarge(fmt::format("a request lands at most {} documents", limits_.max_docs), where, "max_docs",
                    limits_.max_docs, OffsetOf(v.raw_json_token().data()));
  }
  if ((docs_read_ + 1) > limits_.max_doc_values / width) {
    return TooLarge(fmt::format("{} documents of {} fields each are over {} values", docs_read_ + 1, width,
                                limits_.max_doc_values),
                    where, "max_doc_values", limits_.max_doc_values, OffsetOf(v.raw_json_token().data()));
  }
  ++docs_read_;
  return std::nullopt;
}

std::optional<Error> JsonReader::ReadDocIn(sj::value v, const Schema& schema, const NameTable& names,
                                           const std::string& where, Document* out) {
  sj::json_type t;
  if (auto ec = v.type().get(t)) return Malformed(ec, where, v.raw_json_token().data());
  if (t != sj::json_type::object) {
    return At(v, 400, "type", fmt::format("a document is a JSON object, got {}", DescribeJson(t)), where);
  }
  sj::object obj;
  if (auto ec = v.get_object().get(obj)) return Malformed(ec, where, v.raw_json_token().data());
  out->assign(schema.fields.size(), Value());
  if (seen_.size() < schema.fields.size()) seen_.resize(schema.fields.size(), stamp_);
  if (++stamp_ == 0) {  // wrapped: every old stamp could match again
    std::fill(seen_.begin(), seen_.end(), 0);
    stamp_ = 1;
  }
  auto name_of = [&](int j) -> const std::string& { return schema.fields[j].name; };
  size_t keys = 0;
  for (auto field_res : obj) {
    sj::field f;
    if (auto ec = std::move(field_res).get(f)) return Malformed(ec, where);
    std::string_view key;
    if (auto ec = f.unescaped_key().get(key)) return Malformed(ec, where);
    sj::value fv = f.value();
    if (keys++ == limits_.max_doc_keys) {
      return TooLarge(fmt::format("a document has at most {} keys", limits_.max_doc_keys), where, "max_doc_keys",
                      limits_.max_doc_keys, OffsetOf(fv.raw_json_token().data()));
    }
    if (auto err = CheckText(fv, key, "a field name", where)) return err;
    std::string at = FieldPath(where, key);
    int i = names.Find(key, name_of);
    if (i < 0) return At(fv, 400, "unknown_field", fmt::format("the collection has no field '{}'", key), at);
    if (seen_[i] == stamp_) return At(fv, 400, "json", fmt::format("field '{}' given twice", key), at);
    seen_[i] = stamp_;
    if (auto err = ReadValue(fv, schema.fields[i], true, at, &(*out)[i])) return err;
  }
  return std::nullopt;
}

std::optional<Error> JsonReader::ReadDocs(sj::value v, const Plan& plan, const std::string& where,
                                          std::vector<Document>* out) {
  const size_t width = plan.schema.fields.size();
  sj::json_type t;
  if (auto ec = v.type().get(t)) return Malformed(ec, where, v.raw_json_token().data());
  if (t == sj::json_type::object) {
    if (auto err = CountDoc(v, width, where)) return err;
    out->emplace_back();
    return ReadDoc(v, plan, where, &out->back());
  }
  if (t != sj::json_type::array) {
    return At(v, 400, "type", fmt::format("expected an array of documents, got {}", DescribeJson(t)), where);
  }
  sj::array arr;
  if (auto ec = v.get_array().get(arr)) return Malformed(ec, where, v.raw_json_token().data());
  size_t i = 0;
  for (auto el_res : arr) {
    sj::value el;
    if (auto ec = el_res.get(el)) return Malformed(ec, where);
    std::string at = ElementPath(where, i);
    if (auto err = CountDoc(el, width, at)) return err;
    out->emplace_back();
    if (auto err = ReadDoc(el, plan, at, &out->back())) return err;
    ++i;
  }
  if (i == 0) return At(v, 400, "empty", "no documents given", where);
  return std::nullopt;
}

std::optional<Error> JsonReader::ReadWhole(sj::value v, int64_t min, const std::string& what, const std::string& where,
                                           int64_t* out) {
  sj::json_type t;
  if (auto ec = v.type().get(t)) return Malformed(ec, where, v.raw_json_token().data());
  int64_t i = 0;
  if (t != sj::json_type::number || v.get_int64().get(i) || i < min) {
    return At(v, 400, "type", fmt::format("expected {} (a whole number >= {})", what, min), where);
  }
  *out = i;
  return std::nullopt;
}

std::optional<Error> JsonReader::ReadSlot(const ParamSlot& slot, sj::value v, const std::string& where, size_t index,
                                          Bound* out) {
  int64_t n = 0;
  switch (slot.kind) {
    case SlotKind::kField: return ReadValue(v, slot.field, slot.nullable, where, &out->values[index]);
    case SlotKind::kId:
    case SlotKind::kLimit:
    case SlotKind::kAfter:
    case SlotKind::kEf:
      if (auto err = ReadWhole(v, slot.kind == SlotKind::kLimit || slot.kind == SlotKind::kAfter ? 0 : 1,
                               slot.kind == SlotKind::kId      ? "a document id"
                               : slot.kind == SlotKind::kEf    ? "an ef"
                               : slot.kind == SlotKind::kAfter ? "an id to start after"
                                                               : "a limit",
                               where, &n)) {
        return err;
      }
      out->values[index] = Value(n);
      return std::nullopt;
    case SlotKind::kDocs: return std::nullopt;  // read by the caller, which knows the schema
  }
  return std::nullopt;
}

std::optional<Error> JsonReader::ReadParams(const Plan& plan, sj::value* params, const std::string& where,
                                            Bound* out) {
  out->values.assign(plan.slots.size(), Value());
  out->docs.clear();
  auto param_error = [&](std::string message) {
    Error e;
    e.code = "params";
    e.message = std::move(message);
    e.where = where;
    return e;
  };
  sj::json_type t = sj::json_type::null;
  if (params != nullptr) {
    if (auto ec = params->type().get(t)) return Malformed(ec, where, params->raw_json_token().data());
  }
  if (plan.slots.empty()) {
    if (params == nullptr || t == sj::json_type::null) return std::nullopt;
    size_t n = 0;
    if (t == sj::json_type::array) {
      sj::array arr;
      if (params->get_array().get(arr) == simdjson::SUCCESS && arr.count_elements().get(n) == simdjson::SUCCESS && n == 0) {
        return std::nullopt;
      }
    } else if (t == sj::json_type::object) {
      sj::object obj;
      if (params->get_object().get(obj) == simdjson::SUCCESS && obj.count_fields().get(n) == simdjson::SUCCESS && n == 0) {
        return std::nullopt;
      }
    }
    return param_error("the statement takes no parameters");
  }
  if (params == nullptr || t == sj::json_type::null) {
    return param_error(fmt::format("the statement takes {} parameter{} and none were given", plan.slots.size(),
                                   plan.slots.size() == 1 ? "" : "s"));
  }

  auto read_one = [&](size_t i, sj::value v, const std::string& at) -> std::optional<Error> {
    const ParamSlot& slot = plan.slots[i];
    if (slot.kind == SlotKind::kDocs) return ReadDocs(v, plan, at, &out->docs);
    return ReadSlot(slot, v, at, i, out);
  };

  if (plan.positional) {
    if (t != sj::json_type::array) {
      return At(*params, 400, "params", fmt::format("the statement uses $1..${}: params must be an array, got {}",
                                                    plan.slots.size(), DescribeJson(t)),
                where);
    }
    sj::array arr;
    if (auto ec = params->get_array().get(arr)) return Malformed(ec, where);
    size_t i = 0;
    for (auto el_res : arr) {
      sj::value el;
      if (auto ec = el_res.get(el)) return Malformed(ec, where);
      if (i >= plan.slots.size()) {
        return At(el, 400, "params", fmt::format("the statement takes {} parameters, got more", plan.slots.size()),
                  ElementPath(where, i));
      }
      if (auto err = read_one(i, el, ElementPath(where, i))) return err;
      ++i;
    }
    if (i != plan.slots.size()) {
      return param_error(fmt::format("the statement takes {} parameters, got {}", plan.slots.size(), i));
    }
    return std::nullopt;
  }

  if (t != sj::json_type::object) {
    return At(*params, 400, "params",
              fmt::format("the statement uses named parameters: params must be an object, got {}", DescribeJson(t)),
              where);
  }
  sj::object obj;
  if (auto ec = params->get_object().get(obj)) return Malformed(ec, where);
  std::vector<bool> given(plan.slots.size(), false);
  for (auto field_res : obj) {
    sj::field f;
    if (auto ec = std::move(field_res).get(f)) return Malformed(ec, where);
    std::string_view key;
    if (auto ec = f.unescaped_key().get(key)) return Malformed(ec, where);
    sj::value v = f.value();
    if (auto err = CheckText(v, key, "a parameter name", where)) return err;
    std::string at = FieldPath(where, key);
    const int i = plan.SlotIndex(key);
    if (i < 0) return At(v, 400, "params", fmt::format("the statement has no parameter ${}", key), at);
    if (given[i]) return At(v, 400, "params", fmt::format("${} given twice", key), at);
    given[i] = true;
    if (auto err = read_one(i, v, at)) return err;
  }
  for (size_t i = 0; i < plan.slots.size(); ++i) {
    if (!given[i]) return param_error(fmt::format("parameter ${} not given", plan.slots[i].name));
  }
  return std::nullopt;
}

}  // namespace fenec::query
