// commit-bench: the data-file flush arms of IO-6 / IO-7, and the commit
// completion arms of JR-2 (run.h). Every cell's arms run --reps times (5,
// quick or full), interleaved, and every verdict is judge() of checks: a
// ratio of paired repetitions with its 95% interval against the finding's
// line (iobench/kit/verdict.h).
//
// IO-6/IO-7: the same dirty pages (4 KiB pages in runs of random length) are
// flushed across 1 to 256 files by a pwrite loop, merged pwritev, a ring per
// file and one process-wide ring, from the same producer threads: MB/s, the
// syscalls and writes each arm issued (counted, not estimated), and the peak
// number of io_uring kernel workers (iou-wrk) seen in /proc while it ran.
// Judged at the most files (a process with many data files under load).
//
// JR-2: writers put durable documents (small, and indexed ones that cost far
// more to execute) into fresh fenecdb databases, on the scratch folder's disk
// as it is and with every fdatasync slowed (SlowSyncEnv). Arms: "sync" and
// "async" (the transaction merger's completion) and "direct" (no merger: the
// reference). One verdict per doc kind (merger_report.h).
#include "iobench/kit/harness.h"
#include "scenarios/commit/merger_cell.h"
#include "scenarios/commit/run.h"

namespace fc = fenec::scenarios::commit;

int main(int argc, char** argv) {
  fenec::kit::Harness h(
      "commit",
      "IO-6/IO-7: flushing the same dirty data-file pages through a pwrite loop, merged pwritev, an io_uring per "
      "file and one process-wide io_uring, across --files files: MB/s, syscalls, and io_uring kernel workers "
      "(iou-wrk) seen in /proc; judged at the most files (IO-6: global/per-file MB/s >= 1 and per-file/global "
      "workers >= 1; IO-7: pwritev/pwrite writes per MB < 1 and MB/s >= 1). JR-2: writers putting durable "
      "documents (small ones, and indexed ones that cost far more to execute) into fenecdb with the transaction "
      "merger's sync or async completion (and direct group commit for reference, full mode), on the native disk "
      "and with fdatasync slowed: docs/s, put latency, fsyncs per doc, merger batches. One JR-2 verdict per doc "
      "kind: async/sync >= 1.15 on the native disk (the finding's ~15%), and on each slowed disk async/sync over "
      "max(1.15, the native disk's) >= 1 (far better on a slow disk). Every cell's arms run --reps times "
      "interleaved; each ratio has its 95% interval.");
  fc::Options o;
  std::vector<std::string> quick_arms = fc::all_arms();
  std::erase(quick_arms, std::string("direct"));  // the reference, in no verdict: its time goes to the judged arms
  h.flag("--files", &o.files, "flush arms: file counts, one case each; IO-6 and IO-7 are judged at the largest",
         {1, 8, 64, 256}).range(1, 1024);
  h.flag("--arms", &o.arms,
         "arms to run, of either kind: flush arms pwrite,pwritev,ring-per-file,global-ring; JR-2 arms "
         "direct,sync,async", fc::all_arms(), quick_arms).one_of(fc::all_arms());
  h.flag("--seconds", &o.seconds, "flush arms: flushing time per arm, case and repetition", 3.5, 0.4)
      .range(0.1, 3600);
  h.flag("--producers", &o.producers, "threads issuing flushes, each owning every Nth file", 4).range(1, 256);
  h.flag("--dirty-mib", &o.dirty_mib, "dirty data flushed per round, spread over the files", 16).range(0.01, 4096);
  h.flag("--max-run", &o.max_run, "longest run of consecutive dirty pages", 32).range(1, 100000);
  h.flag("--page-size", &o.page_size, "page size in bytes", 4096).range(512, 1 << 20);
  h.flag("--worker-cap", &o.worker_cap,
         "ask io-wq to cap each ring thread's bound workers (io_uring_register_iowq_max_workers; 0: the kernel's "
         "default). A request, not a bound on the iou-wrk threads counted: on kernel 6.18 a cap of 4 still showed "
         "10", 0);
  h.flag("--direct", &o.direct,
         "open the data files O_DIRECT: flushes reach the device instead of the page cache (the io_uring writes "
         "then need no kernel worker on ext4/xfs)");
  h.flag("--inline-first", &o.inline_first,
         "ring arms: no IOSQE_ASYNC, so the kernel first tries each write without blocking and punts to a worker "
         "only if it must (pays off with --direct)");
  h.flag("--disks", &o.disks,
         "JR-2 disks: native, or slow-<N>ms / slow-<N>us (every fdatasync first sleeps that long)",
         {"native", "slow-2ms", "slow-10ms"}).check([](const std::string& v) {
    fc::Disk d;
    return fc::parse_disk(v, &d) ? std::string() : "not native or slow-<N>ms: " + v;
  });
  h.flag("--doc-kinds", &o.doc_kinds,
         "JR-2: what each put carries: small (nothing indexed: executing a put costs microseconds) or indexed (a "
         "@unique key and two 150-word @text fields: hundreds of microseconds, which async completion can overlap "
         "with the fsync)", fc::doc_kinds()).one_of(fc::doc_kinds());
  h.flag("--writers", &o.writers, "JR-2: writer threads", 10).range(1, 256);
  h.flag("--docs", &o.docs,
         "JR-2: documents put per cell and repetition on the native disk, split over 16 fresh databases run in "
         "turn with the other arms' (sync completion settles into one of two regimes per database); a fifth of it "
         "in one database on a disk slowed by under 10 ms, a 25th at 10 ms or more", 100000, 20000)
      .range(1, 1e8);
  h.flag("--max-seconds", &o.max_seconds,
         "JR-2: a cell's repetition stops after this long (its databases share it) even if not every doc was put "
         "(marked capped; docs/s is then over what was put)", 240, 30).range(1, 3600);
  h.flag("--bucket-ms", &o.bucket_ms, "JR-2: docs/s over time, one point per this many ms", 100).range(10, 10000);
  // 5 repetitions in quick mode too: a JR-2 cell's docs/s moves between
  // repetitions (the async arm settles into one of two regimes per
  // database), and at 3 the 95% interval of async/sync straddles the 1.15
  // line; at 5 it is about half as wide. The cells stay as short.
  h.set_default_reps(5, 5);
  // --reps auto: in quick mode the pilot's five JR-2 repetitions spend the
  // budget make bench can spare, so a cell still across its line says so
  // and is left to the full run's budget (`make commit-bench`).
  h.set_default_budget(45, 900);
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
  return fc::run(h, o);
}
