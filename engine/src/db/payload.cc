#include "engine/src/db/payload.h"
#include "engine/src/base/coding.h"

#include "engine/src/db/row.h"

namespace fenec {

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
    case PayloadKind::kDelete: out->first_id = in.Varint(); break;
    case PayloadKind::kDropCollection: break;
    default: return Status::Corruption("journal: unknown record kind " + std::to_string(kind));
  }
  if (!in.ok() || !in.done()) return Status::Corruption("journal: record payload does not parse");
  return Status::OK();
}

}  // namespace fenec
