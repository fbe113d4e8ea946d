#include "scenarios/fs/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>

#include "iobench/kit/console.h"
#include "iobench/kit/interrupt.h"
#include "iobench/kit/proc.h"
#include "scenarios/engines/store.h"
#include "scenarios/fs/checks.h"
#include "scenarios/fs/judge.h"
#include "scenarios/fs/matrix.h"

namespace fenec::scenarios::fs {
namespace {

void progress_cb(const std::string& what, void* ctx) {
  auto* p = static_cast<std::pair<kit::Progress*, uint64_t>*>(ctx);
  p->first->update(++p->second, what);
}

std::string write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  return out ? "" : "cannot write " + path;
}

}  // namespace

int run(kit::Harness& h, Config& c) {
  c.run.scratch = h.data_dir();
  c.run.loop_bytes = c.loop_mib << 20;
  c.run.small_total = c.small_mib << 20;
  c.run.big_total = c.big_mib << 20;
  c.run.seed = h.seed();
  RealRunner runner(c.run);
  MatrixOptions o;
  o.fs = c.fs;
  o.cells = runner.plan();
  o.reps = h.reps();
  o.stop = &kit::stop_requested;
  size_t per_fs = 0;
  for (const Cell& cell : o.cells) per_fs += cell.part == "probe" ? 1 : static_cast<size_t>(o.reps);
  kit::Progress progress("fs cells", per_fs * c.fs.size());
  std::pair<kit::Progress*, uint64_t> ctx{&progress, 0};
  o.progress = &progress_cb;
  o.progress_ctx = &ctx;
  // One sequence a part (--reps auto): a part's cells on every file system,
  // decided by its verdict checks and its pairs of file systems.
  std::vector<std::string> parts;
  for (const Cell& cell : o.cells)
    if (cell.part != "probe" && std::find(parts.begin(), parts.end(), cell.part) == parts.end())
      parts.push_back(cell.part);
  h.expect_sequences(static_cast<int>(parts.size()));
  o.sequence = [&h](const std::string& part) { return &h.sequence("fs " + part); };
  const bool quick = h.quick();
  o.judge = [quick](const Measured& m, const std::string& part, const kit::Window& w) {
    return part_checks(m, part, quick, w);
  };

  auto& meta = h.results().meta();
  meta.set("fs_asked", [&] {
    std::string s;
    for (const std::string& f : c.fs) s += (s.empty() ? "" : ",") + f;
    return s;
  }());
  meta.set("load_before", kit::load_average());
  meta.set("cell_seconds", fmt::format("sweep {:g}, engines {:g}, jr1 {:g}", c.run.sweep_seconds,
                                       c.run.engine_seconds, c.run.jr1_seconds));
  meta.set("counters_source",
           "dev_*: /proc/diskstats of each site's device (the loop device; the disk's for fs=disk, which other "
           "processes share) around each cell, after a syncfs; syncs_per_op: the engine's own count "
           "(fenecdb Stats, SQLite's VFS xSync, RocksDB WAL_FILE_SYNCED, pg_stat_wal) or JR-1's PosixEnv");
  meta.set("sweep_writes",
           "append: files start empty, each write extends them; overwrite: files written full and synced first; "
           "durable by write+fdatasync or O_DIRECT|O_DSYNC, one job, one write an op");
  meta.set("rocksdb", engines::rocksdb_version());

  std::vector<std::string> teardown_errors;
  Measured m = run_matrix(o, runner, h.results(), &teardown_errors);
  progress.finish();
  meta.set("load_after", kit::load_average());
  for (const std::string& e : teardown_errors) {
    std::cerr << "fs-bench: teardown: " << e << "\n";
    h.fail("a file system was not torn down cleanly (see above; losetup -a, /proc/mounts)");
  }
  for (const auto& [f, kv] : m.site_meta)
    for (const auto& [k, v] : kv) meta.set("fs." + f + "." + k, v);
  for (const auto& [f, why] : m.fs_skipped) meta.set("fs." + f + ".skipped", why);
  for (const std::string& f : c.fs)
    if (const FsSpec* s = find_fs(f)) meta.set("fs." + f + ".about", s->about);
  if (kit::stop_requested()) h.results().mark_incomplete("interrupted");

  const std::string plot = write_plots(m, [&h](const std::string& n) { return h.plot_path(n); });
  JudgedChecks judged;
  for (const std::string& part : parts)
    for (kit::Check& k : h.sequence("fs " + part).checks([&](const kit::Window& w) { return part_checks(m, part, quick, w); }))
      judged[k.what] = std::move(k);
  const std::vector<kit::Verdict> verdicts = fs_verdicts(m, h.quick(), plot, &judged);
  const std::vector<FsRatio> ratios = fs_ratios(m);
  int unsettled = 0;
  PairCount pairs;
  const std::vector<Difference> diffs = differences(m, 1.15, &unsettled, &judged, &pairs);
  add_ratio_rows(h.results(), ratios, diffs);
  h.results().add("", "pairs", "all", "pairs", pairs.pairs, "count");
  h.results().add("", "pairs", "all", "pairs_differ", pairs.differ, "count");
  h.results().add("", "pairs", "all", "pairs_within", pairs.within, "count");
  h.results().add("", "pairs", "all", "pairs_undecided", pairs.undecided(), "count");
  for (const kit::Verdict& v : verdicts) h.results().verdict(v);

  const std::string table = findings_table(m, verdicts),
                    diff_md = differences_markdown(diffs, unsettled) +
                              fmt::format("\nPairs of file systems over every figure: {} decided of {} ({} differ by "
                                          "over 15%, {} within 15%), {} undecided.\n",
                                          pairs.differ + pairs.within, pairs.pairs, pairs.differ, pairs.within,
                                          pairs.undecided());
  std::string skipped;
  for (const auto& [f, why] : m.fs_skipped) skipped += fmt::format("- fs={}: {}\n", f, why);
  for (const auto& [f, cells] : m.cell_skipped)
    for (const auto& [key, why] : cells) skipped += fmt::format("- fs={} {}: {}\n", f, key, why);
  const std::string md = "# fs-bench: findings x file system\n\n" + table +
                         "\n# Differences over 15% between file systems\n\n" + diff_md +
                         (skipped.empty() ? "" : "\n# Cells without figures\n\n" + skipped);
  std::cout << "\n" << md << "\n";
  h.results().attach_json("findings_by_fs_markdown", [&] {
    std::string j = "\"";
    for (char ch : md) {
      if (ch == '"' || ch == '\\') j += '\\';
      if (ch == '\n') j += "\\n";
      else j += ch;
    }
    return j + "\"";
  }());
  const int rc = h.finish();
  if (std::string e = write_file(h.results_dir() + "/findings_by_fs.md", md); !e.empty())
    std::cerr << "fs-bench: " << e << "\n";
  return rc;
}

}  // namespace fenec::scenarios::fs
