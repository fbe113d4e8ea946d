// journals-bench: JR-1 of FINDINGS.md, shared journals through hard links.
//
// A fenecdb database is a root storage (documents) plus a branch storage per
// indexed field. With Options::journals = kSeparate each storage writes and
// fdatasyncs its own journal (a put into a collection with n indexes is
// n + 1 durable writes and fsyncs); with kShared the root writes every
// storage's records in one pwritev and one fdatasync, the file hard-linked
// into each branch's Journals/. The run (run.h): throughput cells (indexes
// x writers, the modes interleaved --reps times, each on a fresh database),
// fsyncs per put, kill -9 recovery rounds, then JR-3 (jr3.h): a journal's
// fdatasync latency while O_DIRECT flushes saturate the device at equal
// priority, BE/7 and IDLE, after a positive control.
#include "iobench/kit/harness.h"
#include "scenarios/journals/priority.h"
#include "scenarios/journals/run.h"

namespace fj = fenec::scenarios::journals;

int main(int argc, char** argv) {
  fenec::kit::Harness h(
      "journals",
      "JR-1: shared journals through hard links. Durable single-row puts into a collection with indexed fields "
      "(each a branch storage) from several writers, under Options::journals = separate (each storage writes and "
      "fsyncs its own journal) and shared (one pwritev + one fdatasync for the root and every branch). Per cell: "
      "puts/s, put latency, and the writes, fsyncs and directory fsyncs per put counted by the cell's own PosixEnv; "
      "the modes interleaved --reps times, each repetition on a fresh database. Then, per mode, --reps kill -9 "
      "rounds: a child puts and reports every acknowledged put, is killed, and the reopened database must hold "
      "each one in the root and in every index (exit 1 if any is missing). Verdicts: shared/separate puts/s >= 1 "
      "(95% interval) at the most indexes, fewest and most writers; fsyncs per put at 1 writer separate = indexes "
      "+ 1 and shared = 1 (counts, within 1%); no acknowledged put missing in any round. Part jr3 (JR-3, needs "
      "root for the loop device, else skipped with the reason): journal fdatasync p50/p99 while O_DIRECT "
      "background flushes saturate a bfq loop device (and the scratch disk as it is) at equal priority, BE/7 and "
      "IDLE, after a positive control (an IDLE writer against a normal one); JR-3 reproduced where p99 low/equal "
      "<= 0.8 and the control showed priority.");
  fj::Config c;
  const std::vector<std::string> parts = {"jr1", "jr3"}, prios = fj::bg_prio_names();
  h.flag("--indexes", &c.indexes, "indexed fields per cell", {0, 1, 4, 8, 16}, {0, 1, 8}).range(0, 16);
  h.flag("--writers", &c.writers, "writer threads per cell", {1, 4, 16}, {1, 16}).range(1, 256);
  h.flag("--modes", &c.modes, "journal modes to run", fj::mode_names()).one_of(fj::mode_names());
  h.flag("--seconds", &c.seconds, "longest time per cell and repetition", 3, 0.35).range(0.05, 3600);
  h.flag("--max-puts", &c.max_puts, "most puts per cell, all writers together", 500000, 20000).range(1, 1e9);
  h.flag("!--no-recovery", &c.recovery, "skip the kill -9 recovery rounds");
  h.flag("--recovery-indexes", &c.recovery_indexes, "indexed fields in the recovery round", 8).range(0, 16);
  h.flag("--recovery-writers", &c.recovery_writers, "the recovery child's writers", 4).range(1, 256);
  h.flag("--recovery-seconds", &c.recovery_seconds, "kill the child after this long at the latest", 2, 0.5)
      .range(0.05, 3600);
  h.flag("--recovery-max-acks", &c.recovery_max_acks,
         "kill it once a seeded count in [N/2, N] of puts was acknowledged", 5000, 1000).range(2, 1e8);
  h.flag("--checkpoint-ms", &c.checkpoint_ms,
         "the recovery child checkpoints this often, so kills land in checkpoints too (0: never)", 200);
  // Quick mode leaves JR-3 out unless --parts names it: in its short windows
  // the positive control does not clear its line, so its verdict could only
  // be inconclusive. It is recorded as skipped with that reason instead.
  const fenec::kit::Flag& parts_flag =
      h.flag("--parts", &c.parts,
             "parts to run: jr1 (throughput, fsyncs, recovery), jr3 (quick leaves it out: JR-3's positive control "
             "needs the full run's windows)", parts, {"jr1"}).one_of(parts);
  h.flag("--jr3-devices", &c.jr3.devices,
         "JR-3 devices: loop (ext4 on a bfq loop device), disk (the --dir disk as it is)", {"loop", "disk"})
      .one_of({"loop", "disk"});
  h.flag("--jr3-flushers", &c.jr3.flushers,
         "JR-3 background writers: threads (O_DIRECT pwrite, ioprio_set per thread), ring (the engine's io_uring, "
         "priority on each sqe)", fj::flusher_names(), {"ring"}).one_of(fj::flusher_names());
  h.flag("--jr3-prios", &c.jr3.prios,
         "JR-3 background priorities on the loop device: alone (no background), equal, be7, idle", prios,
         {"equal", "be7", "idle"}).one_of(prios);
  h.flag("--jr3-disk-prios", &c.jr3.disk_prios, "the same on the disk", prios, {"equal", "idle"}).one_of(prios);
  h.flag("!--jr3-no-control", &c.jr3.control, "skip the positive control (JR-3 is then not judged)");
  h.flag("--jr3-seconds", &c.jr3.cell.seconds, "JR-3 measured window a cell", 2, 0.25).range(0.05, 3600);
  h.flag("--jr3-depth", &c.jr3.cell.depth, "background writes in flight", c.jr3.cell.depth).range(1, 256);
  h.flag("--jr3-chunk-kib", &c.jr3_chunk_kib, "KiB a background write", c.jr3_chunk_kib).range(4, 65536);
  h.flag("--jr3-record", &c.jr3.cell.record, "bytes a journal append", c.jr3.cell.record).range(1, 1 << 20);
  h.flag("--jr3-data-mib", &c.jr3_data_mib, "MiB of data file the background overwrites", 256, 64).range(1, 65536);
  h.flag("--jr3-loop-mib", &c.jr3_loop_mib, "MiB of the loop device's sparse backing file", c.jr3_loop_mib)
      .range(64, 1 << 20);
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
  c.jr3_quick_skip = h.quick() && !parts_flag.given();
  return fj::run(h, c);
}
