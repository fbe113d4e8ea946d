// growth-bench's GR-5 part: see gr5.h.
#include "scenarios/growth/gr5.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>

#include <fenec/database.h>
#include <fenec/env.h>

#include "engine/src/base/histogram.h"
#include "findings/catalogue.h"
#include "iobench/kit/interrupt.h"
#include "iobench/kit/stats.h"
#include "scenarios/procs/engine_stats.h"

namespace fenec::scenarios::growth {
namespace {

using Clock = std::chrono::steady_clock;
constexpr const char* kFinding = "GR-5";

int64_t ns_since(Clock::time_point origin) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - origin).count();
}

// Every journal fdatasync sleeps `delay_us` first (a slow device's flush)
// and is timed, start to end, on the puts' clock. Other files pass through.
class SyncSpanEnv final : public EnvWrapper {
 public:
  SyncSpanEnv(Env* base, uint32_t delay_us, Clock::time_point origin)
      : EnvWrapper(base), delay_us_(delay_us), origin_(origin) {}

  Status Open(const std::string& path, OpenMode mode, std::unique_ptr<File>* out) override {
    std::unique_ptr<File> f;
    if (Status s = target()->Open(path, mode, &f); !s.ok()) return s;
    if (path.find("/Journals/") == std::string::npos) {
      *out = std::move(f);
      return Status::OK();
    }
    *out = std::make_unique<SpanFile>(this, std::move(f));
    return Status::OK();
  }

  std::vector<std::pair<int64_t, int64_t>> spans() const {
    std::lock_guard lock(mu_);
    return spans_;
  }

 private:
  class SpanFile final : public FileWrapper {
   public:
    SpanFile(SyncSpanEnv* env, std::unique_ptr<File> f) : FileWrapper(std::move(f)), env_(env) {}
    Status Sync() override {
      const int64_t t0 = ns_since(env_->origin_);
      if (env_->delay_us_ > 0) std::this_thread::sleep_for(std::chrono::microseconds(env_->delay_us_));
      Status s = FileWrapper::Sync();
      const int64_t t1 = ns_since(env_->origin_);
      std::lock_guard lock(env_->mu_);
      env_->spans_.emplace_back(t0, t1);
      return s;
    }

   private:
    SyncSpanEnv* env_;
  };

  const uint32_t delay_us_;
  const Clock::time_point origin_;
  mutable std::mutex mu_;
  std::vector<std::pair<int64_t, int64_t>> spans_;
};

double p999_us(const base::Histogram& h) { return static_cast<double>(h.Percentile(99.9)) / 1000.0; }

}  // namespace

void classify_puts(const std::vector<std::pair<int64_t, int64_t>>& puts,
                   const std::vector<std::pair<int64_t, int64_t>>& spans_in, Gr5Run* out) {
  std::vector<std::pair<int64_t, int64_t>> spans = spans_in;
  std::sort(spans.begin(), spans.end());
  base::Histogram during, away;
  int64_t longest_during = 0, longest_away = 0;
  uint64_t n_during = 0;
  size_t at = 0;  // the first span that may still matter (puts come in time order)
  for (const auto& [start, end] : puts) {
    while (at < spans.size() && spans[at].second <= start) ++at;
    const int64_t took = end - start;
    // Inside a span when one began at or before the put's start and ends after it.
    const bool inside = at < spans.size() && spans[at].first <= start;
    // Away: no span overlaps [start, end] at all.
    const bool overlaps = at < spans.size() && spans[at].first < end;
    if (inside) {
      ++n_during;
      longest_during = std::max(longest_during, took);
      during.Record(static_cast<uint64_t>(took));
    } else if (!overlaps) {
      longest_away = std::max(longest_away, took);
      away.Record(static_cast<uint64_t>(took));
    }
  }
  // The put running at each span's end: the first whose end is past it,
  // if it began before it (puts come in time order).
  std::vector<double> shares;
  size_t p = 0;
  for (const auto& [s0, s1] : spans) {
    while (p < puts.size() && puts[p].second <= s1) ++p;
    if (p == puts.size() || puts[p].first > s1 || s1 <= s0) continue;
    const double share = static_cast<double>(puts[p].second - puts[p].first) / static_cast<double>(s1 - s0);
    shares.push_back(share);
    out->spans_waited += share >= 0.5 ? 1 : 0;
  }
  out->spans_with_end_put = shares.size();
  out->end_put_share = kit::median(shares);
  std::vector<double> lengths;
  for (const auto& [a, b] : spans) lengths.push_back(static_cast<double>(b - a) / 1000.0);
  out->puts = puts.size();
  out->puts_during_sync = n_during;
  out->spans = spans.size();
  out->longest_during_us = static_cast<double>(longest_during) / 1000.0;
  out->longest_away_us = static_cast<double>(longest_away) / 1000.0;
  out->p999_during_us = n_during > 0 ? p999_us(during) : 0;
  out->p999_away_us = p999_us(away);
  out->span_median_us = kit::median(lengths);
  out->span_max_us = lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end());
}

Gr5Run run_gr5(const Gr5Config& cfg) {
  Gr5Run run;
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::remove_all(cfg.dir, ec);
  const Clock::time_point origin = Clock::now();
  SyncSpanEnv env(Env::Default(), cfg.sync_delay_us, origin);
  Options o;
  o.env = &env;
  o.durability = Durability::kBuffered;
  o.commit_mode = cfg.arm == "naive" ? CommitMode::kNaive : CommitMode::kGroup;
  o.sync_ms = cfg.sync_ms;
  o.checkpoint_on_close = false;  // the folder is removed anyway
  auto db = Database::Open(cfg.dir, o);
  if (!db.ok()) {
    run.error = "open: " + db.status().ToString();
    return run;
  }
  auto c = (*db)->CreateCollection("gr5", Schema{{Field::Int("n"), Field::Text("body")}});
  if (!c.ok()) {
    run.error = "create: " + c.status().ToString();
    return run;
  }
  (*db)->ResetStats();
  std::vector<std::pair<int64_t, int64_t>> puts;
  puts.reserve(1 << 20);
  const std::string body(100, 'g');
  const int64_t stop = ns_since(origin) + static_cast<int64_t>(cfg.seconds * 1e9);
  for (int64_t n = 0; !kit::stop_requested(); ++n) {
    const int64_t t0 = ns_since(origin);
    if (t0 >= stop) break;
    auto id = (*db)->Put(*c, Document{Value(n), Value(body)});
    const int64_t t1 = ns_since(origin);
    if (!id.ok()) {
      run.error = "put: " + id.status().ToString();
      break;
    }
    puts.emplace_back(t0, t1);
  }
  run.stats = (*db)->GetStats();
  if (Status s = (*db)->Close(); !s.ok() && run.error.empty()) run.error = "close: " + s.ToString();
  db->reset();
  classify_puts(puts, env.spans(), &run);
  fs::remove_all(cfg.dir, ec);
  return run;
}

std::vector<kit::Check> gr5_checks(const std::vector<Gr5Run>& fenecdb, const std::vector<Gr5Run>& naive,
                                   const kit::Window& w) {
  auto shares = [&](const std::vector<Gr5Run>& runs) {
    std::vector<double> v;
    for (const Gr5Run& r : runs) v.push_back(r.error.empty() && r.spans_with_end_put > 0 ? r.end_put_share : NAN);
    return kit::of_reps(w.of(v), kit::Window{0, SIZE_MAX, w.level});
  };
  return {
      kit::Check("fenecdb: the put running as a periodic fsync ends, its time / the fsync's (median of the fsyncs)",
                 shares(fenecdb), findings::gr5::kWait.value, false),
      kit::Check("naive (the control): the same", shares(naive), findings::gr5::kControl.value, true),
  };
}

void add_gr5_rows(kit::Results& r, const std::string& arm, const Gr5Config& cfg, const std::vector<Gr5Run>& runs) {
  const std::string c = fmt::format("sync_ms={};sync_delay_us={}", cfg.sync_ms, cfg.sync_delay_us);
  std::vector<double> ratio;
  for (size_t i = 0; i < runs.size(); ++i) {
    const Gr5Run& x = runs[i];
    if (!x.error.empty()) {
      r.skip(arm, c, x.error);
      continue;
    }
    const std::string rc = fmt::format("{};rep={}", c, i);
    r.add(kFinding, arm, rc, "puts", static_cast<double>(x.puts), "count");
    r.add(kFinding, arm, rc, "puts_during_sync", static_cast<double>(x.puts_during_sync), "count");
    r.add(kFinding, arm, rc, "sync_spans", static_cast<double>(x.spans), "count");
    r.add(kFinding, arm, rc, "longest_put_during_sync_us", x.longest_during_us, "us");
    r.add(kFinding, arm, rc, "longest_put_away_us", x.longest_away_us, "us");
    r.add(kFinding, arm, rc, "p999_put_during_sync_us", x.p999_during_us, "us");
    r.add(kFinding, arm, rc, "p999_put_away_us", x.p999_away_us, "us");
    r.add(kFinding, arm, rc, "sync_span_median_us", x.span_median_us, "us");
    r.add(kFinding, arm, rc, "end_put_share", x.end_put_share, "fraction");
    r.add(kFinding, arm, rc, "spans_waited", static_cast<double>(x.spans_waited), "count");
    r.add(kFinding, arm, rc, "writes_deferred_for_sync", static_cast<double>(x.stats.writes_deferred_for_sync),
          "count");
    r.add(kFinding, arm, rc, "periodic_syncs", static_cast<double>(x.stats.periodic_syncs), "count");
    ratio.push_back(x.end_put_share);
  }
  r.add_ratio(kFinding, arm, c, "end_put_share", kit::of_reps(ratio), "fraction");
}

kit::Verdict gr5_verdict(const std::vector<Gr5Run>& fenecdb, const std::vector<Gr5Run>& naive,
                         const std::vector<kit::Check>& checks, const Gr5Config& cfg) {
  kit::Verdict v = findings::verdict(findings::gr5::kFinding);
  auto describe_arm = [](const char* name, const std::vector<Gr5Run>& runs) {
    std::vector<double> during, away, p999d, p999a, span;
    uint64_t puts = 0, met = 0, deferred = 0, ends = 0, waited = 0;
    for (const Gr5Run& r : runs) {
      if (!r.error.empty()) continue;
      during.push_back(r.longest_during_us);
      away.push_back(r.longest_away_us);
      p999d.push_back(r.p999_during_us);
      p999a.push_back(r.p999_away_us);
      span.push_back(r.span_median_us);
      puts += r.puts;
      met += r.puts_during_sync;
      deferred += r.stats.writes_deferred_for_sync;
      ends += r.spans_with_end_put;
      waited += r.spans_waited;
    }
    return fmt::format(
        "{}: {} puts, {} of them arrived during an fsync; of {} fsyncs, the put running at its end lasted half "
        "the span or more at {}; the longest put during one {:.0f} us, away from one {:.0f} us (p99.9 {:.0f} / "
        "{:.0f} us; medians over the repetitions); fsync spans {:.1f} ms (median); {} journal writes put off past "
        "an fsync",
        name, puts, met, ends, waited, kit::median(during), kit::median(away), kit::median(p999d),
        kit::median(p999a), kit::median(span) / 1000, deferred);
  };
  v.ours = fmt::format("kBuffered, one writer, the periodic fsync every {} ms, each journal fdatasync slowed by {} "
                       "ms. {}. {}",
                       cfg.sync_ms, cfg.sync_delay_us / 1000.0, describe_arm("fenecdb", fenecdb),
                       describe_arm("naive (each put writes under the write lock)", naive));
  v.plot = "";
  if (fenecdb.empty() || naive.empty()) {
    v.skipped("an arm did not run");
    return v;
  }
  v.set(kit::judge(checks));
  v.reason += ". It judges the put running as each fsync ends, not the longest put during one against the longest "
              "away: a put that waited for the fsync lasts most of its span, while on a shared 2-core machine a "
              "preemption makes a longest put anywhere (shown above)";
  return v;
}

}  // namespace fenec::scenarios::growth
