// Journal payloads of fenecdb's commits (format in engine/doc/journal.md).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/src/base/coding.h"
#include "fenec/schema.h"
#include "fenec/value.h"

namespace fenec {

enum class PayloadKind : uint8_t {
  kCreateCollection = 1,
  kPutRows = 2,
  kDelete = 3,
  kDropCollection = 4,
  kReserveIds = 5,  // ids below `end` may have been acknowledged (DbImpl::ReserveIds)
};

void EncodeCreate(uint32_t collection, const std::string& name, const Schema& schema, base::Bytes* out);
// Row bodies are appended by the caller after this header, each as varint length + bytes.
void EncodePutHeader(uint32_t collection, uint64_t first_id, uint64_t count, base::Bytes* out);
void EncodeDelete(uint32_t collection, uint64_t id, base::Bytes* out);
void EncodeDrop(uint32_t collection, base::Bytes* out);
void EncodeReserveIds(uint32_t collection, uint64_t end, base::Bytes* out);

struct DecodedPayload {
  PayloadKind kind{};
  uint32_t collection = 0;
  std::string name;                            // create
  Schema schema;                               // create
  uint64_t first_id = 0;                       // put: ids first_id.. ; delete: the id; reserve: end
  std::vector<std::span<const uint8_t>> rows;  // put: views into the payload
};

// Sizes, so a commit is measured before anything is taken or built for it.
size_t VarintSize(uint64_t v);
// The bytes EncodeRow (row.h) appends for doc (which Schema::Check passed).
size_t EncodedRowSize(const Schema& schema, const Document& doc);
// A put record's payload: EncodePutHeader's bytes plus rows_bytes (each row
// as varint length + bytes).
uint64_t PutPayloadSize(uint32_t collection, uint64_t first_id, uint64_t count, uint64_t rows_bytes);
// The kTooLarge of a commit whose record would be `bytes` (> limit):
// "<what>'s journal record would be N bytes, over the commit limit of M bytes (...)".
Status CommitTooLarge(const std::string& what, uint64_t bytes, uint64_t limit);

// kCorruption on a payload that does not parse.
Status DecodePayload(std::span<const uint8_t> payload, DecodedPayload* out);

}  // namespace fenec
