// Journal recovery: replay every complete record; a torn tail is the end,
// a record that is unreadable although it was durable is corruption.
//
// Invariants the writer keeps and recovery relies on:
//  - LSNs are consecutive across all files of a storage; a file's name is its
//    first record's LSN.
//  - A file is written only at its end, and the next file is created only
//    after the previous one is fdatasync'ed up to its last record. So a
//    later file that starts past the LSN recovery needs proves that LSN was
//    durable (it is missing or unreadable, not torn).
//  - Each record says through which LSN its storage was fdatasync'ed when
//    it was appended (format.h, `synced`). A record recovery cannot read
//    can be followed by intact records that were never synced (a power cut
//    keeps sectors of an unsynced write in any order), so only a later
//    record whose synced field reaches the needed LSN proves loss.
// A shared journal file (JR-1) also holds other storages' records; they are
// skipped, so a storage's recovery reads exactly what it reads from a file
// of its own. Its name in this storage's Journals/ is this storage's first
// LSN in it (a hard link may have another name elsewhere).
// A run of zeros to a file's end ends it cleanly: a writer that zeroes
// ahead (writer.h) leaves one behind its last record.
//
// Policy (RecoveryMode, fenec/options.h). Files are read in LSN order up to
// the first bad point: a record that does not parse, an LSN out of order,
// or a gap before the next file. A later file that starts at or before the
// needed LSN resumes replay (the bad point was a crashed session's tail;
// the next session started there). Otherwise the rest is scanned for proof
// of loss (above). Without proof, the rest is a torn tail: discarded,
// counted, and the open goes on. With proof, kTolerateTornTail fails with
// kCorruption naming the file and byte offset; kPointInTime stops there,
// reports what it dropped, and names the files to set aside.
// Old files (v1 records, no synced field) prove loss by any later record
// of the storage past the needed LSN. A record of a newer format version or
// an unknown type (format.h) is no bad point: the replay fails with
// kNotSupported naming it, in every mode, and nothing is dropped.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "fenec/env.h"
#include "fenec/options.h"
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
  // Where replay stopped short of the journal's end, if it did; what follows it.
  bool stopped = false;
  std::string bad_file;         // the file holding the bad point (a gap: the file after it)
  uint64_t bad_offset = 0;      // its byte offset there
  uint64_t need_lsn = 0;        // the first LSN not replayed
  uint64_t records_after = 0;   // this storage's intact records after the bad point (LSN >= need_lsn)
  uint64_t bytes_after = 0;     // bytes from the bad point on, in every file, but zeros ending a file
  bool lost = false;            // proof that need_lsn was durable: acknowledged commits unreadable
  // kPointInTime with lost: the records dropped (records_after), and the
  // files the caller renames aside (SetAsideDropped) once a checkpoint holds
  // what was replayed.
  std::vector<std::string> set_aside;
};

// What a folder's journal is in: clean, a torn tail (bytes discarded after
// the last good record), or lost (mid-log corruption).
enum class JournalState { kClean, kTornTail, kLost };
JournalState StateOf(const ReplayResult& r);
const char* JournalStateName(JournalState s);

using ApplyFn = std::function<Status(uint64_t lsn, std::span<const uint8_t> payload)>;

// Replays, in LSN order, every record with LSN > after_lsn through apply,
// by the policy above. An error from apply stops replay and is returned.
// Fails: kIOError (reading), kCorruption (the first record after after_lsn
// is missing: the journals do not reach back to the checkpoint; or, in
// kTolerateTornTail, a lost record: the message names the file and byte
// offset, result says what follows), kNotSupported (a record of a newer
// format version or record type: the message names it, the file and the
// offset, and the versions this build reads), or what apply returned.
Status ReplayJournals(Env* env, const std::string& dir, uint64_t storage_id, uint64_t after_lsn, const ApplyFn& apply,
                      ReplayResult* result, RecoveryMode mode = RecoveryMode::kTolerateTornTail);

// Renames each file to <path>.dropped (ListJournalFiles ignores it), then
// syncs the folder. Fails: kIOError.
Status SetAsideDropped(Env* env, const std::string& dir, const std::vector<std::string>& files);

}  // namespace fenec::journal
