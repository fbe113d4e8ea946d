#include "scenarios/procs/metrics.h"

#include <httplib.h>

#include <exception>

namespace fenec::scenarios::procs {

std::string FetchMetrics(int port) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_read_timeout(30, 0);
  auto r = cli.Get("/metrics");
  return r && r->status == 200 ? r->body : "";
}

double PromValue(const std::string& text, const std::string& series) {
  const std::string key = "\n" + series + " ";
  const std::string padded = "\n" + text;
  size_t at = padded.find(key);
  if (at == std::string::npos) return -1;
  try {
    return std::stod(padded.substr(at + key.size()));
  } catch (const std::exception&) {  // a value that is not a number
    return -1;
  }
}

}  // namespace fenec::scenarios::procs
