// FenecQL's lexer on arbitrary bytes: it must always end with exactly one
// kEnd or kError token, never read past the text, and give offsets inside it.
#include <cstdint>
#include <string_view>

#include "engine/src/query/lexer.h"
#include "fuzz/check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using fenec::query::Tok;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto toks = fenec::query::Lex(text);
  FUZZ_CHECK(!toks.empty(), "no token at all");
  const Tok last = toks.back().kind;
  FUZZ_CHECK(last == Tok::kEnd || last == Tok::kError, "the last token is kind %d", static_cast<int>(last));
  size_t prev = 0;
  for (size_t i = 0; i < toks.size(); ++i) {
    const auto& t = toks[i];
    FUZZ_CHECK(t.offset <= size, "token %zu at offset %zu of %zu bytes", i, t.offset, size);
    if (i + 1 < toks.size()) {
      FUZZ_CHECK(t.kind != Tok::kEnd && t.kind != Tok::kError, "token %zu ends the text early", i);
      // Tokens come in text order: an offset going back would mean the lexer re-read input.
      FUZZ_CHECK(t.offset >= prev, "token %zu at %zu before %zu", i, t.offset, prev);
    }
    prev = t.offset;
  }
  return 0;
}
