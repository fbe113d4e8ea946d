// fs-bench: the durable-write questions a database asks, on ext4, xfs and
// btrfs side by side (each on a loop device with direct I/O over a sparse
// file on the scratch disk, built and torn down by the run), with the
// scratch disk's own file system beside them as the reference. On each: the
// durable-write table (iobench's sweep: 4k/8k/16k/1m writes by
// write+fdatasync and O_DIRECT|O_DSYNC, appending and overwriting), a new
// file's fsync and its folder's, O_DIRECT and hard links (iobench's probe),
// the engine arms at 1 and 16 durable writers, and JR-1's shared against
// separate journals; then the findings judged per file system and every
// difference over 15% between two of them explained from the device's
// counters (run.h, judge.h).
#include "iobench/kit/harness.h"
#include "scenarios/fs/matrix.h"
#include "scenarios/fs/run.h"

namespace ff = fenec::scenarios::fs;

int main(int argc, char** argv) {
  fenec::kit::Harness h(
      "fs",
      "The same durable-write questions on several file systems, one loop device each (losetup --direct-io=on over "
      "a sparse file under --dir, mkfs, mount; needs root, else those rows are skipped with the reason), the --dir "
      "disk's own file system beside them (fs=disk). Each cell runs --reps times, the file systems interleaved. "
      "Rows: results/fs/latest.csv, case fs=NAME;...;rep=R, with each cell's /proc/diskstats counters per op "
      "(dev_writes_per_op, dev_flushes_per_op, dev_kib_per_op, dev_ms_per_op) and the engine's syncs per op. "
      "Verdicts per file system: IO-1, IO-4, IO-7 (the sweep), CC-1 and JR-zero (the engines), JR-1; the table "
      "finding x file system and the differences over 15% go to results/fs/findings_by_fs.md.");
  ff::Config c;
  const std::vector<std::string> parts = {"probe", "sweep", "create", "engines", "jr1"};
  h.flag("--fs", &c.fs, "file systems to run (disk: the --dir disk as it is)", ff::known_fs_names(),
         {"disk", "ext4", "xfs", "btrfs"}).one_of(ff::known_fs_names());
  h.flag("--parts", &c.run.parts, "parts to run on each file system", parts).one_of(parts);
  h.flag("--engines", &c.run.engines, "engine arms (the JR-zero and CC-1 verdicts need the fenecdb and sqlite ones)",
         ff::engine_arm_names()).one_of(ff::engine_arm_names());
  h.flag("--sweep-seconds", &c.run.sweep_seconds, "longest time a sweep cell", 0.6, 0.25).range(0.05, 600);
  h.flag("--small-mib", &c.small_mib, "MiB a sweep cell of writes up to 64 KiB writes at most", 32, 16)
      .range(1, 65536);
  h.flag("--big-mib", &c.big_mib, "MiB a 1 MiB or 16 MiB sweep cell writes at most", 256, 64).range(16, 65536);
  h.flag("--creates", &c.run.creates, "files created and fsynced a repetition", 100, 40).range(1, 1e6);
  h.flag("--engine-seconds", &c.run.engine_seconds, "longest time an engine cell", 1.0, 0.3).range(0.05, 600);
  h.flag("--engine-max-ops", &c.run.engine_max_ops, "most writes an engine cell", 500000, 100000).range(1, 1e9);
  h.flag("--jr1-seconds", &c.run.jr1_seconds, "longest time a JR-1 cell", 0.6, 0.3).range(0.05, 600);
  h.flag("--jr1-max-puts", &c.run.jr1_max_puts, "most puts a JR-1 cell", 200000, 50000).range(1, 1e9);
  h.flag("--loop-mib", &c.loop_mib, "MiB of each loop device's sparse backing file", c.loop_mib).range(512, 1 << 22);
  c.run.sizes = {4096, 8192, 16384, 1u << 20};
  c.run.writers = {1, 16};
  c.run.jr1_indexes = 8;
  // --reps auto: a run of its own (minutes even quick); its parts' main
  // experiments share this.
  h.set_default_budget(300, 1200);
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
  return ff::run(h, c);
}
