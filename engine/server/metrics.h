// fenec-server's own measurements, served as Prometheus text on GET /metrics.
//
// Per (endpoint, statement kind): a request counter by status and two
// latency histograms - "handle" (from the request fully read to its answer
// built: the statement, the engine, the JSON) and "write" (the one socket
// write of the answer). Their sum is the server's own work for a request;
// RQ-1's "a get by id costs the server a few microseconds" is read off
// fenec_request_handle_seconds{kind="get"}.
//
// Histograms are the base's log-linear ones (engine/src/base/histogram.h): O(1)
// to record, exported as summaries (quantiles, sum, count, max).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "engine/src/base/histogram.h"
#include "engine/src/base/mutex.h"
#include "engine/src/base/thread_annotations.h"

namespace fenec::server {

class Metrics {
 public:
  // Records one answered request. endpoint: "query", "docs_get", ...; kind:
  // the statement kind ("get", "put" ...) or "" when none ran.
  void Record(const std::string& endpoint, const std::string& kind, int status, uint64_t handle_ns);
  void RecordWrite(const std::string& endpoint, const std::string& kind, uint64_t write_ns);
  // A request refused before it reached a handler (413, 431, 400 on bad HTTP or framing, 501, 503 over the
  // connection cap).
  void RecordRefused(int status);

  // Appends this object's series, in Prometheus text format.
  void AppendText(std::string& out) const;

 private:
  struct Series {
    std::map<int, uint64_t> by_status;
    base::Histogram handle_ns, write_ns;
  };
  mutable base::Mutex mu_;
  std::map<std::pair<std::string, std::string>, Series> series_ FENEC_GUARDED_BY(mu_);
  std::map<int, uint64_t> refused_ FENEC_GUARDED_BY(mu_);
};

// Prometheus helpers, shared with the server's engine and process series.
void AppendCounter(std::string& out, const char* name, const char* help, double value);
void AppendGauge(std::string& out, const char* name, const char* help, double value);

}  // namespace fenec::server
