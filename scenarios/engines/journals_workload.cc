#include "scenarios/engines/journals_workload.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <mutex>
#include <random>
#include <thread>

#include "engine/src/base/kill_nine.h"
#include "engine/src/io/posix_env.h"

namespace fenec::scenarios::journals {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kCollection = "docs";

std::string field_name(int k) { return fmt::format("f{}", k); }

// A unique int per (writer, seq, field): writer in the high bits, the field
// in the low five (at most 16 indexed fields), so no two puts or fields share one.
int64_t int_value(int64_t writer, int64_t seq, int k) { return ((writer << 40 | seq) << 5) | k; }

// One alphanumeric word, so the @text index holds it as exactly one term.
std::string text_value(int64_t writer, int64_t seq, int k) { return fmt::format("t{}w{}s{}", k, writer, seq); }

Options options_of(Journals journals, Env* env) {
  Options o;
  o.env = env;
  o.durability = Durability::kDurable;
  o.journals = journals;
  return o;
}

EnvCounters minus(const EnvCounters& a, const EnvCounters& b) {
  return {a.writes - b.writes, a.write_bytes - b.write_bytes, a.reads - b.reads, a.syncs - b.syncs,
          a.dir_syncs - b.dir_syncs};
}

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

const std::vector<std::string>& mode_names() {
  static const std::vector<std::string> names{"separate", "shared"};
  return names;
}

bool parse_mode(const std::string& name, Journals* out) {
  if (name == "separate") *out = Journals::kSeparate;
  else if (name == "shared") *out = Journals::kShared;
  else return false;
  return true;
}

bool is_text_field(int k) { return k % 4 == 3; }

Schema make_schema(int indexes) {
  Schema s;
  s.fields.push_back(Field::Int("writer"));
  s.fields.push_back(Field::Int("seq"));
  for (int k = 0; k < indexes; ++k) {
    s.fields.push_back(is_text_field(k) ? Field::Text(field_name(k)).TextIndexed()
                                        : Field::Int(field_name(k)).Unique());
  }
  return s;
}

Document make_doc(int indexes, int64_t writer, int64_t seq) {
  Document d;
  d.reserve(static_cast<size_t>(indexes) + 2);
  d.emplace_back(writer);
  d.emplace_back(seq);
  for (int k = 0; k < indexes; ++k) {
    if (is_text_field(k)) d.emplace_back(text_value(writer, seq, k));
    else d.emplace_back(int_value(writer, seq, k));
  }
  return d;
}

CellResult run_cell(const CellConfig& cfg, const std::string& dir) {
  CellResult r;
  PosixEnv env;  // this cell's own: its counters are the cell's syscalls and nobody else's
  auto db = Database::Open(dir, options_of(cfg.journals, &env));
  if (!db.ok()) {
    r.error = "open: " + db.status().ToString();
    return r;
  }
  auto c = (*db)->CreateCollection(kCollection, make_schema(cfg.indexes));
  if (!c.ok()) {
    r.error = "create collection: " + c.status().ToString();
    return r;
  }

  // The timed part starts here: opening and creating the catalog are not puts.
  (*db)->ResetStats();
  const EnvCounters before = env.counters();
  std::atomic<uint64_t> claimed{0};
  std::atomic<bool> stop{false};
  std::mutex mu;  // guards r.error, r.put_ns, r.puts
  const Clock::time_point t0 = Clock::now();
  const Clock::time_point deadline = t0 + std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::duration<double>(cfg.seconds));
  std::vector<std::thread> threads;
  for (int w = 0; w < cfg.writers; ++w) {
    threads.emplace_back([&, w] {
      base::Histogram h;
      uint64_t done = 0;
      for (int64_t seq = 0; !stop.load(std::memory_order_relaxed); ++seq) {
        if (claimed.fetch_add(1, std::memory_order_relaxed) >= cfg.max_puts) break;
        // Checked before every put: a durable put costs far more than a clock read.
        if (Clock::now() >= deadline || (cfg.stop != nullptr && cfg.stop())) break;
        Document doc = make_doc(cfg.indexes, w, seq);
        const Clock::time_point a = Clock::now();
        auto id = (*db)->Put(*c, std::move(doc));
        const Clock::time_point b = Clock::now();
        if (!id.ok()) {
          stop = true;
          std::lock_guard lock(mu);
          if (r.error.empty()) r.error = fmt::format("put (writer {}, seq {}): {}", w, seq, id.status().ToString());
          break;
        }
        h.Record(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count()));
        ++done;
      }
      std::lock_guard lock(mu);
      r.put_ns.Merge(h);
      r.puts += done;
    });
  }
  for (auto& t : threads) t.join();
  r.seconds = since(t0);
  r.env = minus(env.counters(), before);
  r.stats = (*db)->GetStats();
  if (Status s = (*db)->Close(); !s.ok() && r.error.empty()) r.error = "close: " + s.ToString();
  return r;
}

Verification verify(Database& db, CollectionId c, int indexes, const std::vector<Ack>& acks) {
  Verification v;
  v.acked = acks.size();
  auto note = [&](std::string what) {
    if (v.first_problem.empty()) v.first_problem = std::move(what);
  };
  for (const Ack& a : acks) {
    bool lost = false;
    const Document want = make_doc(indexes, a.writer, a.seq);
    auto got = db.Get(c, static_cast<DocId>(a.id));
    if (!got.ok() || *got != want) {
      lost = true;
      ++v.root_misses;
      note(fmt::format("id {} (writer {}, seq {}): root {}", a.id, a.writer, a.seq,
                       got.ok() ? "holds other values" : got.status().ToString()));
    }
    for (int k = 0; k < indexes; ++k) {
      Filter f;
      if (is_text_field(k)) f.Where(field_name(k), CompareOp::kContains, want[2 + k]);
      else f.Where(field_name(k), CompareOp::kEq, want[2 + k]);
      auto rows = db.Scan(c, f, 2);
      if (rows.ok() && rows->size() == 1 && (*rows)[0].id == static_cast<DocId>(a.id)) continue;
      lost = true;
      ++v.index_misses;
      note(fmt::format("id {} (writer {}, seq {}): index {} {}", a.id, a.writer, a.seq, field_name(k),
                       rows.ok() ? fmt::format("answered {} rows", rows->size()) : rows.status().ToString()));
    }
    if (lost) ++v.missing_puts;
  }
  Status s = db.Check();
  v.check_ok = s.ok();
  if (!s.ok()) note("Check: " + s.ToString());
  return v;
}

namespace {

// The child: writers put and report each acknowledged put through the pipe
// (base::ReportAck), a
// checkpointer beside them. Killed by the parent, or (kill == false) closes
// cleanly after max_acks. Never returns: _exit, so no destructor of the
// parent's state (the harness's scratch folder) runs here.
[[noreturn]] void child(const RecoveryConfig& cfg, const std::string& dir, int fd) {
  auto db = Database::Open(dir, options_of(cfg.journals, nullptr));
  if (!db.ok()) _exit(3);
  auto c = (*db)->FindCollection(kCollection);
  if (!c.ok()) _exit(4);
  std::atomic<uint64_t> acks{0};
  std::atomic<bool> done{false};
  std::vector<std::thread> ts;
  for (int w = 0; w < cfg.writers; ++w) {
    ts.emplace_back([&, w] {
      for (int64_t seq = 0; !done.load(std::memory_order_relaxed); ++seq) {
        auto id = (*db)->Put(*c, make_doc(cfg.indexes, w, seq));
        if (!id.ok()) _exit(5);
        base::ReportAck(fd, {static_cast<int64_t>(*id), w, seq});
        if (!cfg.kill && acks.fetch_add(1) + 1 >= cfg.max_acks) done = true;
      }
    });
  }
  std::thread ckpt([&] {
    while (cfg.checkpoint_ms > 0 && !done.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(cfg.checkpoint_ms));
      if (!done.load() && !(*db)->Checkpoint().ok()) _exit(7);
    }
  });
  for (auto& t : ts) t.join();
  done = true;
  ckpt.join();
  if (!(*db)->Close().ok()) _exit(8);
  _exit(0);
}

}  // namespace

RecoveryResult run_recovery(const RecoveryConfig& cfg, const std::string& dir) {
  RecoveryResult r;
  const Options opt = options_of(cfg.journals, nullptr);
  {  // The database and collection exist before the child: what it reopens is a database, not nothing.
    auto db = Database::Open(dir, opt);
    if (!db.ok()) {
      r.error = "create: " + db.status().ToString();
      return r;
    }
    auto c = (*db)->CreateCollection(kCollection, make_schema(cfg.indexes));
    if (!c.ok()) {
      r.error = "create collection: " + c.status().ToString();
      return r;
    }
    if (Status s = (*db)->Close(); !s.ok()) {
      r.error = "close: " + s.ToString();
      return r;
    }
  }
  std::mt19937_64 rng(cfg.seed);
  // Somewhere in the second half of the bound, so runs with different seeds kill at different points.
  r.kill_after = cfg.max_acks / 2 + rng() % (cfg.max_acks - cfg.max_acks / 2 + 1);

  base::ChildRunOptions co;
  co.kill_after = cfg.kill ? r.kill_after : 0;
  co.seconds = cfg.kill ? cfg.seconds : cfg.seconds * 10 + 30;  // a clean close gets a generous bound
  co.seed = rng();
  const base::ChildRun run = base::RunAckingChild(co, [&](int fd) { child(cfg, dir, fd); });
  const std::vector<Ack>& acks = run.acks;
  r.killed = run.killed;
  r.error = run.error;

  // Reopen with the same options: what any user would do after the crash.
  const Clock::time_point o0 = Clock::now();
  auto db = Database::Open(dir, opt);
  r.reopen_ms = since(o0) * 1e3;
  if (!db.ok()) {
    r.v.acked = acks.size();
    r.v.missing_puts = acks.size();  // nothing can be shown to be there
    r.error = "reopen: " + db.status().ToString();
    return r;
  }
  const Stats st = (*db)->GetStats();
  r.recovery_ns = st.recovery_ns;
  r.branches = st.branches;
  r.branches_recovered = st.branches_recovered;
  r.branches_rebuilt = st.branches_rebuilt;
  r.recovered_records = st.recovered_records;
  r.journals_shared = st.journals_shared;
  auto c = (*db)->FindCollection(kCollection);
  if (!c.ok()) {
    r.v.acked = acks.size();
    r.v.missing_puts = acks.size();
    r.error = "reopen: collection lost: " + c.status().ToString();
    return r;
  }
  r.v = verify(**db, *c, cfg.indexes, acks);
  if (Status s = (*db)->Close(); !s.ok() && r.error.empty()) r.error = "close after verify: " + s.ToString();
  return r;
}

}  // namespace fenec::scenarios::journals
