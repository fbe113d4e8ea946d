// fleet-bench's parts, flags aside (main.cc):
//   fleet    four hosts on loopback (two healthy ext4 loop devices, one
//            throttled, one tmpfs), iobench fleet --apart and --together over
//            the cells: the report must name the slow host and the lying one,
//            and no other;
//   scaling  the same cell --together on 2 servers and on N, interleaved: the
//            wall time of fio's client fanning out (ratio N/2 with its interval);
//   check    one healthy host, the same cell through iobench's own sweep
//            (run_cell) and through fio's server, interleaved: their rates'
//            ratio with its interval, and whether it is within 10%.
#pragma once

#include <string>
#include <vector>

#include "iobench/kit/harness.h"

namespace fenec::scenarios::fleet {

struct Config {
  std::vector<std::string> parts, cells, submits;
  std::vector<unsigned> jobs;
  double runtime_s = 1, ramp_s = 0.5;
  unsigned slow_iops = 20;
  uint64_t loop_mib = 2048;
  unsigned scale_servers = 8;
  int nice = -10;
};

// The lines the checks are judged against.
inline constexpr double kScalingLine = 1.3;  // N servers' wall time over 2's, at most
inline constexpr double kCheckTolerance = 0.10;  // the fleet path's rate within 10% of iobench's

int run(kit::Harness& h, const Config& c);

}  // namespace fenec::scenarios::fleet
