#include "engine/src/base/proc.h"

#include <fstream>

namespace fenec::base {

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  if (!(in >> a >> b >> c)) return "unknown";
  return a + " " + b + " " + c;
}

}  // namespace fenec::base
