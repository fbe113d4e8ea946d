#include "scenarios/soak/load.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <thread>

#include <fmt/format.h>
#include <simdjson.h>

namespace fenec::scenarios::soak {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kMaxProblems = 10;

void Note(std::vector<std::string>& problems, std::string p) {
  if (problems.size() < kMaxProblems) problems.push_back(std::move(p));
}

// Waits for the next slot of a `rate`-a-second schedule; a schedule fallen
// more than a second behind (a pause, a slow answer) restarts from now
// rather than sending a burst to catch up.
void Pace(Clock::time_point* next, double rate) {
  const auto now = Clock::now();
  if (*next > now) {
    std::this_thread::sleep_until(*next);
  } else if (now - *next > std::chrono::seconds(1)) {
    *next = now;
  }
  *next += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / rate));
}

std::unique_ptr<httplib::Client> Connect(int port) {
  auto cli = std::make_unique<httplib::Client>("127.0.0.1", port);
  cli->set_keep_alive(true);
  cli->set_tcp_nodelay(true);
  cli->set_connection_timeout(5, 0);
  cli->set_read_timeout(30, 0);
  cli->set_write_timeout(30, 0);
  return cli;
}

// The ids of a PUT's answer: {"ids":[..]}, or /batch's {"ids":[[..],[..]]}, flattened.
bool Ids(const std::string& body, std::vector<int64_t>* ids) {
  simdjson::dom::parser parser;
  simdjson::padded_string text(body);
  simdjson::dom::array arr;
  if (parser.parse(text)["ids"].get(arr)) return false;
  for (simdjson::dom::element e : arr) {
    int64_t id = 0;
    simdjson::dom::array inner;
    if (!e.get(id)) {
      ids->push_back(id);
    } else if (!e.get(inner)) {
      for (simdjson::dom::element x : inner) {
        if (x.get(id)) return false;
        ids->push_back(id);
      }
    } else {
      return false;
    }
  }
  return true;
}

// A refusal for want of space: 507 with the error code no_space.
bool IsNoSpace(int status, const std::string& body) {
  if (status != 507) return false;
  simdjson::dom::parser parser;
  simdjson::padded_string text(body);
  std::string_view code;
  return !parser.parse(text)["error"]["code"].get(code) && code == "no_space";
}

}  // namespace

void Gate::Open(int port, int active, bool malformed) {
  std::lock_guard<std::mutex> lock(mu_);
  port_ = port;
  active_ = active;
  malformed_ = malformed;
  killing_.store(false);
  cv_.notify_all();
}

bool Gate::Close(int threads, int bound_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  active_ = 0;
  malformed_ = false;
  cv_.notify_all();
  return cv_.wait_for(lock, std::chrono::milliseconds(bound_ms), [&] { return parked_ >= threads; });
}

void Gate::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopped_ = true;
  cv_.notify_all();
}

bool Gate::Wait(int who, int* port, bool* resumed) {
  std::unique_lock<std::mutex> lock(mu_);
  auto runs = [&] { return stopped_ || (who < 0 ? malformed_ : who < active_); };
  *resumed = false;
  if (!runs()) {
    ++parked_;
    cv_.notify_all();
    cv_.wait(lock, runs);
    --parked_;
    *resumed = true;
  }
  *port = port_;
  return !stopped_;
}

void Classes::Add(const Classes& o) {
  ok += o.ok;
  c4xx += o.c4xx;
  c5xx += o.c5xx;
  conn_errors += o.conn_errors;
  conn_errors_at_kill += o.conn_errors_at_kill;
}

void ClientStats::Add(const ClientStats& o) {
  classes.Add(o.classes);
  puts += o.puts;
  docs_acked += o.docs_acked;
  gets += o.gets;
  get_mismatches += o.get_mismatches;
  finds += o.finds;
  contains += o.contains;
  counts += o.counts;
  nears += o.nears;
  bad_answers += o.bad_answers;
  no_space_refused += o.no_space_refused;
  rt_ns.Merge(o.rt_ns);
  for (const auto& p : o.problems) Note(problems, p);
}

ClientStats Client::Take() {
  std::lock_guard<std::mutex> lock(mu_);
  ClientStats out = std::move(stats_);
  stats_ = ClientStats{};
  return out;
}

void Client::Run() {
  std::mt19937_64 rng(o_.seed ^ (0x51AB0000ull + static_cast<uint64_t>(o_.index)));
  std::uniform_real_distribution<double> unit(0, 1);
  std::unique_ptr<httplib::Client> cli;
  int port = 0, cli_port = 0;
  bool resumed = false;
  auto next = Clock::now();
  // Bounded by the gate: the soak stops every client when its time is up.
  while (gate_->Wait(o_.index, &port, &resumed)) {
    if (!cli || resumed || cli_port != port) {
      cli = Connect(port);
      cli_port = port;
      next = Clock::now();
    }
    Pace(&next, o_.rate);
    const double u = unit(rng);
    const size_t have = acked_->size();
    std::string what, path, body;
    int puts = 0;  // documents in this request, when it is a put
    int64_t key0 = 0;
    Ack got{};
    if (u < 0.30 || have == 0) {
      puts = 1 + static_cast<int>(rng() % 3);
      key0 = next_key_->fetch_add(puts) + (disk_ != nullptr && disk_->Full() ? kFatKeys : 0);
      std::vector<std::string> docs;
      for (int i = 0; i < puts; ++i) docs.push_back(DocJson(MakeDoc(key0 + i, o_.seed)));
      const int way = static_cast<int>(rng() % 3);
      if (way == 0) {
        what = "POST /docs/soak";
        path = "/docs/soak";
        body = "[" + fmt::format("{}", fmt::join(docs, ", ")) + "]";
      } else if (way == 1) {
        what = "PUT soak $docs";
        path = "/query";
        body = fmt::format(R"j({{"statement": "PUT soak $docs", "params": {{"docs": [{}]}}}})j", fmt::join(docs, ", "));
      } else {
        what = "POST /batch";
        path = "/batch";
        std::vector<std::string> sts;
        for (const auto& d : docs) sts.push_back(fmt::format(R"j({{"statement": "PUT soak $docs", "params": {{"docs": [{}]}}}})j", d));
        body = fmt::format(R"j({{"statements": [{}]}})j", fmt::join(sts, ", "));
      }
    } else if (u < 0.65) {
      got = acked_->at(rng() % have);
      what = path = fmt::format("/docs/soak/{}", got.id);
    } else {
      path = "/query";
      if (u < 0.80) {
        const int64_t lo = static_cast<int64_t>(rng() % kNRange);
        what = "FIND WHERE n";
        body = fmt::format(R"j({{"statement": "FIND soak WHERE n >= $1 AND n < $2 LIMIT 20", "params": [{}, {}]}})j", lo, lo + 50000);
      } else if (u < 0.87) {
        what = "FIND CONTAINS";
        body = fmt::format(R"j({{"statement": "FIND soak WHERE s CONTAINS $1 LIMIT 10", "params": ["{}"]}})j", Word(rng()));
      } else if (u < 0.93) {
        what = "COUNT";
        body = R"j({"statement": "AGGREGATE soak COUNT(*)"})j";
      } else {
        what = "NEAR";
        auto c = [&] { return static_cast<double>(rng() % 16) / 4.0 - 2.0; };
        body = fmt::format(R"j({{"statement": "FIND soak NEAR v $1 LIMIT 5", "params": [[{}, {}, {}, {}]]}})j", c(), c(), c(), c());
      }
    }
    const auto t0 = Clock::now();
    auto r = body.empty() ? cli->Get(path) : cli->Post(path, body, "application/json");
    const auto t1 = Clock::now();
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();

    std::lock_guard<std::mutex> lock(mu_);
    ClientStats& s = stats_;
    s.rt_ns.Record(static_cast<uint64_t>(ns));
    if (!r) {
      if (gate_->killing()) {
        ++s.classes.conn_errors_at_kill;
      } else {
        ++s.classes.conn_errors;
        Note(s.problems, fmt::format("{}: {}", what, httplib::to_string(r.error())));
      }
      cli.reset();  // a new connection next time
      continue;
    }
    const int status = r->status;
    const bool ok = status >= 200 && status < 300;
    if (puts > 0 && disk_ != nullptr && (ok || IsNoSpace(status, r->body))) {
      if (disk_->Put(t0, t1, ok) && !ok) {
        ++s.no_space_refused;
        continue;
      }
    }
    if (ok) {
      ++s.classes.ok;
    } else {
      ++(status >= 500 ? s.classes.c5xx : s.classes.c4xx);
      Note(s.problems, fmt::format("{}: {} {}{}", what, status, r->body.substr(0, 200),
                                   IsNoSpace(status, r->body) ? " (with space available)" : ""));
      continue;
    }
    if (puts > 0) {
      std::vector<int64_t> ids;
      if (!Ids(r->body, &ids) || ids.size() != static_cast<size_t>(puts)) {
        ++s.bad_answers;
        Note(s.problems, fmt::format("{}: {} documents, answered {}", what, puts, r->body.substr(0, 200)));
        continue;
      }
      // Ids come back in the order of the documents (and of a batch's statements).
      std::vector<Ack> acks;
      for (int i = 0; i < puts; ++i) acks.push_back({ids[static_cast<size_t>(i)], key0 + i});
      acked_->Add(acks);
      ++s.puts;
      s.docs_acked += static_cast<uint64_t>(puts);
    } else if (got.id != 0) {
      ++s.gets;
      simdjson::dom::parser parser;
      simdjson::padded_string text(r->body);
      simdjson::dom::element root, doc;
      int64_t id = 0;
      std::string d;
      if (parser.parse(text).get(root) || root["id"].get(id) || id != got.id || root["doc"].get(doc)) {
        d = fmt::format("not {{\"id\": {}, \"doc\": ...}}: {}", got.id, r->body.substr(0, 200));
      } else {
        d = Differs(MakeDoc(got.key, o_.seed), simdjson::minify(doc));
      }
      if (!d.empty()) {
        ++s.get_mismatches;
        Note(s.problems, fmt::format("{}: {}", what, d));
      }
    } else if (what == "FIND WHERE n") {
      ++s.finds;
    } else if (what == "FIND CONTAINS") {
      ++s.contains;
    } else if (what == "COUNT") {
      ++s.counts;
    } else {
      ++s.nears;
    }
  }
}

MalformedStats MalformedSender::Take() {
  std::lock_guard<std::mutex> lock(mu_);
  MalformedStats out = std::move(stats_);
  stats_ = MalformedStats{};
  return out;
}

void MalformedStats::Add(const MalformedStats& o) {
  sent += o.sent;
  refused_right += o.refused_right;
  wrong += o.wrong;
  conn_errors_at_kill += o.conn_errors_at_kill;
  classes.Add(o.classes);
  for (const auto& p : o.problems) Note(problems, p);
}

void MalformedSender::Run() {
  std::vector<BadRequest> bad = BadRequests();
  std::shuffle(bad.begin(), bad.end(), std::mt19937_64(seed_ ^ 0xBAD));
  int port = 0;
  bool resumed = false;
  auto next = Clock::now();
  size_t i = 0;
  // Bounded by the gate, as the clients are.
  while (gate_->Wait(-1, &port, &resumed)) {
    if (resumed) next = Clock::now();
    Pace(&next, rate_);
    const BadRequest& b = bad[i++ % bad.size()];
    const RawAnswer a = RawExchange(port, b.bytes, 10'000);
    const std::string why = JudgeRefusal(a);
    std::lock_guard<std::mutex> lock(mu_);
    MalformedStats& s = stats_;
    if (a.status == 0 && gate_->killing()) {
      ++s.conn_errors_at_kill;  // the server was being killed: neither right nor wrong
      continue;
    }
    ++s.sent;
    if (a.status == 0) {
      ++s.classes.conn_errors;
    } else if (a.status < 300) {
      ++s.classes.ok;
    } else if (a.status < 500) {
      ++s.classes.c4xx;
    } else {
      ++s.classes.c5xx;
    }
    if (why.empty()) {
      ++s.refused_right;
    } else {
      ++s.wrong;
      Note(s.problems, fmt::format("{} '{}': {}", b.kind, b.name, why));
    }
  }
}

}  // namespace fenec::scenarios::soak
