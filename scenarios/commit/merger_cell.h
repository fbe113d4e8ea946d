// commit-bench's JR-2 cells: durable puts from many writers into a fresh
// fenecdb, completed directly (group commit), by the transaction merger with
// sync completion, or with async completion, on a native or slowed disk.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <fenec/database.h>

#include "engine/src/base/histogram.h"

namespace fenec::scenarios::commit {

// The JR-2 arms: "direct" (Completion::kDirect, the reference), "sync"
// (kMergerSync) and "async" (kMergerAsync).
const std::vector<std::string>& merger_arms();
bool is_merger_arm(const std::string& arm);

// A disk the cells run on: the scratch folder's own, each fdatasync
// delayed by sync_delay_us (SlowSyncEnv; 0: native).
struct Disk {
  std::string name;  // "native", "slow-2ms", "slow-10ms"
  uint32_t sync_delay_us = 0;
};
// Parses "native" or "slow-<N>ms" / "slow-<N>us". Returns false if it is neither.
bool parse_disk(const std::string& name, Disk* out);

// What each put carries, so executing it is cheap or costly next to an fsync:
//   "small"    writer, sequence and a 40..100-byte body; nothing indexed
//              (LandRows costs a few microseconds);
//   "indexed"  also a @unique key and two @text fields of 150 words each: the
//              index work is hundreds of microseconds, what the merger can
//              overlap with the previous commit's fsync (JR-2's mechanism).
const std::vector<std::string>& doc_kinds();
bool is_doc_kind(const std::string& kind);

// The documents a cell puts on a disk, from `docs` (--docs: the count on the
// native disk, either doc kind). Every fsync on a slowed disk costs its
// delay, so a fifth of them on a disk slowed by less than 10 ms and a 25th
// at 10 ms or more (each then takes about twice as long as the native
// disk's cell: at a 50th, 800 docs in quick mode, one slow repetition in
// five widened the 10 ms cell's interval past its line). Never below 400
// (or `docs`, if fewer).
uint64_t merger_docs(uint64_t docs, const Disk& disk);

// How many fresh databases a repetition of a cell splits its docs over,
// each run in turn with the other arms' (arm A's first, B's first, A's
// second, ...), the repetition's figure summing them (add_database). On the
// native disk the merger's sync completion settles into one of two regimes
// for a database's whole life (writers in step, the merger waiting on each
// commit; or out of step, handing off: ~1.5x apart), so one database makes
// a repetition that coin toss (one database a repetition gave async/sync
// intervals like [1.06, 1.82] at 3 repetitions); 16 average it (~[1.35, 1.55]),
// and interleaving them finely cancels the disk's drift. On a slowed disk the
// delay sets the pace and one database a repetition holds steady: 1.
int merger_databases(const Disk& disk);

struct MergerCellConfig {
  std::string arm;         // one of merger_arms()
  Disk disk;
  int writers = 10;
  std::string doc_kind = "small";  // one of doc_kinds()
  uint64_t docs = 100000;  // puts, one document each, shared out among the writers
  double max_seconds = 120;  // the cell stops here even if not every doc was put (MergerCellResult::capped)
  double bucket_seconds = 0.1;  // docs/s over time: one bucket per this long
  std::string dir;         // a folder that does not exist yet; removed afterwards
  uint64_t seed = 0;       // document bodies
};

struct MergerCellResult {
  std::string error;       // non-empty: the cell failed (first failing put, or open)
  uint64_t docs = 0;       // puts acknowledged
  double seconds = 0;      // first put issued to last put acknowledged (add_database: summed)
  bool capped = false;     // stopped by max_seconds
  base::Histogram put_ns; // each put's latency, issued to acknowledged
  // The database's, from just before the puts to just after (add_database:
  // commits, fsyncs, journal_fsyncs and merger_* summed, the rest the last one's).
  Stats stats;
  uint64_t delayed_syncs = 0;  // fdatasyncs SlowSyncEnv delayed
  // Puts acknowledged in each bucket_seconds since the first put
  // (add_database: each database's buckets follow the last one's).
  std::vector<uint64_t> acked_per_bucket;
};

// One fresh database in cfg.dir (created, then removed): cfg.docs puts.
MergerCellResult run_merger_cell(const MergerCellConfig& cfg);
// Adds one database's result to a repetition's: docs, seconds, latencies,
// counts and the time buckets; the first error is kept.
void add_database(MergerCellResult* into, const MergerCellResult& one);

}  // namespace fenec::scenarios::commit
