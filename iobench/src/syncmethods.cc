#include "iobench/src/syncmethods.h"

#include <chrono>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "iobench/kit/console.h"
#include "iobench/kit/results.h"
#include "iobench/src/units.h"

namespace fenec::iobench {
namespace {

constexpr uint64_t kFileBytes = 16ull << 20;  // one WAL segment, as pg_test_fsync uses

uint64_t now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

int open_flags(const SyncTest& t) {
  int f = O_WRONLY;
  if (t.method == "open_datasync") f |= O_DSYNC;
  if (t.method == "open_sync") f |= O_SYNC;
  if (t.direct) f |= O_DIRECT;
  return f;
}

// One op of a test; errors end the test.
IoError one_op(const SyncTest& t, int fd, const std::string& path, const AlignedBuffer& buf, uint64_t* calls) {
  if (t.method == "write-close-open-fsync" || t.method == "open-fsync-close") {
    if (t.method == "write-close-open-fsync") {
      Fd w;
      if (IoError e = open_file(path, O_WRONLY, &w); !e.ok()) return e;
      if (IoError e = pwrite_full(w.get(), buf.data(), t.write_size, 0, path, calls); !e.ok()) return e;
    }
    Fd other;
    if (IoError e = open_file(path, O_RDONLY, &other); !e.ok()) return e;
    return sync_fd(other.get(), false, path);
  }
  for (unsigned i = 0; i < t.writes; ++i)
    if (IoError e = pwrite_full(fd, buf.data() + i * t.write_size, t.write_size, i * t.write_size, path, calls);
        !e.ok())
      return e;
  if (t.method == "fdatasync") return sync_fd(fd, true, path);
  if (t.method == "fsync" || t.method == "write-fsync-close") return sync_fd(fd, false, path);
  return {};
}

void run_test(SyncTest& t, const SyncMethodsOptions& o, const std::string& path, const AlignedBuffer& buf,
              std::string* error) {
  const bool reopen = t.method == "write-close-open-fsync" || t.method == "open-fsync-close" ||
                      t.method == "write-fsync-close";
  Fd fd;
  if (!reopen)
    if (IoError e = open_file(path, open_flags(t), &fd); !e.ok()) {
      t.skipped = e.message;
      return;
    }
  uint64_t calls = 0;
  const uint64_t start = now_ns(), deadline = start + static_cast<uint64_t>(o.seconds * 1e9);
  uint64_t now = start;
  while (t.ops < o.max_ops && now < deadline && !o.stop()) {
    Fd own;
    if (t.method == "write-fsync-close")
      if (IoError e = open_file(path, O_WRONLY, &own); !e.ok()) {
        *error = e.message;
        break;
      }
    IoError e = one_op(t, own.valid() ? own.get() : fd.get(), path, buf, &calls);
    if (!e.ok()) {
      *error = e.message;
      break;
    }
    uint64_t done = now_ns();
    t.lat.Record(done - now);
    now = done;
    ++t.ops;
  }
  t.seconds = (now - start) / 1e9;
}

double p50_us(const SyncTest& t) { return base::LatencySummary::Of(t.lat).p50_us; }

}  // namespace

std::string SyncTest::case_() const {
  return fmt::format("method={};writes={};size={};direct={}", method, writes, size_label(write_size), direct ? 1 : 0);
}

std::vector<SyncTest> plan_syncmethods() {
  std::vector<SyncTest> plan;
  for (unsigned writes : {1u, 2u})
    for (const char* m : {"open_datasync", "fdatasync", "fsync", "open_sync"})
      for (bool direct : {false, true}) {
        SyncTest t;
        t.section = writes == 1 ? "one 8k write per op" : "two 8k writes per op";
        t.method = m;
        t.writes = writes;
        t.direct = direct;
        plan.push_back(t);
      }
  for (unsigned pieces : {1u, 2u, 4u, 8u, 16u})
    for (bool direct : {false, true}) {
      SyncTest t;
      t.section = "16k per op with open_sync";
      t.method = "open_sync";
      t.writes = pieces;
      t.write_size = 16384 / pieces;
      t.direct = direct;
      plan.push_back(t);
    }
  for (const char* m : {"write-fsync-close", "write-close-open-fsync", "open-fsync-close"}) {
    SyncTest t;
    t.section = "fsync on another descriptor";
    t.method = m;
    plan.push_back(t);
  }
  SyncTest plain;
  plain.section = "no sync";
  plain.method = "write";
  plan.push_back(plain);
  return plan;
}

SyncMethodsResult run_syncmethods(const SyncMethodsOptions& o, const ProbeResult& p) {
  SyncMethodsResult r;
  r.tests = plan_syncmethods();
  std::string path = fmt::format("{}/iobench-syncmethods-{}.dat", o.dir, ::getpid());
  bool fell_back = false;
  IoError e = create_preallocated(path, kFileBytes, &fell_back);
  if (e.ok()) e = fill_file(path, kFileBytes, 17);
  if (!e.ok()) {
    r.error = e.message;
    ::unlink(path.c_str());
    return r;
  }
  ScratchFile guard(path);
  AlignedBuffer buf(16384);
  buf.fill_random(23);
  for (SyncTest& t : r.tests) {
    if (o.stop()) {
      t.skipped = "interrupted";
      continue;
    }
    if (t.direct) {
      t.skipped = p.direct_skip_reason();
      if (t.skipped.empty()) t.skipped = p.direct_size_problem(t.write_size);
      if (!t.skipped.empty()) continue;
    }
    std::string err;
    run_test(t, o, path, buf, &err);
    if (!err.empty()) {
      r.error = err;
      break;
    }
  }
  const SyncTest *same = nullptr, *other = nullptr, *clean = nullptr;
  for (const SyncTest& t : r.tests) {
    if (t.method == "write-fsync-close") same = &t;
    if (t.method == "write-close-open-fsync") other = &t;
    if (t.method == "open-fsync-close") clean = &t;
  }
  if (same && other && clean && same->ops && other->ops && clean->ops) {
    double s = p50_us(*same), x = p50_us(*other), c = p50_us(*clean);
    // Compared with the writing fd's own fsync only: a clean fsync can cost a
    // whole cache flush too (ext4 issues one), so it is reported, not used.
    r.other_fd_honoured = x >= 0.5 * s;
    r.other_fd_reason = fmt::format(
        "write+fsync on the writing fd {:.0f} us; write, close, fsync on a new fd {:.0f} us; fsync with nothing "
        "dirty {:.0f} us: {}",
        s, x, c, r.other_fd_honoured ? "honoured (it costs what flushing the written data costs)"
                            : "NOT honoured: it costs far less than flushing the written data");
  }
  return r;
}

std::string syncmethods_table(const SyncMethodsResult& r) {
  kit::Table t({"section", "method", "writes", "O_DIRECT", "ops/s", "us/op", "p50", "p99", "max"});
  for (const SyncTest& s : r.tests) {
    std::string pieces = fmt::format("{}x{}", s.writes, size_label(s.write_size));
    if (!s.skipped.empty()) {
      t.row({s.section, s.method, pieces, s.direct ? "yes" : "no", "-", "-", "-", "-", "skipped: " + s.skipped});
      continue;
    }
    base::LatencySummary l = base::LatencySummary::Of(s.lat);
    t.row({s.section, s.method, pieces, s.direct ? "yes" : "no", fmt::format("{:.0f}", s.ops_per_s()),
           fmt::format("{:.1f}", l.mean_us), kit::format_us(l.p50_us), kit::format_us(l.p99_us),
           kit::format_us(l.max_us)});
  }
  std::string out = t.str();
  if (!r.other_fd_reason.empty()) out += fmt::format("fsync through another descriptor: {}\n", r.other_fd_reason);
  if (!r.error.empty()) out += fmt::format("error: {}\n", r.error);
  return out;
}

void add_syncmethods_rows(kit::Results& res, const SyncMethodsResult& r) {
  for (const SyncTest& t : r.tests) {
    if (!t.skipped.empty()) {
      res.skip("syncmethods", t.case_(), t.skipped);
      continue;
    }
    if (!t.ops) continue;
    res.add("", "syncmethods", t.case_(), "ops_per_s", t.ops_per_s(), "ops/s");
    res.add("", "syncmethods", t.case_(), "us_per_op", base::LatencySummary::Of(t.lat).mean_us, "us");
    res.add_latency("", "syncmethods", t.case_(), t.lat);
  }
  if (!r.other_fd_reason.empty())
    res.add("", "syncmethods", "method=fsync-other-fd", "honoured", r.other_fd_honoured ? 1 : 0, "bool");
}

}  // namespace fenec::iobench
