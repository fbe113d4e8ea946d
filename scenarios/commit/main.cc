// commit-bench: the data-file flush arms of IO-6 / IO-7.
//
// The same dirty pages (4 KiB pages in runs of random length) are flushed
// across 1, 8 and 64 files by a pwrite loop, merged pwritev, a ring per file
// and one process-wide ring, from the same producer threads: MB/s, the
// syscalls and writes each arm issued (counted, not estimated), and the peak
// number of io_uring kernel workers (iou-wrk) seen in /proc while it ran.
// The sync/async commit arms (JR-2) wait on fenecdb and are recorded as skipped.
#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "engine/src/ring/flusher.h"
#include "iobench/lib/console.h"
#include "iobench/lib/harness.h"
#include "scenarios/commit/report.h"
#include "scenarios/commit/workload.h"

namespace {

using fenec::bench::Harness;
using fenec::commit::CellResult;

struct Options {
  std::vector<int> files{1, 8, 64};
  std::vector<std::string> arms = fenec::ring::flusher_arms();
  double seconds = 0;
  int reps = 0;
  int producers = 4;
  double dirty_mib = 0;
  uint32_t max_run = 32;
  uint32_t page_size = 4096;
  unsigned worker_cap = 0;
  bool direct = false;
  bool inline_first = false;
};

// Several reps of a cell, summed: bytes over time, counts added, peaks kept.
void merge(CellResult* into, const CellResult& r) {
  if (!r.error.empty()) into->error = r.error;
  into->seconds += r.seconds;
  into->cpu_seconds += r.cpu_seconds;
  into->rounds += r.rounds;
  into->counters += r.counters;
  into->peak.arm = std::max(into->peak.arm, r.peak.arm);
  into->peak.self = std::max(into->peak.self, r.peak.self);
  into->peak.system = std::max(into->peak.system, r.peak.system);
}

}  // namespace

int main(int argc, char** argv) {
  Harness h("commit",
            "IO-6/IO-7: flushing the same dirty data-file pages through a pwrite loop, merged "
            "pwritev, an io_uring per file and one process-wide io_uring, across 1, 8 and 64 "
            "files: MB/s, syscalls, and io_uring kernel workers (iou-wrk) seen in /proc. The "
            "sync/async commit arms (JR-2) are skipped until fenecdb has async commit.");
  Options o;
  auto& app = h.app();
  app.add_option("--files", o.files, "file counts, one case each (default 1,8,64)")
      ->delimiter(',')
      ->check(CLI::Range(1, 1024));
  app.add_option("--arms", o.arms, "flush arms (default pwrite,pwritev,ring-per-file,global-ring)")
      ->delimiter(',')
      ->check(CLI::IsMember(fenec::ring::flusher_arms()));
  app.add_option("--seconds", o.seconds, "flushing time per arm, case and rep (default 3.5)")
      ->check(CLI::Range(0.1, 3600.0));
  app.add_option("--reps", o.reps,
                 "interleaved repetitions; arms run in turn within each, so a busy machine's "
                 "drift hits every arm alike (default 1 quick, 3 full)")
      ->check(CLI::Range(1, 100));
  app.add_option("--producers", o.producers,
                 "threads issuing flushes, each owning every Nth file (default 4)")
      ->check(CLI::Range(1, 256));
  app.add_option("--dirty-mib", o.dirty_mib,
                 "dirty data flushed per round, spread over the files (default 16)")
      ->check(CLI::Range(0.01, 4096.0));
  app.add_option("--max-run", o.max_run, "longest run of consecutive dirty pages (default 32)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--page-size", o.page_size, "page size in bytes (default 4096)")
      ->check(CLI::Range(512, 1 << 20));
  app.add_option("--worker-cap", o.worker_cap,
                 "ask io-wq to cap each ring thread's bound workers "
                 "(io_uring_register_iowq_max_workers; default 0 = kernel default). A request, "
                 "not a bound on the iou-wrk threads counted: on kernel 6.18 a cap of 4 still "
                 "showed 10");
  app.add_flag("--direct", o.direct,
               "open the data files O_DIRECT: flushes reach the device instead of the page "
               "cache (the io_uring writes then need no kernel worker on ext4/xfs)");
  app.add_flag("--inline-first", o.inline_first,
               "ring arms: no IOSQE_ASYNC, so the kernel first tries each write without "
               "blocking and punts to a worker only if it must (pays off with --direct)");
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
  if (o.seconds == 0) o.seconds = 3.5;
  if (o.reps == 0) o.reps = h.quick() ? 1 : 3;
  if (o.dirty_mib == 0) o.dirty_mib = 16;
  h.results().meta().set("producers", std::to_string(o.producers));
  h.results().meta().set("page_size", std::to_string(o.page_size));
  h.results().meta().set("direct", o.direct ? "1" : "0");
  h.results().meta().set("force_async", o.inline_first ? "0" : "1");
  h.results().meta().set("worker_count_source",
                         "iou_workers: /proc/self/task/*/comm named iou-wrk-<a ring thread of "
                         "the arm>; iou_workers_system: /proc/*/task/*/comm, any process");

  // JR-2 is the engine's: recorded, never faked.
  for (const char* arm : {"sync", "async"}) {
    h.results().skip(arm, "writers=10;docs=100000",
                     "async commit (JR-2) not implemented in fenecdb yet");
  }

  const uint64_t total_pages =
      static_cast<uint64_t>(o.dirty_mib * 1024 * 1024) / o.page_size;
  fenec::commit::Report rep;
  fenec::bench::Progress progress("commit flush arms", o.files.size() * o.arms.size() * o.reps);
  size_t done = 0;
  for (int files : o.files) {
    if (Harness::interrupted()) break;
    const std::string c = fmt::format("files={}", files);
    const fenec::commit::DirtySet set =
        fenec::commit::make_dirty_set(files, total_pages, o.max_run, h.seed() + files);
    std::vector<int> fds;
    if (std::string err = fenec::commit::prepare_files(h.data_dir(), set, o.page_size, o.direct, &fds);
        !err.empty()) {
      for (const std::string& arm : o.arms) h.results().skip(arm, c, err);
      fenec::commit::close_files(&fds);
      continue;
    }
    std::map<std::string, CellResult> merged;
    for (int r = 0; r < o.reps && !Harness::interrupted(); ++r) {
      for (size_t k = 0; k < o.arms.size(); ++k) {
        if (Harness::interrupted()) break;
        // Each rep starts one arm later, so no arm always runs first (cold cache) or last.
        const std::string& arm = o.arms[(k + static_cast<size_t>(r)) % o.arms.size()];
        fenec::commit::CellConfig cfg;
        cfg.arm = arm;
        cfg.producers = o.producers;
        cfg.seconds = o.seconds;
        cfg.page_size = o.page_size;
        cfg.max_bound_workers = o.worker_cap;
        cfg.force_async = !o.inline_first;
        merge(&merged[arm], fenec::commit::run_cell(cfg, set, fds));
        progress.update(++done, fmt::format("{} {}", c, arm));
      }
    }
    fenec::commit::close_files(&fds);
    for (const auto& [arm, res] : merged) {
      if (!res.error.empty()) {
        h.results().skip(arm, c, res.error);
        continue;
      }
      fenec::commit::add_rows(h.results(), arm, files, set, res, rep);
    }
  }
  progress.finish();
  if (Harness::interrupted()) h.results().mark_incomplete("interrupted");
  fenec::commit::write_plots(h, rep);
  for (fenec::bench::Verdict& v : fenec::commit::verdicts(h, rep)) h.results().verdict(v);
  fenec::commit::print_table(rep);
  return h.finish();
}
