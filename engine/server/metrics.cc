#include "engine/server/metrics.h"

#include <fmt/format.h>

namespace fenec::server {

void Metrics::Record(const std::string& endpoint, const std::string& kind, int status, uint64_t handle_ns) {
  base::MutexLock lock(&mu_);
  Series& s = series_[{endpoint, kind}];
  ++s.by_status[status];
  s.handle_ns.Record(handle_ns);
}

void Metrics::RecordWrite(const std::string& endpoint, const std::string& kind, uint64_t write_ns) {
  base::MutexLock lock(&mu_);
  series_[{endpoint, kind}].write_ns.Record(write_ns);
}

void Metrics::RecordRefused(int status) {
  base::MutexLock lock(&mu_);
  ++refused_[status];
}

void AppendCounter(std::string& out, const char* name, const char* help, double value) {
  fmt::format_to(std::back_inserter(out), "# HELP {0} {1}\n# TYPE {0} counter\n{0} {2}\n", name, help, value);
}

void AppendGauge(std::string& out, const char* name, const char* help, double value) {
  fmt::format_to(std::back_inserter(out), "# HELP {0} {1}\n# TYPE {0} gauge\n{0} {2}\n", name, help, value);
}

namespace {

void AppendSummary(std::string& out, const char* name, const std::string& labels, const base::Histogram& h) {
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    fmt::format_to(std::back_inserter(out), "{}{{{},quantile=\"{}\"}} {:.9f}\n", name, labels, q,
                   static_cast<double>(h.Percentile(q * 100)) / 1e9);
  }
  fmt::format_to(std::back_inserter(out), "{}_sum{{{}}} {:.9f}\n", name, labels, static_cast<double>(h.sum()) / 1e9);
  fmt::format_to(std::back_inserter(out), "{}_count{{{}}} {}\n", name, labels, h.count());
  fmt::format_to(std::back_inserter(out), "{}_max{{{}}} {:.9f}\n", name, labels, static_cast<double>(h.max()) / 1e9);
}

}  // namespace

void Metrics::AppendText(std::string& out) const {
  base::MutexLock lock(&mu_);
  out += "# HELP fenec_requests_total Requests answered, by endpoint, statement kind and HTTP status.\n";
  out += "# TYPE fenec_requests_total counter\n";
  for (const auto& [key, s] : series_) {
    for (const auto& [status, n] : s.by_status) {
      fmt::format_to(std::back_inserter(out), "fenec_requests_total{{endpoint=\"{}\",kind=\"{}\",code=\"{}\"}} {}\n",
                     key.first, key.second, status, n);
    }
  }
  for (const auto& [status, n] : refused_) {
    fmt::format_to(std::back_inserter(out), "fenec_requests_total{{endpoint=\"refused\",kind=\"\",code=\"{}\"}} {}\n",
                   status, n);
  }
  out += "# HELP fenec_request_handle_seconds Server time from a request read to its answer built "
         "(statement, engine, JSON).\n# TYPE fenec_request_handle_seconds summary\n";
  for (const auto& [key, s] : series_) {
    AppendSummary(out, "fenec_request_handle_seconds",
                  fmt::format("endpoint=\"{}\",kind=\"{}\"", key.first, key.second), s.handle_ns);
  }
  out += "# HELP fenec_request_write_seconds Time of the answer's one socket write.\n"
         "# TYPE fenec_request_write_seconds summary\n";
  for (const auto& [key, s] : series_) {
    AppendSummary(out, "fenec_request_write_seconds",
                  fmt::format("endpoint=\"{}\",kind=\"{}\"", key.first, key.second), s.write_ns);
  }
}

}  // namespace fenec::server
