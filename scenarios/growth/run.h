// growth-bench's run, flags aside (main.cc): the @unique and @text put
// parts, GR-3 and GR-4 (vector_arm.h), GR-5 (gr5.h), lookups and memory,
// their rows, plots and verdicts (report.h).
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
  bool skip_vector = false, skip_unique = false;
  bool no_side = false, skip_text = false, skip_lookup = false, skip_memory = false, skip_db = false;
  // GR-5 (gr5.h)
  bool skip_gr5 = false;
  double gr5_seconds = 1;
  uint32_t gr5_sync_ms = 20, gr5_sync_delay_us = 20000;
};

// Everything after h.parse(); returns h.finish().
int run(kit::Harness& h, const Options& o);

}  // namespace fenec::scenarios::growth
