// vector-bench's memory part reported: see memory_report.h.
#include "scenarios/vector/memory_report.h"

#include <fmt/format.h>

#include <cmath>

#include "findings/catalogue.h"
#include "iobench/kit/plot.h"

namespace fenec::scenarios::vector {
namespace {

constexpr const char* kVS3 = "VS-3";

std::string CaseOf(const DataSpec& spec, const MemoryCell& c) {
  return c.arm == kInMemory ? fmt::format("n={};dim={};memory=none;code=float", spec.n, spec.dim)
                            : fmt::format("n={};dim={};memory={:.2f};code=float", spec.n, spec.dim, c.fraction);
}

const MemoryCell* Find(const MemoryRun& m, const std::string& arm, double f) {
  for (const MemoryCell& c : m.cells)
    if (c.arm == arm && std::fabs(c.fraction - f) < 1e-9) return &c;
  return nullptr;
}

double Recall(const MemoryCell& c) { return c.queries ? double(c.hits) / double(c.queries * 10) : NAN; }

// Seconds the arm took to index its first `mark` vectors (by its progress
// reports), or -1 if it never got there.
double TimeTo(const MemoryCell& c, uint64_t mark) {
  uint64_t done = 0;
  double t = 0;
  for (const MemoryCell::Piece& p : c.pieces) {
    done += p.vectors;
    t += p.s;
    if (done >= mark) return t;
  }
  return -1;
}

}  // namespace

void set_memory_meta(kit::Results& r, const MemoryRun& m, const DataSpec& spec) {
  auto& meta = r.meta();
  meta.set("vs3_data", fmt::format("{} x {}-d, {} clusters, spread {}", spec.n, spec.dim, spec.clusters, spec.spread));
  if (!m.error.empty()) {
    meta.set("vs3_cgroup", "not run: " + m.error);
    return;
  }
  meta.set("vs3_cgroup", m.cgroup + "/cell-<pid> (cgroup v1 memory.limit_in_bytes, one fresh cgroup a build)");
  meta.set("vs3_vector_bytes", std::to_string(m.vector_bytes));
  meta.set("vs3_caps", m.decide_at > 0 ? fmt::format("a build {:.0f} s; a row build also {:.1f}x the batch build's time "
                                                     "at its fraction (its ratio is then at least that)",
                                                     m.cap_s, m.decide_at)
                                       : fmt::format("a build {:.0f} s", m.cap_s));
  meta.set("vs3_footprint_bytes",
           fmt::format("fenec-batch {}, fenec-row {} (calibration: each arm, vectors in a file, no limit: peak "
                       "memory.max_usage_in_bytes less the vector bytes)", m.footprint, m.row_footprint));
  std::string limits;
  for (const MemoryCell& c : m.cells)
    limits += fmt::format("{}{} {:.2f}: {}", limits.empty() ? "" : "; ", c.arm, c.fraction, c.limit);
  meta.set("vs3_limits", limits + " (bytes: the arm's footprint + fraction x vector bytes; hnswlib: fenec-batch's)");
}

void add_memory_rows(kit::Results& r, const MemoryRun& m, const DataSpec& spec) {
  if (!m.error.empty()) {
    r.skip(kBatch, fmt::format("n={};dim={};memory=*", spec.n, spec.dim), m.error);
    return;
  }
  std::vector<const MemoryCell*> all{&m.in_memory};
  for (const MemoryCell& c : m.cells) all.push_back(&c);
  for (const MemoryCell* c : all) {
    const std::string cs = CaseOf(spec, *c);
    if (c->stopped && c->done) {
      r.add(kVS3, c->arm, cs, "seconds_per_vector_to_stop", c->done_s / double(c->done), "s");
      r.add(kVS3, c->arm, cs, "vectors_to_stop", double(c->done), "count");
    }
    if (c->done) {
      // Per vector indexed (to the stop, for a stopped build): where the time went.
      const double n = double(c->done);
      r.add(kVS3, c->arm, cs, "major_faults_per_vector", double(c->major_faults) / n, "count");
      r.add(kVS3, c->arm, cs, "user_s_per_vector", c->user_s / n, "s");
      r.add(kVS3, c->arm, cs, "sys_s_per_vector", c->sys_s / n, "s");
      r.add(kVS3, c->arm, cs, "read_bytes_per_vector", double(c->read_bytes) / n, "bytes");
    }
    if (!c->error.empty()) {
      r.skip(c->arm, cs, c->error);
      continue;
    }
    r.add(kVS3, c->arm, cs, "build_s", c->build_s, "s");
    r.add(kVS3, c->arm, cs, "build_vectors_per_s", double(spec.n) / c->build_s, "vectors/s");
    r.add(kVS3, c->arm, cs + fmt::format(";ef={}", m.ef), "recall_at_10_hits", double(c->hits), "count");
    r.add(kVS3, c->arm, cs, "major_faults", double(c->major_faults), "count");
    r.add(kVS3, c->arm, cs, "read_bytes", double(c->read_bytes), "bytes");
    r.add(kVS3, c->arm, cs, "limit_bytes", double(c->limit), "bytes");
    r.add(kVS3, c->arm, cs, "peak_bytes", double(c->peak_bytes), "bytes");
    r.add(kVS3, c->arm, cs, "limit_hits", double(c->failcnt), "count");
    if (c->arm != kHnswlib) {
      r.add(kVS3, c->arm, cs, "link_major_faults", double(c->link_major_faults), "count");
      r.add(kVS3, c->arm, cs, "pages_preloaded", double(c->pages_preloaded), "count");
      r.add(kVS3, c->arm, cs, "vectors_preloaded", double(c->vectors_preloaded), "count");
    }
  }
}

void print_memory(const MemoryRun& m, const DataSpec& spec) {
  if (!m.error.empty()) {
    fmt::print("VS-3 memory part not run: {}\n", m.error);
    return;
  }
  fmt::print("VS-3: {} x {}-d, vector bytes {:.1f} MB, footprint batch {:.1f} MB, row {:.1f} MB\n", spec.n, spec.dim,
             double(m.vector_bytes) / 1e6, double(m.footprint) / 1e6, double(m.row_footprint) / 1e6);
  std::vector<const MemoryCell*> all{&m.in_memory};
  for (const MemoryCell& c : m.cells) all.push_back(&c);
  for (const MemoryCell* c : all) {
    if (!c->error.empty()) {
      fmt::print("  {:<22} memory {:<5} {}\n", c->arm, c->arm == kInMemory ? "none" : fmt::format("{:.2f}", c->fraction),
                 c->error);
      if (c->done)
        fmt::print("  {:<22}              to then: {:.1f} vectors/s, a vector {:.0f} major faults, {:.0f} KB read, "
                   "{:.1f} ms user, {:.1f} ms system\n", "", double(c->done) / c->done_s,
                   double(c->major_faults) / double(c->done), double(c->read_bytes) / double(c->done) / 1e3,
                   c->user_s / double(c->done) * 1e3, c->sys_s / double(c->done) * 1e3);
      // The last pieces: where a stalled build's time goes, a vector.
      for (size_t i = c->pieces.size() > 3 ? c->pieces.size() - 3 : 0; i < c->pieces.size(); ++i) {
        const MemoryCell::Piece& p = c->pieces[i];
        const double n = double(p.vectors);
        fmt::print("  {:<22}              piece {:>2}: {:5.1f} s, a vector {:6.1f} ms, {:5.0f} major faults, "
                   "{:6.0f} KB read, {:5.1f} ms user, {:5.1f} ms system\n", "", i + 1, p.s, p.s / n * 1e3,
                   double(p.major_faults) / n, double(p.read_bytes) / n / 1e3, p.user_s / n * 1e3, p.sys_s / n * 1e3);
      }
      continue;
    }
    fmt::print("  {:<22} memory {:<5} build {:8.2f} s  recall@10 {:.4f}  major faults {:>9} (linking {:>9})  "
               "preloaded pages {:>9}  limit hits {}  read {:.0f} MB  cpu {:.1f} s user {:.1f} s system\n",
               c->arm, c->arm == kInMemory ? "none" : fmt::format("{:.2f}", c->fraction), c->build_s, Recall(*c),
               c->major_faults, c->link_major_faults, c->pages_preloaded, c->failcnt, double(c->read_bytes) / 1e6,
               c->user_s, c->sys_s);
  }
}

void write_memory_plot(kit::Harness& h, const MemoryRun& m, const DataSpec& spec) {
  if (!m.error.empty()) return;
  kit::Chart c;
  c.title = fmt::format("VS-3: indexing time vs memory, {} x {}-d vectors in a file (time / the arm's time at the "
                        "most memory)", spec.n, spec.dim);
  c.xlabel = "memory / vector bytes";
  c.ylabel = "indexing time a vector / the arm's at 100% (a stopped build: up to where it stopped)";
  c.logy = true;
  for (const char* arm : {kBatch, kRow, kHnswlib}) {
    std::vector<std::pair<double, double>> pts;
    double base = NAN;
    for (const MemoryCell& cell : m.cells) {
      const double spv = cell.seconds_per_vector(spec.n);
      if (cell.arm != arm || spv <= 0) continue;
      if (std::isnan(base)) base = spv;
      pts.emplace_back(cell.fraction, spv / base);
    }
    if (!pts.empty()) c.series.emplace_back(arm == std::string(kBatch) ? "fenec-batch (preload)" : arm, pts);
  }
  std::vector<std::pair<double, double>> src;
  for (const SourcePoint& p : kVs3Source) src.emplace_back(p.fraction, p.relative_time);
  c.series.emplace_back("source (~300 GB at 192, 64, 32 GB)", src, "linespoints");
  const std::string err = kit::write_chart(c, h.plot_path("vs3-memory"));
  if (!err.empty()) fmt::print(stderr, "vector-bench: plot vs3-memory: {}\n", err);
}

kit::Verdict memory_verdict(const kit::Harness& h, const MemoryRun* m, const DataSpec& spec,
                            const std::string& not_run) {
  kit::Verdict v = findings::verdict(findings::vs3::kFinding);
  v.plot = h.plot_path("vs3-memory") + ".png";
  if (!not_run.empty()) {
    v.skipped(not_run);
    return v;
  }
  if (!m->error.empty()) {
    v.skipped(m->error);
    return v;
  }
  const MemoryCell *b25 = Find(*m, kBatch, 0.25), *r25 = Find(*m, kRow, 0.25), *b100 = Find(*m, kBatch, 1.0);
  const MemoryCell* mem = &m->in_memory;
  // A row build stopped before its first progress report still bounds the ratio (below).
  if (!b25 || !r25 || !b100 || b25->seconds_per_vector(spec.n) <= 0 ||
      (r25->seconds_per_vector(spec.n) <= 0 && !r25->stopped) ||
      !b100->error.empty() || !mem->error.empty()) {
    v.skipped("a build the verdict needs did not run or failed (fenec-batch at 0.25 and 1.00, fenec-row at 0.25, "
              "fenec-batch in memory)");
    return v;
  }
  // Row / batch time to index the same vectors: all of them, or, when the
  // row build stopped at the cap, the first progress mark it did not reach
  // (it took longer than the cap to get there: the ratio is a lower bound).
  std::vector<kit::ExactPart> parts;
  const uint64_t piece = r25->pieces.empty() ? spec.n : r25->pieces.front().vectors;
  const uint64_t mark = r25->done >= spec.n ? spec.n : std::min<uint64_t>(spec.n, r25->done + piece);
  const double tb = TimeTo(*b25, mark), tr_reached = TimeTo(*r25, mark);
  const bool bound = tr_reached < 0 && r25->stopped;
  const double speed = tb > 0 && (bound || tr_reached > 0) ? (bound ? r25->cap_s : tr_reached) / tb : 0;
  parts.push_back({speed <= 0 ? fmt::format("at 25% of the vector bytes, no time to {} vectors for both builds", mark)
                           : fmt::format("at 25% of the vector bytes, row / batch time to index {} of {} vectors "
                                         "{}{:.2f} >= {} (one run each{})", mark, spec.n, bound ? ">= " : "", speed,
                                         findings::vs3::kSpeedup.value,
                                         bound ? fmt::format("; the row build had not got there by the {:.0f} s cap",
                                                             r25->cap_s) : ""),
                   speed >= findings::vs3::kSpeedup.value});
  const double rb = Recall(*b25), rm = Recall(*mem);
  parts.push_back({!b25->error.empty() ? fmt::format("recall@10 of the 25% build: not measured ({})", b25->error)
                                : fmt::format("recall@10 at ef {} of the 25% build {:.4f} >= the in-memory build's "
                                              "{:.4f} - {}", m->ef, rb, rm, findings::vs3::kRecall.value),
                   b25->error.empty() && rb >= rm - findings::vs3::kRecall.value - 1e-12});
  const double cost = b100->build_s / mem->build_s;
  parts.push_back({fmt::format("at 100%, file-backed / in-memory build time {:.3f} <= {} (one run each)", cost,
                               findings::vs3::kFileCost.value),
                   cost <= findings::vs3::kFileCost.value});
  v.set(kit::judge({}, parts));
  std::string cells;
  for (const MemoryCell& c : m->cells)
    cells += c.error.empty()
                 ? fmt::format("; {} at {:.2f}: {:.1f} s, {} major faults, recall {:.4f}", c.arm, c.fraction,
                               c.build_s, c.major_faults, Recall(c))
                 : fmt::format("; {} at {:.2f}: {}", c.arm, c.fraction, c.error);
  v.ours = fmt::format("{} x {}-d ({:.0f} MB of vectors, footprint batch {:.0f} MB, row {:.0f} MB), in memory {:.1f} "
                       "s{}", spec.n, spec.dim, double(m->vector_bytes) / 1e6, double(m->footprint) / 1e6,
                       double(m->row_footprint) / 1e6, mem->build_s, cells);
  return v;
}

}  // namespace fenec::scenarios::vector
