// growth-bench's run, flags aside (main.cc): the @unique and @text put
// parts, GR-3 and GR-4 (vector_arm.h), lookups and memory, their rows,
// plots and verdicts (report.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "iobench/kit/harness.h"

namespace fenec::scenarios::growth {

struct Options {
  uint64_t keys = 0, terms = 0, lookup_keys = 0, lookups = 0, vectors = 0, vector_base = 0;
  std::string key_style;  // "email" or "short"
  size_t plot_points = 0;
  bool skip_vector = false;
  bool no_side = false, skip_text = false, skip_lookup = false, skip_memory = false, skip_db = false;
};

// Everything after h.parse(); returns h.finish().
int run(kit::Harness& h, const Options& o);

}  // namespace fenec::scenarios::growth
