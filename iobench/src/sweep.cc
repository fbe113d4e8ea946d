#include "iobench/src/sweep.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fcntl.h>
#include <fmt/format.h>
#include <latch>
#include <memory>
#include <mutex>
#include <thread>
#include <time.h>
#include <unistd.h>

#include "iobench/src/submit.h"

namespace fenec::iobench {
namespace {

using base::Histogram;

// Random bytes beyond one op's worth, so consecutive ops write different data.
constexpr uint64_t kPoolSlack = 1 << 20;
constexpr uint64_t kPoolStep = 4096;

uint64_t now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

uint64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// Per-interval bins shared by a cell's jobs; each job flushes its current
// interval into it when it moves on, so the hot path takes no lock.
class IntervalTable {
 public:
  explicit IntervalTable(uint64_t width_ns) : width_ns_(width_ns ? width_ns : 1) {}
  uint64_t width_ns() const { return width_ns_; }
  void add(size_t idx, uint64_t bytes, uint64_t ops, const Histogram& h) {
    std::lock_guard<std::mutex> lock(mu_);
    while (bins_.size() <= idx) bins_.push_back(std::make_unique<Bin>());
    bins_[idx]->bytes += bytes;
    bins_[idx]->ops += ops;
    bins_[idx]->h.Merge(h);
  }
  std::vector<IntervalPoint> points(double cell_seconds) const {
    std::vector<IntervalPoint> out;
    double w = width_ns_ / 1e9;
    for (size_t i = 0; i < bins_.size(); ++i) {
      const Bin& b = *bins_[i];
      double span = std::min(w, cell_seconds - i * w);
      if (span <= w * 0.05) continue;  // a sliver at the end says nothing about a rate
      IntervalPoint p;
      p.t_s = i * w + span;
      p.mb_per_s = b.bytes / span / 1e6;
      p.ops_per_s = b.ops / span;
      base::LatencySummary s = base::LatencySummary::Of(b.h);
      p.p50_us = s.p50_us;
      p.p99_us = s.p99_us;
      p.max_us = s.max_us;
      out.push_back(p);
    }
    return out;
  }

 private:
  struct Bin {
    uint64_t bytes = 0, ops = 0;
    Histogram h;
  };
  uint64_t width_ns_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Bin>> bins_;
};

struct JobOut {
  std::string error;
  bool no_space = false;
  bool stopped = false;  // ended by a stop request, not by its bounds
  uint64_t ops = 0, write_calls = 0, sync_calls = 0, bytes = 0;
  uint64_t start_ns = 0, end_ns = 0, cpu_ns = 0;
  Histogram lat, sync, commit;
};

struct JobArgs {
  const CellSpec* spec;
  const SweepEnv* env;
  unsigned index;
  std::string path;  // empty on the null path
  uint64_t region_start;
  uint64_t ops;      // planned ops for this job
  const AlignedBuffer* pool;
  std::latch* ready;
  IntervalTable* intervals;
  const std::atomic<uint64_t>* start_ns;  // written before the latch releases the jobs
  JobOut* out;
};

class IntervalCursor {
 public:
  IntervalCursor(IntervalTable* t, uint64_t start_ns) : t_(t), start_ns_(start_ns) {}
  void add(uint64_t t_ns, uint64_t bytes, uint64_t latency_ns) {
    size_t idx = (t_ns - start_ns_) / t_->width_ns();
    if (idx != idx_) flush(idx);
    bytes_ += bytes;
    ++ops_;
    h_.Record(latency_ns);
  }
  void flush(size_t next = 0) {
    if (ops_) t_->add(idx_, bytes_, ops_, h_);
    h_.Reset();
    bytes_ = ops_ = 0;
    idx_ = next;
  }
 private:
  IntervalTable* t_;
  uint64_t start_ns_;
  size_t idx_ = 0;
  uint64_t bytes_ = 0, ops_ = 0;
  Histogram h_;
};

void fail(JobOut* out, const IoError& e) {
  out->error = e.message;
  out->no_space = e.no_space();
}

void run_job(JobArgs a) {
  const CellSpec& spec = *a.spec;
  JobOut& out = *a.out;
  std::string why;
  const SubmitPath& submit = submit_path(spec.submit);
  std::unique_ptr<Submitter> sub = make_submitter(spec.submit, spec.depth, &why);
  Fd fd;
  const std::string path = a.path.empty() ? std::string(submit.name) : a.path;
  if (!sub) out.error = fmt::format("{} submission path unavailable: {}", submit.name, why);
  if (sub && !a.path.empty()) {
    IoError e = open_file(a.path, O_WRONLY | mode_open_flags(spec.mode), &fd);
    if (!e.ok()) fail(&out, e);
  }
  a.ready->arrive_and_wait();
  if (!out.error.empty()) return;

  const unsigned depth = sub->depth();
  const unsigned batch = spec.batch;
  const uint64_t unit = spec.size * batch;
  const SyncCall call = mode_sync(spec.mode);
  const bool sync_mode = call != SyncCall::kNone;
  const uint64_t slots = (a.pool->size() - unit) / kPoolStep + 1;
  std::vector<iovec> iov(static_cast<size_t>(depth) * batch);
  std::vector<uint64_t> t_submit(depth);
  std::vector<uint32_t> free_slots, done;
  for (unsigned s = depth; s-- > 0;) free_slots.push_back(s);
  Rng rng(a.env->seed * 0x100000001b3ull + a.index + 1);
  IntervalCursor cursor(a.intervals, a.start_ns->load());

  out.start_ns = now_ns();
  const uint64_t deadline = out.start_ns + static_cast<uint64_t>(spec.duration_s * 1e9);
  const uint64_t cpu0 = thread_cpu_ns();
  uint64_t next = 0;
  unsigned inflight = 0;
  while (true) {
    bool stop = a.env->stop();
    out.stopped |= stop && next < a.ops;
    bool more = next < a.ops && now_ns() < deadline && !stop;
    if (more && (!sync_mode || inflight == 0)) {
      while (inflight < depth && next < a.ops) {
        uint32_t slot = free_slots.back();
        free_slots.pop_back();
        uint8_t* base = a.pool->data() + rng.below(slots) * kPoolStep;
        for (unsigned b = 0; b < batch; ++b)
          iov[slot * batch + b] = iovec{base + b * spec.size, static_cast<size_t>(spec.size)};
        WriteRequest w{fd.get(), &path, a.region_start + next * unit, &iov[slot * batch],
                       static_cast<int>(batch), unit, slot};
        t_submit[slot] = now_ns();
        IoError e = sub->submit(w);
        if (!e.ok()) {
          fail(&out, e);
          goto finish;
        }
        ++next;
        ++inflight;
      }
    }
    if (inflight == 0) break;
    done.clear();
    if (IoError e = sub->reap(sync_mode ? inflight : 1, &done); !e.ok()) {
      fail(&out, e);
      goto finish;
    }
    uint64_t t = now_ns();
    for (uint32_t tag : done) {
      out.lat.Record(t - t_submit[tag]);
      free_slots.push_back(tag);
      --inflight;
      if (!sync_mode) {
        cursor.add(t, unit, t - t_submit[tag]);
        ++out.ops;
      }
    }
    if (sync_mode && inflight == 0) {
      uint64_t s0 = now_ns();
      if (IoError e = sub->sync(fd.get(), path, call); !e.ok()) {
        fail(&out, e);
        goto finish;
      }
      uint64_t s1 = now_ns();
      out.sync.Record(s1 - s0);
      for (uint32_t tag : done) {
        out.commit.Record(s1 - t_submit[tag]);
        cursor.add(s1, unit, s1 - t_submit[tag]);
        ++out.ops;
      }
    }
  }
finish:
  out.cpu_ns = thread_cpu_ns() - cpu0;
  out.end_ns = now_ns();
  cursor.flush();
  out.write_calls = sub->stats().write_calls;
  out.sync_calls = sub->stats().sync_calls;
  out.bytes = out.ops * unit;
}

std::atomic<uint64_t> g_cell_counter{0};

}  // namespace

CellPlan plan_cell(const CellSpec& s) {
  const SubmitPath& submit = submit_path(s.submit);
  CellPlan p;
  p.unit_bytes = s.size * std::max(1u, s.batch);
  unsigned jobs = std::max(1u, s.jobs);
  p.ops_per_job = std::max<uint64_t>(1, s.total / jobs / p.unit_bytes);
  p.region_bytes = p.ops_per_job * p.unit_bytes;
  p.files = !submit.writes_files ? 0 : s.layout == Layout::kShared ? 1 : jobs;
  p.file_bytes = s.layout == Layout::kShared ? p.region_bytes * jobs : p.region_bytes;
  uint64_t calls_per_op = submit.call_per_buffer ? std::max(1u, s.batch) : 1;
  p.write_calls = p.ops_per_job * calls_per_op * jobs;
  if (mode_sync(s.mode) != SyncCall::kNone) {
    unsigned depth = submit.depth_for(s.depth);
    p.sync_calls = (p.ops_per_job + depth - 1) / depth * jobs;
  }
  return p;
}

std::string check_cell(const CellSpec& s, const SweepEnv& env) {
  if (s.size == 0 || s.jobs == 0 || s.batch == 0 || s.depth == 0) return "size, jobs, batch and depth must be positive";
  if (s.batch > 1024) return fmt::format("batch {} exceeds IOV_MAX (1024)", s.batch);
  const SubmitPath& submit = submit_path(s.submit);
  if (!submit.writes_files || !env.probe) return "";
  const ProbeResult& p = *env.probe;
  if (mode_direct(s.mode)) {
    if (std::string why = p.direct_skip_reason(); !why.empty()) return why;
    if (std::string why = p.direct_size_problem(s.size); !why.empty()) return why;
  }
  return submit.unavailable ? submit.unavailable(p) : "";
}

CellResult run_cell(const CellSpec& spec, const SweepEnv& env) {
  CellResult r;
  r.spec = spec;
  r.skipped = check_cell(spec, env);
  if (!r.skipped.empty()) return r;
  const CellPlan plan = plan_cell(spec);

  std::vector<ScratchFile> files;
  std::vector<std::string> paths(spec.jobs);
  uint64_t cell_no = g_cell_counter.fetch_add(1);
  for (unsigned f = 0; f < plan.files; ++f) {
    std::string path = fmt::format("{}/iobench-{}-c{}-f{}.dat", env.dir, ::getpid(), cell_no, f);
    bool fell_back = false;
    IoError e = spec.append ? create_preallocated(path, 0, &fell_back)
                            : create_preallocated(path, plan.file_bytes, &fell_back);
    if (e.ok() && spec.prefill) {
      e = fill_file(path, plan.file_bytes, env.seed + f);
      if (!e.ok()) ::unlink(path.c_str());
    }
    if (!e.ok()) {
      r.error = e.message;
      r.no_space = e.no_space();
      return r;
    }
    files.emplace_back(path);
  }
  for (unsigned j = 0; j < spec.jobs && plan.files > 0; ++j)
    paths[j] = files[spec.layout == Layout::kShared ? 0 : j].path();

  AlignedBuffer pool(plan.unit_bytes + kPoolSlack);
  pool.fill_random(env.seed ^ (spec.size * 31 + static_cast<uint64_t>(spec.mode)));
  IntervalTable intervals(static_cast<uint64_t>(spec.interval_s * 1e9));
  std::vector<JobOut> outs(spec.jobs);
  std::latch ready(spec.jobs + 1);
  std::atomic<uint64_t> start{0};
  if (env.on_start) env.on_start();
  start.store(now_ns());
  std::vector<std::thread> threads;
  for (unsigned j = 0; j < spec.jobs; ++j) {
    JobArgs a{&spec, &env, j, paths[j],
              spec.layout == Layout::kShared ? j * plan.region_bytes : 0,
              plan.ops_per_job, &pool, &ready, &intervals, &start, &outs[j]};
    threads.emplace_back(run_job, a);
  }
  // The jobs' clocks start when the last of them has opened its file.
  start.store(now_ns());
  ready.arrive_and_wait();
  for (auto& t : threads) t.join();

  uint64_t t0 = UINT64_MAX, t1 = 0;
  for (const JobOut& o : outs) {
    if (!o.error.empty() && r.error.empty()) {
      r.error = o.error;
      r.no_space = o.no_space;
    }
    r.ops += o.ops;
    r.write_calls += o.write_calls;
    r.sync_calls += o.sync_calls;
    r.bytes += o.bytes;
    r.cpu_s += o.cpu_ns / 1e9;
    r.lat.Merge(o.lat);
    r.sync.Merge(o.sync);
    r.commit.Merge(o.commit);
    if (o.end_ns) {
      t0 = std::min(t0, o.start_ns);
      t1 = std::max(t1, o.end_ns);
      double js = (o.end_ns - o.start_ns) / 1e9;
      r.job_mb_per_s.push_back(js > 0 ? o.bytes / js / 1e6 : 0);
    }
  }
  r.seconds = t1 > t0 ? (t1 - t0) / 1e9 : 0;
  r.intervals = intervals.points(r.seconds);
  for (const JobOut& o : outs) r.interrupted |= o.stopped;
  return r;
}

std::vector<CellSpec> expand(const Grid& g) {
  std::vector<CellSpec> cells;
  for (SubmitKind k : g.submits)
    for (Layout l : g.layouts)
      for (unsigned j : g.jobs)
        for (Mode m : g.modes)
          for (uint64_t s : g.sizes) {
            CellSpec c;
            c.size = s;
            c.mode = m;
            c.jobs = j;
            c.layout = l;
            c.submit = k;
            c.batch = g.batch;
            c.depth = std::min(g.depth, submit_path(k).max_depth);
            c.duration_s = g.duration_s;
            c.total = g.total;
            c.interval_s = g.interval_s;
            c.prefill = g.prefill;
            cells.push_back(c);
          }
  return cells;
}

}  // namespace fenec::iobench
