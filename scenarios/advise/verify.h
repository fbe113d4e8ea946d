// advise's verifying half: iobench's advice (iobench/src/advise.h, linked)
// checked against the engines themselves, through the shared arms
// (scenarios/engines): each engine calibrated (iobench/doc/advise.md), then at
// its default and its recommended settings at each writer count, the cells
// interleaved over the repetitions, so each ratio has a 95% interval.
#pragma once

#include <string>
#include <vector>

#include "iobench/kit/harness.h"
#include "iobench/src/advise.h"
#include "scenarios/engines/store.h"

namespace fenec::scenarios::advise {

namespace ia = fenec::iobench::advise;

struct Config {
  std::vector<std::string> engines;
  std::vector<int> writers;
  double seconds = 2;          // a verify cell
  double measure_seconds = 1;  // a sweep cell of the measurement
  double calibrate_seconds = 0.5;
  std::string cpu_us;          // engine=us,... given instead of calibrating
  std::string report;          // folder for advise.md and plots ("" = plots/advise)
};

// The arm that runs engine e at `settings`, durable (or buffered, for the calibration).
engines::ArmSpec arm_of(ia::Engine e, const ia::Settings& settings, bool durable);

// One engine, config and writer count: each repetition's commits/s and counters.
struct Cell {
  ia::Engine engine;
  std::string config;  // "default" / "recommended"
  int writers = 1;
  ia::Settings settings;
  std::vector<double> rates, per_round;  // per repetition: commits/s, commits / fsync
  std::vector<int> reps;                 // the repetition each of those came from
  std::vector<double> predicted;         // per repetition: the model's, from that repetition's calibration
  bool calibrated_apart = false;         // recommended settings with a calibration of their own (calibrates_apart)
  std::string error;
};

// What verify found, per (engine, writers): the ratios and the plain verdict lines.
struct Verdicts {
  std::string table, markdown, json;
  std::vector<ia::MeasuredPoint> points;
};
// Each cell's timed checks over the repetitions in `w` (a sequential run's
// pilot or main experiment): measured/predicted against the band's two
// lines, "<engine>-<config> <n>w measured/predicted >= 0.8" and "< 1.25",
// and a recommended cell's gain over its default's against 1.
std::vector<kit::Check> cell_checks(const ia::Advice& a, const std::vector<Cell>& cells, const kit::Window& w);
// judged: cell_checks as the run's sequence judged them (null: every
// repetition at 95%).
Verdicts judge(const ia::Advice& a, const std::vector<Cell>& cells, kit::Results& res,
               const std::vector<kit::Check>* judged = nullptr);

int run(kit::Harness& h, const Config& c);

}  // namespace fenec::scenarios::advise
