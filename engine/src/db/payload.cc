#include "engine/src/db/payload.h"
#include "engine/src/base/coding.h"

#include <fmt/format.h>

#include "engine/src/db/row.h"
#include "fenec/limits.h"

namespace fenec {

// A create record is bounded by Schema::Validate and CheckName (names, fields
// and dims within fenec/limits.h), so it always fits the journal: no create
// can be refused by recovery. Varints: 2 bytes a name length, 3 a dim or count.
inline constexpr uint64_t kMaxCreateRecordBytes =
    1 + 5 + (2 + limits::kMaxNameBytes) + 3 + uint64_t{limits::kMaxFields} * ((2 + limits::kMaxNameBytes) + 1 + 3 + 1 + 1);
static_assert(kMaxCreateRecordBytes <= limits::kMaxCommitBytes);

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

size_t EncodedRowSize(const Schema& schema, const Document& doc) {
  const size_t n = schema.fields.size();
  size_t bytes = (n + 7) / 8;
  for (size_t i = 0; i < n; ++i) {
    const Value& v = doc[i];
    if (v.is_null()) continue;
    switch (schema.fields[i].type) {
      case FieldType::kInt:
      case FieldType::kFloat: bytes += 8; break;
      case FieldType::kBool: bytes += 1; break;
      case FieldType::kText: bytes += VarintSize(v.text().size()) + v.text().size(); break;
      case FieldType::kVector: bytes += 4 * v.vector().size(); break;
    }
  }
  return bytes;
}

uint64_t PutPayloadSize(uint32_t collection, uint64_t first_id, uint64_t count, uint64_t rows_bytes) {
  return 1 + VarintSize(collection) + VarintSize(first_id) + VarintSize(count) + rows_bytes;
}

Status CommitTooLarge(const std::string& what, uint64_t bytes, uint64_t limit) {
  return Status::TooLarge(fmt::format("{}'s journal record would be {} bytes, over the commit limit of {} bytes "
                                      "(Options::max_commit_bytes; at most limits::kMaxCommitBytes, {})",
                                      what, bytes, limit, limits::kMaxCommitBytes));
}

void EncodeCreate(uint32_t collection, const std::string& name, const Schema& schema, base::Bytes* out) {
  out->push_back(static_cast<uint8_t>(PayloadKind::kCreateCollection));
  base::PutVarint(out, collection);
  base::PutString(out, name);
  EncodeSchema(schema, out);
}

void EncodePutHeader(uint32_t collection, uint64_t first_id, uint64_t count, base::Bytes* out) {
  out->push_back(static_cast<uint8_t>(PayloadKind::kPutRows));
  base::PutVarint(out, collection);
  base::PutVarint(out, first_id);
  base::PutVarint(out, count);
}

void EncodeDelete(uint32_t collection, uint64_t id, base::Bytes* out) {
  out->push_back(static_cast<uint8_t>(PayloadKind::kDelete));
  base::PutVarint(out, collection);
  base::PutVarint(out, id);
}

void EncodeDrop(uint32_t collection, base::Bytes* out) {
  out->push_back(static_cast<uint8_t>(PayloadKind::kDropCollection));
  base::PutVarint(out, collection);
}

void EncodeReserveIds(uint32_t collection, uint64_t end, base::Bytes* out) {
  out->push_back(static_cast<uint8_t>(PayloadKind::kReserveIds));
  base::PutVarint(out, collection);
  base::PutVarint(out, end);
}

Status DecodePayload(std::span<const uint8_t> payload, DecodedPayload* out) {
  base::ByteReader in(payload);
  uint8_t kind = in.Byte();
  out->kind = static_cast<PayloadKind>(kind);
  const uint64_t collection = in.Varint();
  if (collection > UINT32_MAX) return Status::Corruption("journal: bad collection id");
  out->collection = static_cast<uint32_t>(collection);
  out->rows.clear();
  switch (out->kind) {
    case PayloadKind::kCreateCollection:
      out->name = std::string(in.String());
      if (!DecodeSchema(&in, &out->schema)) return Status::Corruption("journal: bad schema in create record");
      break;
    case PayloadKind::kPutRows: {
      out->first_id = in.Varint();
      uint64_t count = in.Varint();
      if (!in.ok() || count > payload.size()) return Status::Corruption("journal: bad row count");
      out->rows.reserve(count);
      for (uint64_t i = 0; i < count && in.ok(); ++i) out->rows.push_back(in.Take(in.Varint()));
      break;
    }
    case PayloadKind::kDelete:
    case PayloadKind::kReserveIds: out->first_id = in.Varint(); break;
    case PayloadKind::kDropCollection: break;
    default: return Status::Corruption("journal: unknown record kind " + std::to_string(kind));
  }
  if (!in.ok() || !in.done()) return Status::Corruption("journal: record payload does not parse");
  return Status::OK();
}

}  // namespace fenec
