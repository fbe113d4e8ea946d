#include <fmt/format.h>

#include <cmath>
#include <set>

#include "engine/src/base/utf8.h"
#include "fenec/limits.h"
#include "fenec/schema.h"
#include "fenec/value.h"

namespace fenec {

const char* FieldTypeName(FieldType type) {
  switch (type) {
    case FieldType::kText: return "text";
    case FieldType::kInt: return "int";
    case FieldType::kFloat: return "float";
    case FieldType::kBool: return "bool";
    case FieldType::kVector: return "vector";
  }
  return "?";
}

const char* VectorMetricName(VectorMetric m) {
  switch (m) {
    case VectorMetric::kL2: return "l2";
    case VectorMetric::kCosine: return "cosine";
    case VectorMetric::kInnerProduct: return "ip";
  }
  return "?";
}

std::string Value::ToString() const {
  if (is_null()) return "null";
  if (is_int()) return fmt::format("{}", int_value());
  if (is_float()) return fmt::format("{}", float_value());
  if (is_bool()) return bool_value() ? "true" : "false";
  if (is_text()) {
    std::string out = "\"";
    for (char c : text()) {
      if (c == '"' || c == '\\') out += '\\';
      if (static_cast<unsigned char>(c) < 0x20) {
        out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        continue;
      }
      out += c;
    }
    return out + "\"";
  }
  return fmt::format("[{}]", fmt::join(vector(), ", "));
}

Status CheckName(std::string_view what, std::string_view name) {
  if (name.empty() || name.size() > limits::kMaxNameBytes)
    return Status::InvalidArgument(fmt::format("a {} name has 1 to {} bytes", what, limits::kMaxNameBytes));
  // A name is written into every answer that shows a document: bytes that are
  // not UTF-8 would make those answers invalid JSON.
  if (!base::IsValidUtf8(name)) return Status::InvalidArgument(fmt::format("a {} name must be valid UTF-8", what));
  for (unsigned char ch : name)
    if (ch < 0x20 || ch == 0x7F) return Status::InvalidArgument(fmt::format("a {} name has no control characters", what));
  return Status::OK();
}

int Schema::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == name) return static_cast<int>(i);
  return -1;
}

Status Schema::Validate() const {
  if (fields.empty()) return Status::InvalidArgument("a schema needs at least one field");
  if (fields.size() > limits::kMaxFields)
    return Status::InvalidArgument(fmt::format("a schema has at most {} fields", limits::kMaxFields));
  std::set<std::string_view> names;
  for (const Field& f : fields) {
    if (Status s = CheckName("field", f.name); !s.ok()) return s;
    if (!names.insert(f.name).second) return Status::InvalidArgument(fmt::format("field '{}' is declared twice", f.name));
    if (static_cast<int>(f.type) < 1 || static_cast<int>(f.type) > 5)
      return Status::InvalidArgument(fmt::format("field '{}' has an unknown type", f.name));
    if (f.type == FieldType::kVector && (f.dim == 0 || f.dim > limits::kMaxVectorDim))
      return Status::InvalidArgument(
          fmt::format("vector field '{}' needs a dim in 1..{}", f.name, limits::kMaxVectorDim));
    if (f.type != FieldType::kVector && f.dim != 0)
      return Status::InvalidArgument(fmt::format("field '{}' is not a vector but has a dim", f.name));
    if (f.text_indexed && f.type != FieldType::kText)
      return Status::InvalidArgument(fmt::format("@text field '{}' must be of type text", f.name));
    if (f.hnsw && f.unique)
      return Status::InvalidArgument(fmt::format("field '{}' cannot be both @hnsw and @unique", f.name));
    if (f.unique && f.type == FieldType::kVector)
      return Status::InvalidArgument(fmt::format("vector field '{}' cannot be @unique", f.name));
    if (f.hnsw && f.type != FieldType::kVector)
      return Status::InvalidArgument(fmt::format("@hnsw field '{}' must be a vector", f.name));
    if (f.hnsw && static_cast<unsigned>(f.metric) > 2)
      return Status::InvalidArgument(fmt::format("@hnsw field '{}' has an unknown metric", f.name));
  }
  return Status::OK();
}

Status Schema::Check(const Document& doc) const {
  if (doc.size() != fields.size())
    return Status::InvalidArgument(fmt::format("document has {} values, the schema {} fields", doc.size(), fields.size()));
  for (size_t i = 0; i < fields.size(); ++i) {
    const Value& v = doc[i];
    const Field& f = fields[i];
    if (v.is_null()) continue;
    bool ok = false;
    switch (f.type) {
      case FieldType::kText:
        ok = v.is_text();
        // Text comes back inside JSON answers, which must be valid UTF-8.
        if (ok) {
          if (size_t bad = base::FirstInvalidUtf8(v.text()); bad != base::kUtf8Valid)
            return Status::InvalidArgument(
                fmt::format("field '{}': the text is not valid UTF-8 (byte {} of {})", f.name, bad, v.text().size()));
        }
        break;
      case FieldType::kInt: ok = v.is_int(); break;
      case FieldType::kFloat:
        ok = v.is_float() || v.is_int();
        // JSON has no NaN or infinity: stored, one would be read back as null.
        if (v.is_float() && !std::isfinite(v.float_value()))
          return Status::InvalidArgument(fmt::format("field '{}' is float: {} is not a finite number", f.name,
                                                     v.float_value()));
        break;
      case FieldType::kBool: ok = v.is_bool(); break;
      case FieldType::kVector:
        ok = v.is_vector();
        if (ok && v.vector().size() != f.dim)
          return Status::InvalidArgument(
              fmt::format("field '{}' needs {} floats, got {}", f.name, f.dim, v.vector().size()));
        if (ok) {
          // Refused here, before anything lands: JSON would read a NaN or an
          // infinity back as null, and an @hnsw index could not link it.
          bool nonzero = false;
          for (size_t k = 0; k < v.vector().size(); ++k) {
            float x = v.vector()[k];
            if (!std::isfinite(x))
              return Status::InvalidArgument(
                  fmt::format("{}field '{}': component {} is not a finite number", f.hnsw ? "@hnsw " : "", f.name, k));
            nonzero = nonzero || x != 0;
          }
          if (f.hnsw && !nonzero && f.metric == VectorMetric::kCosine)
            return Status::InvalidArgument(fmt::format("@hnsw(cosine) field '{}': a zero vector has no direction", f.name));
        }
        break;
    }
    if (!ok)
      return Status::InvalidArgument(fmt::format("field '{}' is {}, got {}", f.name, FieldTypeName(f.type), v.ToString()));
    if (v.is_text() && v.text().size() > (64u << 20))
      return Status::InvalidArgument(fmt::format("field '{}' holds more than 64 MiB of text", f.name));
  }
  return Status::OK();
}

}  // namespace fenec
