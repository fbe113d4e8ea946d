// Parsing and naming of the quantities every iobench flag takes: sizes
// ("4k", "1m", "16MiB"), durations ("2s", "500ms") and comma lists of them.
// Parsers return false with a one-line reason, so the CLI can exit 2 with it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fenec::iobench {

// "4096", "4k", "4K", "4KiB", "4kb", "1m", "16M", "1g". Binary multiples
// (k = 1024): a database's page and block sizes are powers of two. Zero,
// negative, fractional or overflowing sizes are rejected.
bool parse_size(std::string_view text, uint64_t* out, std::string* error);
bool parse_size_list(std::string_view text, std::vector<uint64_t>* out, std::string* error);

// The short label used in case names and tables: 4096 -> "4k", 1048576 -> "1m",
// 1536 -> "1536". Round trips through parse_size.
std::string size_label(uint64_t bytes);

// "2s", "500ms", "1.5", "1m" (minutes), "250us". Must be > 0.
bool parse_duration(std::string_view text, double* seconds, std::string* error);

// "1,2,4" -> {1,2,4}; every item a positive integer.
bool parse_count_list(std::string_view text, std::vector<unsigned>* out, std::string* error);

// Splits on commas, trimming blanks; empty items are kept (so callers reject them).
std::vector<std::string> split_list(std::string_view text);

}  // namespace fenec::iobench
