#include "scenarios/soak/report.h"

#include <algorithm>

#include <fmt/format.h>

#include "findings/catalogue.h"
#include "iobench/kit/plot.h"
#include "iobench/kit/stats.h"
#include "scenarios/procs/engine_stats.h"

namespace fenec::scenarios::soak {
namespace {

constexpr const char* kFinding = "SOAK";

// One durability's share of the run: its cycles, the writes its servers
// acknowledged, the lost ones its cycles' verifications found first.
struct ModeTotals {
  std::string mode;
  int cycles = 0;
  uint64_t acked = 0, lost = 0;
};

std::vector<ModeTotals> ByMode(const SoakReport& r) {
  std::vector<ModeTotals> out;
  uint64_t acked_before = 0;
  for (const CycleFigures& f : r.cycles) {
    auto it = std::find_if(out.begin(), out.end(), [&](const ModeTotals& m) { return m.mode == f.mode; });
    if (it == out.end()) it = out.insert(out.end(), ModeTotals{f.mode});
    ++it->cycles;
    it->acked += f.acked - std::min(f.acked, acked_before);
    it->lost += f.lost_new;
    acked_before = f.acked;
  }
  return out;
}

// Every fill's figures summed (resume_ms: the slowest), and how many filled.
FillFigures AllFills(const SoakReport& r, int* planned, int* ran) {
  FillFigures all;
  *planned = *ran = 0;
  for (const CycleFigures& f : r.cycles) {
    *planned += f.fill_planned ? 1 : 0;
    *ran += f.fill.ran ? 1 : 0;
    if (f.fill_planned) all.Add(f.fill);
  }
  return all;
}

std::string ModesLine(const SoakReport& r) {
  std::string s;
  for (const ModeTotals& m : ByMode(r)) {
    s += fmt::format("{}{}: {} cycle{}, {} acknowledged, {} lost", s.empty() ? "" : "; ", m.mode, m.cycles,
                     m.cycles == 1 ? "" : "s", m.acked, m.lost);
  }
  return s;
}

std::string DiskLine(const SoakReport& r) {
  if (!r.disk_skipped.empty()) return "skipped: " + r.disk_skipped;
  int planned = 0, ran = 0;
  const FillFigures all = AllFills(r, &planned, &ran);
  std::string resumes;
  for (const CycleFigures& f : r.cycles) {
    if (!f.fill.ran) continue;
    resumes += (resumes.empty() ? "" : ", ") +
               (f.fill.resume_ms >= 0 ? fmt::format("{:.0f}", f.fill.resume_ms) : std::string("-"));
  }
  return fmt::format("{}: filled and freed {} of {} times; {} puts refused 507 no_space while full ({} accepted "
                     "into room the server had), /health said no_space {} of {} times; writes accepted again {} ms "
                     "after the filler went (per fill)",
                     r.disk, ran, planned, all.refused, all.accepted_full, all.health_no_space, all.health_checks,
                     resumes.empty() ? "-" : resumes);
}

}  // namespace

kit::Verdict Judge(kit::Harness& h, const SoakConfig& c, const SoakReport& r) {
  kit::Results& rows = h.results();
  const std::string shape = fmt::format("clients={};rate={};cycles={}", c.clients, c.rate, c.cycles);
  std::vector<double> alone, loaded;
  std::vector<std::pair<double, double>> p_alone, p_loaded, p_served;
  for (size_t i = 0; i < r.cycles.size(); ++i) {
    const CycleFigures& f = r.cycles[i];
    const std::string cs = fmt::format("cycle={};mode={}", i + 1, f.mode);
    rows.add(kFinding, "unloaded", cs, "client0_p50_us", f.unloaded_p50_us, "us");
    rows.add(kFinding, "unloaded", cs, "client0_p99_us", f.unloaded_p99_us, "us");
    rows.add(kFinding, "unloaded", cs, "client0_requests", static_cast<double>(f.unloaded_requests), "count");
    rows.add(kFinding, "loaded", cs, "client0_p50_us", f.loaded_p50_us, "us");
    rows.add(kFinding, "loaded", cs, "client0_p99_us", f.loaded_p99_us, "us");
    rows.add(kFinding, "loaded", cs, "client0_requests", static_cast<double>(f.loaded_requests), "count");
    rows.add(kFinding, "loaded", cs, "served_p99_us", f.served_p99_us, "us");
    rows.add(kFinding, "loaded", cs, "server_rss_bytes", f.rss_loaded, "bytes");
    rows.add(kFinding, "restart", cs, "acknowledged_so_far", static_cast<double>(f.acked), "count");
    rows.add(kFinding, "restart", cs, "verified", static_cast<double>(f.verify.checked), "count");
    rows.add(kFinding, "restart", cs, "missing", static_cast<double>(f.verify.missing), "count");
    rows.add(kFinding, "restart", cs, "altered", static_cast<double>(f.verify.altered), "count");
    rows.add(kFinding, "restart", cs, "lost_new", static_cast<double>(f.lost_new), "count");
    rows.add(kFinding, "restart", cs, "restart_s", f.restart_s, "s");
    rows.add(kFinding, "restart", cs, "verify_s", f.verify_s, "s");
    rows.add(kFinding, "restart", cs, "killed_by_us", f.killed_by_us ? 1 : 0, "bool");
    if (f.disk_used > 0) rows.add(kFinding, "disk", cs, "used_bytes", static_cast<double>(f.disk_used), "bytes");
    if (f.fill_planned) {
      const FillFigures& d = f.fill;
      rows.add(kFinding, "disk", cs, "filled", d.ran ? 1 : 0, "bool");
      rows.add(kFinding, "disk", cs, "filler_bytes", static_cast<double>(d.filler_bytes), "bytes");
      rows.add(kFinding, "disk", cs, "fill_s", d.fill_s, "s");
      rows.add(kFinding, "disk", cs, "full_s", d.full_s, "s");
      rows.add(kFinding, "disk", cs, "puts_refused_no_space", static_cast<double>(d.refused), "count");
      rows.add(kFinding, "disk", cs, "puts_accepted_while_full", static_cast<double>(d.accepted_full), "count");
      rows.add(kFinding, "disk", cs, "health_checks", static_cast<double>(d.health_checks), "count");
      rows.add(kFinding, "disk", cs, "health_no_space", static_cast<double>(d.health_no_space), "count");
      rows.add(kFinding, "disk", cs, "health_other", static_cast<double>(d.health_other), "count");
      if (d.resume_ms >= 0) rows.add(kFinding, "disk", cs, "resume_ms", d.resume_ms, "ms");
      if (!d.ran) rows.skip("disk", cs, "the fill did not fill: " + d.error);
    }
    alone.push_back(f.unloaded_p99_us);
    loaded.push_back(f.loaded_p99_us);
    p_alone.emplace_back(static_cast<double>(i + 1), f.unloaded_p99_us);
    p_loaded.emplace_back(static_cast<double>(i + 1), f.loaded_p99_us);
    p_served.emplace_back(static_cast<double>(i + 1), f.served_p99_us);
  }
  // Each cycle measures client 0 alone, then beside everything: one pair a
  // cycle, so the ratio's interval is over the cycles.
  const kit::Ratio p99 = kit::paired_ratio(loaded, alone);
  rows.add_ratio(kFinding, "loaded/unloaded", shape, "client0_p99_ratio", p99);
  auto total = [&](const std::string& arm, const std::string& metric, double v, const char* unit = "count") {
    rows.add(kFinding, arm, shape, metric, v, unit);
  };
  const auto& v = r.valid;
  total("all", "acknowledged_writes", static_cast<double>(r.acked));
  total("all", "lost", static_cast<double>(r.lost()));
  total("all", "missing", static_cast<double>(r.missing));
  total("all", "altered", static_cast<double>(r.altered));
  total("all", "restarts", r.restarts);
  total("all", "own_crashes", r.own_crashes);
  total("all", "final_exit_code", r.final_exit, "code");
  total("all", "elapsed_s", r.elapsed_s, "s");
  total("valid", "answers_2xx", static_cast<double>(v.classes.ok));
  total("valid", "answers_4xx", static_cast<double>(v.classes.c4xx));
  total("valid", "answers_5xx", static_cast<double>(v.classes.c5xx));
  total("valid", "connection_errors", static_cast<double>(v.classes.conn_errors));
  total("valid", "connection_errors_at_kill", static_cast<double>(v.classes.conn_errors_at_kill));
  total("valid", "puts_acknowledged", static_cast<double>(v.puts));
  total("valid", "gets", static_cast<double>(v.gets));
  total("valid", "get_mismatches", static_cast<double>(v.get_mismatches));
  total("valid", "bad_answers", static_cast<double>(v.bad_answers));
  total("valid", "puts_refused_no_space", static_cast<double>(v.no_space_refused));
  for (const ModeTotals& m : ByMode(r)) {
    total(m.mode, "cycles", m.cycles);
    total(m.mode, "acknowledged_writes", static_cast<double>(m.acked));
    total(m.mode, "lost", static_cast<double>(m.lost));
  }
  int planned = 0, ran = 0;
  const FillFigures fills = AllFills(r, &planned, &ran);
  if (!r.disk_skipped.empty()) {
    rows.skip("disk", shape, r.disk_skipped);
  } else {
    total("disk", "fills_planned", planned);
    total("disk", "fills", ran);
    total("disk", "puts_refused_no_space", static_cast<double>(fills.refused));
    total("disk", "health_no_space", static_cast<double>(fills.health_no_space));
    if (fills.resume_ms >= 0) total("disk", "resume_ms_max", fills.resume_ms, "ms");
    total("disk", "problems", static_cast<double>(r.disk_problems));
  }
  total("valid", "finds", static_cast<double>(v.finds));
  total("valid", "contains", static_cast<double>(v.contains));
  total("valid", "counts", static_cast<double>(v.counts));
  total("valid", "nears", static_cast<double>(v.nears));
  rows.add_latency(kFinding, "valid", shape, v.rt_ns, "rt");
  const auto& m = r.malformed;
  total("malformed", "sent", static_cast<double>(m.sent));
  total("malformed", "refused_4xx_json", static_cast<double>(m.refused_right));
  total("malformed", "wrong", static_cast<double>(m.wrong));
  total("malformed", "answers_2xx", static_cast<double>(m.classes.ok));
  total("malformed", "answers_4xx", static_cast<double>(m.classes.c4xx));
  total("malformed", "answers_5xx", static_cast<double>(m.classes.c5xx));
  total("malformed", "connection_errors", static_cast<double>(m.classes.conn_errors));
  total("malformed", "unanswered_at_kill", static_cast<double>(m.conn_errors_at_kill));
  total("malformed", "edge_collection_changed", static_cast<double>(r.edge_changed));
  total("held", "waves", static_cast<double>(r.waves));
  total("held", "idle_connections", static_cast<double>(r.held_idle));
  total("held", "slow_drip_connections", static_cast<double>(r.held_slow));
  total("held", "slow_body_connections", static_cast<double>(r.slow_body_sent));
  total("held", "slow_body_closed_by_server", static_cast<double>(r.slow_body_closed));
  total("held", "server_closed_idle_timeout", r.closed_idle);
  total("held", "server_closed_header_timeout", r.closed_header);
  total("held", "server_closed_body_timeout", r.closed_body);
  total("held", "server_rejected", r.rejected);
  total("server", "rss_start_bytes", r.rss_start, "bytes");
  total("server", "rss_peak_bytes", r.rss_peak, "bytes");
  total("server", "rss_end_bytes", r.rss_end, "bytes");
  procs::AddStatRows(rows, kFinding, "engine", shape, r.engine);

  kit::Chart chart;
  chart.title = "soak: round-trip p99 per kill -9 cycle, client 0 alone and beside the whole load";
  chart.xlabel = "cycle (each ends in kill -9, restart, verification)";
  chart.ylabel = "p99 (us)";
  chart.logy = true;
  chart.series = {kit::Series("client 0 alone", p_alone), kit::Series("client 0 loaded", p_loaded),
                  kit::Series("all clients loaded", p_served)};
  std::string plot = h.plot_path("p99");
  if (r.cycles.empty() || !kit::write_chart(chart, plot).empty()) plot.clear();

  kit::Verdict verdict = findings::verdict(findings::soak::kFinding);
  verdict.plot = plot.empty() ? "" : plot + ".png";
  size_t verified = 0;
  for (const auto& f : r.cycles) verified += f.verify.error.empty() && f.verify.checked == f.acked ? 1 : 0;
  verdict.ours = fmt::format("{} acknowledged, {} lost ({} missing, {} altered) over {} restarts ({}); {} own crashes; "
                             "disk {}; client 0 p99 loaded/alone {}; server RSS {:.1f} / {:.1f} / {:.1f} MiB (start / "
                             "peak / end)",
                             r.acked, r.lost(), r.missing, r.altered, r.restarts, ModesLine(r), r.own_crashes,
                             DiskLine(r), kit::format_ratio(p99), r.rss_start / 1048576, r.rss_peak / 1048576,
                             r.rss_end / 1048576);
  if (r.acked == 0 || verified == 0) {
    verdict.skipped(r.error.empty() ? "no acknowledged write was verified" : r.error);
    return verdict;
  }
  if (r.lost() > 0) {
    verdict.set(kit::judge({}, {{fmt::format("0 of {} acknowledged writes lost ({} were)", r.acked, r.lost()), false}}));
    return verdict;
  }
  if (verified < r.cycles.size() || !r.error.empty()) {
    verdict.outcome = kit::Outcome::kInconclusive;
    verdict.reason = fmt::format("none lost, but only {} of {} restarts verified in full{}", verified, r.cycles.size(),
                                 r.error.empty() ? "" : ": " + r.error);
    return verdict;
  }
  verdict.set(kit::judge({}, {{fmt::format("every restart found all {} acknowledged writes so far, field by field "
                                           "({} restarts; {}; the disk filled and freed {} times)",
                                           r.acked, r.restarts, ModesLine(r), ran),
                               true}}));
  return verdict;
}

std::string Summary(const SoakReport& r) {
  const auto& v = r.valid.classes;
  const auto& m = r.malformed;
  std::string s = fmt::format(
      "acknowledged writes {}, lost {} ({} missing, {} altered); restarts {}, own crashes {}{}\n"
      "by mode: {}\n"
      "disk: {}\n"
      "valid answers: 2xx {}, 4xx {}, 5xx {}, connection errors {} (+{} at our kills), 507 no_space while the disk "
      "was full {}; gets read back {} ({} differed)\n"
      "malformed: {} sent, {} answered 4xx with a JSON message, {} wrong (2xx {}, 5xx {}, no answer {}); "
      "edge collection changed {} times\n"
      "held: {} waves, {} idle + {} slow-drip + {} slow-body connections; the server closed {} idle, {} header, {} "
      "body at its deadlines ({} slow-body seen closed)\n"
      "server RSS start {:.1f} MiB, peak {:.1f} MiB, end {:.1f} MiB; final SIGTERM exit {}; {:.0f} s\n",
      r.acked, r.lost(), r.missing, r.altered, r.restarts, r.own_crashes,
      r.crashes.empty() ? "" : fmt::format(" ({})", fmt::join(r.crashes, "; ")), ModesLine(r), DiskLine(r), v.ok,
      v.c4xx, v.c5xx, v.conn_errors,
      v.conn_errors_at_kill, r.valid.no_space_refused, r.valid.gets, r.valid.get_mismatches, m.sent, m.refused_right, m.wrong, m.classes.ok,
      m.classes.c5xx, m.classes.conn_errors, r.edge_changed, r.waves, r.held_idle, r.held_slow, r.slow_body_sent,
      r.closed_idle, r.closed_header, r.closed_body, r.slow_body_closed, r.rss_start / 1048576, r.rss_peak / 1048576,
      r.rss_end / 1048576, r.final_exit, r.elapsed_s);
  if (!r.error.empty()) s += "error: " + r.error + "\n";
  for (const auto& p : r.problems) s += "  " + p + "\n";
  return s;
}

}  // namespace fenec::scenarios::soak
