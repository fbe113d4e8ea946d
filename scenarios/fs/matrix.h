// fs-bench's matrix: the file systems (each a loop device over a sparse file
// on the scratch disk, or the scratch disk's own file system as it is) and
// the cells every one of them runs, and the loop that runs each cell on
// each file system, interleaved, recording rows or the reason a cell has
// none. What a cell does is the Runner's (runner.h); the matrix only
// orders, records and tears down, so its rows and teardown are tested
// with a fake runner (fs_test.cc).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "iobench/kit/results.h"
#include "iobench/kit/sequential.h"

namespace fenec::scenarios::fs {

// One file system of the matrix, as --fs names it.
struct FsSpec {
  std::string name;     // "ext4", "ext4-journal", "xfs", "btrfs", "btrfs-nocow", "disk"
  std::string fs_type;  // mkfs.<fs_type> and mount -t; "" for the scratch disk as it is
  std::vector<std::string> mkfs_options;  // empty: kit::default_mkfs_options
  std::string mount_options;
  // btrfs: chattr +C on the engines' and journals' folders (copy-on-write
  // off for files created in them), as databases on btrfs are advised to.
  bool nocow = false;
  std::string about;
};
// Every file system --fs may name, the default ones first.
const std::vector<FsSpec>& known_fs();
std::vector<std::string> known_fs_names();
const FsSpec* find_fs(const std::string& name);

// One cell: what a Runner runs once a repetition on each file system.
struct Cell {
  std::string part;  // probe, sweep, create, engines, jr1
  std::string arm;   // "fdatasync", "direct-dsync+pwritev", "fenecdb-durable", "shared", ...
  std::string case_; // "size=4k;write=append", "writers=16", ... (no fs=, no rep=)
  std::string key() const { return part + "|" + arm + "|" + case_; }
};

// A cell's figures from one repetition: metric -> (value, unit).
struct CellOut {
  std::map<std::string, std::pair<double, std::string>> metrics;
  void set(const std::string& m, double v, const std::string& unit) { metrics[m] = {v, unit}; }
  // The metric, or NAN if absent.
  double get(const std::string& m) const;
};

// Where a file system's cells run: a mounted loop file system or the disk.
class Site {
 public:
  virtual ~Site() = default;
  virtual std::string dir() const = 0;     // an empty folder on the file system
  virtual std::string device() const = 0;  // /proc/diskstats name ("loop3", "vda")
  // What the run's metadata says of it (mkfs, mount options, loop settings).
  virtual std::map<std::string, std::string> describe() const = 0;
  // Stops what runs on it and unmounts, detaches, deletes; "" or what failed.
  virtual std::string teardown() = 0;
};

class Runner {
 public:
  virtual ~Runner() = default;
  // nullptr and *why_not when the file system cannot be built here.
  virtual std::unique_ptr<Site> open(const FsSpec& fs, std::string* why_not) = 0;
  // One repetition of `cell` on `site`: "" with *out filled, else why the
  // cell has no figures on this file system (its row becomes a skip).
  virtual std::string run(const Cell& cell, const FsSpec& fs, Site& site, int rep, CellOut* out) = 0;
};

// Every run of every cell: fs -> cell key -> one CellOut a repetition that
// ran (by rep; a failed repetition leaves a hole).
struct Measured {
  std::vector<std::string> fs;  // the file systems that opened, in --fs order
  std::vector<Cell> cells;
  std::map<std::string, std::map<std::string, std::map<int, CellOut>>> runs;
  // fs -> why it has no rows at all; fs -> cell key -> why that cell has none.
  std::map<std::string, std::string> fs_skipped;
  std::map<std::string, std::map<std::string, std::string>> cell_skipped;
  std::map<std::string, std::map<std::string, std::string>> site_meta;

  // metric over the repetitions of one cell on one fs, rep order (holes
  // skipped), of those in w (every one by default).
  std::vector<double> values(const std::string& fs, const std::string& key, const std::string& metric,
                             const kit::Window& w = {}) const;
  // a's metric and b's, paired by the repetitions both ran (of those in w).
  void paired(const std::string& fs_a, const std::string& key_a, const std::string& metric_a,
              const std::string& fs_b, const std::string& key_b, const std::string& metric_b,
              std::vector<double>* a, std::vector<double>* b, const kit::Window& w = {}) const;
};

// "fs=ext4;size=4k;write=append": the case of a row.
std::string row_case(const std::string& fs, const Cell& c);

struct MatrixOptions {
  std::vector<std::string> fs;    // names, in order; unknown names are a caller error
  std::vector<Cell> cells;        // in the order they run
  int reps = 3;
  bool (*stop)() = nullptr;       // polled between cells (kit::stop_requested)
  // Called before each cell repetition (progress), may be null.
  void (*progress)(const std::string& what, void* ctx) = nullptr;
  void* progress_ctx = nullptr;
  // Sequential repetitions (--reps auto): each part's site (its pilot is
  // `reps`), and the part's checks over a window of its repetitions. Unset:
  // every part but the probe runs `reps` times.
  std::function<kit::Sequence*(const std::string& part)> sequence;
  std::function<std::vector<kit::Check>(const Measured&, const std::string& part, const kit::Window&)> judge;
};

// Opens every file system, runs every cell `reps` times on each (for each
// part: repetition r of every cell on every file system before r + 1, the
// file systems rotated so none always runs first), writes each run's rows
// into `results` (case fs=...;...;rep=R) and a skip, with its reason, for
// every (fs, cell) that has no run; tears every site down, also when a cell
// throws. Teardown errors are returned through *teardown_errors.
Measured run_matrix(const MatrixOptions& o, Runner& runner, kit::Results& results,
                    std::vector<std::string>* teardown_errors);

}  // namespace fenec::scenarios::fs
