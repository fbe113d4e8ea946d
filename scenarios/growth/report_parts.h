// The helpers report.cc (rows, verdicts) and summary.cc (console tables,
// plots) share: figures over the repetitions and their text. Not part of
// growth-bench's interface (report.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "iobench/kit/plot.h"
#include "iobench/kit/stats.h"
#include "scenarios/growth/report.h"

namespace fenec::scenarios::growth::parts {

double us(uint64_t ns);
std::string rep_case(const std::string& c, size_t rep);  // "<c>;rep=<rep + 1>"
// Each repetition's figure, then their geometric mean and 95% interval.
void add_ratio_rows(kit::Results& r, const char* f, const std::string& arm, const std::string& c,
                    const std::string& metric, const std::vector<double>& per_rep, const std::string& unit);
// Put latency over the count held, run 1 of two arms: the longest put of
// each chunk as a thin line, every put that grew as a point, `marks` as
// dashed lines. plots/growth/<name>.png|svg.
void write_latency_chart(kit::Harness& h, const char* name, const std::string& what, const PutRecorder* naive,
                         const PutRecorder* sharded, const std::string& naive_arm, const std::string& sharded_arm,
                         const std::vector<kit::Mark>& marks, uint64_t n, size_t plot_points,
                         const std::string& unit);  // "key": "put latency over key count"
const LookupResult* lookup_of(const Summary& s, const std::string& arm);
std::vector<PutFigures> figures_of_all(const std::vector<PutRun>& runs, uint64_t n);
// One figure of every repetition; over_reps: its geometric mean and 95% interval.
std::vector<double> pick(const std::vector<PutFigures>& fs, const std::function<double(const PutFigures&)>& get);
kit::Ratio over_reps(const std::vector<PutFigures>& fs, const std::function<double(const PutFigures&)>& get);
// Band b's longest growth (cpu) or longest put over the repetitions.
kit::Ratio band_reps(const std::vector<PutFigures>& fs, size_t b, bool cpu);
// A time in microseconds over the repetitions, in ms or us with its interval;
// time_cell the same without the interval, for table cells.
std::string time_text(const kit::Ratio& us_figure);
std::string time_cell(const kit::Ratio& us_figure);

// The naive @unique arm's longest put at each doubling, in the source's
// words (findings/CATALOGUE.md GR-1), with the low end of a range as a number.
struct SourceBand {
  uint64_t lo;
  const char* text;
  double ms;
};
inline constexpr SourceBand kSourceBands[] = {
    {229376, "7 ms", 7}, {458752, "19 ms", 19}, {917504, "49 ms", 49}, {1835008, "109 ms", 109},
    {3670016, "235-267 ms", 235}};

}  // namespace fenec::scenarios::growth::parts
