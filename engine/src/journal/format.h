// The journal record format (written down in engine/doc/journal.md).
//
// A record is a 44-byte header and a payload:
//   u32 magic "FEJV"  u8 version  u8 ~version  u8 type  u8 reserved
//   u32 length  u64 storage_id  u64 lsn  u64 synced  u64 checksum
// all little-endian; checksum = XXH3-64 over header bytes [4, 36) then the
// payload. `synced`: every record of the storage up to that LSN was
// fdatasync'ed before this one was appended, so recovery can tell a record
// it cannot read that was durable (acknowledged) from a torn tail
// (reader.h). The version byte and its complement sit right after the
// magic in every version to come, so a record of a later format is
// recognised and refused (kUnknownVersion), never misread nor taken for a
// torn tail; the complement (checked before the checksum, whose span a
// later version may change) tells a damaged version byte from a newer one.
//
// Older files, still read: version 2 ("FEJS", 40 bytes, no version or type
// byte) and version 1 ("FEJR", 32 bytes, no synced field either); their
// magic is their version and every record of theirs is a commit. A journal
// file is records back to back from offset 0, its name the first record's
// LSN (`%020llu.journal`), LSNs consecutive.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fenec/limits.h"
#include "fenec/status.h"

namespace fenec::journal {

inline constexpr uint32_t kMagic = 0x564a4546;    // "FEJV": a versioned record (written)
inline constexpr uint32_t kMagicV2 = 0x534a4546;  // "FEJS": version 2, unversioned 40-byte header (read only)
inline constexpr uint32_t kMagicV1 = 0x524a4546;  // "FEJR": version 1, 32-byte header (read only)
inline constexpr uint8_t kVersion = 3;            // the version written, and the newest this build reads
inline constexpr uint8_t kOldestVersion = 1;
inline constexpr size_t kHeaderSize = 44;
inline constexpr size_t kVersionOffset = 4;  // version, then its complement, then the type
inline constexpr size_t kLengthOffset = 8;   // of a version-3 header
inline constexpr size_t kHeaderSizeV2 = 40;
inline constexpr size_t kHeaderSizeV1 = 32;
inline constexpr uint32_t kMaxPayload = limits::kMaxCommitBytes;  // a longer length is corruption, not a record
static_assert(limits::kMaxCommitBytes <= UINT32_MAX, "the length field is 32 bits");

// What a record is. 0 is never a type: zeros are a file's clean end.
enum class RecordType : uint8_t {
  kCommit = 1,  // a commit's payload, applied by replay (every v1 and v2 record is one)
};
inline constexpr uint8_t kMaxRecordType = 1;
const char* RecordTypeName(RecordType t);

struct RecordHeader {
  uint8_t version = kVersion;
  RecordType type = RecordType::kCommit;
  uint32_t length = 0;
  uint64_t storage_id = 0;
  uint64_t lsn = 0;
  uint64_t synced = 0;      // 0 in a v1 record: nothing known
  uint64_t checksum = 0;
  uint32_t header_size = kHeaderSize;  // the record is header_size + length bytes
};

// Appends header + payload to out, as a version-3 commit record. synced:
// the storage's LSN through which every record was fdatasync'ed when this
// one is appended. Fails: kTooLarge (payload over kMaxPayload; nothing
// appended: recovery would refuse it).
Status AppendRecord(std::vector<uint8_t>* out, uint64_t storage_id, uint64_t lsn, std::span<const uint8_t> payload,
                    uint64_t synced = 0);
// The same record in version 2's layout ("FEJS"), as folders written before
// versioned records hold them: for the tests that read such folders.
Status AppendRecordV2(std::vector<uint8_t>* out, uint64_t storage_id, uint64_t lsn, std::span<const uint8_t> payload,
                      uint64_t synced = 0);

// Why reading stopped (or kOk: a record was read). kUnknownVersion and
// kUnknownType are records this build cannot read, not damage: recovery
// refuses the folder (kNotSupported) rather than drop them.
enum class ReadResult {
  kOk, kEnd, kTornHeader, kTornPayload, kBadMagic, kBadLength, kBadChecksum, kWrongStorage,
  kUnknownVersion, kUnknownType,
};
const char* ReadResultName(ReadResult r);

// Parses one record at data[0..]. On kOk fills header and payload (a view
// into data); on kUnknownVersion header->version, on kUnknownType
// header->type say which.
ReadResult ParseRecord(std::span<const uint8_t> data, uint64_t storage_id, RecordHeader* header,
                       std::span<const uint8_t>* payload);

// For a record ParseRecord found unreadable by this build (kUnknownVersion,
// kUnknownType) at `offset` of `file`: what it is, what this build reads,
// and what to do.
std::string UnsupportedRecordMessage(ReadResult r, const RecordHeader& h, const std::string& file, uint64_t offset);

std::string JournalFileName(uint64_t first_lsn);
// Parses "%020llu.journal"; false for any other name.
bool ParseJournalFileName(const std::string& name, uint64_t* first_lsn);

}  // namespace fenec::journal
