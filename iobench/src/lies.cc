#include "iobench/src/lies.h"

#include <fmt/format.h>

#include "iobench/kit/console.h"
#include "iobench/kit/results.h"
#include "iobench/src/sweep_report.h"

namespace fenec::iobench {
namespace {

// No device persists a write this fast: power-loss-protected NVMe acks a FUA
// write in ~20-30 us, consumer flash and cloud volumes take 100 us or more.
constexpr double kFastestPersistUs = 20;
constexpr double kSuspiciousRatio = 3;   // "almost nothing extra" (IO-4's ephemeral NVMe)
constexpr double kPlausibleRatio = 10;   // io2 and physical NVMe: 10x or more

}  // namespace

const char kPowerCutNote[] =
    "Only a power cut proves durability: run `iobench diskcheck serve` on another machine, "
    "`iobench diskcheck write` here, cut the power mid-run, then `iobench diskcheck verify`.";

const char* durability_name(Durability d) {
  switch (d) {
    case Durability::kPlausible: return "plausibly durable";
    case Durability::kInconclusive: return "inconclusive";
    case Durability::kSuspicious: return "suspicious (may be lying)";
    case Durability::kNotDurable: return "not durable";
    case Durability::kUnknown: return "unknown";
  }
  return "?";
}

Durability judge(double durable_us, double buffered_us, const ProbeResult& p, std::vector<std::string>* why) {
  if (p.memory_backed) {
    why->push_back(fmt::format("{} is {} (memory-backed): nothing written there survives a power cut", p.dir, p.fs_type));
    return Durability::kNotDurable;
  }
  if (durable_us <= 0 || buffered_us <= 0) {
    why->push_back("no latency measured");
    return Durability::kUnknown;
  }
  double ratio = durable_us / buffered_us;
  Durability d;
  if (durable_us < kFastestPersistUs) {
    why->push_back(fmt::format("a durable write returns in {:.1f} us, faster than devices persist one "
                               "(~20-30 us even with power-loss protection)", durable_us));
    d = Durability::kSuspicious;
  } else if (ratio < kSuspiciousRatio) {
    why->push_back(fmt::format("a durable write costs only {:.1f}x a buffered one: IO-4's lying-disk pattern "
                               "(ephemeral NVMe: almost nothing extra)", ratio));
    d = Durability::kSuspicious;
  } else if (ratio >= kPlausibleRatio) {
    why->push_back(fmt::format("a durable write costs {:.0f}x a buffered one ({:.0f} vs {:.1f} us): the cost of "
                               "reaching stable media, as on io2 or a physical NVMe (10x or more)",
                               ratio, durable_us, buffered_us));
    d = Durability::kPlausible;
  } else {
    why->push_back(fmt::format("a durable write costs {:.1f}x a buffered one: between the lying (<{}x) and "
                               "honest (>={}x) patterns", ratio, kSuspiciousRatio, kPlausibleRatio));
    d = Durability::kInconclusive;
  }
  if (p.write_cache == "write back")
    why->push_back(fmt::format("{} reports a volatile write cache: durability rests on its flushes being honoured",
                               p.device));
  else if (p.write_cache == "write through")
    why->push_back(fmt::format("{} reports no volatile write cache (a virtual disk may still cache on its host)",
                               p.device));
  if (p.model.find("virtio") != std::string::npos || p.device.rfind("vd", 0) == 0 || p.device.rfind("xvd", 0) == 0)
    why->push_back("a virtual disk: the host decides whether a flush reaches media");
  return d;
}

LiesResult run_lies(const LiesOptions& o, const SweepEnv& env) {
  LiesResult r;
  const ProbeResult& p = *env.probe;
  CellSpec s;
  s.size = o.size;
  s.duration_s = o.seconds;
  s.interval_s = o.seconds;
  s.prefill = true;
  s.total = 8ull << 20;
  s.mode = Mode::kBuffered;
  r.buffered = run_cell(s, env);
  s.mode = p.direct_skip_reason().empty() && p.direct_size_problem(o.size).empty() ? Mode::kDirectDsync : Mode::kDsync;
  r.durable = run_cell(s, env);
  s.mode = Mode::kFdatasync;
  r.flush = run_cell(s, env);
  for (const CellResult* c : {&r.buffered, &r.durable, &r.flush})
    if (!c->skipped.empty() || !c->error.empty()) {
      r.skipped = fmt::format("{}: {}", c->spec.arm(), c->skipped.empty() ? c->error : c->skipped);
      if (!p.memory_backed) return r;
    }
  r.buffered_p50_us = base::LatencySummary::Of(r.buffered.lat).p50_us;
  r.durable_p50_us = base::LatencySummary::Of(r.durable.lat).p50_us;
  r.flush_p50_us = base::LatencySummary::Of(r.flush.sync).p50_us;
  r.ratio = r.buffered_p50_us > 0 ? r.durable_p50_us / r.buffered_p50_us : 0;
  r.verdict = judge(r.durable_p50_us, r.buffered_p50_us, p, &r.reasons);
  if (r.flush_p50_us > 0)
    r.reasons.push_back(fmt::format("an fdatasync after a 4 KiB write takes {} (p50)", kit::format_us(r.flush_p50_us)));
  return r;
}

std::string lies_report(const LiesResult& r) {
  std::string out;
  if (!r.skipped.empty() && r.verdict == Durability::kUnknown) return fmt::format("skipped: {}\n{}\n", r.skipped, kPowerCutNote);
  kit::Table t({"measurement", "p50", "p99", "ops"});
  auto row = [&](const char* name, const CellResult& c, const base::Histogram& h) {
    base::LatencySummary s = base::LatencySummary::Of(h);
    t.row({name, kit::format_us(s.p50_us), kit::format_us(s.p99_us), std::to_string(c.ops)});
  };
  row("buffered 4 KiB write", r.buffered, r.buffered.lat);
  row(r.durable.spec.mode == Mode::kDirectDsync ? "O_DIRECT|O_DSYNC 4 KiB write" : "O_DSYNC 4 KiB write",
      r.durable, r.durable.lat);
  row("fdatasync after a 4 KiB write", r.flush, r.flush.sync);
  out += t.str();
  out += fmt::format("\nverdict: {}\n", durability_name(r.verdict));
  for (const std::string& w : r.reasons) out += fmt::format("  - {}\n", w);
  out += fmt::format("{}\n", kPowerCutNote);
  return out;
}

void add_lies_rows(kit::Results& res, const LiesResult& r, const std::string& case_suffix) {
  const std::string cs = "size=4k" + case_suffix;
  if (r.verdict == Durability::kUnknown) {
    res.skip("lies", cs, r.skipped.empty() ? "no figures" : r.skipped);
    return;
  }
  res.add("IO-4", "lies", cs, "buffered_p50_us", r.buffered_p50_us, "us");
  res.add("IO-4", "lies", cs, "durable_p50_us", r.durable_p50_us, "us");
  res.add("IO-4", "lies", cs, "flush_p50_us", r.flush_p50_us, "us");
  res.add("IO-4", "lies", cs, "durable_to_buffered", r.ratio, "ratio");
  res.add("IO-4", "lies", cs, "plausibly_durable", r.verdict == Durability::kPlausible ? 1 : 0, "bool");
}

}  // namespace fenec::iobench
