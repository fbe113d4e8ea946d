// soak-bench: does fenec-server keep every acknowledged
// write, and answer every malformed request with a 4xx, while valid clients,
// malformed requests, idle and slow connections and kill -9 all come at once?
//
// run.h describes a cycle (client 0 alone; everything at once; kill -9 mid-
// load; restart; every acknowledged write looked up by id and compared),
// the server's mode alternating by cycle (durable, write-through), and in
// some cycles a disk that fills and frees while the clients write (disk.h).
// Quick: 30 s in 3 cycles; full: 10 min, a cycle every ~45 s. The verdict
// (report.h) is "0 acknowledged writes lost", over every cycle of every
// mode; the exit code is non-zero when anything failed: a lost write, a
// crash of the server's own, a valid request answered other than 2xx (a 507
// no_space inside a fill's window aside), a malformed one answered other
// than 4xx + JSON, writes that did not resume once the space returned.
//
// A robustness run, not a measurement: it is not part of `make bench`
// (scripts/bench-all.sh), whose time is spent on the quick scenarios.
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "iobench/kit/interrupt.h"
#include "iobench/kit/harness.h"
#include "scenarios/procs/child.h"
#include "scenarios/soak/report.h"
#include "scenarios/soak/run.h"

int main(int argc, char** argv) {
  using namespace fenec::scenarios::soak;
  fenec::kit::Harness h("soak", "Valid clients, malformed requests, idle and slow-drip connections "
                                "and kill -9 / restart cycles against one fenec-server, durable and write-through by "
                                "turns, its disk filled and freed in some cycles; every acknowledged write verified "
                                "after each restart.");
  SoakConfig c;
  double seconds = 0, unloaded = 0;
  int cycles = 0, disk_mib = 0;
  h.flag("--server", &c.server_bin, "the fenec-server binary", "").default_text("the one in this build tree");
  h.flag("--holder", &c.holder_bin, "the conns-holder binary", "").default_text("the one in this build tree");
  h.flag("--seconds", &seconds, "the whole soak's length", 600, 30).range(2, 86400);
  h.flag("--cycles", &cycles, "kill -9 / restart cycles", 0)
      .default_text("one per 45 s; quick one per 10 s")
      .range(1, 10000);
  h.flag("--unloaded-seconds", &unloaded, "client 0 alone at the start of each cycle", 5, 2).range(0.2, 3600);
  h.flag("--clients", &c.clients, "valid clients", c.clients).range(1, 256);
  h.flag("--rate", &c.rate, "requests a second per valid client, at most", c.rate).range(1, 1e6);
  h.flag("--malformed-rate", &c.malformed_rate, "malformed requests a second", c.malformed_rate).range(0.1, 1e5);
  h.flag("--idle", &c.idle, "idle connections conns-holder holds each wave", c.idle).range(0, 15000);
  h.flag("--slow", &c.slow, "slow-drip connections conns-holder holds each wave", c.slow).range(0, 15000);
  h.flag("--slow-body", &c.slow_body, "connections sending half a body each wave", c.slow_body).range(0, 1000);
  h.flag("--modes", &c.modes, "the server's --durability, cycle by cycle, repeated (both promise a kill -9 loses no "
         "acknowledged write)", c.modes)
      .one_of({"durable", "write-through"});
  h.flag("--fills", &c.fills, "which cycles fill and free the server's disk: 1 fills, 0 not, repeated over the cycles",
         c.fills)
      .check([](const std::string& v) {
        return !v.empty() && v.find_first_not_of("01") == std::string::npos ? "" : "a pattern of 0 and 1, e.g. 110";
      });
  h.flag("--disk-mib", &disk_mib, "the server's own file system (ext4 on a loop device; needs root), MiB; 0: the "
         "scratch folder, no fills", 256).range(0, 65536);
  h.flag("--full-seconds", &c.full_s, "a fill keeps the disk full at least this long", 3, 2).range(0, 3600);
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
  c.disk_bytes = static_cast<uint64_t>(disk_mib) << 20;
  c.seconds = seconds;
  c.cycles = cycles > 0 ? cycles : std::max(1, static_cast<int>(std::lround(c.seconds / (h.quick() ? 10.0 : 45.0))));
  c.unloaded_s = unloaded;
  c.unloaded_s = std::min(c.unloaded_s, c.seconds / c.cycles / 2);
  c.seed = h.seed();
  if (c.server_bin.empty()) c.server_bin = fenec::scenarios::procs::BuildTreeBinary("engine/server/fenec-server");
  if (c.holder_bin.empty()) c.holder_bin = fenec::scenarios::procs::BuildTreeBinary("scenarios/conns/conns-holder");
  for (const auto& [what, path] : {std::pair<const char*, std::string>{"fenec-server", c.server_bin},
                                   {"conns-holder", c.holder_bin}}) {
    if (path.empty() || !std::filesystem::exists(path)) {
      h.results().skip("all", "all", fmt::format("{} not found (build it or pass --server/--holder)", what));
      return h.finish();
    }
  }
  c.data_dir = h.data_dir() + "/db";
  c.disk_dir = h.data_dir() + "/disk";
  c.log_path = h.data_dir() + "/children.log";
  c.progress = [](const std::string& line) { fmt::print("{}\n", line); std::fflush(stdout); };
  auto& meta = h.results().meta();
  meta.set("seconds", fmt::format("{}", c.seconds));
  meta.set("cycles", std::to_string(c.cycles));
  meta.set("clients", std::to_string(c.clients));
  meta.set("rate_per_client", fmt::format("{}", c.rate));
  meta.set("malformed_rate", fmt::format("{}", c.malformed_rate));
  meta.set("held_per_wave", fmt::format("idle={};slow={};slow_body={}", c.idle, c.slow, c.slow_body));
  meta.set("server_flags", fmt::format("--durability {} (by cycle, repeated) --idle-timeout {} --header-timeout {} "
                                       "--body-timeout {}",
                                       fmt::join(c.modes, "|"), c.idle_timeout_s, c.header_timeout_s, c.body_timeout_s));
  meta.set("modes", fmt::format("{}", fmt::join(c.modes, ",")));
  meta.set("fills", c.fills);
  meta.set("disk_mib", std::to_string(disk_mib));
  fmt::print("soak: {:.0f} s in {} cycles ({:.1f} s client 0 alone, then everything), {} clients at <= {} req/s, "
             "{} malformed/s, waves of {} idle + {} slow-drip + {} slow-body connections; kill -9 at each cycle's end; "
             "modes {} by cycle; {}\n",
             c.seconds, c.cycles, c.unloaded_s, c.clients, c.rate, c.malformed_rate, c.idle, c.slow, c.slow_body,
             fmt::join(c.modes, ", "),
             disk_mib > 0 ? fmt::format("a disk of {} MiB filled and freed in the cycles {} picks", disk_mib, c.fills)
                          : std::string("no disk of its own, no fills"));
  std::fflush(stdout);

  const SoakReport r = RunSoak(c, [] { return fenec::kit::stop_requested(); });
  fmt::print("{}", Summary(r));
  h.results().verdict(Judge(h, c, r));
  if (r.failed()) h.fail("the soak FAILED (see the summary above)");
  return h.finish();
}
