// commit-bench's data-file flush workload (IO-6, IO-7): the same dirty pages
// put through each flush arm, and the io_uring kernel workers counted in /proc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/src/ring/global_ring.h"

namespace fenec::scenarios::commit {

// Dirty page indexes of each file: runs of random length (1..max_run pages)
// with gaps of 1..8 clean pages, `total_pages` in all spread evenly over `files`.
struct DirtySet {
  std::vector<std::vector<uint64_t>> pages;  // per file, ascending
  uint64_t file_pages = 0;                   // every file's size in pages
  uint64_t total() const;
  uint64_t runs() const;  // consecutive runs over all files (what a merging arm writes)
};
DirtySet make_dirty_set(int files, uint64_t total_pages, uint32_t max_run, uint64_t seed);

// io_uring workers ("iou-wrk-<submitter tid>") seen in one scan of /proc.
struct WorkerScan {
  int arm = 0;     // in /proc/self/task, named after one of the arm's ring threads
  int self = 0;    // in /proc/self/task, any
  int system = -1; // in /proc/*/task, any process (-1: not scanned)
};
// `proc` is "/proc" except in tests. The system-wide scan reads every task's
// comm, so it is optional and done less often.
WorkerScan scan_workers(const std::vector<int>& arm_tids, bool system,
                        const std::string& proc = "/proc");

struct CellConfig {
  std::string arm;       // one of flusher_arms()
  int producers = 4;     // threads issuing flushes, each owning files i % producers
  double seconds = 3;    // how long the cell flushes, whole rounds
  uint32_t page_size = 4096;
  unsigned max_bound_workers = 0;  // io-wq cap for the ring arms (0 = kernel default)
  bool force_async = true;         // RingOptions::force_async for the ring arms
};

struct CellResult {
  std::string error;  // non-empty: the arm could not run here
  double seconds = 0;
  // CPU time of the whole process (producers, ring threads and their io-wq
  // workers, which are threads of this process): on a machine others load,
  // MB per CPU-second does not depend on how much CPU the scheduler gave us.
  double cpu_seconds = 0;
  uint64_t rounds = 0;  // full passes over every file's dirty pages
  fenec::ring::Counters counters;
  WorkerScan peak;      // the largest counts seen during the cell
};

// Files are <dir>/data-<i>, created at file_pages * page_size and filled
// before the first cell, so every flush overwrites allocated blocks. With
// `direct` they are then reopened O_DIRECT: flushes go to the device, not
// the page cache (page_size must suit the device's alignment).
std::string prepare_files(const std::string& dir, const DirtySet& set, uint32_t page_size,
                          bool direct, std::vector<int>* fds);
void close_files(std::vector<int>* fds);

CellResult run_cell(const CellConfig& cfg, const DirtySet& set, const std::vector<int>& fds);

}  // namespace fenec::scenarios::commit
