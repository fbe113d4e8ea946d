// advise's model and recommendations: arithmetic on DiskFigures and each
// engine's CPU a commit, nothing measured here (iobench/doc/advise.md).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "engine/src/base/commit_window.h"
#include "iobench/kit/console.h"
#include "iobench/src/advise.h"

namespace fenec::iobench::advise {
namespace {

double p50_us(const base::Histogram& h) { return h.count() ? h.Percentile(50) / 1000.0 : 0; }

// Every engine advised keeps one log with one sync in flight, its other
// writers waiting: a round costs one sync as one job sees it, whatever the
// writer count. N independent jobs syncing at once measure the device's
// overlap, not a group commit's round (a verify run showed rounds of one
// job's sync at 16 writers where the 16-job figure was several times it).
constexpr unsigned kSyncsInFlight = 1;
// A window shorter than this is not worth a timer's wake-up (the engine's own bound).
constexpr double kMinWindowUs = kAdaptiveWindowMinUs;
// fenecdb's adaptive window: at most this part of its round's own sync.
constexpr double kAdaptiveWindowOfSync = 1.0 / kAdaptiveWindowSyncDivisor;
// A choice between two measured costs must beat the other by this much to be made.
constexpr double kClearWin = 0.9;

std::string us(double v) { return kit::format_us(v); }

// What decides one engine's commit under a set of settings.
struct EngineModel {
  double sync_us = 0;       // T: one commit's write + sync
  bool group = true;        // several commits share a sync
  double window_us = 0;     // fenecdb commit_window_us / PostgreSQL commit_delay
  bool window_adaptive = false;  // fenecdb's default: a part of its own round's sync
  bool window_fixed = false;  // PostgreSQL sleeps the whole delay; fenecdb's ends when the writers are in
  unsigned siblings = 0;    // PostgreSQL commit_siblings: the delay needs more than this many others active
};

double num(const Settings& s, const std::string& k, double dflt) {
  auto it = s.find(k);
  return it == s.end() ? dflt : std::atof(it->second.c_str());
}
std::string str(const Settings& s, const std::string& k, const std::string& dflt) {
  auto it = s.find(k);
  return it == s.end() ? dflt : it->second;
}

double pg_sync_us(const DiskFigures& d, const std::string& method) {
  if (method == "open_datasync" && d.wal8k_dsync_us > 0) return d.wal8k_dsync_us;
  return d.wal8k_fdatasync_us > 0 ? d.wal8k_fdatasync_us : d.overwrite_us;
}

bool rocksdb_recycles(const Settings& s) {
  return num(s, "recycle_log_file_num", 0) > 0 && str(s, "wal_recovery_mode", "kPointInTimeRecovery") ==
                                                      "kSkipAnyCorruptedRecords";
}

EngineModel model_of(Engine e, const Settings& s, const DiskFigures& d) {
  EngineModel m;
  switch (e) {
    case Engine::kFenecdb:
      // Zero ahead (the default) keeps the journal's fdatasyncs over allocated blocks.
      m.sync_us = num(s, "journal_zero_ahead", 1 << 20) > 0 ? d.overwrite_us * scale_at(d.overwrite_scale, kSyncsInFlight)
                                                            : d.append_us * scale_at(d.append_scale, kSyncsInFlight);
      // The engine's default window is adaptive: a part of its rounds' own
      // sync, none under kMinWindowUs (journal/group_commit.h); predict()
      // prices it on the engine's sync (the calibration's k).
      m.window_adaptive = str(s, "commit_window_us", "adaptive") == "adaptive";
      if (!m.window_adaptive) m.window_us = num(s, "commit_window_us", 0);
      break;
    case Engine::kPostgres:
      // The WAL segment is zero-filled when made (wal_init_zero) and recycled: its syncs overwrite.
      m.sync_us = pg_sync_us(d, str(s, "wal_sync_method", "fdatasync")) * scale_at(d.overwrite_scale, kSyncsInFlight);
      if (str(s, "wal_init_zero", "on") == "off" && str(s, "wal_recycle", "on") == "off")
        m.sync_us = d.append_us * scale_at(d.append_scale, kSyncsInFlight);
      m.window_us = num(s, "commit_delay", 0);
      m.window_fixed = true;
      m.siblings = static_cast<unsigned>(num(s, "commit_siblings", 5));
      break;
    case Engine::kRocksdb:
      // A fresh WAL file grows with every write (its fdatasync commits the size); a recycled one is overwritten.
      // RocksDB recycles only under wal_recovery_mode=kSkipAnyCorruptedRecords: otherwise it sets
      // recycle_log_file_num to 0 at open.
      m.sync_us = rocksdb_recycles(s) ? d.overwrite_us * scale_at(d.overwrite_scale, kSyncsInFlight)
                                      : d.append_us * scale_at(d.append_scale, kSyncsInFlight);
      break;
    case Engine::kSqlite:
      m.group = false;  // a commit syncs under the write lock: one commit a sync
      // WAL: frames overwrite the WAL file once a checkpoint has reset it. DELETE (SQLite's default):
      // the journal written into a new file and synced, the page overwritten and synced, the journal unlinked.
      m.sync_us = str(s, "journal_mode", "DELETE") == "WAL"
                      ? d.overwrite_us * scale_at(d.overwrite_scale, kSyncsInFlight)
                      : (2 * d.append_us * scale_at(d.append_scale, kSyncsInFlight) + d.overwrite_us * scale_at(d.overwrite_scale, kSyncsInFlight));
      break;
  }
  return m;
}


Prediction predict(Engine e, const std::string& config, const Settings& s, const DiskFigures& d, double x_us,
                   const EngineFit& fit, unsigned n) {
  EngineModel m = model_of(e, s, d);
  if (m.window_adaptive) {
    const double bound = std::min(fit.k * m.sync_us * kAdaptiveWindowOfSync, double{kAdaptiveWindowMaxUs});
    m.window_us = bound < kMinWindowUs ? 0 : bound;
  }
  Prediction p;
  p.engine = e;
  p.config = config;
  p.writers = n;
  const bool window = m.window_us > 0 && n > 1 && n > m.siblings;
  p.commits_per_round = commits_per_round(n, m.group, window);
  const double serial = m.group ? p.commits_per_round - 1 : std::max(0u, n - 1);
  p.round_us = fit.k * m.sync_us + serial * fit.s_us;
  if (window) p.round_us += m.window_fixed ? m.window_us : window_wait_us(m.window_us, fit.busy_cpu_us, n, d.cores);
  p.commits_per_s = commits_per_s(x_us, p.round_us, p.commits_per_round, n, d.cores, fit.busy_cpu_us, &p.cpu_bound);
  return p;
}

}  // namespace

bool calibrates_apart(Engine e, const Settings& s) {
  return e == Engine::kSqlite && str(s, "journal_mode", "DELETE") != str(default_settings(e), "journal_mode", "");
}

Settings default_settings(Engine e) {
  if (e == Engine::kSqlite) return {{"journal_mode", "DELETE"}};
  if (e == Engine::kFenecdb) return {{"commit_window_us", "adaptive"}};
  return {};
}

const char* engine_name(Engine e) {
  switch (e) {
    case Engine::kFenecdb: return "fenecdb";
    case Engine::kPostgres: return "postgres";
    case Engine::kRocksdb: return "rocksdb";
    case Engine::kSqlite: return "sqlite";
  }
  return "?";
}

bool parse_engine(const std::string& name, Engine* out) {
  for (Engine e : kAllEngines)
    if (name == engine_name(e)) {
      *out = e;
      return true;
    }
  return false;
}

bool parse_engine_list(const std::string& text, std::vector<Engine>* out, std::string* err) {
  out->clear();
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string name = text.substr(pos, comma - pos);
    Engine e;
    if (!parse_engine(name, &e)) {
      *err = fmt::format("unknown engine '{}' (fenecdb, postgres, rocksdb, sqlite)", name);
      return false;
    }
    if (std::find(out->begin(), out->end(), e) == out->end()) out->push_back(e);
    pos = comma + 1;
  }
  return !out->empty();
}

DiskFigures figures_of(const Measurement& m) {
  DiskFigures d;
  d.cores = m.cores;
  d.memory_backed = m.probe.memory_backed;
  d.o_direct = m.probe.o_direct;
  d.scheduler = m.probe.scheduler;
  for (const SyncCosts& s : m.sizes) {
    if (s.size == 4096) {
      d.append_us = p50_us(s.append.commit);
      d.overwrite_us = p50_us(s.overwrite.commit);
      d.direct_us = s.direct.ran() ? p50_us(s.direct.lat) : 0;
    } else if (s.size == (1u << 20)) {
      d.big_us = p50_us(s.overwrite.commit);
    }
  }
  for (const SyncTest& t : m.syncmethods.tests) {
    if (t.writes != 1 || t.write_size != 8192 || !t.skipped.empty() || t.section.rfind("one 8k", 0) != 0) continue;
    // PostgreSQL opens the WAL without O_DIRECT at wal_level replica (the default) and above.
    if (t.method == "fdatasync" && !t.direct) d.wal8k_fdatasync_us = p50_us(t.lat);
    if (t.method == "open_datasync" && !t.direct) d.wal8k_dsync_us = p50_us(t.lat);
  }
  const double one = m.overlap.empty() ? 0 : m.overlap.front().ops_per_s();
  for (const CellResult& c : m.overlap)
    if (c.ran() && one > 0) d.overlap.push_back({c.spec.jobs, c.ops_per_s() / one});
  for (const auto& [cells, scale] : {std::pair{&m.overlap, &d.overwrite_scale}, std::pair{&m.overlap_append, &d.append_scale}}) {
    const double alone = cells->empty() ? 0 : p50_us(cells->front().commit);
    for (const CellResult& c : *cells)
      if (c.ran() && alone > 0 && c.commit.count()) scale->push_back({c.spec.jobs, p50_us(c.commit) / alone});
  }
  d.lies = m.lies.verdict;
  d.lies_reasons = m.lies.reasons;
  d.prio_known = m.prio.skipped.empty() && m.prio.equal_p50_us > 0;
  d.prio_honoured = m.prio.honoured;
  d.prio_equal_us = m.prio.equal_p50_us;
  d.prio_idle_us = m.prio.idle_p50_us;
  return d;
}

double scale_at(const std::vector<std::pair<unsigned, double>>& scale, unsigned writers) {
  double v = 1;
  unsigned best = 0;
  for (const auto& [jobs, x] : scale)
    if (jobs <= writers && jobs >= best && x > 0) {
      best = jobs;
      v = x;
    }
  return v;
}

double commits_per_round(unsigned writers, bool group_commit, bool window) {
  if (writers <= 1 || !group_commit) return 1;
  return window ? writers : std::max(1.0, writers / 2.0);
}

double window_wait_us(double window_us, double busy_cpu_us, unsigned writers, unsigned cores) {
  const double back = std::max(0.0, busy_cpu_us) * writers / std::max(1u, cores);
  return std::min(window_us, back);
}

double commits_per_s(double x_us, double round_us, double per_round, unsigned writers, unsigned cores,
                     double cap_cpu_us, bool* cpu_bound) {
  const double n = std::max(1u, writers);
  const double x = std::max(0.0, x_us);
  const double cycle_us = x + n / std::max(1.0, per_round) * round_us;  // one writer's commit, call to return
  const double sync_bound = cycle_us > 0 ? n * 1e6 / cycle_us : 0;
  const double cap_x = std::max(x, cap_cpu_us);
  const double cpu_cap = cap_x > 0 ? std::max(1u, cores) * 1e6 / cap_x : INFINITY;
  if (cpu_bound) *cpu_bound = cpu_cap < sync_bound;
  return std::min(sync_bound, cpu_cap);
}

EngineFit fit_of(const EngineCalibration& c, const DiskFigures& d) {
  EngineFit f;
  f.engine = c.engine;
  f.busy_cpu_us = std::max(0.0, c.busy_cpu_us > 0 ? c.busy_cpu_us : c.cpu_us);
  const EngineModel m = model_of(c.engine, c.settings.empty() ? default_settings(c.engine) : c.settings, d);
  const double x = std::max(0.0, c.cpu_us);
  if (c.commit_us <= 0 || m.sync_us <= 0) {
    f.note = "not calibrated: the disk's sync alone, no serial cost in a round";
    return f;
  }
  f.calibrated = true;
  // A factor, not an offset: the engine's extra writes and syncs scale with
  // the disk's, so settings that change the disk's figure change it alike.
  f.k = std::max(0.25, (c.commit_us - x) / m.sync_us);
  const double t = f.k * m.sync_us;
  f.note = fmt::format("one writer's commit {} against the disk's {} sync: k = {:.2f}", us(c.commit_us), us(m.sync_us),
                       f.k);
  if (c.at_writers > 1 && c.rate_per_s > 0) {
    if (m.group && c.per_round > 1) {
      const double round = c.per_round * 1e6 / c.rate_per_s;
      f.s_us = std::max(0.0, (round - t) / (c.per_round - 1));
      f.note += fmt::format("; {} writers: {:.1f} commits a {} round, s = {} a commit", c.at_writers, c.per_round,
                            us(round), us(f.s_us));
    } else if (!m.group) {
      const double commit = 1e6 / c.rate_per_s;  // one at a time under the lock
      f.s_us = std::max(0.0, (commit - c.commit_us) / (c.at_writers - 1));
      f.note += fmt::format("; {} writers: a commit every {}, s = {} a writer", c.at_writers, us(commit), us(f.s_us));
    }
  }
  if (c.busy_cpu_us > 0) f.note += fmt::format("; {} CPU a durable commit there", us(c.busy_cpu_us));
  return f;
}

Prediction predict_with(const DiskFigures& d, const EngineCalibration& c, const std::string& config,
                        const Settings& settings, unsigned writers) {
  return predict(c.engine, config, settings, d, c.cpu_us, fit_of(c, d), writers);
}

Advice advise(const DiskFigures& d, const std::vector<EngineCalibration>& cpu, const std::vector<unsigned>& writers) {
  Advice a;
  if (d.memory_backed)
    a.warnings.push_back("this folder is memory-backed: nothing here survives a power cut, and a sync costs nothing; "
                         "these settings tune a test, not a database");
  else if (d.lies == Durability::kSuspicious || d.lies == Durability::kNotDurable)
    a.warnings.push_back(fmt::format("this disk looks like it lies about durability ({}): {}; the throughput below "
                                     "is what it acknowledges, not what survives a power cut",
                                     durability_name(d.lies), fmt::join(d.lies_reasons, "; ")));
  const unsigned top = writers.empty() ? 1 : *std::max_element(writers.begin(), writers.end());
  const double append_ratio = d.overwrite_us > 0 ? d.append_us / d.overwrite_us : 0;
  const bool append_clearly_cheaper = append_ratio > 0 && append_ratio * 1.1 <= 1;
  for (const EngineCalibration& ec : cpu) {
    const Engine e = ec.engine;
    const double x = ec.cpu_us;
    const EngineFit fit = fit_of(ec, d);
    a.fits.push_back(fit);
    std::vector<Recommendation> recs;
    auto rec = [&](std::string name, std::string value, std::string dflt, std::string reason, bool tradeoff = false) {
      Recommendation r;
      r.engine = e;
      r.name = std::move(name);
      r.value = std::move(value);
      r.default_value = std::move(dflt);
      r.reason = std::move(reason);
      r.changes_default = r.value != r.default_value;
      r.tradeoff = tradeoff;
      recs.push_back(std::move(r));
    };
    // A window matters at many writers: half the sync a round takes there.
    const double top_scale = scale_at(d.overwrite_scale, kSyncsInFlight);
    const double t_top = d.overwrite_us * top_scale;
    const std::string half_sync = fmt::format("{:.0f}", std::max(kMinWindowUs, std::round(t_top / 2)));
    switch (e) {
      case Engine::kFenecdb: {
        // The default window is adaptive: a part of the round's own sync,
        // which the engine measures as it runs, so no number from here would
        // do better than it (iobench/doc/advise.md gives the measurements).
        // The engine's round syncs: the disk's, scaled by its calibration (k).
        const double bound = std::min(fit.k * t_top * kAdaptiveWindowOfSync, double{kAdaptiveWindowMaxUs});
        if (bound < kMinWindowUs) {
          rec("commit_window_us", "adaptive", "adaptive",
              fmt::format("leave it adaptive: a round's fdatasync takes {} here at {} writers, and {:.0f}% of it "
                          "is under the {:.0f} us a timer's wake-up is worth, so the adaptive window does not wait "
                          "(a fixed one could only cost)",
                          us(fit.k * t_top), top, 100 * kAdaptiveWindowOfSync, kMinWindowUs));
        } else {
          rec("commit_window_us", "adaptive", "adaptive",
              fmt::format("leave it adaptive: a round's fdatasync takes {} here at {} writers ({} alone on the "
                          "disk), so the window waits up to about {:.0f} us, {:.0f}% of it, ended as soon as every "
                          "writer in flight is queued; the engine follows its own syncs as they change, which a "
                          "fixed value set from this one measurement would not",
                          us(fit.k * t_top), top, us(d.overwrite_us), std::round(bound), 100 * kAdaptiveWindowOfSync));
        }
        // Off only when appending clearly wins (the 10% rule): a figure
        // within 10% is no reason to leave a default.
        rec("journal_zero_ahead", append_clearly_cheaper ? "0" : "1048576", "1048576",
            fmt::format("an appending sync (the file grows) costs {:.2f}x one over written blocks ({} vs {}){}",
                        append_ratio, us(d.append_us), us(d.overwrite_us),
                        append_ratio >= 1.1 ? ": zero ahead pays"
                        : append_clearly_cheaper ? ": zeroing ahead costs more than it saves here"
                                                 : ": within 10%, no reason to change"));
        if (d.prio_known)
          rec("data_flush", d.prio_honoured ? "kGlobalRing" : "kPwrite", "kPwrite",
              d.prio_honoured
                  ? fmt::format("the {} scheduler honours priority here: a sync beside an IDLE writer took {} against "
                                "{} beside an equal one, so data flushes at low priority spare the journal",
                                d.scheduler, us(d.prio_idle_us), us(d.prio_equal_us))
                  : fmt::format("the {} scheduler did not honour priority ({} beside an IDLE writer, {} beside an "
                                "equal one): a low-priority flush path buys the journal nothing",
                                d.scheduler, us(d.prio_idle_us), us(d.prio_equal_us)));
        rec("o_direct", "no", "no",
            d.o_direct && d.direct_us > 0
                       ? fmt::format("O_DIRECT|O_DSYNC costs {} against write+fdatasync's {}: fenecdb's journal has "
                                     "no O_DIRECT path, {}",
                                     us(d.direct_us), us(d.overwrite_us),
                                     d.direct_us > 0 && d.direct_us < kClearWin * d.overwrite_us
                                         ? "and one would pay here" : "and none would pay here")
                       : "no O_DIRECT on this filesystem");
        break;
      }
      case Engine::kPostgres: {
        const bool dsync = d.wal8k_dsync_us > 0 && d.wal8k_dsync_us < kClearWin * d.wal8k_fdatasync_us;
        rec("wal_sync_method", dsync ? "open_datasync" : "fdatasync", "fdatasync",
            fmt::format("an 8 KiB WAL write costs {} with open_datasync and {} with fdatasync", us(d.wal8k_dsync_us),
                        us(d.wal8k_fdatasync_us)));
        const double t = pg_sync_us(d, dsync ? "open_datasync" : "fdatasync") * top_scale;
        rec("commit_delay", fmt::format("{:.0f}", std::max(kMinWindowUs, std::round(t / 2))), "0",
            fmt::format("half the {} an 8 KiB WAL flush takes here at {} writers (PostgreSQL's own starting point): "
                        "commits released by one flush join the next", us(t), top));
        rec("commit_siblings", "2", "5",
            "the delay only when two other transactions are active: none at one writer, every flush from 3 on");
        rec("wal_init_zero", append_clearly_cheaper ? "off" : "on", "on",
            fmt::format("an appending sync (the file grows) costs {:.2f}x one over written blocks{}", append_ratio,
                        append_ratio >= 1.1      ? ": zero-filled, recycled segments pay"
                        : append_clearly_cheaper ? ": zero-filling costs more than it saves here"
                                                 : ": within 10%, no reason to change"));
        rec("wal_recycle", "on", "on", "recycled segments are overwritten, never grown");
        const double cap = x > 0 ? d.cores * 1e6 / x : 0;
        rec("synchronous_commit", "off", "on",
            fmt::format("a trade-off, not a tuning: commits stop waiting for the {} flush and the last ~0.6 s "
                        "(3 x wal_writer_delay) can be lost in a crash; the CPU then bounds it at {:.0f}/s",
                        us(t), cap),
            true);
        break;
      }
      case Engine::kRocksdb:
        // Recycling would pay where appends cost more, but RocksDB takes it
        // only with a recovery mode that gives up detecting lost writes: a
        // trade-off, stated, never applied.
        if (append_ratio >= 1.1) {
          rec("recycle_log_file_num", "4", "0",
              fmt::format("an appending WAL sync costs {:.2f}x one over written blocks ({} vs {}), and a recycled "
                          "log is overwritten in place; but RocksDB sets this to 0 at open unless "
                          "wal_recovery_mode is kSkipAnyCorruptedRecords (the line below)",
                          append_ratio, us(d.append_us), us(d.overwrite_us)),
              true);
          rec("wal_recovery_mode", "kSkipAnyCorruptedRecords", "kPointInTimeRecovery",
              "what recycling needs: recovery then skips every corrupted WAL record it meets, not only a torn "
              "tail, so writes acknowledged after a damaged record can be dropped without an error",
              true);
        } else {
          rec("recycle_log_file_num", "0", "0",
              fmt::format("an appending WAL sync costs {:.2f}x one over written blocks ({} vs {}): a recycled "
                          "log would buy nothing here",
                          append_ratio, us(d.append_us), us(d.overwrite_us)));
        }
        rec("wal_bytes_per_sync", "0", "0", "every durable write syncs the WAL already; background syncs add none");
        rec("manual_wal_flush", "false", "false", "with sync=true each write flushes and syncs anyway");
        rec("use_direct_io_for_flush_and_compaction",
            d.o_direct && d.direct_us > 0 && d.direct_us < kClearWin * d.overwrite_us ? "true" : "false", "false",
            d.o_direct && d.direct_us > 0
                       ? fmt::format("O_DIRECT|O_DSYNC costs {} against write+fdatasync's {}: flushes and "
                                     "compactions, not commits, would change",
                                     us(d.direct_us), us(d.overwrite_us))
                       : "no O_DIRECT on this filesystem");
        break;
      case Engine::kSqlite:
        rec("journal_mode", "WAL", "DELETE",
            fmt::format("DELETE syncs a new journal and the page per commit (~{} here); WAL syncs one frame over "
                        "a reused file ({})",
                        us(2 * d.append_us + d.overwrite_us), us(d.overwrite_us)));
        rec("synchronous", "FULL", "FULL",
            "FULL syncs the WAL at every commit (durable); NORMAL only at checkpoints, a trade-off that loses the "
            "last commits in a power cut");
        rec("wal_autocheckpoint", "1000", "1000",
            fmt::format("a 1 MiB write+fdatasync costs {} here, a checkpoint every 1000 frames under {} a commit",
                        us(d.big_us), us(d.big_us * 4 / 1000)));
        break;
    }
    // A window the model says does not pay at the largest writer count (a
    // sync too cheap to wait for, or the CPU bound) is not recommended.
    {
      const Settings base = default_settings(e);
      // Likewise any other change the model says loses (a figure measured
      // alone that reverses at many writers).
      for (Recommendation& r : recs) {
        if (!r.changes_default || r.tradeoff || r.name == "commit_siblings") continue;
        const bool window = r.name == "commit_window_us" || r.name == "commit_delay";
        Settings one = base;
        one[r.name] = r.value;
        if (e == Engine::kPostgres && window) one["commit_siblings"] = "2";
        const double g = predict(e, "one", one, d, x, fit, top).commits_per_s /
                         predict(e, "d", base, d, x, fit, top).commits_per_s;
        if (g >= (window ? 1.05 : 0.98)) continue;
        r.reason += window ? fmt::format("; but the model gives a {} us window {:.2f}x at {} writers, so it stays off",
                                         r.value, g, top)
                           : fmt::format("; but the model gives it {:.2f}x at {} writers, so it stays {}", g, top,
                                         r.default_value);
        r.value = r.default_value;
        r.changes_default = false;
        for (Recommendation& sib : recs)
          if (window && sib.name == "commit_siblings") {
            sib.value = sib.default_value;
            sib.changes_default = false;
          }
      }
    }
    // Predictions at default and recommended settings.
    Settings dflt = default_settings(e), chosen = dflt;
    for (const Recommendation& r : recs)
      if (r.changes_default && !r.tradeoff) chosen[r.name] = r.value;
    for (unsigned n : writers) {
      a.predictions.push_back(predict(e, "default", dflt, d, x, fit, n));
      a.predictions.push_back(predict(e, "recommended", chosen, d, x, fit, n));
    }
    for (Recommendation& r : recs) {
      if (!r.changes_default) continue;
      Settings one = dflt;
      one[r.name] = r.value;
      const Prediction p0 = predict(e, "default", dflt, d, x, fit, top), p1 = predict(e, "one", one, d, x, fit, top);
      if (p0.commits_per_s > 0 && !r.tradeoff) r.predicted_gain = p1.commits_per_s / p0.commits_per_s;
    }
    Settings applied;
    for (const auto& [k, v] : chosen)
      if (dflt.count(k) == 0 || dflt.at(k) != v) applied[k] = v;
    if (!applied.empty()) a.recommended[e] = chosen;
    for (Recommendation& r : recs) a.recs.push_back(std::move(r));
  }
  return a;
}

}  // namespace fenec::iobench::advise
