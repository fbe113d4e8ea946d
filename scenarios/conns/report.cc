#include "scenarios/conns/report.h"

#include <algorithm>

#include <fmt/format.h>

#include "findings/catalogue.h"
#include "iobench/kit/plot.h"
#include "iobench/kit/stats.h"

namespace fenec::scenarios::conns {

kit::Verdict Judge(kit::Harness& h, const Shape& shape, const std::vector<Rep>& reps) {
  kit::Results& rows = h.results();
  const std::string id(findings::conns::kFinding.id);
  const std::string crowd = fmt::format("idle={};slow={}", shape.idle, shape.slow);
  std::vector<double> unloaded, held, rss_per;
  double gauge_min = -1, closed = 0;
  for (size_t i = 0; i < reps.size(); ++i) {
    const Rep& r = reps[i];
    const std::string rep = fmt::format("{};rep={}", crowd, i + 1);
    rows.add(id, "unloaded", rep, "get_p50_us", r.unloaded_p50_us, "us");
    rows.add(id, "unloaded", rep, "get_p99_us", r.unloaded_p99_us, "us");
    rows.add(id, "held", rep, "get_p50_us", r.held_p50_us, "us");
    rows.add(id, "held", rep, "get_p99_us", r.held_p99_us, "us");
    rows.add(id, "held", rep, "connections_gauge_min", r.held_gauge_min, "count");
    rows.add(id, "held", rep, "server_rss_before_bytes", r.rss_before, "bytes");
    rows.add(id, "held", rep, "server_rss_held_bytes", r.rss_held, "bytes");
    rows.add(id, "held", rep, "holder_connect_s", r.connect_s, "s");
    rows.add(id, "held", rep, "closed_or_refused", r.closed_or_refused, "count");
    unloaded.push_back(r.unloaded_p50_us);
    held.push_back(r.held_p50_us);
    gauge_min = i == 0 ? r.held_gauge_min : std::min(gauge_min, r.held_gauge_min);
    closed += r.closed_or_refused;
  }
  // Per connection from the first repetition only: the server's heap keeps
  // what the first crowd's sessions freed, so later crowds reuse it and the
  // RSS barely moves (the first is what holding them costs).
  const double rss_per_conn =
      reps.empty() ? 0 : (reps[0].rss_held - reps[0].rss_before) / static_cast<double>(shape.idle + shape.slow);
  const kit::Ratio ratio = kit::paired_ratio(held, unloaded);
  rows.add_ratio(id, "held/unloaded", crowd, "get_p50_ratio", ratio);
  rows.add(id, "held", crowd, "server_rss_per_connection_bytes", rss_per_conn, "bytes");

  kit::Chart c;
  c.title = fmt::format("get by id from a new client, unloaded vs {} idle + {} slow-drip connections held", shape.idle,
                        shape.slow);
  c.xlabel = "repetition";
  c.ylabel = "round-trip p50 (us)";
  std::vector<std::pair<double, double>> u, hp;
  for (size_t i = 0; i < reps.size(); ++i) {
    u.emplace_back(static_cast<double>(i + 1), unloaded[i]);
    hp.emplace_back(static_cast<double>(i + 1), held[i]);
  }
  c.series = {kit::Series("unloaded", u), kit::Series("held", hp)};
  std::string plot = h.plot_path("get_p50");
  if (std::string err = kit::write_chart(c, plot); !err.empty()) {
    fmt::print(stderr, "conns-bench: plot: {}\n", err);
    plot.clear();
  }

  kit::Verdict v = findings::verdict(findings::conns::kFinding);
  v.plot = plot.empty() ? "" : plot + ".png";
  if (reps.empty()) {
    v.skipped("no repetition completed");
    return v;
  }
  const kit::Check check{"held/unloaded get-by-id p50", ratio, shape.line, false};
  const double need = shape.idle + shape.slow + 1;
  const std::vector<kit::ExactPart> exact = {
      {fmt::format("the server's connections gauge read >= {} at every held measurement (lowest {})", need, gauge_min),
       gauge_min >= need},
      {fmt::format("no connection closed at a deadline or refused while held ({})", closed), closed == 0}};
  v.set(kit::judge({check}, exact));
  v.ours = fmt::format("{} idle + {} slow-drip held, line {}x: p50 unloaded {:.1f} us, held {:.1f} us: {}; gauge >= {} while held; server RSS {:.0f} bytes "
                       "per held connection",
                       shape.idle, shape.slow, shape.line, kit::median(unloaded), kit::median(held),
                       kit::format_ratio(ratio), gauge_min, rss_per_conn);
  return v;
}

}  // namespace fenec::scenarios::conns
