// fleet-bench: `iobench fleet` for real on this machine. Four fio servers on
// 127.0.0.2-5, each host's folder on a file system the run makes (two healthy
// ext4 loop devices, one throttled by a cgroup write limit, one tmpfs that
// lies); the fleet's report must name the slow host and the lying one and no
// other. Beside it: the client's fan-out on 2 servers and on 8, and one host
// through fio's server against iobench's own cell (scenarios/fleet/run.h).
#include "iobench/kit/harness.h"
#include "iobench/src/cells.h"
#include "scenarios/fleet/run.h"

namespace ff = fenec::scenarios::fleet;

int main(int argc, char** argv) {
  fenec::kit::Harness h(
      "fleet",
      "iobench fleet on a fleet this run builds on loopback (needs root and fio): fio --server on 127.0.0.2-5, "
      "hosts 1 and 3 ext4 on loop devices, host 2 the same with its writes throttled (a cgroup's write limit on "
      "its loop device), host 4 tmpfs; every cell --apart and --together, repetitions interleaved. The run fails "
      "unless the report names host 2 slow and host 4 lying, and no other host. Rows: results/fleet/latest.csv "
      "(arm = host, case = cell;mode;rep), fio's JSON and the job files in results/fleet/run/, CDFs and rates in "
      "plots/fleet/. Everything it starts is torn down at the end, on failure and on Ctrl-C.");
  ff::Config c;
  const std::vector<std::string> parts = {"fleet", "check", "scaling"};
  std::vector<std::string> cells;
  for (const fenec::iobench::FleetCell& cell : fenec::iobench::fleet_cells()) cells.push_back(cell.name);
  h.flag("--parts", &c.parts, "parts to run", parts).one_of(parts);
  h.flag("--cells", &c.cells, "the fleet's cells (iobench fleet --cells)", cells,
         {"buffered-4k", "overwrite-4k", "append-4k", "direct-4k"})
      .one_of(cells);
  h.flag("--jobs", &c.jobs, "job counts each cell runs at", std::vector<unsigned>{1, 16}, std::vector<unsigned>{1})
      .range(1, 64);
  h.flag("--submit", &c.submits, "submission paths (pwrite = fio's psync, uring = io_uring)",
         std::vector<std::string>{"pwrite"})
      .one_of({"pwrite", "pwritev", "uring"});
  h.flag("--runtime", &c.runtime_s, "seconds each cell measures (fio's runtime)", 1.5, 1.0).range(0.2, 600);
  h.flag("--ramp", &c.ramp_s, "seconds of fio's ramp_time before it counts", 0.5).range(0, 60);
  h.flag("--slow-iops", &c.slow_iops, "writes a second the slow host's loop device takes", c.slow_iops).range(1, 100000);
  h.flag("--loop-mib", &c.loop_mib, "MiB of each loop device's sparse backing file", c.loop_mib).range(256, 1 << 20);
  h.flag("--nice", &c.nice,
         "nice value of the bench, its fio client and servers: the hosts share this machine's CPUs with whatever "
         "else runs, which a fleet's hosts do not, and a waiting job's wake-up must not measure that",
         c.nice)
      .range(-20, 19);
  h.flag("--scale-servers", &c.scale_servers, "servers the scaling part compares with 2", c.scale_servers).range(3, 64);
  // --reps auto's budget, quick / full seconds: a repetition of the check or
  // the scaling part is a few fio invocations of seconds each.
  h.set_default_budget(30, 300);
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
  return ff::run(h, c);
}
