// pg_test_fsync's question in one table: which way of making a write durable
// is fastest on this disk. Each op rewrites the start of a prefilled 16 MiB
// file (as a WAL segment is rewritten), so only the sync method differs:
//   - open_datasync (O_DSYNC), fdatasync, fsync, open_sync (O_SYNC) at one and
//     two 8 KiB writes per op, each with and without O_DIRECT (pg_test_fsync
//     always adds O_DIRECT where it can; open_datasync + O_DIRECT is
//     O_DIRECT|O_DSYNC);
//   - 16 KiB per op written with open_sync as 1x16k, 2x8k, 4x4k, 8x2k, 16x1k;
//   - whether an fsync through another descriptor of the file is honoured;
//   - plain 8 KiB writes, for scale.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/src/base/histogram.h"
#include "iobench/src/files.h"
#include "iobench/src/probe.h"
#include "iobench/kit/interrupt.h"

namespace fenec::kit {
class Results;
}

namespace fenec::iobench {

struct SyncTest {
  std::string section;   // "one 8k write", "two 8k writes", "16k in pieces", "fsync elsewhere", "no sync"
  std::string method;    // open_datasync, fdatasync, fsync, open_sync, write-fsync-close, ...
  uint64_t write_size = 8192;
  unsigned writes = 1;   // per op
  bool direct = false;
  std::string skipped;
  uint64_t ops = 0;
  double seconds = 0;
  base::Histogram lat;  // ns per op

  std::string case_() const;
  double ops_per_s() const { return seconds > 0 ? ops / seconds : 0; }
};

struct SyncMethodsOptions {
  std::string dir;
  double seconds = 1;       // per test
  uint64_t max_ops = 200000;
  bool (*stop)() = kit::stop_requested;
};

struct SyncMethodsResult {
  std::vector<SyncTest> tests;
  std::string error;
  // An fsync on a descriptor that did not write is honoured if it costs about
  // what one on the writing descriptor does (and more than a clean fsync).
  bool other_fd_honoured = false;
  std::string other_fd_reason;
};

// The tests in the order they run; filled in by run_syncmethods.
std::vector<SyncTest> plan_syncmethods();
SyncMethodsResult run_syncmethods(const SyncMethodsOptions& o, const ProbeResult& p);
std::string syncmethods_table(const SyncMethodsResult& r);
void add_syncmethods_rows(kit::Results& results, const SyncMethodsResult& r);

}  // namespace fenec::iobench
