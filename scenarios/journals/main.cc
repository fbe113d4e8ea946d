// journals-bench: JR-1 of FINDINGS.md, shared journals through hard links.
//
// A fenecdb database is a root storage (documents) plus a branch storage per
// indexed field. With Options::journals = kSeparate each storage writes and
// fdatasyncs its own journal (a put into a collection with n indexes is
// n + 1 durable writes and fsyncs); with kShared the root writes every
// storage's records in one pwritev and one fdatasync, the file hard-linked
// into each branch's Journals/. The bench measures both arms on the same
// code, cell by cell, each repetition on a fresh database, the modes
// interleaved --reps times (the harness's: 3 quick, 5 full):
//
//   throughput  durable single puts, 0..16 indexed fields x 1..16 writers:
//               puts/s, put latency, writes / fsyncs / dir syncs per put
//               counted by the cell's own PosixEnv. Verdict: shared/separate
//               puts/s >= 1 at the most indexes, at the fewest and the most
//               writers (the finding draws no ratio: one write beats many)
//   fsyncs      at 1 writer, per put: separate n + 1, shared 1 (counts,
//               categorical, within 1%)
//   recovery    --reps rounds a mode: a forked child puts from several
//               writers and reports every acknowledged put; kill -9; reopen;
//               every acknowledged put must be in the root and answered by
//               every index (a count that must be zero: categorical)
//   jr3         JR-3 (jr3.h): a scratch ext4 on a loop device with bfq (and
//               the scratch dir's own disk as it is, mq-deadline here): a
//               positive control (a plain writer at IDLE against a normal
//               one), then a journal's 4 KiB append + fdatasync latency while
//               O_DIRECT data flushes (threads, or the engine's ring) saturate
//               the device at equal priority, BE/7 and IDLE. Verdict: p99
//               with low-priority background / equal <= 0.8, only where the
//               control showed priority works.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <algorithm>
#include <map>

#include "iobench/kit/console.h"
#include "iobench/kit/harness.h"
#include "scenarios/journals/jr3.h"
#include "scenarios/journals/report.h"
#include "scenarios/journals/workload.h"
#include "engine/src/base/interrupt.h"

namespace fj = fenec::scenarios::journals;
using fenec::kit::Harness;

namespace {

struct Config {
  std::vector<int> indexes, writers;
  std::vector<std::string> modes = fj::mode_names();
  double seconds = 0;
  uint64_t max_puts = 0;
  bool recovery = true;
  int recovery_indexes = 8, recovery_writers = 4;
  double recovery_seconds = 0;
  uint64_t recovery_max_acks = 0;
  uint32_t checkpoint_ms = 200;
  std::vector<std::string> parts{"jr1", "jr3"};
  fj::Jr3Options jr3;
  double jr3_seconds = 0;
  uint64_t jr3_loop_mib = 1024, jr3_data_mib = 0;
  uint32_t jr3_chunk_kib = 512;
};

void remove_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace

int main(int argc, char** argv) {
  Harness h("journals",
            "JR-1: shared journals through hard links. Durable single-row puts into a collection with "
            "0, 1, 4, 8 and 16 indexed fields (each a branch storage) from 1, 4 and 16 writers, under "
            "Options::journals = separate (each storage writes and fsyncs its own journal) and shared "
            "(one pwritev + one fdatasync for the root and every branch). Per cell: puts/s, put latency, "
            "and the writes, fsyncs and directory fsyncs per put counted by the cell's own PosixEnv; the "
            "modes interleaved --reps times, each repetition on a fresh database. Then, per mode, --reps "
            "kill -9 rounds: a child puts and reports every acknowledged put, is killed, and the reopened "
            "database must hold each one in the root and in every index (exit 1 if any is missing). "
            "Verdicts: shared/separate puts/s >= 1 (95% interval) at the most indexes, fewest and most "
            "writers; fsyncs per put at 1 writer separate = indexes + 1 and shared = 1 (counts, within "
            "1%); no acknowledged put missing in any round. Quick mode: indexes 0,1,8 x writers 1,16, "
            "shorter cells. Part jr3 (JR-3, needs root for the loop device, else skipped with the reason): "
            "journal fdatasync p50/p99 while O_DIRECT background flushes saturate a bfq loop device (and the "
            "scratch disk as it is) at equal priority, BE/7 and IDLE, after a positive control (an IDLE "
            "writer against a normal one); JR-3 reproduced where p99 low/equal <= 0.8 and the control "
            "showed priority.");
  Config c;
  auto& app = h.app();
  auto* idx_opt = app.add_option("--indexes", c.indexes,
                                 "indexed fields per cell, comma-separated (default 0,1,4,8,16; quick 0,1,8)")
                      ->delimiter(',')
                      ->check(CLI::Range(0, 16));
  auto* w_opt = app.add_option("--writers", c.writers, "writer threads per cell (default 1,4,16; quick 1,16)")
                    ->delimiter(',')
                    ->check(CLI::Range(1, 256));
  app.add_option("--modes", c.modes, "journal modes to run (default separate,shared)")
      ->delimiter(',')
      ->check(CLI::IsMember(fj::mode_names()));
  app.add_option("--seconds", c.seconds, "longest time per cell and repetition (default 3; quick 0.35)")
      ->check(CLI::Range(0.05, 3600.0));
  app.add_option("--max-puts", c.max_puts, "most puts per cell, all writers together (default 500000; quick 20000)")
      ->check(CLI::Range(1, 1'000'000'000));
  app.add_flag("!--no-recovery", c.recovery, "skip the kill -9 recovery rounds");
  app.add_option("--recovery-indexes", c.recovery_indexes, "indexed fields in the recovery round (default 8)")
      ->check(CLI::Range(0, 16));
  app.add_option("--recovery-writers", c.recovery_writers, "the recovery child's writers (default 4)")
      ->check(CLI::Range(1, 256));
  app.add_option("--recovery-seconds", c.recovery_seconds,
                 "kill the child after this long at the latest (default 2; quick 0.5)")
      ->check(CLI::Range(0.05, 3600.0));
  app.add_option("--recovery-max-acks", c.recovery_max_acks,
                 "kill it once a seeded count in [N/2, N] of puts was acknowledged (default 5000; quick 1000)")
      ->check(CLI::Range(2, 100'000'000));
  app.add_option("--checkpoint-ms", c.checkpoint_ms,
                 "the recovery child checkpoints this often, so kills land in checkpoints too (0: never)")
      ->capture_default_str();
  auto* parts_opt = app.add_option("--parts", c.parts,
                                   "parts to run: jr1 (throughput, fsyncs, recovery), jr3 (default jr1,jr3; quick jr1: "
                                   "JR-3's positive control needs the full run's windows)")
      ->delimiter(',')
      ->check(CLI::IsMember(std::vector<std::string>{"jr1", "jr3"}));
  app.add_option("--jr3-devices", c.jr3.devices,
                 "JR-3 devices: loop (ext4 on a bfq loop device), disk (the --dir disk as it is) (default loop,disk)")
      ->delimiter(',')
      ->check(CLI::IsMember(std::vector<std::string>{"loop", "disk"}));
  auto* fl_opt = app.add_option("--jr3-flushers", c.jr3.flushers,
                                "JR-3 background writers: threads (O_DIRECT pwrite, ioprio_set per thread), ring "
                                "(the engine's io_uring, priority on each sqe) (default threads,ring; quick ring)")
                     ->delimiter(',')
                     ->check(CLI::IsMember(fj::flusher_names()));
  auto* pr_opt = app.add_option("--jr3-prios", c.jr3.prios,
                                "JR-3 background priorities on the loop device: alone (no background), equal, be7, "
                                "idle (default alone,equal,be7,idle; quick equal,be7,idle)")
                     ->delimiter(',')
                     ->check(CLI::IsMember(fj::bg_prio_names()));
  auto* dp_opt = app.add_option("--jr3-disk-prios", c.jr3.disk_prios,
                                "the same on the disk (default alone,equal,be7,idle; quick equal,idle)")
                     ->delimiter(',')
                     ->check(CLI::IsMember(fj::bg_prio_names()));
  app.add_flag("!--jr3-no-control", c.jr3.control, "skip the positive control (JR-3 is then not judged)");
  app.add_option("--jr3-seconds", c.jr3_seconds, "JR-3 measured window a cell (default 2; quick 0.25)")
      ->check(CLI::Range(0.05, 3600.0));
  app.add_option("--jr3-depth", c.jr3.cell.depth, "background writes in flight")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  app.add_option("--jr3-chunk-kib", c.jr3_chunk_kib, "KiB a background write")
      ->check(CLI::Range(4, 65536))
      ->capture_default_str();
  app.add_option("--jr3-record", c.jr3.cell.record, "bytes a journal append")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  app.add_option("--jr3-data-mib", c.jr3_data_mib, "MiB of data file the background overwrites (default 256; quick 64)")
      ->check(CLI::Range(1, 65536));
  app.add_option("--jr3-loop-mib", c.jr3_loop_mib, "MiB of the loop device's sparse backing file")
      ->check(CLI::Range(64, 1 << 20))
      ->capture_default_str();
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
  const bool q = h.quick();
  if (idx_opt->count() == 0) c.indexes = q ? std::vector<int>{0, 1, 8} : std::vector<int>{0, 1, 4, 8, 16};
  if (w_opt->count() == 0) c.writers = q ? std::vector<int>{1, 16} : std::vector<int>{1, 4, 16};
  if (c.seconds == 0) c.seconds = q ? 0.35 : 3;
  if (c.max_puts == 0) c.max_puts = q ? 20000 : 500000;
  if (c.recovery_seconds == 0) c.recovery_seconds = q ? 0.5 : 2;
  if (c.recovery_max_acks == 0) c.recovery_max_acks = q ? 1000 : 5000;
  if (fl_opt->count() == 0) c.jr3.flushers = q ? std::vector<std::string>{"ring"} : fj::flusher_names();
  if (pr_opt->count() == 0)
    c.jr3.prios = q ? std::vector<std::string>{"equal", "be7", "idle"} : fj::bg_prio_names();
  if (dp_opt->count() == 0)
    c.jr3.disk_prios = q ? std::vector<std::string>{"equal", "idle"} : fj::bg_prio_names();
  if (c.jr3_seconds == 0) c.jr3_seconds = q ? 0.25 : 2;
  if (c.jr3_data_mib == 0) c.jr3_data_mib = q ? 64 : 256;
  c.jr3.cell.seconds = c.jr3_seconds;
  c.jr3.cell.warmup = q ? 0.05 : 0.2;
  c.jr3.cell.chunk = c.jr3_chunk_kib << 10;
  c.jr3.cell.data_bytes = c.jr3_data_mib << 20;
  c.jr3.loop_bytes = c.jr3_loop_mib << 20;
  // Quick mode leaves JR-3 out unless --parts names it: at 3 x 0.25 s its
  // positive control never cleared its line here (3.59x [0.22, 58.7]), so the
  // verdict was always inconclusive, an answer that is not one, for ~9 s of
  // make bench. It is recorded as skipped with that reason instead.
  const bool jr3_quick_skip = q && parts_opt->count() == 0;
  if (jr3_quick_skip) std::erase(c.parts, std::string("jr3"));
  const bool jr1 = std::find(c.parts.begin(), c.parts.end(), "jr1") != c.parts.end();
  const bool jr3 = std::find(c.parts.begin(), c.parts.end(), "jr3") != c.parts.end();
  auto& meta = h.results().meta();
  meta.set("durability", "durable");
  meta.set("cell_seconds", fmt::format("{:g}", c.seconds));
  meta.set("cell_max_puts", std::to_string(c.max_puts));
  meta.set("counts_source", "writes/fsyncs/dir_syncs: the cell's own PosixEnv (syscalls); journals_shared, "
                            "branches, journal_links, branch_journal_*: the engine's Stats");

  if (!jr1) {
    c.indexes.clear();
    c.recovery = false;
  }
  fj::Report rep;
  bool cell_failed = false;
  const int reps = h.reps();
  fenec::kit::Progress progress("journals cells",
                                c.indexes.size() * c.writers.size() * c.modes.size() * static_cast<size_t>(reps));
  size_t done = 0, cell = 0;
  for (int n : c.indexes) {
    for (int w : c.writers) {
      ++cell;
      std::map<std::string, std::vector<fj::CellResult>> by_mode;
      std::map<std::string, std::string> failed;
      fj::CellConfig cfg;
      cfg.indexes = n;
      cfg.writers = w;
      cfg.max_puts = c.max_puts;
      cfg.seconds = c.seconds;
      cfg.stop = &fenec::base::StopRequested;
      // Each mode once a repetition, interleaved; the first mode alternates
      // from repetition to repetition and cell to cell, so neither always
      // meets a colder or busier disk. Every cell on a fresh database.
      for (int r = 0; r < reps && !fenec::base::StopRequested(); ++r) {
        for (size_t k = 0; k < c.modes.size(); ++k) {
          if (fenec::base::StopRequested()) break;
          const std::string& mode = c.modes[(k + cell + static_cast<size_t>(r)) % c.modes.size()];
          fj::parse_mode(mode, &cfg.journals);
          const std::string dir = fmt::format("{}/cell-{}-{}-{}", h.data_dir(), mode, n, w);
          remove_dir(dir);
          fj::CellResult res = fj::run_cell(cfg, dir);
          remove_dir(dir);  // scratch stays one cell big
          if (!res.error.empty()) failed[mode] = res.error;
          by_mode[mode].push_back(std::move(res));
          progress.update(++done, fmt::format("{} {} rep {}", mode, fj::cell_case(n, w), r + 1));
        }
      }
      for (const auto& [mode, results] : by_mode) {
        if (auto it = failed.find(mode); it != failed.end()) {
          cell_failed = true;
          std::cerr << fmt::format("journals-bench: FAILED {} {}: {}\n", mode, fj::cell_case(n, w), it->second);
          h.results().skip(mode, fj::cell_case(n, w), "failed: " + it->second);
          continue;
        }
        fj::parse_mode(mode, &cfg.journals);
        fj::add_cell(h.results(), mode, cfg, results, rep);
      }
    }
  }
  progress.finish();

  if (c.recovery) {
    // h.reps() kill -9 rounds a mode, each with its own seeded kill point.
    for (int r = 0; r < reps && !fenec::base::StopRequested(); ++r) {
      for (size_t k = 0; k < c.modes.size() && !fenec::base::StopRequested(); ++k) {
        fj::RecoveryConfig rc;
        fj::parse_mode(c.modes[k], &rc.journals);
        rc.indexes = c.recovery_indexes;
        rc.writers = c.recovery_writers;
        rc.seconds = c.recovery_seconds;
        rc.max_acks = c.recovery_max_acks;
        rc.checkpoint_ms = c.checkpoint_ms;
        rc.seed = h.seed() + static_cast<uint64_t>(r) * c.modes.size() + k;  // --seed replays the kill points
        const std::string dir = fmt::format("{}/recovery-{}", h.data_dir(), c.modes[k]);
        remove_dir(dir);
        const fj::RecoveryResult res = fj::run_recovery(rc, dir);
        remove_dir(dir);
        fj::add_recovery(h.results(), c.modes[k], rc, r + 1, res, rep);
      }
    }
  }

  // JR-3 after JR-1's cells, so its loop device and saturating flushes never
  // share the disk with them.
  fj::PrioReport prio;
  if (jr3 && !fenec::base::StopRequested()) {
    meta.set("jr3_cell_seconds", fmt::format("{:g}", c.jr3.cell.seconds));
    meta.set("jr3_background", fmt::format("O_DIRECT {} KiB writes, {} in flight, over {} MiB", c.jr3_chunk_kib,
                                           c.jr3.cell.depth, c.jr3_data_mib));
    meta.set("jr3_journal", fmt::format("buffered {} B appends + fdatasync, one at a time", c.jr3.cell.record));
    if (!fj::run_jr3(h, c.jr3, &prio)) cell_failed = true;
  }

  if (fenec::base::StopRequested()) h.results().mark_incomplete("interrupted");
  const auto plot_png = [&h](const std::string& name) { return h.plot_path(name) + ".png"; };
  if (jr1) {
    fj::write_plots(h, rep);
    fj::add_ratios(h.results(), rep);
    for (fenec::kit::Verdict& v : fj::verdicts(rep, plot_png)) h.results().verdict(v);
    fj::print_tables(rep);
  }
  if (jr3_quick_skip) {
    h.results().verdict(fj::prio_skipped(
        "full mode only (make journals-bench, or --parts jr3): in quick mode's 3 x 0.25 s windows the positive "
        "control (a plain IDLE writer against a normal one) cannot show priority, so no JR-3 verdict could be "
        "trusted"));
  }
  if (jr3) {
    fj::write_prio_plot(h, prio);
    for (const fj::PrioDevice& d : prio.devices) h.results().verdict(fj::prio_verdict(d, plot_png("jr3_p99")));
    fj::print_prio_tables(prio);
  }
  int rc = h.finish();
  if (rep.recovery_failed()) {
    std::cerr << "\njournals-bench: RECOVERY FAILED: acknowledged puts missing after kill -9, Check failed, "
                 "or the round broke (see the recovery table and missing_puts in results/journals/latest.csv)\n";
    if (rc == 0) rc = 1;
  }
  if (cell_failed) {
    std::cerr << "journals-bench: some cells FAILED (see the skipped lines)\n";
    if (rc == 0) rc = 1;
  }
  return rc;
}
