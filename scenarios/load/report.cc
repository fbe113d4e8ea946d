// load-bench's results: see report.h.
#include "scenarios/load/report.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "findings/catalogue.h"
#include "iobench/kit/console.h"
#include "iobench/kit/plot.h"
#include "iobench/kit/stats.h"
#include "iobench/kit/verdict.h"

namespace fenec::scenarios::load {
namespace {

using Figure = std::function<double(const LoadFigures&)>;

const Figure kRate = [](const LoadFigures& f) { return f.rows_per_s(); };

const Cell* Find(const std::vector<Cell>& cells, const std::string& arm, Index index, Format format = Format::kJsonl) {
  for (const auto& c : cells) {
    if (c.arm == arm && c.index == index && c.format == format) return &c;
  }
  return nullptr;
}

std::vector<double> Values(const Cell& c, const Figure& fig) {
  std::vector<double> v;
  for (const auto& f : c.reps) v.push_back(fig(f));
  return v;
}

double Median(const Cell* c, const Figure& fig) {
  if (c == nullptr || c->reps.empty()) return NAN;
  return kit::median(Values(*c, fig));
}

// fig_a of a's over fig_b of b's, paired by repetition (only those both completed).
kit::Ratio Paired(const Cell* a, const Figure& fig_a, const Cell* b, const Figure& fig_b) {
  if (a == nullptr || b == nullptr) return {};
  std::vector<double> x, y;
  for (size_t i = 0; i < a->reps.size(); ++i) {
    for (size_t j = 0; j < b->reps.size(); ++j) {
      if (a->rep_numbers[i] != b->rep_numbers[j]) continue;
      x.push_back(fig_a(a->reps[i]));
      y.push_back(fig_b(b->reps[j]));
    }
  }
  return kit::paired_ratio(x, y);
}

std::string Secs(double s) { return std::isfinite(s) && s >= 0 ? fmt::format("{:.3f}", s) : "-"; }

// Where the time goes, as each figure's median over the repetitions (-1: not measured by this arm).
const std::vector<std::pair<const char*, double LoadFigures::*>> kParts = {
    {"wall_s", &LoadFigures::wall_s},           {"client_s", &LoadFigures::client_s},
    {"parse_s", &LoadFigures::parse_s},         {"land_s", &LoadFigures::land_s},
    {"server_handle_s", &LoadFigures::server_handle_s}, {"lock_hold_s", &LoadFigures::lock_hold_s},
    {"link_tail_s", &LoadFigures::link_tail_s}, {"queue_waits", &LoadFigures::queue_waits}};

}  // namespace

std::string Cell::case_name() const {
  return fmt::format("index={}{}", index_name(index), format == Format::kCsv ? ";format=csv" : "");
}

void AddCellRows(kit::Results& results, const std::vector<Cell>& cells) {
  for (const auto& c : cells) {
    if (c.reps.empty()) continue;
    for (size_t i = 0; i < c.reps.size(); ++i) {
      results.add("LD-1", c.arm, fmt::format("{};rep={}", c.case_name(), c.rep_numbers[i]), "rows_per_s",
                  c.reps[i].rows_per_s(), "rows/s");
    }
    results.add_ratio("LD-1", c.arm, c.case_name(), "rows_per_s", kit::of_reps(Values(c, kRate)), "rows/s");
    results.add("LD-1", c.arm, c.case_name(), "rows", static_cast<double>(c.rows), "count");
    for (const auto& [name, member] : kParts) {
      const double m = Median(&c, [member = member](const LoadFigures& f) { return f.*member; });
      if (m >= 0) results.add("LD-1", c.arm, c.case_name(), name, m, name == std::string("queue_waits") ? "count" : "s");
    }
  }
}

std::string CellTable(const std::vector<Cell>& cells) {
  kit::Table t({"arm", "case", "rows", "rows/s [95%]", "client s", "parse s", "land s", "server s", "lock s",
                "link tail s", "queue waits"});
  for (const auto& c : cells) {
    if (c.reps.empty()) continue;
    auto m = [&](double LoadFigures::*member) { return Median(&c, [member](const LoadFigures& f) { return f.*member; }); };
    const double waits = m(&LoadFigures::queue_waits);
    t.row({c.arm, c.case_name(), std::to_string(c.rows), kit::format_interval(kit::of_reps(Values(c, kRate)), "/s"),
           Secs(m(&LoadFigures::client_s)), Secs(m(&LoadFigures::parse_s)), Secs(m(&LoadFigures::land_s)),
           Secs(m(&LoadFigures::server_handle_s)), Secs(m(&LoadFigures::lock_hold_s)),
           Secs(m(&LoadFigures::link_tail_s)), waits >= 0 ? fmt::format("{:.0f}", waits) : "-"});
  }
  return t.str();
}

std::string WritePlot(kit::Harness& h, const std::vector<Cell>& cells) {
  // x: one slot a case, marked at its left; each arm's point a step to the right of it, so bars do not overlap.
  const std::vector<std::pair<Index, Format>> slots = {{Index::kNone, Format::kJsonl},
                                                       {Index::kNone, Format::kCsv},
                                                       {Index::kHnswRow, Format::kJsonl},
                                                       {Index::kHnswBatch, Format::kJsonl}};
  kit::Chart chart;
  chart.title = "LD-1: rows/s per load arm (geometric mean of repetitions, 95% interval), 1 000 rows a request";
  chart.xlabel = "case (each arm a step right of the case's line)";
  chart.ylabel = "rows/s";
  chart.logy = true;
  const std::vector<std::string> arms = {kDocs, kQuery, kBatch, kEmbedded, kPgCopy, kPgInsert};
  for (size_t a = 0; a < arms.size(); ++a) {
    kit::Series s;
    s.title = arms[a];
    s.style = "points";
    for (size_t k = 0; k < slots.size(); ++k) {
      const Cell* c = Find(cells, arms[a], slots[k].first, slots[k].second);
      if (c == nullptr || c->reps.empty()) continue;
      const kit::Ratio r = kit::of_reps(Values(*c, kRate));
      const double x = static_cast<double>(k + 1) + 0.1 * static_cast<double>(a + 1);
      s.points.emplace_back(x, r.value);
      s.errors.emplace_back(r.ci95.known() ? r.ci95.lo : r.value, r.ci95.known() ? r.ci95.hi : r.value);
    }
    if (!s.points.empty()) chart.series.push_back(std::move(s));
  }
  chart.marks = {{1, ""}, {2, ""}, {3, ""}, {4, ""}, {5, ""}};
  const double mid = 0.1 * (static_cast<double>(arms.size()) + 1) / 2;
  chart.xtics = {{1 + mid, "no index, JSON lines"}, {2 + mid, "no index, CSV"}, {3 + mid, "HNSW, a row at a time"},
                 {4 + mid, "HNSW, batch-linked"}};
  std::string base = h.plot_path("rows_per_s");
  if (std::string err = kit::write_chart(chart, base); !err.empty()) {
    fmt::print(stderr, "load-bench: plot: {}\n", err);
    return "";
  }
  return base;
}

std::string HnswArm(const std::vector<Cell>& cells) {
  for (const char* arm : {kDocs, kQuery, kBatch, kEmbedded}) {
    const Cell *row = Find(cells, arm, Index::kHnswRow), *batch = Find(cells, arm, Index::kHnswBatch);
    if (row != nullptr && batch != nullptr && !row->reps.empty() && !batch->reps.empty()) return arm;
  }
  return "";
}

void Judge(kit::Harness& h, const std::vector<Cell>& cells, const std::string& plot, double vec_text_share) {
  const std::string harm = HnswArm(cells);
  const Cell* docs = Find(cells, kDocs, Index::kNone);
  const Cell* copy = Find(cells, kPgCopy, Index::kNone);
  const Cell* row = Find(cells, harm, Index::kHnswRow);
  const Cell* batch = Find(cells, harm, Index::kHnswBatch);
  const Cell* none = Find(cells, harm, Index::kNone);
  const Cell* emb = Find(cells, kEmbedded, Index::kNone);
  const size_t hnsw_rows = row != nullptr ? row->rows : 0;

  const kit::Ratio vs_copy = Paired(docs, kRate, copy, kRate);
  const kit::Ratio batch_row = Paired(batch, kRate, row, kRate);
  h.results().add_ratio("LD-1", "fenec-docs/postgres-copy", "index=none", "rows_per_s_ratio", vs_copy);
  if (!harm.empty()) h.results().add_ratio("LD-1", harm, "hnsw-batch/hnsw-row", "rows_per_s_ratio", batch_row);

  kit::Verdict targets = findings::verdict(findings::ld1::kFinding);
  targets.ours = fmt::format("no index: fenec-docs {:.0f} rows/s, postgres-copy {:.0f} ({}); {} with HNSW on {} rows: "
                             "batch-linked {:.0f} rows/s, row at a time {:.0f} ({})",
                             Median(docs, kRate), Median(copy, kRate), kit::format_ratio(vs_copy),
                             harm.empty() ? "no arm" : harm, hnsw_rows, Median(batch, kRate), Median(row, kRate),
                             kit::format_ratio(batch_row));
  targets.plot = plot.empty() ? "" : plot + ".png";
  // A quick run shows fenec against COPY without judging it (the catalogue's LD-1 says why).
  targets.set(kit::judge({findings::check("fenec-docs/postgres-copy rows/s, no index", vs_copy, findings::ld1::kCopy,
                                          true, h.quick()),
                          findings::check(harm + " hnsw-batch/hnsw-row rows/s", batch_row, findings::ld1::kBatch, true,
                                          h.quick())}));
  h.results().verdict(targets);

  // The text's share: reading the rows into Documents against landing them, per repetition.
  const kit::Ratio text_land = Paired(emb, [](const LoadFigures& f) { return f.parse_s; }, emb,
                                      [](const LoadFigures& f) { return f.land_s; });
  const kit::Ratio graph = Paired(none, kRate, batch, kRate);
  h.results().add_ratio("LD-1", kEmbedded, "index=none", "parse_over_land", text_land);
  if (!harm.empty()) h.results().add_ratio("LD-1", harm, "none/hnsw-batch", "rows_per_s_ratio", graph);
  const double handle = Median(docs, [](const LoadFigures& f) { return f.server_handle_s; });
  const double hold = Median(docs, [](const LoadFigures& f) { return f.lock_hold_s; });

  kit::Verdict time = findings::verdict(findings::ld1::kTime);
  time.ours = fmt::format(
      "no index, fenec-embedded: text -> rows {} s, PutBatch {} s ({}; the vectors are {:.0f}% of the file's text); "
      "fenec-docs: the server's handling {} s, of it the write lock {} s; {}: no index {:.0f} rows/s, batch-linked "
      "graph {:.0f} ({}), last vector linked {} s after the last ack",
      Secs(Median(emb, [](const LoadFigures& f) { return f.parse_s; })),
      Secs(Median(emb, [](const LoadFigures& f) { return f.land_s; })), kit::format_ratio(text_land),
      vec_text_share * 100, Secs(handle), Secs(hold), harm.empty() ? "no arm" : harm, Median(none, kRate),
      Median(batch, kRate), kit::format_ratio(graph),
      Secs(Median(batch, [](const LoadFigures& f) { return f.link_tail_s; })));
  time.plot = targets.plot;
  time.set(kit::judge({findings::check("fenec-embedded text->rows / PutBatch time, no index", text_land,
                                       findings::ld1::kText, true, h.quick()),
                       findings::check(harm + " no index / hnsw-batch rows/s (the graph > half the time)", graph,
                                       findings::ld1::kGraph, true, h.quick())}));
  h.results().verdict(time);
}

}  // namespace fenec::scenarios::load
