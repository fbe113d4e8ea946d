// fenec-server: serves a fenecdb folder over HTTP/1.1 on loopback by default.
//
// SIGTERM (or SIGINT): stop accepting, finish the requests in flight and
// write their answers, sync the engine, close it (checkpoint), exit 0.
#include <signal.h>
#include <sys/resource.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "fenec/database.h"
#include "fenec/limits.h"
#include "engine/server/server.h"
#include "engine/src/base/cli.h"
#include "engine/src/base/commit_window.h"
#include "engine/src/base/version.h"

namespace {

constexpr const char* kDescription =
    "fenec-server: fenecdb over HTTP/1.1 with keep-alive.\n"
    "  POST /query {\"statement\": \"...\", \"params\": [...]}  (FenecQL: engine/doc/statements.md)\n"
    "  POST /docs/{collection}  GET /docs/{collection}/{id}  POST /batch  GET /health  GET /metrics\n"
    "--durability says when a write is acknowledged, and so what a crash of this process\n"
    "(kill -9, an OOM kill) and a power cut lose of acknowledged writes:\n"
    "  durable (default)  once its journal record is fdatasync'ed (group commit):\n"
    "                     a process crash loses nothing, a power cut nothing\n"
    "  write-through      once its journal record is written to the kernel, fdatasync'ed\n"
    "                     every --sync ms: a process crash loses nothing, a power cut\n"
    "                     up to --sync ms\n"
    "  buffered           once landed in this process; written at 1 MiB and, with an\n"
    "                     fdatasync, every --sync ms: a process crash or a power cut\n"
    "                     loses up to --sync ms (or 1 MiB) of writes\n"
    "In every mode an id once acknowledged never names another document after a crash.\n"
    "Connections are served asynchronously by --io-threads threads; a connection past\n"
    "--idle-timeout (waiting), --header-timeout or --body-timeout (a request arriving too\n"
    "slowly) or --write-timeout is closed, and counted in /metrics\n"
    "(fenec_http_connections_closed_total, fenec_http_rejected_total).\n"
    "Every request's header is checked before its body is read: its Host must name the\n"
    "listen address, localhost or an --allow-host name (else 421); an Origin must be this\n"
    "server's own (else 403: web pages of other sites cannot use it); with a token, the\n"
    "'Authorization: Bearer TOKEN' must match (else 401); a POST or any body must be\n"
    "Content-Type: application/json (else 415); bodies in flight must fit\n"
    "--max-inflight-bytes and requests waiting for a worker --max-queue (else 503 with\n"
    "Retry-After). The token comes from --token-file or --token, else $FENEC_TOKEN.\n"
    "Prints 'fenec-server listening on HOST:PORT' on stdout once it accepts.";

// The token file's contents, one trailing newline dropped; "" with *error
// set when it cannot be read or holds no usable token.
std::string ReadTokenFile(const std::string& path, std::string* error) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    *error = fmt::format("--token-file {}: {}", path, std::strerror(errno));
    return "";
  }
  std::string token;
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0 && token.size() <= 4096) token.append(buf, n);
  const int failed = std::ferror(f) != 0 ? errno : 0;
  std::fclose(f);
  if (failed != 0) {
    *error = fmt::format("--token-file {}: {}", path, std::strerror(failed));
    return "";
  }
  if (!token.empty() && token.back() == '\n') token.pop_back();
  if (!token.empty() && token.back() == '\r') token.pop_back();
  return token;
}

// A token as a header carries it: visible ASCII, no spaces, at most 4 KiB.
bool UsableToken(const std::string& token) {
  if (token.empty() || token.size() > 4096) return false;
  for (char c : token)
    if (c <= ' ' || c > '~') return false;
  return true;
}

bool SplitListen(const std::string& listen, std::string* host, uint16_t* port) {
  size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return false;
  *host = listen.substr(0, colon);
  if (host->size() >= 2 && host->front() == '[' && host->back() == ']') *host = host->substr(1, host->size() - 2);
  if (host->empty()) *host = "127.0.0.1";
  if (*host == "localhost") *host = "127.0.0.1";
  try {
    size_t used = 0;
    unsigned long p = std::stoul(listen.substr(colon + 1), &used);
    if (used != listen.size() - colon - 1 || p > 65535) return false;
    *port = static_cast<uint16_t>(p);
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

// Every open connection is a descriptor: the soft open-files limit (often
// 1024) would refuse connections long before --max-connections does, so it
// is raised to the hard limit, as servers do. Failing that, accept backs off
// and retries while descriptors are short.
void RaiseOpenFilesLimit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur >= lim.rlim_max) return;
  lim.rlim_cur = lim.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &lim) != 0) {
    fmt::print(stderr, "fenec-server: could not raise the open-files limit: {}\n", std::strerror(errno));
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{kDescription, "fenec-server"};
  app.set_version_flag("--version", fenec::base::VersionLine("fenec-server"));
  std::string listen = "127.0.0.1:8080", data = "fenec-data", token, token_file, long_reads = "pinned";
  std::vector<std::string> allow_hosts;
  std::string journals = "shared", completion = "direct", data_flush = "pwrite", vector_insert = "batch";
  uint32_t sync_ms = 250;
  std::string durability = fenec::DurabilityName(fenec::Durability::kDurable);
  bool durable = false;
  // Connection defaults: an idle client is let go after a minute
  // (nginx keeps 75 s); a header has 10 s from its first byte and a body 30 s
  // from its header, so a slow-drip client holds a connection that long at
  // most; 16 KiB and 100 fields hold any real client's header (Beast's own
  // limit is 8 KiB); 16384 connections, each a descriptor under ulimit -n.
  const fenec::server::HttpServer::Config http_defaults;
  size_t max_body = http_defaults.max_body, max_connections = http_defaults.max_connections;
  size_t io_threads = http_defaults.io_threads, workers = http_defaults.workers;
  size_t max_header_fields = http_defaults.max_header_fields;
  size_t max_inflight = http_defaults.max_inflight_bytes, max_queue = http_defaults.max_queue;
  uint32_t max_header_bytes = http_defaults.max_header_bytes;
  auto seconds = [](std::chrono::milliseconds ms) { return static_cast<double>(ms.count()) / 1000.0; };
  double idle_s = seconds(http_defaults.idle_timeout), header_s = seconds(http_defaults.header_timeout);
  double body_s = seconds(http_defaults.body_timeout), write_s = seconds(http_defaults.write_timeout);
  app.add_option("--listen", listen, "HOST:PORT to listen on (port 0: any free port)")->capture_default_str();
  app.add_option("--data", data, "the database folder (created if missing)")->capture_default_str();
  auto* durability_opt =
      app.add_option("--durability", durability, "when a write is acknowledged: durable, write-through or buffered (above)")
          ->capture_default_str()
          ->check(CLI::IsMember({fenec::DurabilityName(fenec::Durability::kDurable),
                                 fenec::DurabilityName(fenec::Durability::kWriteThrough),
                                 fenec::DurabilityName(fenec::Durability::kBuffered)}));
  auto* sync_opt = app.add_option("--sync", sync_ms,
                                  "write-through and buffered: fdatasync the journal every MS milliseconds")
                       ->capture_default_str()
                       ->check(CLI::Range(1u, 3600000u));
  app.add_flag("--durable", durable, "the same as --durability durable (the default), kept for older scripts")
      ->excludes(durability_opt);
  std::string commit_window = "adaptive";
  auto* window_opt =
      app.add_option("--commit-window-us", commit_window,
                     fmt::format("durable: a group commit's leader waits for the writers in flight to queue before "
                                 "its fdatasync, and no longer once they are (one writer never waits), so the puts a "
                                 "round releases ride the next round, not the one after. 'adaptive': at most 1/{} of "
                                 "this disk's recent fdatasync (and {} us), none where that is under {} us; a number: "
                                 "at most that many microseconds (0: no wait)",
                                 fenec::kAdaptiveWindowSyncDivisor, fenec::kAdaptiveWindowMaxUs,
                                 fenec::kAdaptiveWindowMinUs))
          ->capture_default_str()
          ->check([](const std::string& v) -> std::string {
            uint32_t us = 0;
            return fenec::ParseCommitWindow(v, &us) ? "" : "'adaptive' or 0..1000000 microseconds";
          });
  auto* token_opt = app.add_option(
      "--token", token,
      "require 'Authorization: Bearer TOKEN' on every request (needed off loopback); visible to other users "
      "in ps: prefer --token-file or $FENEC_TOKEN");
  app.add_option("--token-file", token_file, "read the token from this file (one line), kept out of the process list")
      ->excludes(token_opt);
  app.add_option("--allow-host", allow_hosts,
                 "a name clients reach this server by, accepted in Host besides the listen address and localhost "
                 "(repeatable)");
  app.add_option("--long-reads", long_reads, "how scans and aggregates read: pinned (CC-5) or locked (naive)")
      ->capture_default_str()
      ->check(CLI::IsMember({"pinned", "locked"}));
  app.add_option("--journals", journals, "index storages' journals: shared (JR-1, one write for all) or separate")
      ->capture_default_str()
      ->check(CLI::IsMember({"shared", "separate"}));
  app.add_option("--completion", completion,
                 "who lands writes: direct (each request, group commit) or the transaction merger, "
                 "merger-sync or merger-async (JR-2)")
      ->capture_default_str()
      ->check(CLI::IsMember({"direct", "merger-sync", "merger-async"}));
  app.add_option("--data-flush", data_flush, "data-file buffers: pwrite, or global-ring (IO-6, low I/O priority)")
      ->capture_default_str()
      ->check(CLI::IsMember({"pwrite", "global-ring"}));
  app.add_option("--vector-insert", vector_insert,
                 "how @hnsw fields link landed vectors: batch (VS-1, 512 at a time on every core) or row (one at a time)")
      ->capture_default_str()
      ->check(CLI::IsMember({"batch", "row"}));
  app.add_option("--max-body", max_body,
                 fmt::format("largest request body in bytes (larger: 413); at most {}, the largest commit the engine "
                             "journals",
                             fenec::limits::kMaxCommitBytes))
      ->capture_default_str()
      ->check(CLI::Range(size_t{1024}, size_t{1} << 40));
  app.add_option("--max-inflight-bytes", max_inflight,
                 "request body bytes in flight, all connections together, counted from each body's Content-Length "
                 "at its header (more: 503 with Retry-After, the body unread); at least --max-body")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1024}, size_t{1} << 40));
  app.add_option("--max-queue", max_queue, "requests waiting for a worker (more: 503 with Retry-After)")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, size_t{1} << 20));
  app.add_option("--max-connections", max_connections,
                 "connections open at once, idle ones included (more: 503); ulimit -n bounds it too")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, size_t{1} << 20));
  app.add_option("--io-threads", io_threads, "threads running the connections' reads and writes (and gets by id, /health)")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, size_t{256}));
  app.add_option("--workers", workers,
                 "threads running requests that may wait in the engine (writes, queries); more wait in a queue of "
                 "--max-queue")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, size_t{4096}));
  app.add_option("--idle-timeout", idle_s, "seconds a kept-alive connection may wait for its next request")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 86400.0));
  app.add_option("--header-timeout", header_s, "seconds from a request's first byte to the end of its header")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 86400.0));
  app.add_option("--body-timeout", body_s, "seconds from a request's header to the end of its body")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 86400.0));
  app.add_option("--write-timeout", write_s, "seconds an answer's write may take (a client not reading)")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 86400.0));
  app.add_option("--max-header-bytes", max_header_bytes, "largest request line and header fields together (larger: 431)")
      ->capture_default_str()
      ->check(CLI::Range(uint32_t{256}, uint32_t{1} << 24));
  app.add_option("--max-header-fields", max_header_fields, "most header fields in a request (more: 431)")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, size_t{100000}));
  double read_timeout_s = std::chrono::duration<double>(fenec::query::DefaultLimits().read_timeout).count();
  app.add_option("--read-timeout", read_timeout_s,
                 "seconds a long read (FIND, AGGREGATE) may run before it stops, answered 503 timeout (0: no limit)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 86400.0));
  if (int rc = fenec::base::ParseFlags(app, argc, argv); rc >= 0) return rc;

  fenec::Durability mode = fenec::Durability::kDurable;
  (void)fenec::ParseDurability(durability, &mode);  // IsMember checked it
  if (mode == fenec::Durability::kDurable && sync_opt->count() > 0) {
    fmt::print(stderr, "fenec-server: --sync applies to --durability write-through or buffered, not durable\n");
    return 2;
  }
  if (mode != fenec::Durability::kDurable && window_opt->count() > 0) {
    fmt::print(stderr, "fenec-server: --commit-window-us applies to --durability durable, not {}\n", durability);
    return 2;
  }
  if (max_body > fenec::limits::kMaxCommitBytes) {
    fmt::print(stderr, "fenec-server: --max-body {} is over {}, the largest commit the engine journals\n", max_body,
               fenec::limits::kMaxCommitBytes);
    return 2;
  }
  if (max_inflight < max_body) {
    fmt::print(stderr, "fenec-server: --max-inflight-bytes {} is below --max-body {}: a largest body could never be read\n",
               max_inflight, max_body);
    return 2;
  }
  if (!token_file.empty()) {
    std::string error;
    token = ReadTokenFile(token_file, &error);
    if (!error.empty()) {
      fmt::print(stderr, "fenec-server: {}\n", error);
      return 2;
    }
  } else if (const char* env = std::getenv("FENEC_TOKEN"); env != nullptr && token.empty()) {
    token = env;
  }
  if ((!token_file.empty() || !token.empty()) && !UsableToken(token)) {
    fmt::print(stderr, "fenec-server: the token must be 1 to 4096 visible ASCII characters, no spaces\n");
    return 2;
  }

  fenec::server::FenecServer::Config config;
  if (!SplitListen(listen, &config.http.host, &config.http.port)) {
    fmt::print(stderr, "fenec-server: --listen '{}' is not HOST:PORT (see --help)\n", listen);
    return 2;
  }
  if (!fenec::server::IsLoopback(config.http.host) && token.empty()) {
    fmt::print(stderr, "fenec-server: listening on {} (not loopback) needs --token (see --help)\n", config.http.host);
    return 2;
  }
  config.http.max_body = max_body;
  config.http.max_connections = max_connections;
  config.http.io_threads = io_threads;
  config.http.workers = workers;
  auto ms = [](double sec) { return std::chrono::milliseconds(static_cast<int64_t>(sec * 1000.0 + 0.5)); };
  config.http.idle_timeout = ms(idle_s);
  config.http.header_timeout = ms(header_s);
  config.http.body_timeout = ms(body_s);
  config.http.write_timeout = ms(write_s);
  config.http.max_header_bytes = max_header_bytes;
  config.http.max_header_fields = max_header_fields;
  config.http.max_inflight_bytes = max_inflight;
  config.http.max_queue = max_queue;
  config.http.allowed_hosts = allow_hosts;
  config.limits.read_timeout = ms(read_timeout_s);
  RaiseOpenFilesLimit();
  config.token = token;

  // Signals are taken by sigwait below, in this thread only: every thread
  // started after this inherits the mask. A peer gone mid-write is an
  // error on that write, not a signal that kills the server.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  fenec::Options options;
  options.durability = mode;
  options.journals = journals == "shared" ? fenec::Journals::kShared : fenec::Journals::kSeparate;
  options.completion = completion == "direct"        ? fenec::Completion::kDirect
                       : completion == "merger-sync" ? fenec::Completion::kMergerSync
                                                     : fenec::Completion::kMergerAsync;
  options.data_flush = data_flush == "pwrite" ? fenec::DataFlush::kPwrite : fenec::DataFlush::kGlobalRing;
  options.sync_ms = sync_ms;
  (void)fenec::ParseCommitWindow(commit_window, &options.commit_window_us);  // the option's check passed it
  options.long_reads = long_reads == "locked" ? fenec::LongReads::kUnderLock : fenec::LongReads::kPinned;
  options.hnsw.insert = vector_insert == "row" ? fenec::VectorInsert::kRow : fenec::VectorInsert::kBatch;
  auto db = fenec::Database::Open(data, options);
  if (!db.ok()) {
    fmt::print(stderr, "fenec-server: open {}: {}\n", data, db.status().ToString());
    return 1;
  }

  fenec::server::FenecServer server(db->get(), config);
  if (fenec::Status st = server.Start(); !st.ok()) {
    fmt::print(stderr, "fenec-server: {}\n", st.ToString());
    (void)(*db)->Close();
    return 1;
  }
  fmt::print("fenec-server listening on {}:{} (data {}, {}, long reads {})\n", config.http.host, server.port(), data,
             mode != fenec::Durability::kDurable ? fmt::format("{}, sync {} ms", durability, sync_ms)
             : commit_window != "0"             ? fmt::format("durable, commit window {}{}", commit_window,
                                                              commit_window == "adaptive" ? "" : " us")
                                                : std::string("durable"),
             long_reads);
  std::fflush(stdout);

  int sig = 0;
  sigwait(&stop_signals, &sig);
  fmt::print(stderr, "fenec-server: {}: finishing requests in flight\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  server.Stop();
  fenec::Status synced = (*db)->Sync();
  fenec::Status closed = (*db)->Close();
  if (!synced.ok() || !closed.ok()) {
    fmt::print(stderr, "fenec-server: sync/close: {} / {}\n", synced.ToString(), closed.ToString());
    return 1;
  }
  fmt::print(stderr, "fenec-server: stopped cleanly\n");
  return 0;
}
