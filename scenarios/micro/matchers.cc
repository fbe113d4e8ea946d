#include "scenarios/micro/matchers.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <re2/re2.h>

namespace fenec::scenarios::micro {

Re2Matcher::Re2Matcher(const std::string& pattern) {
  RE2::Options o;
  o.set_case_sensitive(false);
  o.set_log_errors(false);
  re_ = std::make_unique<re2::RE2>(pattern, o);
}

Re2Matcher::~Re2Matcher() = default;

bool Re2Matcher::ok() const { return re_->ok(); }

bool Re2Matcher::match(std::string_view line) const {
  return RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), *re_);
}

Pcre2Code::Pcre2Code(const std::string& pattern) {
  int err = 0;
  PCRE2_SIZE at = 0;
  code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_CASELESS, &err, &at,
                        nullptr);
  if (code_ != nullptr) jit_ = pcre2_jit_compile(code_, PCRE2_JIT_COMPLETE) == 0;
}

Pcre2Code::~Pcre2Code() { pcre2_code_free(code_); }

pcre2_match_data* Pcre2Code::new_match_data() const { return pcre2_match_data_create_from_pattern(code_, nullptr); }

bool Pcre2Code::match(std::string_view line, pcre2_match_data* md) const {
  const auto* s = reinterpret_cast<PCRE2_SPTR>(line.data());
  const int rc = jit_ ? pcre2_jit_match(code_, s, line.size(), 0, 0, md, nullptr)
                      : pcre2_match(code_, s, line.size(), 0, 0, md, nullptr);
  return rc > 0;
}

Pcre2SharedMatcher::~Pcre2SharedMatcher() { pcre2_match_data_free(cached_.load()); }

bool Pcre2SharedMatcher::match(std::string_view line) {
  pcre2_match_data* md = cached_.exchange(nullptr, std::memory_order_acquire);
  if (md == nullptr) {
    md = code_.new_match_data();
    fresh_.fetch_add(1, std::memory_order_relaxed);
  }
  const bool hit = code_.match(line, md);
  pcre2_match_data* expected = nullptr;
  if (!cached_.compare_exchange_strong(expected, md, std::memory_order_release)) pcre2_match_data_free(md);
  return hit;
}

Pcre2LocalMatcher::Pcre2LocalMatcher(const Pcre2Code& code) : code_(code), md_(code.new_match_data()) {}

Pcre2LocalMatcher::~Pcre2LocalMatcher() { pcre2_match_data_free(md_); }

}  // namespace fenec::scenarios::micro
