#include "iobench/src/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <fmt/format.h>

namespace fenec::iobench {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    items.emplace_back(trim(text.substr(start, comma == std::string_view::npos ? comma : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return items;
}

bool parse_size(std::string_view text, uint64_t* out, std::string* error) {
  std::string_view s = trim(text);
  uint64_t number = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), number);
  if (ec != std::errc() || end == s.data()) {
    *error = fmt::format("size '{}' is not a number with an optional k/m/g suffix", text);
    return false;
  }
  std::string unit = lower(std::string_view(end, s.data() + s.size() - end));
  uint64_t mult = 0;
  if (unit.empty() || unit == "b") mult = 1;
  else if (unit == "k" || unit == "kb" || unit == "kib") mult = 1ull << 10;
  else if (unit == "m" || unit == "mb" || unit == "mib") mult = 1ull << 20;
  else if (unit == "g" || unit == "gb" || unit == "gib") mult = 1ull << 30;
  else if (unit == "t" || unit == "tb" || unit == "tib") mult = 1ull << 40;
  if (mult == 0) {
    *error = fmt::format("size '{}' has an unknown unit '{}' (use k, m, g)", text, unit);
    return false;
  }
  if (number == 0) {
    *error = fmt::format("size '{}' must be greater than zero", text);
    return false;
  }
  if (number > UINT64_MAX / mult) {
    *error = fmt::format("size '{}' is too large", text);
    return false;
  }
  *out = number * mult;
  return true;
}

bool parse_size_list(std::string_view text, std::vector<uint64_t>* out, std::string* error) {
  out->clear();
  for (const std::string& item : split_list(text)) {
    uint64_t v = 0;
    if (!parse_size(item, &v, error)) return false;
    out->push_back(v);
  }
  return true;
}

std::string size_label(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"t", "g", "m", "k"};
  for (int i = 0; i < 4; ++i) {
    uint64_t mult = 1ull << (10 * (4 - i));
    if (bytes >= mult && bytes % mult == 0) return fmt::format("{}{}", bytes / mult, kUnits[i]);
  }
  return fmt::format("{}", bytes);
}

bool parse_duration(std::string_view text, double* seconds, std::string* error) {
  std::string_view s = trim(text);
  double number = 0;
  size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  std::string num(s.substr(0, i));
  try {
    size_t used = 0;
    number = std::stod(num, &used);
    if (used != num.size()) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    *error = fmt::format("duration '{}' is not a number with an optional s/ms/us/m suffix", text);
    return false;
  }
  std::string unit = lower(s.substr(i));
  double mult = 0;
  if (unit.empty() || unit == "s") mult = 1;
  else if (unit == "ms") mult = 1e-3;
  else if (unit == "us") mult = 1e-6;
  else if (unit == "m" || unit == "min") mult = 60;
  if (mult == 0) {
    *error = fmt::format("duration '{}' has an unknown unit '{}' (use s, ms, us, m)", text, unit);
    return false;
  }
  if (!(number > 0) || !std::isfinite(number)) {
    *error = fmt::format("duration '{}' must be greater than zero", text);
    return false;
  }
  *seconds = number * mult;
  return true;
}

bool parse_count_list(std::string_view text, std::vector<unsigned>* out, std::string* error) {
  out->clear();
  for (const std::string& item : split_list(text)) {
    unsigned v = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || end != item.data() + item.size() || v == 0 || v > 4096) {
      *error = fmt::format("'{}' in '{}' is not a count between 1 and 4096", item, text);
      return false;
    }
    out->push_back(v);
  }
  return true;
}

}  // namespace fenec::iobench
