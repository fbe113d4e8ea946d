// fs-bench's real Runner: the sites (a LoopFs per file system, the scratch
// disk as it is) and what each cell does on one, through the code that
// already measures it elsewhere: iobench's probe and sweep (the durable
// writes), the engine arms and run_writers (scenarios/engines), JR-1's
// cell (scenarios/engines/journals_workload.h). Only the new-file cell (a
// file created, written, fsynced, then its folder fsynced) is this file's.
//
// Every cell's device counters come from /proc/diskstats of the site's
// device (the loop device: only this run writes to it), read after a
// syncfs so what an earlier cell left dirty is not counted.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "iobench/src/sweep.h"
#include "scenarios/engines/store.h"
#include "scenarios/fs/matrix.h"

namespace fenec::scenarios::fs {

struct RunConfig {
  std::string scratch;                  // the harness's scratch folder: backing files and mounts go here
  uint64_t loop_bytes = 8ull << 30;     // each loop device's sparse backing file
  std::vector<std::string> parts;       // probe, sweep, create, engines, jr1
  // sweep: the durable-write table
  std::vector<uint64_t> sizes;          // 4k, 8k, 16k, 1m
  double sweep_seconds = 1;
  uint64_t small_total = 64ull << 20;   // bytes a cell of writes up to 64 KiB, at most
  uint64_t big_total = 512ull << 20;    // the same for 1 MiB and 16 MiB writes
  // create: files a repetition
  int creates = 64;
  // engines
  std::vector<std::string> engines;     // arm names (engine_arms())
  std::vector<int> writers;             // 1, 16
  double engine_seconds = 1;
  uint64_t engine_max_ops = 200000;
  // jr1
  int jr1_indexes = 8;
  double jr1_seconds = 1;
  uint64_t jr1_max_puts = 100000;
  uint64_t seed = 1;
};

// The sweep's cell for these axes (write=append or overwrite), as plan() names it.
Cell sweep_cell(iobench::Mode m, uint64_t size, bool append, iobench::SubmitKind k = iobench::SubmitKind::kPwrite,
                unsigned batch = 1);

// The engine arms fs-bench runs (ArmSpec as scenarios/engines defines it).
const std::vector<engines::ArmSpec>& engine_arms();
std::vector<std::string> engine_arm_names();

// /proc/diskstats of one device, the fields a cell's explanation needs.
struct DiskCounters {
  uint64_t writes = 0, sectors = 0, flushes = 0, write_ms = 0, flush_ms = 0;
  bool ok = false;
};
DiskCounters read_diskstats(const std::string& device);
// after - before, as the per-op metrics a cell adds: dev_writes_per_op,
// dev_kib_per_op, dev_flushes_per_op, dev_ms_per_op (time the device spent
// on writes and flushes), and the totals.
void add_device_metrics(const DiskCounters& before, const DiskCounters& after, double ops, CellOut* out);

// The names of the counters add_device_metrics writes per op, and any cell's
// own per-op counter (syncs_per_op), for the explanations.
const std::vector<std::string>& per_op_counters();

class RealRunner : public Runner {
 public:
  explicit RealRunner(RunConfig c) : c_(std::move(c)) {}
  // The cells of c.parts, in the order they run; remembered for run().
  std::vector<Cell> plan();
  std::unique_ptr<Site> open(const FsSpec& fs, std::string* why_not) override;
  std::string run(const Cell& cell, const FsSpec& fs, Site& site, int rep, CellOut* out) override;

 private:
  std::string run_sweep(const iobench::CellSpec& spec, Site& site, int rep, CellOut* out);
  std::string run_create(Site& site, CellOut* out);
  std::string run_engine(const engines::ArmSpec& arm, int writers, Site& site, int rep, CellOut* out);
  std::string run_jr1(const std::string& mode, int writers, Site& site, int rep, CellOut* out);
  std::string run_probe(Site& site, CellOut* out);

  RunConfig c_;
  std::map<std::string, iobench::CellSpec> sweep_;
  std::map<std::string, std::pair<engines::ArmSpec, int>> engine_;
  std::map<std::string, std::pair<std::string, int>> jr1_;
};

}  // namespace fenec::scenarios::fs
