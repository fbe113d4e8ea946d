// advise's output: the text a user pastes (warnings first), JSON, tidy rows,
// and the one-page Markdown report with its plots (kit::write_chart).
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "engine/src/base/json.h"
#include "iobench/kit/console.h"
#include "iobench/kit/plot.h"
#include "iobench/kit/results.h"
#include "iobench/src/advise.h"
#include "iobench/src/sweep_report.h"
#include "iobench/src/units.h"

namespace fenec::iobench::advise {
namespace {

std::string us(double v) { return kit::format_us(v); }
std::string q(const std::string& s) { return "\"" + base::JsonEscape(s) + "\""; }

// How a user applies each engine's settings, pasted as is.
std::string paste_block(Engine e, const std::vector<const Recommendation*>& recs) {
  std::string out;
  for (const Recommendation* r : recs) {
    switch (e) {
      case Engine::kPostgres: out += fmt::format("{} = {}", r->name, r->value); break;
      case Engine::kRocksdb: out += fmt::format("options.{} = {};", r->name, r->value); break;
      case Engine::kSqlite: out += fmt::format("PRAGMA {} = {};", r->name, r->value); break;
      case Engine::kFenecdb: out += fmt::format("options.{} = {};", r->name, r->value); break;
    }
    out += fmt::format("{:>{}}# {}{}{}\n", "", 2, r->tradeoff ? "TRADE-OFF: " : r->changes_default ? "" : "(default) ",
                       r->reason,
                       r->predicted_gain > 0 && r->changes_default ? fmt::format(" [model: {:.2f}x]", r->predicted_gain)
                                                                    : "");
  }
  return out;
}

const char* file_of(Engine e) {
  switch (e) {
    case Engine::kPostgres: return "postgresql.conf";
    case Engine::kRocksdb: return "rocksdb::Options";
    case Engine::kSqlite: return "each connection";
    case Engine::kFenecdb: return "fenec::Options";
  }
  return "";
}

std::string cpu_text(const EngineCalibration& c) {
  return c.cpu_us > 0 ? fmt::format("{:.1f} us CPU a commit ({})", c.cpu_us, c.cpu_from)
                      : "CPU a commit unknown: sync-bound only (give --cpu-us, or run --verify)";
}

}  // namespace

std::string advice_text(const DiskFigures& d, const std::vector<EngineCalibration>& cpu, const Advice& a) {
  std::string out;
  for (const std::string& w : a.warnings) out += fmt::format("WARNING: {}\n", w);
  if (!a.warnings.empty()) out += "\n";
  out += fmt::format(
      "disk: a 4 KiB write+fdatasync {} over written blocks, {} appending ({:.2f}x); O_DIRECT|O_DSYNC {}; "
      "1 MiB {}; {} cores; scheduler {} (priority {}); lies: {}\n",
      us(d.overwrite_us), us(d.append_us), d.overwrite_us > 0 ? d.append_us / d.overwrite_us : 0.0,
      d.direct_us > 0 ? us(d.direct_us) : "n/a", us(d.big_us), d.cores, d.scheduler,
      !d.prio_known ? "not measured" : d.prio_honoured ? "honoured" : "not honoured", durability_name(d.lies));
  if (!d.overlap.empty()) {
    out += "syncs in parallel (8 KiB, a file a job): ";
    for (const auto& [j, s] : d.overlap) out += fmt::format("{} jobs {:.2f}x  ", j, s);
    out += "one job's ops/s\n";
  }
  if (!d.overwrite_scale.empty()) {
    out += "a commit's time with N files syncing at once, over one alone (the device's overlap; one log syncs one at a time): ";
    for (const auto& [j, s] : d.overwrite_scale) out += fmt::format("{} jobs {:.2f}x  ", j, s);
    out += "over written blocks; ";
    for (const auto& [j, s] : d.append_scale) out += fmt::format("{} jobs {:.2f}x  ", j, s);
    out += "appending\n";
  }
  for (const EngineCalibration& c : cpu) {
    std::vector<const Recommendation*> recs;
    for (const Recommendation& r : a.recs)
      if (r.engine == c.engine) recs.push_back(&r);
    out += fmt::format("\n## {} ({}; {})\n", engine_name(c.engine), file_of(c.engine), cpu_text(c));
    for (const EngineFit& f : a.fits)
      if (f.engine == c.engine) out += fmt::format("model: {}\n", f.note);
    out += paste_block(c.engine, recs);
    kit::Table t({"writers", "default /s", "recommended /s", "commits a round", "round", "bound"});
    for (const Prediction& p : a.predictions) {
      if (p.engine != c.engine || p.config != "default") continue;
      for (const Prediction& r : a.predictions)
        if (r.engine == p.engine && r.config == "recommended" && r.writers == p.writers)
          t.row({std::to_string(p.writers), fmt::format("{:.0f}", p.commits_per_s),
                 fmt::format("{:.0f}", r.commits_per_s),
                 fmt::format("{:.1f} -> {:.1f}", p.commits_per_round, r.commits_per_round),
                 fmt::format("{} -> {}", us(p.round_us), us(r.round_us)), r.cpu_bound ? "CPU" : "sync"});
    }
    out += "predicted durable commits/s:\n" + t.str();
  }
  return out;
}

std::string advice_json(const Measurement* m, const DiskFigures& d, const std::vector<EngineCalibration>& cpu,
                        const Advice& a, const std::string& verify_json) {
  std::string j = "{\"warnings\":[";
  for (size_t i = 0; i < a.warnings.size(); ++i) j += (i ? "," : "") + q(a.warnings[i]);
  j += fmt::format(
      "],\"disk\":{{\"append_us\":{:.2f},\"overwrite_us\":{:.2f},\"direct_us\":{:.2f},\"big_us\":{:.2f},"
      "\"wal8k_fdatasync_us\":{:.2f},\"wal8k_dsync_us\":{:.2f},\"cores\":{},\"memory_backed\":{},\"o_direct\":{},"
      "\"scheduler\":{},\"prio_known\":{},\"prio_honoured\":{},\"prio_equal_us\":{:.2f},\"prio_idle_us\":{:.2f},"
      "\"lies\":{},\"overlap\":[",
      d.append_us, d.overwrite_us, d.direct_us, d.big_us, d.wal8k_fdatasync_us, d.wal8k_dsync_us, d.cores,
      d.memory_backed, d.o_direct, q(d.scheduler), d.prio_known, d.prio_honoured, d.prio_equal_us, d.prio_idle_us,
      q(durability_name(d.lies)));
  for (size_t i = 0; i < d.overlap.size(); ++i)
    j += fmt::format("{}{{\"jobs\":{},\"speedup\":{:.3f}}}", i ? "," : "", d.overlap[i].first, d.overlap[i].second);
  j += "]},\"cpu\":[";
  for (size_t i = 0; i < cpu.size(); ++i)
    j += fmt::format("{}{{\"engine\":{},\"cpu_us\":{:.2f},\"source\":{},\"commit_us\":{:.2f},\"at_writers\":{},"
                     "\"rate_per_s\":{:.1f},\"per_round\":{:.3f},\"busy_cpu_us\":{:.2f}}}",
                     i ? "," : "", q(engine_name(cpu[i].engine)), cpu[i].cpu_us, q(cpu[i].cpu_from), cpu[i].commit_us,
                     cpu[i].at_writers, cpu[i].rate_per_s, cpu[i].per_round, cpu[i].busy_cpu_us);
  j += "],\"fits\":[";
  for (size_t i = 0; i < a.fits.size(); ++i)
    j += fmt::format("{}{{\"engine\":{},\"calibrated\":{},\"k\":{:.3f},\"s_us\":{:.2f},\"busy_cpu_us\":{:.2f},"
                     "\"note\":{}}}",
                     i ? "," : "", q(engine_name(a.fits[i].engine)), a.fits[i].calibrated, a.fits[i].k,
                     a.fits[i].s_us, a.fits[i].busy_cpu_us, q(a.fits[i].note));
  j += "],\"recommendations\":[";
  for (size_t i = 0; i < a.recs.size(); ++i) {
    const Recommendation& r = a.recs[i];
    j += fmt::format(
        "{}{{\"engine\":{},\"name\":{},\"value\":{},\"default\":{},\"changes_default\":{},\"tradeoff\":{},"
        "\"predicted_gain\":{:.3f},\"reason\":{}}}",
        i ? "," : "", q(engine_name(r.engine)), q(r.name), q(r.value), q(r.default_value), r.changes_default,
        r.tradeoff, r.predicted_gain, q(r.reason));
  }
  j += "],\"predictions\":[";
  for (size_t i = 0; i < a.predictions.size(); ++i) {
    const Prediction& p = a.predictions[i];
    j += fmt::format(
        "{}{{\"engine\":{},\"config\":{},\"writers\":{},\"commits_per_s\":{:.1f},\"round_us\":{:.2f},"
        "\"commits_per_round\":{:.2f},\"cpu_bound\":{}}}",
        i ? "," : "", q(engine_name(p.engine)), q(p.config), p.writers, p.commits_per_s, p.round_us,
        p.commits_per_round, p.cpu_bound);
  }
  j += "]";
  if (m) j += ",\"probe\":" + probe_json(m->probe) + fmt::format(",\"measure_seconds\":{:.1f}", m->seconds);
  if (!verify_json.empty()) j += ",\"verify\":" + verify_json;
  return j + "}";
}

void add_advice_rows(kit::Results& r, const Measurement* m, const DiskFigures& d, const Advice& a) {
  if (m) {
    for (const SyncCosts& s : m->sizes)
      for (const CellResult* c : {&s.append, &s.overwrite, &s.direct})
        add_cell_rows(r, *c, "", c == &s.append ? ";appending" : "");
    for (const CellResult& c : m->overlap) add_cell_rows(r, c, "", ";overlap");
    for (const CellResult& c : m->overlap_append) add_cell_rows(r, c, "", ";overlap;appending");
    if (m->prio.skipped.empty()) {
      r.add("", "prio", "bg=none", "fg_p50_us", m->prio.alone_p50_us, "us");
      r.add("", "prio", "bg=equal", "fg_p50_us", m->prio.equal_p50_us, "us");
      r.add("", "prio", "bg=idle", "fg_p50_us", m->prio.idle_p50_us, "us");
      r.add("", "prio", "bg=equal", "bg_mb_per_s", m->prio.equal_bg_mb_s, "MB/s");
      r.add("", "prio", "bg=idle", "bg_mb_per_s", m->prio.idle_bg_mb_s, "MB/s");
    } else {
      r.skip("prio", "", m->prio.skipped);
    }
  }
  r.add("", "model", "disk", "append_us", d.append_us, "us");
  r.add("", "model", "disk", "overwrite_us", d.overwrite_us, "us");
  for (const Prediction& p : a.predictions) {
    const std::string arm = fmt::format("{}-{}", engine_name(p.engine), p.config);
    const std::string cs = fmt::format("writers={}", p.writers);
    r.add("", arm, cs, "predicted_commits_per_s", p.commits_per_s, "ops/s");
    r.add("", arm, cs, "predicted_commits_per_round", p.commits_per_round, "count");
    r.add("", arm, cs, "predicted_round_us", p.round_us, "us");
  }
  for (const Recommendation& x : a.recs)
    if (x.changes_default && x.predicted_gain > 0)
      r.add("", std::string(engine_name(x.engine)) + "-" + x.name + "=" + x.value, "", "predicted_gain",
            x.predicted_gain, "x");
}

std::string write_report(const std::string& dir, const Measurement& m, const DiskFigures& d,
                         const std::vector<EngineCalibration>& cpu, const Advice& a,
                         const std::vector<MeasuredPoint>& measured, const std::string& verify_md) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return fmt::format("mkdir {}: {}", dir, ec.message());
  std::string md = "# iobench advise: " + m.probe.dir + "\n\n";
  std::string plots;
  // The sync latency CDFs: 4 KiB and 8 KiB, appending against written blocks.
  kit::Chart cdf;
  cdf.title = "write+fdatasync latency: appending vs over written blocks (overwrite)";
  cdf.xlabel = "latency (us)";
  cdf.ylabel = "fraction of commits";
  cdf.logx = true;
  for (const SyncCosts& s : m.sizes) {
    if (s.size >= (1u << 20)) continue;
    for (const auto& [title, c] : {std::pair{"append", &s.append}, std::pair{"overwrite", &s.overwrite}}) {
      if (!c->ran() || c->commit.count() == 0) continue;
      kit::Series ser;
      ser.title = fmt::format("{} {}", size_label(s.size), title);
      ser.style = "lines";
      uint64_t seen = 0;
      for (const base::Histogram::Bin& b : c->commit.Bins()) {
        seen += b.count;
        ser.points.push_back({b.hi / 1000.0, static_cast<double>(seen) / c->commit.count()});
      }
      cdf.series.push_back(std::move(ser));
    }
  }
  if (!cdf.series.empty()) {
    const std::string err = kit::write_chart(cdf, dir + "/sync_cdf");
    plots += err.empty() ? "![sync latency CDFs](sync_cdf.png)\n\n" : fmt::format("(sync CDF plot: {})\n\n", err);
  }
  if (!measured.empty()) {
    kit::Chart pm;
    pm.title = "durable commits/s: predicted (lines) vs measured (points, 95% interval)";
    pm.xlabel = "writers";
    pm.ylabel = "commits/s";
    pm.logx = true;
    pm.logy = true;
    for (const EngineCalibration& c : cpu)
      for (const char* config : {"default", "recommended"}) {
        kit::Series pred, meas;
        pred.title = fmt::format("{} {} predicted", engine_name(c.engine), config);
        meas.title = fmt::format("{} {} measured", engine_name(c.engine), config);
        pred.style = "lines";
        meas.style = "points";
        for (const Prediction& p : a.predictions)
          if (p.engine == c.engine && p.config == config) pred.points.push_back({double(p.writers), p.commits_per_s});
        for (const MeasuredPoint& x : measured)
          if (x.engine == c.engine && x.config == config) {
            meas.points.push_back({double(x.writers), x.commits_per_s});
            meas.errors.push_back({x.lo, x.hi});
          }
        if (meas.points.empty()) continue;
        pred.panel = meas.panel = engine_name(c.engine);
        pm.series.push_back(std::move(pred));
        pm.series.push_back(std::move(meas));
      }
    if (!pm.series.empty()) {
      const std::string err = kit::write_chart(pm, dir + "/predicted_vs_measured");
      plots += err.empty() ? "![predicted vs measured](predicted_vs_measured.png)\n\n"
                           : fmt::format("(predicted vs measured plot: {})\n\n", err);
    }
  }
  md += "```\n" + advice_text(d, cpu, a) + "```\n\n" + plots;
  if (!verify_md.empty()) md += "## Verified against the engines\n\n" + verify_md + "\n";
  md += "The model and where it breaks: iobench/doc/advise.md.\n";
  std::ofstream f(dir + "/advise.md");
  f << md;
  return f ? "" : "cannot write " + dir + "/advise.md";
}

}  // namespace fenec::iobench::advise
