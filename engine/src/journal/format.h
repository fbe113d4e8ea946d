// The journal record format (written down in engine/doc/journal.md).
//
// A record is a 32-byte header and a payload:
//   u32 magic  u32 length  u64 storage_id  u64 lsn  u64 checksum
// all little-endian; checksum = XXH3-64 over header bytes [4, 24) then the
// payload. A journal file is records back to back from offset 0, its name
// the first record's LSN (`%020llu.journal`), LSNs consecutive.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fenec/limits.h"

namespace fenec::journal {

inline constexpr uint32_t kMagic = 0x524a4546;  // "FEJR"
inline constexpr size_t kHeaderSize = 32;
inline constexpr uint32_t kMaxPayload = limits::kMaxCommitBytes;  // a longer length is corruption, not a record

struct RecordHeader {
  uint32_t length = 0;
  uint64_t storage_id = 0;
  uint64_t lsn = 0;
  uint64_t checksum = 0;
};

// Appends header + payload to out.
void AppendRecord(std::vector<uint8_t>* out, uint64_t storage_id, uint64_t lsn, std::span<const uint8_t> payload);

// Why reading stopped (or kOk: a record was read).
enum class ReadResult { kOk, kEnd, kTornHeader, kTornPayload, kBadMagic, kBadLength, kBadChecksum, kWrongStorage };
const char* ReadResultName(ReadResult r);

// Parses one record at data[0..]. On kOk fills header and payload (a view into data).
ReadResult ParseRecord(std::span<const uint8_t> data, uint64_t storage_id, RecordHeader* header,
                       std::span<const uint8_t>* payload);

std::string JournalFileName(uint64_t first_lsn);
// Parses "%020llu.journal"; false for any other name.
bool ParseJournalFileName(const std::string& name, uint64_t* first_lsn);

}  // namespace fenec::journal
