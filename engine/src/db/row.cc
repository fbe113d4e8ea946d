#include "engine/src/db/row.h"
#include "engine/src/base/coding.h"

#include <bit>
#include <cstring>

namespace fenec {

void EncodeRow(const Schema& schema, const Document& doc, base::Bytes* out) {
  const size_t n = schema.fields.size();
  size_t bitmap_at = out->size();
  out->resize(out->size() + (n + 7) / 8, 0);
  for (size_t i = 0; i < n; ++i) {
    const Value& v = doc[i];
    if (v.is_null()) continue;
    (*out)[bitmap_at + i / 8] |= static_cast<uint8_t>(1u << (i % 8));
    switch (schema.fields[i].type) {
      case FieldType::kInt: base::PutFixed64(out, static_cast<uint64_t>(v.int_value())); break;
      case FieldType::kFloat: base::PutFixed64(out, std::bit_cast<uint64_t>(v.as_double())); break;
      case FieldType::kBool: out->push_back(v.bool_value() ? 1 : 0); break;
      case FieldType::kText: base::PutString(out, v.text()); break;
      case FieldType::kVector:
        for (float x : v.vector()) base::PutFixed32(out, std::bit_cast<uint32_t>(x));
        break;
    }
  }
}

bool DecodeFields(const Schema& schema, std::span<const uint8_t> row, std::vector<FieldRef>* out) {
  const size_t n = schema.fields.size();
  out->assign(n, FieldRef{});
  base::ByteReader in(row);
  auto bitmap = in.Take((n + 7) / 8);
  if (!in.ok()) return false;
  for (size_t i = 0; i < n; ++i) {
    if (!(bitmap[i / 8] & (1u << (i % 8)))) continue;
    FieldRef& r = (*out)[i];
    r.present = true;
    switch (schema.fields[i].type) {
      case FieldType::kInt: r.i = static_cast<int64_t>(in.Fixed64()); break;
      case FieldType::kFloat: r.f = std::bit_cast<double>(in.Fixed64()); break;
      case FieldType::kBool: r.b = in.Byte() != 0; break;
      case FieldType::kText: r.text = in.String(); break;
      case FieldType::kVector: r.vec = in.Take(size_t{schema.fields[i].dim} * 4).data(); break;
    }
  }
  return in.ok() && in.done();
}

Value FieldToValue(const Field& field, const FieldRef& ref) {
  if (!ref.present) return Value();
  switch (field.type) {
    case FieldType::kInt: return Value(ref.i);
    case FieldType::kFloat: return Value(ref.f);
    case FieldType::kBool: return Value(ref.b);
    case FieldType::kText: return Value(ref.text);
    case FieldType::kVector: {
      std::vector<float> v(field.dim);
      for (uint32_t k = 0; k < field.dim; ++k) v[k] = std::bit_cast<float>(base::LoadFixed32(ref.vec + 4 * k));
      return Value(std::move(v));
    }
  }
  return Value();
}

Status DecodeRow(const Schema& schema, std::span<const uint8_t> row, Document* out) {
  std::vector<FieldRef> refs;
  if (!DecodeFields(schema, row, &refs)) return Status::Corruption("row does not decode against its schema");
  out->clear();
  out->reserve(refs.size());
  for (size_t i = 0; i < refs.size(); ++i) out->push_back(FieldToValue(schema.fields[i], refs[i]));
  return Status::OK();
}

void EncodeSchema(const Schema& schema, base::Bytes* out) {
  base::PutVarint(out, schema.fields.size());
  for (const Field& f : schema.fields) {
    base::PutString(out, f.name);
    out->push_back(static_cast<uint8_t>(f.type));
    base::PutVarint(out, f.dim);
    out->push_back(static_cast<uint8_t>((f.unique ? 1 : 0) | (f.text_indexed ? 2 : 0) | (f.hnsw ? 4 : 0)));
    if (f.hnsw) out->push_back(static_cast<uint8_t>(f.metric));  // only then: older catalogs read unchanged
  }
}

bool DecodeSchema(base::ByteReader* in, Schema* out) {
  uint64_t n = in->Varint();
  if (!in->ok() || n > 65536) return false;
  out->fields.clear();
  for (uint64_t i = 0; i < n && in->ok(); ++i) {
    Field f;
    f.name = std::string(in->String());
    uint8_t type = in->Byte();
    if (type < 1 || type > 5) return false;
    f.type = static_cast<FieldType>(type);
    f.dim = static_cast<uint32_t>(in->Varint());
    uint8_t flags = in->Byte();
    f.unique = flags & 1;
    f.text_indexed = flags & 2;
    f.hnsw = flags & 4;
    if (f.hnsw) {
      uint8_t metric = in->Byte();
      if (metric > 2) return false;
      f.metric = static_cast<VectorMetric>(metric);
    }
    out->fields.push_back(std::move(f));
  }
  return in->ok();
}

std::string UniqueKey(FieldType type, const FieldRef& ref) {
  char buf[8];
  switch (type) {
    case FieldType::kText: return std::string(ref.text);
    case FieldType::kInt: std::memcpy(buf, &ref.i, 8); return std::string(buf, 8);
    case FieldType::kFloat: {
      double d = ref.f == 0.0 ? 0.0 : ref.f;  // -0.0 and 0.0 are the same value
      std::memcpy(buf, &d, 8);
      return std::string(buf, 8);
    }
    case FieldType::kBool: return std::string(1, ref.b ? '\1' : '\0');
    case FieldType::kVector: break;
  }
  return {};
}

std::string UniqueKey(const Value& v) {
  FieldRef r;
  r.present = true;
  if (v.is_text()) {
    r.text = v.text();
    return UniqueKey(FieldType::kText, r);
  }
  if (v.is_int()) {
    r.i = v.int_value();
    return UniqueKey(FieldType::kInt, r);
  }
  if (v.is_float()) {
    r.f = v.float_value();
    return UniqueKey(FieldType::kFloat, r);
  }
  if (v.is_bool()) {
    r.b = v.bool_value();
    return UniqueKey(FieldType::kBool, r);
  }
  return {};
}

}  // namespace fenec
