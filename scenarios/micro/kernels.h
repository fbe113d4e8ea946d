// The work each MM micro-benchmark times, apart from Google Benchmark so the
// tests can check it and the callgrind mode can count its instructions.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <regex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fenec::scenarios::micro {

// ---- MM-2: a social graph and a friends-of-friends walk ----------------------
struct Graph {
  std::vector<uint32_t> offsets;  // node i's neighbours are edges[offsets[i] .. offsets[i+1])
  std::vector<uint32_t> edges;
  size_t nodes() const { return offsets.empty() ? 0 : offsets.size() - 1; }
  std::span<const uint32_t> neighbours(uint32_t n) const {
    return {edges.data() + offsets[n], edges.data() + offsets[n + 1]};
  }
};

// 10-20 random friends a node, and one node in `hub_every` a hub with
// hub_degree friends: a walk that touches a hub visits thousands of nodes,
// which is what leaves a reused hash set with a huge bucket array.
Graph make_graph(size_t nodes, uint64_t seed, size_t hub_every = 200, size_t hub_degree = 1000);

// Distinct nodes within two hops of `start` (itself included). V has add(node)
// -> bool (true if new); the caller clears it between walks.
template <class V>
uint64_t walk_two_hops(const Graph& g, uint32_t start, V& visited) {
  uint64_t n = visited.add(start) ? 1 : 0;
  for (uint32_t f : g.neighbours(start)) {
    n += visited.add(f) ? 1 : 0;
    for (uint32_t ff : g.neighbours(f)) n += visited.add(ff) ? 1 : 0;
  }
  return n;
}

// ---- MM-3: registering a batch of items and counting them --------------------
// One atomic increment per item (the source's Interlocked.Increment in the loop).
void register_per_item(std::span<const uint64_t> items, std::vector<uint64_t>& queue,
                       std::atomic<int64_t>& count);
// Count locally, one atomic add per batch (Interlocked.Add).
void register_per_batch(std::span<const uint64_t> items, std::vector<uint64_t>& queue,
                        std::atomic<int64_t>& count);

// ---- MM-4: a compiled matcher shared by threads vs one per thread ------------
// What a match needs besides the compiled pattern: the line folded to lower
// case (so the pattern itself needs no icase) and the match results.
struct MatchScratch {
  MatchScratch();
  std::string folded;
  std::cmatch m;
};

// std::regex (libstdc++): a const std::regex may be searched from many
// threads at once; the mutable part is the scratch. Like .NET's Regex, this
// matcher keeps one cached scratch and lends it to whichever call takes it;
// a call that finds it taken (another thread has it) builds a fresh one.
class SharedMatcher {
 public:
  explicit SharedMatcher(const std::string& pattern);
  ~SharedMatcher();
  bool match(std::string_view line);
  uint64_t fresh_scratch() const { return fresh_.load(std::memory_order_relaxed); }

 private:
  std::regex re_;
  std::atomic<MatchScratch*> cached_{nullptr};
  std::atomic<uint64_t> fresh_{0};
};

// The fix: one instance (pattern copy + scratch) per thread, no sharing at all.
class LocalMatcher {
 public:
  explicit LocalMatcher(const std::string& pattern);
  bool match(std::string_view line);

 private:
  std::regex re_;
  MatchScratch scratch_;
};

inline constexpr const char* kUserIdPattern = R"(\s+user id\s+)";
// The same for matchers that fold case themselves (RE2, PCRE2: caseless).
inline constexpr const char* kUserIdPatternAnyCase = R"(\s+user id\s+)";
// Log-like lines, about one in ten containing " user id ".
std::vector<std::string> make_lines(size_t count, uint64_t seed);

// ---- MM-5: sorting offsets into a file of strings ----------------------------
// Records are [1-byte length][bytes], 4..32 bytes of lower-case text.
struct StringFile {
  std::string path;
  std::vector<uint64_t> offsets;  // shuffled: the order to sort
  uint64_t bytes = 0;
};
// Writes the file (and fsyncs it: the bench reads a real, durable file).
// Returns "" on success, else the error.
std::string make_string_file(const std::string& path, size_t count, uint64_t seed, StringFile* out);

// Each comparison reads both strings with pread (one tiny read each);
// *preads counts the system calls. Returns "" or the error.
std::string sort_by_pread(int fd, std::vector<uint64_t>& offsets, uint64_t* preads);
// One read of the whole file, then compare in memory.
std::string sort_by_read(int fd, uint64_t bytes, std::vector<uint64_t>& offsets);
// Map the file and compare through the mapping.
std::string sort_by_mmap(int fd, uint64_t bytes, std::vector<uint64_t>& offsets);

}  // namespace fenec::scenarios::micro
