// Row encoding: how a document is stored (data file, write buffers, journal).
//
//   null bitmap: ceil(fields / 8) bytes, bit i set = field i present
//   then each present field, in schema order:
//     int    8 bytes, two's complement, little-endian
//     float  8 bytes, IEEE double bits (an int given for a float is converted)
//     bool   1 byte (0 / 1)
//     text   varint length + bytes
//     vector dim x 4 bytes, IEEE float bits
// Deterministic: the same document always encodes to the same bytes, so a
// batch built outside the lock lands byte for byte as one built under it (CC-3).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "engine/src/base/coding.h"
#include "fenec/schema.h"
#include "fenec/value.h"

namespace fenec {

// One field of an encoded row, pointing into the row's bytes.
struct FieldRef {
  bool present = false;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string_view text;
  const uint8_t* vec = nullptr;  // dim floats, unaligned
};

// Appends doc's encoding. doc must have passed Schema::Check.
void EncodeRow(const Schema& schema, const Document& doc, base::Bytes* out);
// Decodes every field into out (resized to the field count). False on malformed bytes.
bool DecodeFields(const Schema& schema, std::span<const uint8_t> row, std::vector<FieldRef>* out);
// Materializes a document. kCorruption on malformed bytes.
Status DecodeRow(const Schema& schema, std::span<const uint8_t> row, Document* out);
Value FieldToValue(const Field& field, const FieldRef& ref);

// Schema <-> bytes (journal create records and the catalog).
void EncodeSchema(const Schema& schema, base::Bytes* out);
bool DecodeSchema(base::ByteReader* in, Schema* out);

// The bytes a @unique index keys a value by (one index per field, so no type tag).
std::string UniqueKey(FieldType type, const FieldRef& ref);
std::string UniqueKey(const Value& v);

}  // namespace fenec
