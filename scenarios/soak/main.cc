// soak-bench: does fenec-server keep every acknowledged
// write, and answer every malformed request with a 4xx, while valid clients,
// malformed requests, idle and slow connections and kill -9 all come at once?
//
// run.h describes a cycle (client 0 alone; everything at once; kill -9 mid-
// load; restart; every acknowledged write looked up by id and compared).
// Quick: 30 s in 3 cycles; full: 10 min, a cycle every ~45 s. The verdict
// (report.h) is "0 acknowledged writes lost"; the exit code is non-zero when
// anything failed: a lost write, a crash of the server's own, a valid request
// answered other than 2xx, a malformed one answered other than 4xx + JSON.
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
                                "and kill -9 / restart cycles against one fenec-server --durable; every acknowledged "
                                "write verified after each restart.");
  SoakConfig c;
  double seconds = 0, unloaded = 0;
  int cycles = 0;
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
  if (const int rc = h.parse(argc, argv); rc >= 0) return rc;
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
  c.log_path = h.data_dir() + "/children.log";
  c.progress = [](const std::string& line) { fmt::print("{}\n", line); std::fflush(stdout); };
  auto& meta = h.results().meta();
  meta.set("seconds", fmt::format("{}", c.seconds));
  meta.set("cycles", std::to_string(c.cycles));
  meta.set("clients", std::to_string(c.clients));
  meta.set("rate_per_client", fmt::format("{}", c.rate));
  meta.set("malformed_rate", fmt::format("{}", c.malformed_rate));
  meta.set("held_per_wave", fmt::format("idle={};slow={};slow_body={}", c.idle, c.slow, c.slow_body));
  meta.set("server_flags", fmt::format("--durable --idle-timeout {} --header-timeout {} --body-timeout {}",
                                       c.idle_timeout_s, c.header_timeout_s, c.body_timeout_s));
  fmt::print("soak: {:.0f} s in {} cycles ({:.1f} s client 0 alone, then everything), {} clients at <= {} req/s, "
             "{} malformed/s, waves of {} idle + {} slow-drip + {} slow-body connections; kill -9 at each cycle's end\n",
             c.seconds, c.cycles, c.unloaded_s, c.clients, c.rate, c.malformed_rate, c.idle, c.slow, c.slow_body);
  std::fflush(stdout);

  const SoakReport r = RunSoak(c, [] { return fenec::kit::stop_requested(); });
  fmt::print("{}", Summary(r));
  h.results().verdict(Judge(h, c, r));
  if (r.failed()) h.fail("the soak FAILED (see the summary above)");
  return h.finish();
}
