// The engine's own hot paths as micro-benchmarks (names "ENG/<path>"): they
// back no finding, they are here so the CI charts see a change that slows them.
// Built only when the engine's libraries exist (FENEC_MICRO_ENGINE).
#pragma once

#include <map>
#include <string>

namespace fenec::micro {

void register_engine_benchmarks(std::map<std::string, std::string>* cases);

}  // namespace fenec::micro

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace fenec::micro {

// The same hot paths with fixed work, for micro-icount's instruction counts.
std::vector<std::pair<std::string, std::function<uint64_t()>>> engine_icount_kernels();

}  // namespace fenec::micro
