// The engine's own hot paths as micro-benchmarks (names "ENG/<path>"): they
// back no finding, they are here so the CI charts see a change that slows them.
// The same hot paths with fixed work, for micro-icount: engine_icount_kernels()
// in icount.h.
#pragma once

#include <map>
#include <string>

#include "scenarios/micro/icount.h"

namespace fenec::scenarios::micro {

void register_engine_benchmarks(std::map<std::string, std::string>* cases);

}  // namespace fenec::scenarios::micro
