#include "engine/src/journal/format.h"
#include "engine/src/base/coding.h"

#define XXH_STATIC_LINKING_ONLY  // XXH3_state_t on the stack: no allocation per record
#include <xxhash.h>

#include <fmt/format.h>

#include <cstdio>
#include <cstring>

namespace fenec::journal {
namespace {

// Over the header from the length to the checksum, then the payload.
uint64_t Checksum(const uint8_t* header, size_t header_size, std::span<const uint8_t> payload) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, header + 4, header_size - 12);
  XXH3_64bits_update(&state, payload.data(), payload.size());
  return XXH3_64bits_digest(&state);
}

}  // namespace

Status AppendRecord(std::vector<uint8_t>* out, uint64_t storage_id, uint64_t lsn, std::span<const uint8_t> payload,
                    uint64_t synced) {
  if (payload.size() > kMaxPayload)
    return Status::TooLarge(fmt::format("a journal record of {} bytes is over limits::kMaxCommitBytes ({} bytes)",
                                        payload.size(), kMaxPayload));
  size_t at = out->size();
  out->resize(at + kHeaderSize + payload.size());
  uint8_t* h = out->data() + at;
  base::StoreFixed32(h, kMagic);
  base::StoreFixed32(h + 4, static_cast<uint32_t>(payload.size()));
  base::StoreFixed64(h + 8, storage_id);
  base::StoreFixed64(h + 16, lsn);
  base::StoreFixed64(h + 24, synced);
  if (!payload.empty()) std::memcpy(h + kHeaderSize, payload.data(), payload.size());
  base::StoreFixed64(h + 32, Checksum(h, kHeaderSize, payload));
  return Status::OK();
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
  const uint8_t* h = data.data();
  if (data.size() < 4) return ReadResult::kTornHeader;
  const uint32_t magic = base::LoadFixed32(h);
  if (magic != kMagic && magic != kMagicV1) return ReadResult::kBadMagic;
  header->v1 = magic == kMagicV1;
  header->header_size = header->v1 ? kHeaderSizeV1 : kHeaderSize;
  if (data.size() < header->header_size) return ReadResult::kTornHeader;
  header->length = base::LoadFixed32(h + 4);
  header->storage_id = base::LoadFixed64(h + 8);
  header->lsn = base::LoadFixed64(h + 16);
  header->synced = header->v1 ? 0 : base::LoadFixed64(h + 24);
  header->checksum = base::LoadFixed64(h + header->header_size - 8);
  if (header->length > kMaxPayload) return ReadResult::kBadLength;
  if (data.size() - header->header_size < header->length) return ReadResult::kTornPayload;
  *payload = data.subspan(header->header_size, header->length);
  // The checksum is checked before the storage id: a garbled id is corruption, not a foreign record.
  if (Checksum(h, header->header_size, *payload) != header->checksum) return ReadResult::kBadChecksum;
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
