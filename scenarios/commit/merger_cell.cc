#include "scenarios/commit/merger_cell.h"
#include "iobench/kit/interrupt.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "engine/src/io/slow_env.h"

namespace fenec::scenarios::commit {

const std::vector<std::string>& merger_arms() {
  static const std::vector<std::string> arms{"direct", "sync", "async"};
  return arms;
}

bool is_merger_arm(const std::string& arm) {
  const auto& a = merger_arms();
  return std::find(a.begin(), a.end(), arm) != a.end();
}

const std::vector<std::string>& doc_kinds() {
  static const std::vector<std::string> kinds{"small", "indexed"};
  return kinds;
}

bool is_doc_kind(const std::string& kind) {
  const auto& k = doc_kinds();
  return std::find(k.begin(), k.end(), kind) != k.end();
}

bool parse_disk(const std::string& name, Disk* out) {
  if (name == "native") {
    *out = Disk{name, 0};
    return true;
  }
  if (name.rfind("slow-", 0) != 0) return false;
  const std::string rest = name.substr(5);
  size_t used = 0;
  unsigned long n = 0;
  try {
    n = std::stoul(rest, &used);
  } catch (...) {
    return false;
  }
  const std::string unit = rest.substr(used);
  if (unit != "ms" && unit != "us") return false;
  const unsigned long us = unit == "ms" ? n * 1000 : n;
  if (us == 0 || us > 1000000) return false;
  *out = Disk{name, static_cast<uint32_t>(us)};
  return true;
}

uint64_t merger_docs(uint64_t docs, const Disk& disk) {
  const uint64_t full = docs;
  if (disk.sync_delay_us >= 10000) docs /= 25;
  else if (disk.sync_delay_us > 0) docs /= 5;
  return std::max<uint64_t>(docs, std::min<uint64_t>(full, 400));
}

int merger_databases(const Disk& disk) { return disk.sync_delay_us == 0 ? 16 : 1; }

namespace {

Completion completion_of(const std::string& arm) {
  if (arm == "sync") return Completion::kMergerSync;
  if (arm == "async") return Completion::kMergerAsync;
  return Completion::kDirect;
}

Schema schema_of(const std::string& kind) {
  if (kind == "indexed")
    return Schema{{Field::Int("writer"), Field::Int("n"), Field::Text("key").Unique(), Field::Text("body").TextIndexed(),
                   Field::Text("notes").TextIndexed()}};
  return Schema{{Field::Int("writer"), Field::Int("n"), Field::Text("body")}};
}

std::string words(size_t n, std::mt19937_64& rng) {
  std::string s;
  for (size_t w = 0; w < n; ++w) s += fmt::format("word{} ", rng() % 5000);
  return s;
}

// The 150-word texts indexed docs draw from, built before the timed part:
// making 300 words costs a writer tens of microseconds, CPU the two cores
// would otherwise take from the engine while it is measured. What the index
// does with a text is the same whichever of these it is.
constexpr size_t kTexts = 1024;
std::vector<std::string> make_texts(const std::string& kind, uint64_t seed) {
  std::vector<std::string> t;
  if (kind != "indexed") return t;
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < kTexts; ++i) t.push_back(words(150, rng));
  return t;
}

// See doc_kinds(): a small document, or one whose three indexes do real work.
Document make_doc(const std::string& kind, int writer, uint64_t i, const std::vector<std::string>& texts,
                  std::mt19937_64& rng) {
  if (kind == "indexed")
    return {Value(int64_t{writer}), Value(static_cast<int64_t>(i)), Value(fmt::format("w{}-d{}", writer, i)),
            Value(texts[rng() % texts.size()]), Value(texts[rng() % texts.size()])};
  std::string body = fmt::format("w{}-d{}:", writer, i);
  body.append(40 + rng() % 61, static_cast<char>('a' + i % 26));
  return {Value(int64_t{writer}), Value(static_cast<int64_t>(i)), Value(std::move(body))};
}

// One fresh database in cfg.dir: cfg.docs puts from cfg.writers threads.
MergerCellResult run_one(const MergerCellConfig& cfg, const std::vector<std::string>& texts) {
  MergerCellResult res;
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::remove_all(cfg.dir, ec);
  SlowSyncEnv env(Env::Default(), cfg.disk.sync_delay_us);
  Options o;
  o.env = &env;
  o.durability = Durability::kDurable;
  o.completion = completion_of(cfg.arm);
  o.checkpoint_on_close = false;  // the cell measures puts; its folder is removed anyway
  auto db = Database::Open(cfg.dir, o);
  if (!db.ok()) {
    res.error = db.status().ToString();
    return res;
  }
  auto coll = (*db)->CreateCollection("docs", schema_of(cfg.doc_kind));
  if (!coll.ok()) {
    res.error = coll.status().ToString();
    return res;
  }
  (*db)->ResetStats();
  const uint64_t delayed0 = env.delayed_syncs();

  const size_t nbuckets = static_cast<size_t>(cfg.max_seconds / cfg.bucket_seconds) + 2;
  std::vector<std::atomic<uint64_t>> buckets(nbuckets);
  std::atomic<uint64_t> next{0}, acked{0};
  std::atomic<bool> failed{false};
  std::mutex mu;  // res.error, res.put_ns
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration<double>(cfg.max_seconds);
  std::atomic<int64_t> last_ack_ns{0};
  std::vector<std::thread> ts;
  for (int w = 0; w < cfg.writers; ++w) {
    ts.emplace_back([&, w] {
      std::mt19937_64 rng(cfg.seed * 1000003 + static_cast<uint64_t>(w));
      base::Histogram mine;
      while (!failed.load(std::memory_order_relaxed) && !kit::stop_requested()) {
        const uint64_t i = next.fetch_add(1);
        if (i >= cfg.docs) break;
        Document doc = make_doc(cfg.doc_kind, w, i, texts, rng);
        const auto t0 = Clock::now();
        if (t0 >= deadline) break;
        auto id = (*db)->Put(*coll, std::move(doc));
        const auto t1 = Clock::now();
        if (!id.ok()) {
          std::lock_guard lock(mu);
          if (res.error.empty()) res.error = id.status().ToString();
          failed.store(true);
          break;
        }
        mine.Record(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()));
        acked.fetch_add(1, std::memory_order_relaxed);
        const int64_t since = std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - start).count();
        const size_t b = static_cast<size_t>(static_cast<double>(since) / 1e9 / cfg.bucket_seconds);
        buckets[std::min(b, nbuckets - 1)].fetch_add(1, std::memory_order_relaxed);
        int64_t prev = last_ack_ns.load(std::memory_order_relaxed);
        while (since > prev && !last_ack_ns.compare_exchange_weak(prev, since)) {
        }
      }
      std::lock_guard lock(mu);
      res.put_ns.Merge(mine);
    });
  }
  for (auto& t : ts) t.join();
  res.stats = (*db)->GetStats();
  res.delayed_syncs = env.delayed_syncs() - delayed0;
  res.docs = acked.load();
  res.seconds = static_cast<double>(last_ack_ns.load()) / 1e9;
  res.capped = res.error.empty() && res.docs < cfg.docs && !kit::stop_requested();
  size_t used = static_cast<size_t>(res.seconds / cfg.bucket_seconds) + 1;
  for (size_t b = 0; b < std::min(used, nbuckets); ++b) res.acked_per_bucket.push_back(buckets[b].load());
  if (Status s = (*db)->Close(); !s.ok() && res.error.empty()) res.error = s.ToString();
  db->reset();
  fs::remove_all(cfg.dir, ec);
  return res;
}

}  // namespace

MergerCellResult run_merger_cell(const MergerCellConfig& cfg) {
  return run_one(cfg, make_texts(cfg.doc_kind, cfg.seed));
}

void add_database(MergerCellResult* into, const MergerCellResult& one) {
  if (into->error.empty()) into->error = one.error;
  into->docs += one.docs;
  into->seconds += one.seconds;
  into->capped = into->capped || one.capped;
  into->put_ns.Merge(one.put_ns);
  into->stats.Accumulate(one.stats);  // counters summed over the databases, gauges the last one's
  into->delayed_syncs += one.delayed_syncs;
  into->acked_per_bucket.insert(into->acked_per_bucket.end(), one.acked_per_bucket.begin(),
                                one.acked_per_bucket.end());
}

}  // namespace fenec::scenarios::commit
