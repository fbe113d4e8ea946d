#include "engine/src/journal/format.h"
#include "engine/src/base/coding.h"

#define XXH_STATIC_LINKING_ONLY  // XXH3_state_t on the stack: no allocation per record
#include <xxhash.h>

#include <cstdio>
#include <cstring>

namespace fenec::journal {
namespace {

uint64_t Checksum(const uint8_t* header, std::span<const uint8_t> payload) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, header + 4, 20);
  XXH3_64bits_update(&state, payload.data(), payload.size());
  return XXH3_64bits_digest(&state);
}

}  // namespace

void AppendRecord(std::vector<uint8_t>* out, uint64_t storage_id, uint64_t lsn, std::span<const uint8_t> payload) {
  size_t at = out->size();
  out->resize(at + kHeaderSize + payload.size());
  uint8_t* h = out->data() + at;
  base::StoreFixed32(h, kMagic);
  base::StoreFixed32(h + 4, static_cast<uint32_t>(payload.size()));
  base::StoreFixed64(h + 8, storage_id);
  base::StoreFixed64(h + 16, lsn);
  if (!payload.empty()) std::memcpy(h + kHeaderSize, payload.data(), payload.size());
  base::StoreFixed64(h + 24, Checksum(h, payload));
}

const char* ReadResultName(ReadResult r) {
  switch (r) {
    case ReadResult::kOk: return "ok";
    case ReadResult::kEnd: return "end";
    case ReadResult::kTornHeader: return "torn header";
    case ReadResult::kTornPayload: return "torn payload";
    case ReadResult::kBadMagic: return "bad magic";
    case ReadResult::kBadLength: return "bad length";
    case ReadResult::kBadChecksum: return "bad checksum";
    case ReadResult::kWrongStorage: return "wrong storage id";
  }
  return "?";
}

ReadResult ParseRecord(std::span<const uint8_t> data, uint64_t storage_id, RecordHeader* header,
                       std::span<const uint8_t>* payload) {
  if (data.empty()) return ReadResult::kEnd;
  if (data.size() < kHeaderSize) return ReadResult::kTornHeader;
  const uint8_t* h = data.data();
  if (base::LoadFixed32(h) != kMagic) return ReadResult::kBadMagic;
  header->length = base::LoadFixed32(h + 4);
  header->storage_id = base::LoadFixed64(h + 8);
  header->lsn = base::LoadFixed64(h + 16);
  header->checksum = base::LoadFixed64(h + 24);
  if (header->length > kMaxPayload) return ReadResult::kBadLength;
  if (data.size() - kHeaderSize < header->length) return ReadResult::kTornPayload;
  *payload = data.subspan(kHeaderSize, header->length);
  // The checksum is checked before the storage id: a garbled id is corruption, not a foreign record.
  if (Checksum(h, *payload) != header->checksum) return ReadResult::kBadChecksum;
  if (header->storage_id != storage_id) return ReadResult::kWrongStorage;
  return ReadResult::kOk;
}

std::string JournalFileName(uint64_t first_lsn) {
  char name[48];
  std::snprintf(name, sizeof(name), "%020llu.journal", static_cast<unsigned long long>(first_lsn));
  return name;
}

bool ParseJournalFileName(const std::string& name, uint64_t* first_lsn) {
  if (name.size() != 28 || name.compare(20, 8, ".journal") != 0) return false;
  uint64_t v = 0;
  for (int i = 0; i < 20; ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
    v = v * 10 + static_cast<uint64_t>(name[i] - '0');
  }
  *first_lsn = v;
  return true;
}

}  // namespace fenec::journal
