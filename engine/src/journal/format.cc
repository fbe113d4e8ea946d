#include "engine/src/journal/format.h"
#include "engine/src/base/coding.h"

#define XXH_STATIC_LINKING_ONLY  // XXH3_state_t on the stack: no allocation per record
#include <xxhash.h>

#include <fmt/format.h>

#include <cstdio>
#include <cstring>

namespace fenec::journal {
namespace {

// Over the header from the byte after the magic to the checksum, then the payload.
uint64_t Checksum(const uint8_t* header, size_t header_size, std::span<const uint8_t> payload) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, header + 4, header_size - 12);
  XXH3_64bits_update(&state, payload.data(), payload.size());
  return XXH3_64bits_digest(&state);
}

// Bytes 4..8 of a version-3 commit record, stored and compared as one word:
// the version, its complement, the type, the reserved zero.
constexpr uint32_t kCommitWord = uint32_t{kVersion} | uint32_t{static_cast<uint8_t>(~kVersion)} << 8 |
                                 uint32_t{static_cast<uint8_t>(RecordType::kCommit)} << 16;

Status CheckPayload(std::span<const uint8_t> payload) {
  if (payload.size() > kMaxPayload)
    return Status::TooLarge(fmt::format("a journal record of {} bytes is over limits::kMaxCommitBytes ({} bytes)",
                                        payload.size(), kMaxPayload));
  return Status::OK();
}

}  // namespace

const char* RecordTypeName(RecordType t) {
  switch (t) {
    case RecordType::kCommit: return "commit";
  }
  return "?";
}

Status AppendRecord(std::vector<uint8_t>* out, uint64_t storage_id, uint64_t lsn, std::span<const uint8_t> payload,
                    uint64_t synced) {
  if (Status s = CheckPayload(payload); !s.ok()) return s;
  size_t at = out->size();
  out->resize(at + kHeaderSize + payload.size());
  uint8_t* h = out->data() + at;
  base::StoreFixed32(h, kMagic);
  base::StoreFixed32(h + kVersionOffset, kCommitWord);
  base::StoreFixed32(h + kLengthOffset, static_cast<uint32_t>(payload.size()));
  base::StoreFixed64(h + 12, storage_id);
  base::StoreFixed64(h + 20, lsn);
  base::StoreFixed64(h + 28, synced);
  if (!payload.empty()) std::memcpy(h + kHeaderSize, payload.data(), payload.size());
  base::StoreFixed64(h + 36, Checksum(h, kHeaderSize, payload));
  return Status::OK();
}

Status AppendRecordV2(std::vector<uint8_t>* out, uint64_t storage_id, uint64_t lsn, std::span<const uint8_t> payload,
                      uint64_t synced) {
  if (Status s = CheckPayload(payload); !s.ok()) return s;
  size_t at = out->size();
  out->resize(at + kHeaderSizeV2 + payload.size());
  uint8_t* h = out->data() + at;
  base::StoreFixed32(h, kMagicV2);
  base::StoreFixed32(h + 4, static_cast<uint32_t>(payload.size()));
  base::StoreFixed64(h + 8, storage_id);
  base::StoreFixed64(h + 16, lsn);
  base::StoreFixed64(h + 24, synced);
  if (!payload.empty()) std::memcpy(h + kHeaderSizeV2, payload.data(), payload.size());
  base::StoreFixed64(h + 32, Checksum(h, kHeaderSizeV2, payload));
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
    case ReadResult::kUnknownVersion: return "unknown format version";
    case ReadResult::kUnknownType: return "unknown record type";
  }
  return "?";
}

ReadResult ParseRecord(std::span<const uint8_t> data, uint64_t storage_id, RecordHeader* header,
                       std::span<const uint8_t>* payload) {
  if (data.empty()) return ReadResult::kEnd;
  const uint8_t* h = data.data();
  if (data.size() < 4) return ReadResult::kTornHeader;
  const uint32_t magic = base::LoadFixed32(h);
  // Where each field sits, by version: v1 and v2 are told by their magic,
  // later ones by the byte after it.
  size_t fields = 4;  // offset of the length
  if (magic == kMagic) {
    if (data.size() >= kHeaderSize && base::LoadFixed32(h + kVersionOffset) == kCommitWord) {
      header->version = kVersion;  // the common case: today's commit record, whole
      header->type = RecordType::kCommit;
    } else {
      if (data.size() < kVersionOffset + 2) return ReadResult::kTornHeader;
      const uint8_t version = h[kVersionOffset], check = h[kVersionOffset + 1];
      // Both zero: the header's first bytes landed and the rest did not (a
      // sector boundary inside it). A version without its complement is
      // damage; 1 and 2 are never written under this magic.
      if (version == 0 && check == 0) return ReadResult::kTornHeader;
      if (check != static_cast<uint8_t>(~version) || version < kVersion) return ReadResult::kBadMagic;
      header->version = version;
      if (version > kVersion) return ReadResult::kUnknownVersion;
      if (data.size() < kHeaderSize) return ReadResult::kTornHeader;
      header->type = static_cast<RecordType>(h[kVersionOffset + 2]);
    }
    header->header_size = kHeaderSize;
    fields = kLengthOffset;
  } else if (magic == kMagicV2) {
    header->version = 2;
    header->type = RecordType::kCommit;
    header->header_size = kHeaderSizeV2;
  } else if (magic == kMagicV1) {
    header->version = 1;
    header->type = RecordType::kCommit;
    header->header_size = kHeaderSizeV1;
  } else {
    return ReadResult::kBadMagic;
  }
  if (data.size() < header->header_size) return ReadResult::kTornHeader;
  header->length = base::LoadFixed32(h + fields);
  header->storage_id = base::LoadFixed64(h + fields + 4);
  header->lsn = base::LoadFixed64(h + fields + 12);
  header->synced = header->version == 1 ? 0 : base::LoadFixed64(h + fields + 20);
  header->checksum = base::LoadFixed64(h + header->header_size - 8);
  if (header->length > kMaxPayload) return ReadResult::kBadLength;
  if (data.size() - header->header_size < header->length) return ReadResult::kTornPayload;
  *payload = data.subspan(header->header_size, header->length);
  // The checksum is checked before the storage id: a garbled id is corruption, not a foreign record.
  if (Checksum(h, header->header_size, *payload) != header->checksum) return ReadResult::kBadChecksum;
  // A checksummed record of a type this build does not know was written by
  // a newer one, whoever's it is: refused, not stepped over.
  if (const uint8_t type = static_cast<uint8_t>(header->type); type == 0 || type > kMaxRecordType)
    return ReadResult::kUnknownType;
  if (header->storage_id != storage_id) return ReadResult::kWrongStorage;
  return ReadResult::kOk;
}

std::string UnsupportedRecordMessage(ReadResult r, const RecordHeader& h, const std::string& file, uint64_t offset) {
  if (r == ReadResult::kUnknownType)
    return fmt::format("journal record at byte {} of {} has record type {}, which this build does not know (it "
                       "knows types 1 to {} in format version {}): written by a newer fenec; open the folder with "
                       "that version, nothing was changed",
                       offset, file, static_cast<unsigned>(h.type), kMaxRecordType, kVersion);
  return fmt::format("journal record at byte {} of {} has format version {}; this build reads versions {} to {}: "
                     "written by a newer fenec; open the folder with that version, nothing was changed",
                     offset, file, static_cast<unsigned>(h.version), kOldestVersion, kVersion);
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
