// Journal recovery: replay every complete record, stop at a torn or corrupt tail.
//
// Invariants the writer keeps and recovery relies on:
//  - LSNs are consecutive across all files of a storage; a file's name is its
//    first record's LSN.
//  - A file is written only at its end, and the next file is created only
//    after the previous one is fdatasync'ed up to its last record. So a bad
//    record can only be followed, in its file, by bytes never acknowledged,
//    and the next file (if any) starts exactly at the last good LSN + 1.
// A shared journal file (JR-1) also holds other storages' records; they are
// skipped, so a storage's recovery reads exactly what it reads from a file
// of its own. Its name in this storage's Journals/ is this storage's first
// LSN in it (a hard link may have another name elsewhere).
// A run of zeros to a file's end ends it cleanly: a writer that zeroes
// ahead (writer.h) leaves one behind its last record.
// Recovery therefore reads each file up to its first bad record, then goes
// on to the next file only if that one starts at the next LSN; anything
// else ends recovery there (a gap means records are missing: replaying
// past it would apply later commits without earlier ones).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "fenec/env.h"
#include "engine/src/journal/format.h"

namespace fenec::journal {

struct JournalFile {
  std::string path;
  uint64_t first_lsn = 0;
};

// The journal files in dir, by first LSN. Other names are ignored.
// Fails: kIOError (listing).
Status ListJournalFiles(Env* env, const std::string& dir, std::vector<JournalFile>* files);

struct ReplayResult {
  uint64_t last_lsn = 0;        // last LSN replayed (or after_lsn if none)
  uint64_t records = 0;         // records applied (LSN > after_lsn)
  uint64_t skipped = 0;         // complete records at or before after_lsn
  uint64_t discarded_bytes = 0; // bytes past the stopping point, in every file read
  uint64_t zeroed_bytes = 0;    // zeros ending a file (written ahead, writer.h): not discarded
  std::string stop;             // why reading ended: "end", "torn payload in <file> at <offset>", ...
};

using ApplyFn = std::function<Status(uint64_t lsn, std::span<const uint8_t> payload)>;

// Replays, in LSN order, every record with LSN > after_lsn through apply.
// An error from apply stops replay and is returned. Fails: kIOError
// (reading), kCorruption (the first record after after_lsn is missing: the
// journals do not reach back to the checkpoint), or what apply returned.
Status ReplayJournals(Env* env, const std::string& dir, uint64_t storage_id, uint64_t after_lsn, const ApplyFn& apply,
                      ReplayResult* result);

}  // namespace fenec::journal
