#include "scenarios/journals/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include "iobench/kit/interrupt.h"
#include "iobench/kit/console.h"
#include "scenarios/journals/priority_report.h"
#include "scenarios/journals/report.h"

namespace fenec::scenarios::journals {
namespace {

void remove_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Every indexes x writers cell, each mode once a repetition, interleaved;
// the first mode rotates from repetition to repetition and cell to cell, so
// neither always meets a colder or busier disk. Every cell on a fresh database.
void run_cells(kit::Harness& h, const Config& c, Report& rep) {
  kit::Progress progress("journals cells",
                         c.indexes.size() * c.writers.size() * c.modes.size() * static_cast<size_t>(h.reps()));
  size_t done = 0, cell = 0;
  for (int n : c.indexes) {
    for (int w : c.writers) {
      ++cell;
      std::map<std::string, std::vector<CellResult>> by_mode;
      std::map<std::string, std::string> failed;
      CellConfig cfg;
      cfg.indexes = n;
      cfg.writers = w;
      cfg.max_puts = c.max_puts;
      cfg.seconds = c.seconds;
      cfg.stop = &kit::stop_requested;
      h.interleave(
          c.modes.size(),
          [&](size_t k, int r) {
            const std::string& mode = c.modes[k];
            parse_mode(mode, &cfg.journals);
            const std::string dir = fmt::format("{}/cell-{}-{}-{}", h.data_dir(), mode, n, w);
            remove_dir(dir);
            CellResult res = run_cell(cfg, dir);
            remove_dir(dir);  // scratch stays one cell big
            if (!res.error.empty()) failed[mode] = res.error;
            by_mode[mode].push_back(std::move(res));
            progress.update(++done, fmt::format("{} {} rep {}", mode, cell_case(n, w), r + 1));
          },
          kit::Order{true, cell});
      for (const auto& [mode, results] : by_mode) {
        if (auto it = failed.find(mode); it != failed.end()) {
          h.fail("some cells FAILED (see the skipped lines)");
          std::cerr << fmt::format("journals-bench: FAILED {} {}: {}\n", mode, cell_case(n, w), it->second);
          h.results().skip(mode, cell_case(n, w), "failed: " + it->second);
          continue;
        }
        parse_mode(mode, &cfg.journals);
        add_cell(h.results(), mode, cfg, results, rep);
      }
    }
  }
  progress.finish();
}

// h.reps() kill -9 rounds a mode, each with its own seeded kill point.
void run_recovery_rounds(kit::Harness& h, const Config& c, Report& rep) {
  h.interleave(c.modes.size(), [&](size_t k, int r) {
    RecoveryConfig rc;
    parse_mode(c.modes[k], &rc.journals);
    rc.indexes = c.recovery_indexes;
    rc.writers = c.recovery_writers;
    rc.seconds = c.recovery_seconds;
    rc.max_acks = c.recovery_max_acks;
    rc.checkpoint_ms = c.checkpoint_ms;
    rc.seed = h.seed(static_cast<uint64_t>(r) * c.modes.size() + k);  // --seed replays the kill points
    const std::string dir = fmt::format("{}/recovery-{}", h.data_dir(), c.modes[k]);
    remove_dir(dir);
    const RecoveryResult res = run_recovery(rc, dir);
    remove_dir(dir);
    add_recovery(h.results(), c.modes[k], rc, r + 1, res, rep);
  });
}

}  // namespace

int run(kit::Harness& h, Config& c) {
  const bool q = h.quick();
  c.jr3.cell.warmup = q ? 0.05 : 0.2;
  c.jr3.cell.chunk = c.jr3_chunk_kib << 10;
  c.jr3.cell.data_bytes = c.jr3_data_mib << 20;
  c.jr3.loop_bytes = c.jr3_loop_mib << 20;
  const bool jr1 = has(c.parts, "jr1"), jr3 = has(c.parts, "jr3");
  auto& meta = h.results().meta();
  meta.set("durability", "durable");
  meta.set("cell_seconds", fmt::format("{:g}", c.seconds));
  meta.set("cell_max_puts", std::to_string(c.max_puts));
  meta.set("counts_source",
           "writes/fsyncs/dir_syncs: the cell's own PosixEnv (syscalls); journals_shared, "
           "branches, journal_links, branch_journal_*: the engine's Stats");

  Report rep;
  if (jr1) run_cells(h, c, rep);
  if (jr1 && c.recovery) run_recovery_rounds(h, c, rep);

  // JR-3 after JR-1's cells, so its loop device and saturating flushes never
  // share the disk with them.
  PrioReport prio;
  if (jr3 && !kit::stop_requested()) {
    meta.set("jr3_cell_seconds", fmt::format("{:g}", c.jr3.cell.seconds));
    meta.set("jr3_background", fmt::format("O_DIRECT {} KiB writes, {} in flight, over {} MiB", c.jr3_chunk_kib,
                                           c.jr3.cell.depth, c.jr3_data_mib));
    meta.set("jr3_journal", fmt::format("buffered {} B appends + fdatasync, one at a time", c.jr3.cell.record));
    if (!run_jr3(h, c.jr3, &prio)) h.fail("some cells FAILED (see the skipped lines)");
  }

  if (kit::stop_requested()) h.results().mark_incomplete("interrupted");
  const auto plot_png = [&h](const std::string& name) { return h.plot_png(name); };
  if (jr1) {
    write_plots(h, rep);
    add_ratios(h.results(), rep);
    for (kit::Verdict& v : verdicts(rep, plot_png)) h.results().verdict(v);
    print_tables(rep);
  }
  if (c.jr3_quick_skip) {
    h.results().verdict(prio_skipped(
        "full mode only (make journals-bench, or --parts jr3): in quick mode's 3 x 0.25 s windows the positive "
        "control (a plain IDLE writer against a normal one) cannot show priority, so no JR-3 verdict could be "
        "trusted"));
  }
  if (jr3) {
    write_prio_plot(h, prio);
    for (const PrioDevice& d : prio.devices) h.results().verdict(prio_verdict(d, plot_png("jr3_p99")));
    print_prio_tables(prio);
  }
  if (rep.recovery_failed()) {
    h.fail(
        "RECOVERY FAILED: acknowledged puts missing after kill -9, Check failed, or the round broke (see the "
        "recovery table and missing_puts in results/journals/latest.csv)");
  }
  return h.finish();
}

}  // namespace fenec::scenarios::journals
