// Journal payloads of fenecdb's commits (format in engine/doc/journal.md).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/src/base/coding.h"
#include "fenec/schema.h"

namespace fenec {

enum class PayloadKind : uint8_t { kCreateCollection = 1, kPutRows = 2, kDelete = 3, kDropCollection = 4 };

void EncodeCreate(uint32_t collection, const std::string& name, const Schema& schema, base::Bytes* out);
// Row bodies are appended by the caller after this header, each as varint length + bytes.
void EncodePutHeader(uint32_t collection, uint64_t first_id, uint64_t count, base::Bytes* out);
void EncodeDelete(uint32_t collection, uint64_t id, base::Bytes* out);
void EncodeDrop(uint32_t collection, base::Bytes* out);

struct DecodedPayload {
  PayloadKind kind{};
  uint32_t collection = 0;
  std::string name;                            // create
  Schema schema;                               // create
  uint64_t first_id = 0;                       // put: ids first_id.. ; delete: the id
  std::vector<std::span<const uint8_t>> rows;  // put: views into the payload
};

// kCorruption on a payload that does not parse.
Status DecodePayload(std::span<const uint8_t> payload, DecodedPayload* out);

}  // namespace fenec
