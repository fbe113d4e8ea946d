#include "engine/server/server.h"

#include <chrono>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "engine/server/http_guard.h"
#include "engine/src/base/json.h"

namespace fenec::server {
namespace {

HttpResponse& Json(HttpResponse& res, int status, std::string body) {
  res.status = status;
  res.body = std::move(body);
  return res;
}

// The method and path are the client's bytes: escaped (and any byte that is
// not UTF-8 replaced) so that even this answer is valid JSON.
void NoRoute(HttpResponse& res, int status, const std::string& method, const std::string& path) {
  res.endpoint = "none";
  const char* code = status == 405 ? "method" : "no_route";
  std::string message;
  base::AppendJsonString(message, fmt::format("no {} {} here: see engine/doc/statements.md", method, path));
  Json(res, status,
       fmt::format(R"({{"error":{{"code":"{}","message":{},"where":"path"}}}})", code, message));
}

// Paths are plain names and numbers; anything percent-encoded is not a collection we could have.
std::vector<std::string_view> Split(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '/') {
      ++i;
      continue;
    }
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    parts.push_back(path.substr(i, j - i));
    i = j;
  }
  return parts;
}

}  // namespace

bool IsLoopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

FenecServer::FenecServer(Database* db, Config config)
    : db_(db), config_(std::move(config)), service_(db, config_.limits) {
  config_.http.token = config_.token;
  config_.http.body_slack = simdjson::SIMDJSON_PADDING;  // the service pads each body before parsing it
  // Memory is sampled by one thread, once a second, from smaps_rollup only
  // (MM-1): a /metrics scrape reads the cached sample and never walks /proc.
  smaps_ = std::make_unique<base::SmapsRollupSampler>(0, std::chrono::milliseconds(1000), 4096);
  http_ = std::make_unique<HttpServer>(
      config_.http, [this](HttpRequest& req, HttpResponse& res) { Handle(req, res); },
      [this](const HttpResponse& res, uint64_t handle_ns) {
        metrics_.Record(res.endpoint, res.kind, res.status, handle_ns);
      },
      [this](const HttpResponse& res, uint64_t write_ns) { metrics_.RecordWrite(res.endpoint, res.kind, write_ns); },
      [this](int status) { metrics_.RecordRefused(status); },
      [this](HttpRequest& req, HttpResponse& res) { return HandleInline(req, res); },
      [this](HttpRequest& req, HttpResponse& res, std::function<void()> answered, bool no_wait) {
        return HandleLater(req, res, std::move(answered), no_wait);
      });
}

FenecServer::~FenecServer() { Stop(); }

Status FenecServer::Start() { return http_->Start(); }

void FenecServer::Stop() {
  // Long reads in flight end at their next check, so stopping waits for no scan.
  service_.CancelReads();
  if (http_) http_->Stop();
  if (smaps_) smaps_->Stop();
}

// The transport refuses a wrong token at the header already; this guards
// Handle's other callers (tests, the handler's fuzz target).
bool FenecServer::Authorized(const HttpRequest& req) const {
  return config_.token.empty() || BearerMatches(req.authorization, config_.token);
}

void FenecServer::Health(HttpResponse& res) const {
  res.endpoint = "health";
  Status state = db_->WriteState();
  if (state.ok()) {
    Json(res, 200, R"({"status":"ok"})");
  } else if (state.IsFailStopped()) {
    Json(res, 503, R"({"status":"fail_stopped"})");
  } else if (state.IsNoSpace()) {
    // Read-only for want of space: reads are served, writes resume once it returns.
    Json(res, 503, R"({"status":"no_space","reads":"served","writes":"refused until space returns"})");
  } else {
    Json(res, 503, R"({"status":"closed"})");
  }
}

// Bodies larger than this are not looked at on the io thread: a get by id's
// is ~50 bytes, and reading a put of a thousand rows there (only to learn it
// is a put) would stall the thread's other connections.
constexpr size_t kInlineMaxBody = 4096;

bool FenecServer::HandleInline(HttpRequest& req, HttpResponse& res) {
  if (!Authorized(req)) return false;
  std::string_view target = req.target;
  auto parts = Split(target.substr(0, target.find('?')));
  const bool get = req.method == "GET";
  if (get && parts.size() == 1 && parts[0] == "health") {
    Health(res);
    return true;
  }
  const bool doc_get = get && parts.size() == 3 && parts[0] == "docs";
  const bool point_read = req.method == "POST" && req.body.size() <= kInlineMaxBody && parts.size() == 1 &&
                          parts[0] == "query";
  if (!doc_get && !point_read) return false;
  // Every engine read below takes the shared lock only if it is free at
  // once: behind a writer, the request goes to a worker (which may wait).
  NoWaitReads no_wait;
  std::optional<query::Answer> a;
  if (doc_get) {
    a = service_.GetDoc(parts[1], parts[2]);
  } else {
    a = service_.QueryPointRead(req.body);
  }
  if (no_wait.busy() > 0) {
    // Its answer is the engine's refusal, not the document's: dropped, and
    // the worker reads again (its plan-cache lookup counted a second time).
    reads_deferred_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  if (!a) return false;
  res.endpoint = doc_get ? "docs_get" : "query";
  res.kind = a->kind;
  Json(res, a->http, std::move(a->body));
  return true;
}

bool FenecServer::HandleLater(HttpRequest& req, HttpResponse& res, std::function<void()> answered, bool no_wait) {
  if (req.method != "POST" || !Authorized(req)) return false;
  // On the io thread only a POST /query small enough to read there (as a
  // get by id's) may be a put that lands without waiting.
  if (no_wait && req.body.size() > kInlineMaxBody) return false;
  std::string_view target = req.target;
  auto parts = Split(target.substr(0, target.find('?')));
  const char* endpoint = nullptr;
  if (parts.size() == 1 && parts[0] == "query") endpoint = "query";
  else if (no_wait) return false;
  else if (parts.size() == 1 && parts[0] == "batch") endpoint = "batch";
  else if (parts.size() == 2 && parts[0] == "docs") endpoint = "docs_put";
  else return false;
  // res is the session's, kept by `answered` until it is called; after a
  // deferred answer nothing here touches it again (the callback may have
  // run already).
  auto fill = [&res, endpoint](query::Answer a) {
    res.endpoint = endpoint;
    res.kind = a.kind;
    Json(res, a.http, std::move(a.body));
  };
  query::AnswerLater later = [fill, answered](query::Answer a) {
    fill(std::move(a));
    answered();
  };
  // no_wait: nothing but a put with a cached plan, landed at once or not at all.
  std::optional<query::Answer> a = no_wait              ? service_.QueryPutNoWait(req.body, later)
                                   : endpoint[0] == 'q' ? service_.Query(req.body, later)
                                   : endpoint[0] == 'b' ? service_.Batch(req.body, later)
                                                        : service_.PutDocs(parts[1], req.body, later);
  if (!a) return false;
  if (a->deferred) return true;
  fill(std::move(*a));
  answered();
  return true;
}

void FenecServer::Handle(HttpRequest& req, HttpResponse& res) {
  std::string_view target = req.target;
  std::string_view path = target.substr(0, target.find('?'));
  auto parts = Split(path);
  const bool get = req.method == "GET", post = req.method == "POST";

  if (!Authorized(req)) {
    res.endpoint = "unauthorized";
    Json(res, 401, R"({"error":{"code":"unauthorized","message":"this server needs Authorization: Bearer <token>","where":"headers"}})");
    return;
  }
  auto run = [&](const char* endpoint, query::Answer a) {
    res.endpoint = endpoint;
    res.kind = a.kind;
    Json(res, a.http, std::move(a.body));
  };
  if (parts.size() == 1 && parts[0] == "query") {
    if (!post) return NoRoute(res, 405, req.method, req.target);
    return run("query", service_.Query(req.body));
  }
  if (parts.size() == 1 && parts[0] == "batch") {
    if (!post) return NoRoute(res, 405, req.method, req.target);
    return run("batch", service_.Batch(req.body));
  }
  if (parts.size() == 3 && parts[0] == "docs") {
    if (!get) return NoRoute(res, 405, req.method, req.target);
    return run("docs_get", service_.GetDoc(parts[1], parts[2]));
  }
  if (parts.size() == 2 && parts[0] == "docs") {
    if (!post) return NoRoute(res, 405, req.method, req.target);
    return run("docs_put", service_.PutDocs(parts[1], req.body));
  }
  if (parts.size() == 1 && parts[0] == "health") {
    return Health(res);
  }
  if (parts.size() == 1 && parts[0] == "metrics") {
    res.endpoint = "metrics";
    res.content_type = "text/plain; version=0.0.4";
    res.status = 200;
    res.body = MetricsText();
    return;
  }
  NoRoute(res, 404, req.method, req.target);
}

std::string FenecServer::MetricsText() const {
  std::string out;
  out.reserve(16384);
  metrics_.AppendText(out);
  http_->AppendMetrics(out);
  AppendEngineMetrics(out);
  AppendCounter(out, "fenec_http_reads_deferred_total",
                "Gets by id an io thread handed to a worker because the engine's lock was taken.",
                static_cast<double>(reads_deferred()));
  const auto& cache = service_.cache();
  AppendCounter(out, "fenec_plan_cache_hits_total", "Statements found planned in the cache.",
                static_cast<double>(cache.hits()));
  AppendCounter(out, "fenec_plan_cache_misses_total", "Statements parsed and planned.",
                static_cast<double>(cache.misses()));
  AppendGauge(out, "fenec_plan_cache_entries", "Plans kept.", static_cast<double>(cache.size()));
  base::MemSample m = smaps_->latest();
  AppendGauge(out, "fenec_process_rss_bytes", "Resident set size (smaps_rollup, sampled once a second).",
              static_cast<double>(m.rss_kb) * 1024);
  AppendGauge(out, "fenec_process_pss_bytes", "Proportional set size (smaps_rollup).", static_cast<double>(m.pss_kb) * 1024);
  AppendGauge(out, "fenec_process_anon_bytes", "Anonymous memory (smaps_rollup).", static_cast<double>(m.anon_kb) * 1024);
  AppendGauge(out, "fenec_process_rss_peak_bytes", "Highest RSS sampled.", static_cast<double>(smaps_->peak_rss_kb()) * 1024);
  return out;
}

// Every counter fenec/stats.h declares, named and typed by its declaration.
void FenecServer::AppendEngineMetrics(std::string& out) const {
  const Stats s = db_->GetStats();
  for (Stat k : kAllStats) {
    const std::string name = MetricName(k);
    const double v = MetricValue(k, s.get(k));
    if (Info(k).kind == StatKind::kCounter) AppendCounter(out, name.c_str(), Info(k).help, v);
    else AppendGauge(out, name.c_str(), Info(k).help, v);
  }
}

}  // namespace fenec::server
