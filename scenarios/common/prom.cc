#include "scenarios/common/prom.h"

#include <exception>

namespace fenec::scenarios {

double PromValue(const std::string& text, const std::string& series) {
  std::string padded = "\n" + text;
  size_t at = padded.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  try {
    return std::stod(padded.substr(at + series.size() + 2));
  } catch (const std::exception&) {
    return -1;
  }
}

}  // namespace fenec::scenarios
