// fs-bench's checks as a sequential run (--reps auto) asks for them: each
// part of the matrix (sweep, create, engines, jr1) is a site whose checks
// are every verdict check its cells feed, on every file system, and every
// pair of file systems' values of each ratio its cells feed (over 15%
// apart, or within 15%: the differences of findings_by_fs.md). A check is
// named so the verdicts and the differences can find it again.
#pragma once

#include <string>
#include <vector>

#include "iobench/kit/stats.h"
#include "iobench/kit/verdict.h"
#include "scenarios/fs/judge.h"
#include "scenarios/fs/matrix.h"

namespace fenec::scenarios::fs {

// "fs=ext4: 16k/4k durable IOPS" (+ suffix, where one def feeds two checks).
std::string check_key(const std::string& fs, const RatioDef& d, const std::string& suffix);
// The part a def's cells run in: its num cell's ("sweep", "engines", ...).
std::string part_of(const RatioDef& d);

// One pair of file systems on one def: a's value over b's, paired by
// repetition, in w: "more" holds when a/b >= threshold, "fewer" when
// a/b < 1/threshold. Named "pair a/b: <what> >= 1.15" and "... < 0.87";
// with no repetitions in w, both with an unknown ratio.
std::vector<kit::Check> pair_checks(const Measured& m, const RatioDef& d, const std::string& a, const std::string& b,
                                    double threshold, const kit::Window& w);
enum class PairResult { kDiffers, kWithin, kUndecided };
// Differs when either clears; within 15% when both miss; else undecided.
PairResult pair_result(const kit::Check& more, const kit::Check& fewer);

// The part's checks over w, named as above: the verdicts' checks on every
// file system, then every pair's.
std::vector<kit::Check> part_checks(const Measured& m, const std::string& part, bool quick, const kit::Window& w);

}  // namespace fenec::scenarios::fs
