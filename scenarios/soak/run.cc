#include "scenarios/soak/run.h"

#include <httplib.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

#include <fmt/format.h>
#include <simdjson.h>

#include "engine/src/base/smaps.h"
#include "iobench/kit/loopfs.h"
#include "scenarios/procs/child.h"
#include "scenarios/procs/loopback.h"
#include "scenarios/procs/engine_stats.h"
#include "scenarios/procs/metrics.h"
#include "scenarios/procs/server_process.h"

namespace fenec::scenarios::soak {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The progress line's word on the cycle's fill.
std::string FillLine(const CycleFigures& f) {
  if (!f.fill_planned) return "";
  if (!f.fill.ran) return "; the fill did not fill: " + f.fill.error;
  return fmt::format("; disk filled ({:.0f} MiB in {:.1f} s) and full {:.1f} s: {} puts refused 507, /health "
                     "no_space {} of {}, writes accepted again {}",
                     static_cast<double>(f.fill.filler_bytes) / 1048576, f.fill.fill_s, f.fill.full_s, f.fill.refused,
                     f.fill.health_no_space, f.fill.health_checks,
                     f.fill.resume_ms >= 0 ? fmt::format("{:.0f} ms after the filler went", f.fill.resume_ms)
                                           : std::string("(no put after the filler went)"));
}

std::string Post(int port, const std::string& path, const std::string& body, int want = 200) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_read_timeout(60, 0);
  auto r = cli.Post(path, body, "application/json");
  if (!r) return fmt::format("POST {}: {}", path, httplib::to_string(r.error()));
  if (r->status != want) return fmt::format("POST {}: {} {}", path, r->status, r->body.substr(0, 300));
  return "";
}

VerifyResult VerifyAll(int port, const AckedWrites& acked, uint64_t seed) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_keep_alive(true);
  cli.set_read_timeout(120, 0);
  std::vector<Ack> acks = acked.Snapshot();
  // About 20 scans however many writes: each FIND reads the collection through.
  const int64_t bucket = std::max<int64_t>(2000, static_cast<int64_t>(acks.size() / 20));
  return Verify(std::move(acks), seed, [&cli](int64_t lo, int64_t hi, std::string* error) -> std::string {
    // A FIND answers a page of rows; its "next" is the AFTER that asks for
    // the rest. The pages' rows are joined into one answer for Verify.
    std::string rows;
    simdjson::dom::parser parser;
    uint64_t after = 0;
    for (int page = 0; page < 1000000; ++page) {
      auto r = cli.Post(
          "/query",
          fmt::format(R"j({{"statement": "FIND soak WHERE key >= $1 AND key < $2 AFTER $3", "params": [{}, {}, {}]}})j",
                      lo, hi, after),
          "application/json");
      if (!r) {
        *error = httplib::to_string(r.error());
        return "";
      }
      if (r->status != 200) {
        *error = fmt::format("{} {}", r->status, r->body.substr(0, 300));
        return "";
      }
      simdjson::dom::element answer;
      simdjson::dom::array got;
      if (parser.parse(r->body).get(answer) || answer["rows"].get(got)) {
        *error = fmt::format("no rows in {}", r->body.substr(0, 200));
        return "";
      }
      for (simdjson::dom::element row : got) {
        if (!rows.empty()) rows.push_back(',');
        rows += simdjson::minify(row);
      }
      if (answer["next"].get(after)) break;  // no "next": the last page
    }
    return "{\"rows\":[" + rows + "]}";
  }, bucket);
}

class Soak {
 public:
  Soak(const SoakConfig& c, const std::function<bool()>& stop) : c_(c), stop_(stop) {}
  SoakReport Run();

 private:
  void Say(const std::string& line) {
    if (c_.progress) c_.progress(line);
  }
  // The server's folder: on a file system of its own where one can be made.
  void MakeDisk();
  // The server, in cycle `cycle`'s durability.
  std::string StartServer(int cycle);
  const std::string& ModeOf(int cycle) const { return c_.modes[static_cast<size_t>(cycle - 1) % c_.modes.size()]; }
  bool FillsIn(int cycle) const {
    return loop_ != nullptr && !c_.fills.empty() && c_.fills[static_cast<size_t>(cycle - 1) % c_.fills.size()] == '1';
  }
  // The loaded phase, until `end`; with a fill when `fill`. Returns the fill's figures.
  FillFigures Loaded(Clock::time_point end, bool fill);
  void SampleRss();
  // Waits until `end` (or a stop, or the server's own death), sampling RSS.
  void Hold(Clock::time_point end);
  void Wave(Clock::time_point wave_end);
  void Load(Clock::time_point end);
  void AddMetrics(const std::string& m);

  const SoakConfig& c_;
  std::function<bool()> stop_;
  SoakReport r_;
  // Before server_: destroyed after it, so no server holds the mount then.
  std::unique_ptr<kit::LoopFs> loop_;
  std::string data_dir_;
  procs::ServerProcess server_;
  int port_ = 0;
  std::atomic<bool> died_{false};  // the server ended on its own since the last start (the filler reads it)
  DiskWindow window_;
};

void Soak::MakeDisk() {
  data_dir_ = c_.data_dir;
  if (c_.disk_bytes == 0) {
    r_.disk_skipped = "no file system of its own asked for (disk size 0)";
    return;
  }
  kit::LoopFsOptions o;
  o.dir = c_.disk_dir;
  o.bytes = c_.disk_bytes;
  o.fs_type = "ext4";
  // 4 KiB blocks, as a disk's ext4 has (mkfs picks 1 KiB below 512 MiB).
  o.mkfs_options = kit::default_mkfs_options("ext4");
  o.mkfs_options.insert(o.mkfs_options.end(), {"-b", "4096"});
  o.scheduler = "";  // the question is space, not the queue
  std::string why;
  loop_ = kit::LoopFs::Create(o, &why);
  if (!loop_) {
    r_.disk_skipped = why.empty() ? "the loop file system could not be made" : why;
    return;
  }
  data_dir_ = loop_->mount_point() + "/db";
  r_.disk = fmt::format("ext4, {} MiB on {}", c_.disk_bytes >> 20, loop_->device());
  Say("disk: the server's folder on " + r_.disk);
}

std::string Soak::StartServer(int cycle) {
  const std::vector<std::string> args = {
      "--data", data_dir_, "--durability", ModeOf(cycle),
      "--idle-timeout", fmt::format("{}", c_.idle_timeout_s),
      "--header-timeout", fmt::format("{}", c_.header_timeout_s),
      "--body-timeout", fmt::format("{}", c_.body_timeout_s)};
  if (std::string err = server_.Start(c_.server_bin, args, c_.log_path); !err.empty()) return err;
  port_ = server_.port();
  died_ = false;
  return "";
}

void Soak::SampleRss() {
  if (server_.pid() <= 0) return;
  bool ok = false;
  const base::MemSample m = base::ReadSmapsRollup(server_.pid(), &ok);
  if (ok) r_.rss_peak = std::max(r_.rss_peak, static_cast<double>(m.rss_kb) * 1024);
}

void Soak::Hold(Clock::time_point end) {
  while (Clock::now() < end && !stop_() && !died_) {
    SampleRss();
    std::string how;
    if (!server_.Running(&how)) {
      died_ = true;
      ++r_.own_crashes;
      r_.crashes.push_back(how);
      Say(fmt::format("fenec-server died on its own ({}): see {}", how, c_.log_path));
      return;
    }
    std::this_thread::sleep_until(std::min(end, Clock::now() + std::chrono::milliseconds(250)));
  }
}

// One wave of held connections: open, held past every deadline, let go.
void Soak::Wave(Clock::time_point wave_end) {
  procs::Child holder;
  if (c_.idle + c_.slow > 0) {
    std::string said;
    const std::string err =
        holder.Start({c_.holder_bin, "--port", std::to_string(port_), "--idle", std::to_string(c_.idle), "--slow",
                      std::to_string(c_.slow), "--drip-ms", "500", "--max-seconds", "300"},
                     c_.log_path, "holding", std::chrono::seconds(30), &said);
    if (!err.empty()) {
      r_.problems.push_back("conns-holder: " + err);
    } else {
      r_.held_idle += static_cast<uint64_t>(c_.idle);
      r_.held_slow += static_cast<uint64_t>(c_.slow);
    }
  }
  // Half a body, then nothing: the body deadline's case.
  std::vector<int> fds;
  const std::string half = "POST /query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                           "Content-Length: 1000\r\n\r\n{\"statement\": ";
  for (int i = 0; i < c_.slow_body; ++i) {
    const int fd = procs::ConnectLoopback(static_cast<uint16_t>(port_));
    if (fd < 0) continue;
    if (procs::SendAll(fd, half.data(), half.size())) {
      fds.push_back(fd);
    } else {
      ::close(fd);
    }
  }
  Hold(wave_end);
  r_.slow_body_sent += fds.size();
  for (int fd : fds) {
    r_.slow_body_closed += procs::ClosedByPeer(fd) ? 1 : 0;
    ::close(fd);
  }
  if (holder.running()) holder.Stop(std::chrono::milliseconds(5000));
  ++r_.waves;
}

// Waves while a whole one fits (each held past the server's deadlines, so
// every held connection is one the server must close), then the load alone.
void Soak::Load(Clock::time_point end) {
  const double deadline = std::max({c_.idle_timeout_s, c_.header_timeout_s, c_.body_timeout_s});
  const auto wave = std::chrono::milliseconds(static_cast<int>(deadline * 1000) + 1500);
  for (int i = 0; i < 100000 && Clock::now() + wave <= end && !stop_() && !died_; ++i) Wave(Clock::now() + wave);
  Hold(end);
}

FillFigures Soak::Loaded(Clock::time_point end, bool fill) {
  if (!fill) {
    Load(end);
    return {};
  }
  // The fill starts a little into the phase and ends well before it, so
  // the clients write through the filling, the full disk and the space's
  // return, and the kill comes after they have written again.
  const auto now = Clock::now();
  const double phase_s = std::chrono::duration<double>(end - now).count();
  FillPlan p;
  p.path = loop_->mount_point() + "/filler";
  p.port = port_;
  p.hold_s = c_.full_s;
  p.start = now + std::chrono::milliseconds(static_cast<int>(std::min(1.0, 0.15 * phase_s) * 1000));
  p.free_by = end - std::chrono::milliseconds(static_cast<int>(std::max(2.0, 0.25 * phase_s) * 1000));
  FillFigures f;
  std::thread filler([&] { f = Fill(p, &window_, [this] { return stop_() || died_.load(); }); });
  Load(end);
  filler.join();
  const FillFigures clients = window_.Close();
  f.refused = clients.refused;
  f.accepted_full = clients.accepted_full;
  f.accepted_after_free = clients.accepted_after_free;
  f.resume_ms = clients.resume_ms;
  return f;
}

void Soak::AddMetrics(const std::string& m) {
  if (m.empty()) return;
  r_.engine.Accumulate(procs::StatsFromMetrics(m));
  auto v = [&m](const char* s) { return std::max(0.0, procs::PromValue(m, s)); };
  r_.closed_idle += v("fenec_http_connections_closed_total{reason=\"idle_timeout\"}");
  r_.closed_header += v("fenec_http_connections_closed_total{reason=\"header_timeout\"}");
  r_.closed_body += v("fenec_http_connections_closed_total{reason=\"body_timeout\"}");
  for (const char* s : {"header_bytes", "header_fields", "body_bytes", "bad_http", "framing", "max_connections"}) {
    r_.rejected += v(fmt::format("fenec_http_rejected_total{{reason=\"{}\"}}", s).c_str());
  }
}

SoakReport Soak::Run() {
  const auto t_start = Clock::now();
  MakeDisk();
  if (!r_.disk_skipped.empty()) Say("disk: the scratch folder, no fills (" + r_.disk_skipped + ")");
  if (std::string err = StartServer(1); !err.empty()) {
    r_.error = err;
    return r_;
  }
  if (std::string err = CreateCollections(port_); !err.empty()) {
    r_.error = "setup: " + err;
    return r_;
  }
  SampleRss();
  r_.rss_start = r_.rss_peak;

  Gate gate;
  std::atomic<int64_t> next_key{1};
  AckedWrites acked;
  std::vector<std::unique_ptr<Client>> clients;
  std::vector<std::thread> threads;
  for (int i = 0; i < c_.clients; ++i) {
    clients.push_back(
        std::make_unique<Client>(ClientOptions{i, c_.rate, c_.seed}, &gate, &next_key, &acked, &window_));
  }
  MalformedSender malformed(c_.malformed_rate, c_.seed, &gate);
  for (auto& cl : clients) threads.emplace_back([&cl] { cl->Run(); });
  threads.emplace_back([&malformed] { malformed.Run(); });
  const int parties = c_.clients + 1;

  const double per_cycle = c_.seconds / std::max(1, c_.cycles);
  const double loaded_s = std::max(1.0, per_cycle - c_.unloaded_s);
  uint64_t lost_so_far = 0;
  for (int cycle = 1; cycle <= c_.cycles && !stop_() && r_.error.empty(); ++cycle) {
    CycleFigures f;
    f.mode = ModeOf(cycle);
    f.fill_planned = FillsIn(cycle);
    gate.Open(port_, 1, false);
    Hold(Clock::now() + std::chrono::milliseconds(static_cast<int>(c_.unloaded_s * 1000)));
    ClientStats alone = clients[0]->Take();
    f.unloaded_p50_us = static_cast<double>(alone.rt_ns.Percentile(50)) / 1e3;
    f.unloaded_p99_us = static_cast<double>(alone.rt_ns.Percentile(99)) / 1e3;
    f.unloaded_requests = alone.rt_ns.count();
    r_.valid.Add(alone);

    gate.Open(port_, c_.clients, true);
    f.fill = Loaded(Clock::now() + std::chrono::milliseconds(static_cast<int>(loaded_s * 1000)), f.fill_planned);
    if (f.fill.ran && f.fill.health_other > 0) {
      ++r_.disk_problems;
      r_.problems.push_back(fmt::format("cycle {}: /health answered {} times neither 200 nor 503 no_space while the "
                                        "disk was full", cycle, f.fill.health_other));
    }
    if (f.fill.ran && f.fill.refused > 0 && f.fill.resume_ms < 0 && !stop_() && !died_) {
      ++r_.disk_problems;
      r_.problems.push_back(fmt::format("cycle {}: writes refused while the disk was full were not accepted again "
                                        "after the space returned", cycle));
    }
    ClientStats served;
    for (size_t i = 0; i < clients.size(); ++i) {
      ClientStats s = clients[i]->Take();
      if (i == 0) {
        f.loaded_p50_us = static_cast<double>(s.rt_ns.Percentile(50)) / 1e3;
        f.loaded_p99_us = static_cast<double>(s.rt_ns.Percentile(99)) / 1e3;
        f.loaded_requests = s.rt_ns.count();
      }
      served.Add(s);
    }
    f.served_p99_us = static_cast<double>(served.rt_ns.Percentile(99)) / 1e3;
    r_.valid.Add(served);
    bool ok = false;
    if (!died_) {
      const base::MemSample m = base::ReadSmapsRollup(server_.pid(), &ok);
      f.rss_loaded = ok ? static_cast<double>(m.rss_kb) * 1024 : 0;
      r_.rss_end = f.rss_loaded;
      AddMetrics(procs::FetchMetrics(port_));
    }

    // The crash, while the load still runs: writes are in flight.
    gate.MarkKill();
    std::string how;
    if (!died_ && !server_.Kill(&how)) {
      ++r_.own_crashes;
      r_.crashes.push_back(how);
    }
    f.killed_by_us = !died_ && how.empty();
    if (!gate.Close(parties, 60'000)) r_.problems.push_back("a client did not park within 60 s of a kill");
    for (auto& cl : clients) r_.valid.Add(cl->Take());
    r_.malformed.Add(malformed.Take());
    f.acked = acked.size();

    const auto t_restart = Clock::now();
    if (std::string err = StartServer(cycle + 1); !err.empty()) {
      r_.error = "restart: " + err;
      r_.cycles.push_back(f);
      break;
    }
    ++r_.restarts;
    f.restart_s = Since(t_restart);
    const auto t_verify = Clock::now();
    f.verify = VerifyAll(port_, acked, c_.seed);
    f.verify_s = Since(t_verify);
    // Each verification looks for every write acknowledged so far: a write
    // lost once is missed again by every later one, so the run's figure is
    // the largest, not the sum.
    r_.missing = std::max(r_.missing, f.verify.missing);
    r_.altered = std::max(r_.altered, f.verify.altered);
    // A lost write stays lost: what this verification finds past the most
    // any earlier one found was lost by this cycle's server (its mode's).
    f.lost_new = f.verify.lost() > lost_so_far ? f.verify.lost() - lost_so_far : 0;
    lost_so_far = std::max(lost_so_far, f.verify.lost());
    for (const auto& p : f.verify.problems) r_.problems.push_back(fmt::format("cycle {}: {}", cycle, p));
    if (!f.verify.error.empty()) r_.error = "verification: " + f.verify.error;
    if (loop_ != nullptr) {
      struct statvfs v {};
      if (::statvfs(loop_->mount_point().c_str(), &v) == 0) f.disk_used = (v.f_blocks - v.f_bfree) * v.f_frsize;
    }
    const bool edge = EdgeAsSeeded(port_);
    r_.edge_changed += edge ? 0 : 1;
    SampleRss();
    Say(fmt::format("cycle {}/{} ({}{}): client 0 p99 {:.0f} us alone, {:.0f} us loaded (all clients {:.0f} us); "
                    "{} acknowledged writes; {}kill -9, restart {:.2f} s, verified {} in {:.2f} s: {} missing, {} "
                    "altered{}; RSS {:.1f} MiB loaded{}",
                    cycle, c_.cycles, f.mode, FillLine(f), f.unloaded_p99_us, f.loaded_p99_us, f.served_p99_us, f.acked,
                    f.killed_by_us ? "" : "server had died on its own; ", f.restart_s, f.verify.checked, f.verify_s,
                    f.verify.missing, f.verify.altered, edge ? "" : "; edge collection CHANGED", f.rss_loaded / 1048576,
                    loop_ ? fmt::format("; disk {:.0f} MiB used", static_cast<double>(f.disk_used) / 1048576) : ""));
    r_.cycles.push_back(std::move(f));
  }
  gate.Stop();
  for (auto& t : threads) t.join();
  for (auto& cl : clients) r_.valid.Add(cl->Take());
  r_.malformed.Add(malformed.Take());
  r_.acked = acked.size();
  if (server_.pid() > 0) {
    std::string how;
    if (!server_.Running(&how)) {
      ++r_.own_crashes;
      r_.crashes.push_back(how);
    } else {
      r_.final_exit = server_.Stop();
    }
  }
  for (const auto& p : r_.valid.problems) r_.problems.push_back("valid: " + p);
  for (const auto& p : r_.malformed.problems) r_.problems.push_back("malformed: " + p);
  r_.elapsed_s = Since(t_start);
  return r_;
}

}  // namespace

bool EdgeAsSeeded(int port) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_read_timeout(60, 0);
  auto r = cli.Post("/query", R"j({"statement": "AGGREGATE edge COUNT(*)"})j", "application/json");
  if (!r || r->status != 200) return false;
  simdjson::dom::parser parser;
  simdjson::padded_string text(r->body);
  int64_t n = -1;
  return !parser.parse(text)["rows"].at(0).at(0).get(n) && n == 1;
}

std::string CreateCollections(int port) {
  for (const auto& [path, body] : std::vector<std::pair<std::string, std::string>>{
           {"/query", fmt::format(R"j({{"statement": "{}"}})j", kSoakSchema)},
           {"/query", fmt::format(R"j({{"statement": "{}"}})j", kEdgeSchema)},
           {"/docs/edge", kEdgeSeed}}) {
    if (std::string err = Post(port, path, body); !err.empty()) return err;
  }
  return "";
}

bool SoakReport::failed() const {
  return lost() > 0 || own_crashes > 0 || !error.empty() || disk_problems > 0 ||
         valid.classes.c4xx + valid.classes.c5xx > 0 || valid.classes.conn_errors > 0 || valid.get_mismatches > 0 || valid.bad_answers > 0 || malformed.wrong > 0 ||
         edge_changed > 0 || final_exit != 0 || cycles.empty();
}

SoakReport RunSoak(const SoakConfig& c, const std::function<bool()>& stop) { return Soak(c, stop).Run(); }

}  // namespace fenec::scenarios::soak
