// growth-bench workloads: keys, doubling bands, and the timed put runs.
//
// A put run feeds n single puts, one at a time, into a UniqueIndex or a
// TextIndex held under a std::shared_mutex the way the engine holds its
// indexes (exclusive to write, shared to read), and times each put
// including its lock. A second thread beside it makes a lookup (shared) or a
// put of its own (exclusive) every ~50 us and counts the operations whose
// wait for the lock overlapped a growth: what a user behind the writer sees.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/src/index/index_types.h"
#include "engine/src/base/histogram.h"

namespace fenec::scenarios::growth {

// Keys as a unique field would hold them. kEmail: "user<n>@example.com"
// (17-26 bytes, heap-held by every map measured); kShort: "u<n>" (<= 15
// bytes, inline everywhere). Bijective in i, so n puts are n distinct keys.
enum class KeyStyle { kEmail, kShort };
size_t make_key(KeyStyle style, uint64_t i, char* buf);  // buf >= 48 bytes; returns length
// A text term: lowercase base-36 of a scrambled i, one token.
size_t make_term(uint64_t i, char* buf);

// Doubling bands: [0, 114688), [114688, 229376), ... -- each band but the
// first starts at a key count where the single table doubles (7/8 of a power
// of two), so a band's longest put is that doubling's stall.
struct Band {
  uint64_t lo, hi;
  std::string label() const;  // "keys=229376..458752"
};
std::vector<Band> bands_up_to(uint64_t n);
size_t band_of(uint64_t keys);  // index into bands_up_to(...)
// Key counts at which the naive single table doubles (from 57 344 keys), for plot marks.
std::vector<uint64_t> doublings_up_to(uint64_t n);

// Where put latencies go: a histogram, each band's longest put, the ten
// longest puts with the key count they met, and the longest put of every
// chunk of puts (the plot's points). No per-put vector.
class PutRecorder {
 public:
  PutRecorder(uint64_t n, size_t points);
  // grew: this put paid for a growth (a doubling or a step of a move).
  void record(uint64_t keys_before, uint64_t ns, bool grew);

  struct Top {
    uint64_t ns, keys;
  };
  const base::Histogram& histogram() const { return hist_; }
  const std::vector<uint64_t>& band_max_ns() const { return band_max_; }
  // Longest put that grew / that did not: the second is this machine's noise
  // floor (preemption, page faults of a neighbour), not the index's doing.
  uint64_t max_grew_ns() const { return max_grew_; }
  uint64_t max_plain_ns() const { return max_plain_; }
  // (key count, ns) of every put that grew: a few thousand at most.
  const std::vector<std::pair<uint64_t, uint64_t>>& grew() const { return grew_; }
  std::vector<Top> top() const;  // longest first, at most kTop
  // (key count at the chunk's end, longest put in it in ns)
  const std::vector<std::pair<uint64_t, uint64_t>>& chunks() const { return chunks_; }
  static constexpr size_t kTop = 10;

 private:
  base::Histogram hist_;
  std::vector<uint64_t> band_max_;
  uint64_t max_grew_ = 0, max_plain_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> grew_;
  std::vector<Top> top_;  // min-heap on ns
  uint64_t chunk_len_, in_chunk_ = 0, chunk_max_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> chunks_;
};

// What the second thread saw.
struct SideStats {
  uint64_t reads = 0, writes = 0;
  uint64_t reads_waited_on_growth = 0, writes_waited_on_growth = 0;
  uint64_t read_wait_max_ns = 0, write_wait_max_ns = 0;
};

struct PutRun {
  PutRun(uint64_t n, size_t plot_points) : rec(n, plot_points) {}
  PutRecorder rec;
  SideStats side;
  index::IndexStats stats;        // the index's counters at the end
  std::vector<index::GrowthEvent> growths;
  double seconds = 0;
  bool interrupted = false;
};

enum class Kind { kUnique, kText };

// n puts of keys 0..n-1 into a fresh index of `arm`; side thread if `side`.
PutRun run_puts(Kind kind, index::Arm arm, uint64_t n, KeyStyle style, bool side,
                size_t plot_points);

}  // namespace fenec::scenarios::growth
