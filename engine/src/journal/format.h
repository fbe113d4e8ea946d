// The journal record format (written down in engine/doc/journal.md).
//
// A record is a 40-byte header and a payload:
//   u32 magic  u32 length  u64 storage_id  u64 lsn  u64 synced  u64 checksum
// all little-endian; checksum = XXH3-64 over header bytes [4, 32) then the
// payload. `synced`: every record of the storage up to that LSN was
// fdatasync'ed before this one was appended, so recovery can tell a record
// it cannot read that was durable (acknowledged) from a torn tail
// (reader.h). Files written before it have 32-byte headers (magic "FEJR",
// no synced field); the reader takes both. A journal file is records back
// to back from offset 0, its name the first record's LSN
// (`%020llu.journal`), LSNs consecutive.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fenec/limits.h"
#include "fenec/status.h"

namespace fenec::journal {

inline constexpr uint32_t kMagic = 0x534a4546;    // "FEJS": a record with a synced field (written)
inline constexpr uint32_t kMagicV1 = 0x524a4546;  // "FEJR": the 32-byte header of older files (read only)
inline constexpr size_t kHeaderSize = 40;
inline constexpr size_t kHeaderSizeV1 = 32;
inline constexpr uint32_t kMaxPayload = limits::kMaxCommitBytes;  // a longer length is corruption, not a record
static_assert(limits::kMaxCommitBytes <= UINT32_MAX, "the length field is 32 bits");

struct RecordHeader {
  uint32_t length = 0;
  uint64_t storage_id = 0;
  uint64_t lsn = 0;
  uint64_t synced = 0;      // 0 in a v1 record: nothing known
  uint64_t checksum = 0;
  uint32_t header_size = kHeaderSize;  // the record is header_size + length bytes
  bool v1 = false;
};

// Appends header + payload to out. synced: the storage's LSN through which
// every record was fdatasync'ed when this one is appended. Fails: kTooLarge
// (payload over kMaxPayload; nothing appended: recovery would refuse it).
Status AppendRecord(std::vector<uint8_t>* out, uint64_t storage_id, uint64_t lsn, std::span<const uint8_t> payload,
                    uint64_t synced = 0);

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
