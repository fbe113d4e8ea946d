// MM-4 on the matchers people really share across threads, beside
// the std::regex arms in kernels.h. Same pattern (" user id ", any case),
// same lines.
//
//  - RE2: one compiled RE2 is safe to use from every thread; its lazily built
//    DFA states live in a cache inside the object, shared by all threads and
//    guarded by RE2's own lock. Re2Matcher is that object; the shared arm
//    hands one to every thread, the per-thread arm gives each thread its own.
//  - PCRE2 (JIT when available): the compiled code is read-only and shared;
//    the mutable part is the match data. Pcre2SharedMatcher keeps one match
//    data and lends it to whichever call takes it, and a call that finds it
//    taken allocates a fresh one (the source's Regex, and this bench's
//    std::regex SharedMatcher); Pcre2LocalMatcher keeps one per thread.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

struct pcre2_real_code_8;
struct pcre2_real_match_data_8;

namespace fenec::scenarios::micro {

class Re2Matcher {
 public:
  explicit Re2Matcher(const std::string& pattern);  // case-insensitive
  ~Re2Matcher();
  bool ok() const;
  bool match(std::string_view line) const;

 private:
  std::unique_ptr<re2::RE2> re_;
};

// The compiled pattern, shared read-only by every PCRE2 matcher of it.
class Pcre2Code {
 public:
  explicit Pcre2Code(const std::string& pattern);  // case-insensitive; JIT-compiled if PCRE2 has a JIT
  ~Pcre2Code();
  Pcre2Code(const Pcre2Code&) = delete;
  Pcre2Code& operator=(const Pcre2Code&) = delete;
  bool ok() const { return code_ != nullptr; }
  bool jit() const { return jit_; }
  // One match of line using md (a match data made for this code).
  bool match(std::string_view line, pcre2_real_match_data_8* md) const;
  pcre2_real_match_data_8* new_match_data() const;

 private:
  pcre2_real_code_8* code_ = nullptr;
  bool jit_ = false;
};

class Pcre2SharedMatcher {
 public:
  explicit Pcre2SharedMatcher(const Pcre2Code& code) : code_(code) {}
  ~Pcre2SharedMatcher();
  bool match(std::string_view line);
  uint64_t fresh_match_data() const { return fresh_.load(std::memory_order_relaxed); }

 private:
  const Pcre2Code& code_;
  std::atomic<pcre2_real_match_data_8*> cached_{nullptr};
  std::atomic<uint64_t> fresh_{0};
};

class Pcre2LocalMatcher {
 public:
  explicit Pcre2LocalMatcher(const Pcre2Code& code);
  ~Pcre2LocalMatcher();
  bool match(std::string_view line) { return code_.match(line, md_); }

 private:
  const Pcre2Code& code_;
  pcre2_real_match_data_8* md_;
};

}  // namespace fenec::scenarios::micro
