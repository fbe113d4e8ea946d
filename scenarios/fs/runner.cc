#include "scenarios/fs/runner.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/src/base/histogram.h"
#include "iobench/kit/interrupt.h"
#include "iobench/kit/loopfs.h"
#include "iobench/src/probe.h"
#include "iobench/src/units.h"
#include "scenarios/engines/journals_workload.h"
#include "scenarios/engines/workload.h"
#include "scenarios/pg/pg_cluster.h"

namespace fenec::scenarios::fs {
namespace {

namespace stdfs = std::filesystem;
using Clock = std::chrono::steady_clock;

void remove_dir(const std::string& d) {
  std::error_code ec;
  stdfs::remove_all(d, ec);
}

// What was written before the cell is on the device before its counters are read.
void sync_fs(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::syncfs(fd);
  ::close(fd);
}

// chattr +C: files created in `dir` from now on are not copy-on-write (btrfs).
std::string set_nocow(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return fmt::format("open {}: {}", dir, std::strerror(errno));
  int flags = 0;
  std::string err;
  if (::ioctl(fd, FS_IOC_GETFLAGS, &flags) != 0) err = fmt::format("FS_IOC_GETFLAGS: {}", std::strerror(errno));
  flags |= FS_NOCOW_FL;
  if (err.empty() && ::ioctl(fd, FS_IOC_SETFLAGS, &flags) != 0)
    err = fmt::format("chattr +C {}: {}", dir, std::strerror(errno));
  ::close(fd);
  return err;
}

class FsSite : public Site {
 public:
  std::unique_ptr<kit::LoopFs> loop;
  std::string data, dev, nocow;
  iobench::ProbeResult probe;
  pg::PgCluster pg;
  bool pg_tried = false;
  std::string pg_error;

  std::string dir() const override { return data; }
  std::string device() const override { return dev; }
  std::map<std::string, std::string> describe() const override {
    std::map<std::string, std::string> m;
    m["fs_type"] = probe.fs_type;
    m["mount_options"] = probe.mount_options;
    m["device"] = dev;
    if (loop) {
      m["mkfs"] = loop->mkfs_command();
      m["mount_options_asked"] = loop->mount_options().empty() ? "(defaults)" : loop->mount_options();
      m["loop"] = loop->loop_settings();
    } else {
      m["source"] = probe.mount_source + " on " + probe.mount_point;
    }
    if (!nocow.empty()) m["nocow"] = nocow;
    return m;
  }
  std::string teardown() override {
    std::string err;
    if (pg.up())
      if (std::string e = pg.Stop(); !e.empty()) err = "postgres stop: " + e;
    if (loop) {
      if (std::string e = loop->Teardown(); !e.empty()) err += (err.empty() ? "" : "; ") + e;
      loop.reset();
    } else if (!data.empty()) {
      remove_dir(data);
    }
    data.clear();
    return err;
  }
  ~FsSite() override { (void)teardown(); }
  // The site's PostgreSQL cluster, started the first time an arm needs it.
  std::string conninfo() {
    if (!pg_tried) {
      pg_tried = true;
      pg_error = pg.Start(data + "/pg");
    }
    return pg.up() ? pg.conninfo() : "";
  }
};

double p_us(const base::Histogram& h, double p) { return h.count() ? h.Percentile(p) / 1e3 : 0; }

}  // namespace

const std::vector<engines::ArmSpec>& engine_arms() {
  using E = engines::ArmSpec::Engine;
  static const std::vector<engines::ArmSpec> arms = {
      {"fenecdb-durable", E::kFenecdb, true, false, false},
      {"fenecdb-durable-append", E::kFenecdb, true, false, true},
      {"rocksdb-durable", E::kRocksdb, true, false, false},
      {"postgres-durable", E::kPostgres, true, false, false},
      {"sqlite-full", E::kSqlite, true, false, false},
  };
  return arms;
}

std::vector<std::string> engine_arm_names() {
  std::vector<std::string> out;
  for (const auto& a : engine_arms()) out.push_back(a.name);
  return out;
}

DiskCounters read_diskstats(const std::string& device) {
  DiskCounters d;
  std::ifstream in("/proc/diskstats");
  for (std::string line; std::getline(in, line);) {
    std::istringstream s(line);
    unsigned major = 0, minor = 0;
    std::string name;
    s >> major >> minor >> name;
    if (name != device) continue;
    // reads: completed merged sectors ms; writes: completed merged sectors ms;
    // in flight, io ms, weighted ms; discards x4; flushes completed, ms.
    uint64_t f[17] = {};
    for (uint64_t& x : f) s >> x;
    d.writes = f[4];
    d.sectors = f[6];
    d.write_ms = f[7];
    d.flushes = f[15];
    d.flush_ms = f[16];
    d.ok = true;
    break;
  }
  return d;
}

const std::vector<std::string>& per_op_counters() {
  static const std::vector<std::string> names = {"dev_writes_per_op", "dev_flushes_per_op", "dev_kib_per_op",
                                                 "dev_ms_per_op", "syncs_per_op"};
  return names;
}

void add_device_metrics(const DiskCounters& a, const DiskCounters& b, double ops, CellOut* out) {
  if (!a.ok || !b.ok || ops <= 0) return;
  const double writes = static_cast<double>(b.writes - a.writes), kib = (b.sectors - a.sectors) / 2.0,
               flushes = static_cast<double>(b.flushes - a.flushes),
               ms = static_cast<double>((b.write_ms - a.write_ms) + (b.flush_ms - a.flush_ms));
  out->set("dev_writes", writes, "count");
  out->set("dev_kib", kib, "KiB");
  out->set("dev_flushes", flushes, "count");
  out->set("dev_writes_per_op", writes / ops, "ratio");
  out->set("dev_kib_per_op", kib / ops, "KiB");
  out->set("dev_flushes_per_op", flushes / ops, "ratio");
  out->set("dev_ms_per_op", ms / ops, "ms");
}

Cell sweep_cell(iobench::Mode m, uint64_t size, bool append, iobench::SubmitKind k, unsigned batch) {
  std::string cs = fmt::format("size={};write={}", iobench::size_label(size), append ? "append" : "overwrite");
  if (batch > 1) cs += fmt::format(";batch={}", batch);
  return {"sweep", iobench::arm_name(m, k), cs};
}

std::vector<Cell> RealRunner::plan() {
  std::vector<Cell> cells;
  auto has = [&](const char* p) { return std::find(c_.parts.begin(), c_.parts.end(), p) != c_.parts.end(); };
  if (has("probe")) cells.push_back({"probe", "probe", ""});
  if (has("sweep")) {
    auto add = [&](iobench::Mode m, uint64_t size, bool append, iobench::SubmitKind k, unsigned batch) {
      iobench::CellSpec s;
      s.mode = m;
      s.size = size;
      s.submit = k;
      s.batch = batch;
      s.append = append;
      s.prefill = !append && m != iobench::Mode::kBuffered;
      s.duration_s = c_.sweep_seconds;
      s.interval_s = std::min(1.0, c_.sweep_seconds);
      s.total = size * batch <= (64u << 10) ? c_.small_total : c_.big_total;
      const Cell c = sweep_cell(m, size, append, k, batch);
      sweep_[c.key()] = s;
      cells.push_back(c);
    };
    for (iobench::Mode m : {iobench::Mode::kFdatasync, iobench::Mode::kDirectDsync})
      for (bool append : {true, false})
        for (uint64_t size : c_.sizes) add(m, size, append, iobench::SubmitKind::kPwrite, 1);
    // IO-1's big write, IO-1/IO-4's buffered references, IO-7's merged write.
    add(iobench::Mode::kDirectDsync, 16u << 20, false, iobench::SubmitKind::kPwrite, 1);
    add(iobench::Mode::kBuffered, 4096, false, iobench::SubmitKind::kPwrite, 1);
    add(iobench::Mode::kBuffered, 16384, false, iobench::SubmitKind::kPwrite, 1);
    add(iobench::Mode::kDirectDsync, 4096, false, iobench::SubmitKind::kPwritev, 16);
    add(iobench::Mode::kDirectDsync, 4096, false, iobench::SubmitKind::kPwrite, 16);
  }
  if (has("create")) cells.push_back({"create", "create+fsync+dirfsync", "size=4k"});
  if (has("engines"))
    for (int w : c_.writers)
      for (const engines::ArmSpec& a : engine_arms()) {
        if (std::find(c_.engines.begin(), c_.engines.end(), a.name) == c_.engines.end()) continue;
        Cell c{"engines", a.name, fmt::format("writers={}", w)};
        engine_[c.key()] = {a, w};
        cells.push_back(c);
      }
  if (has("jr1"))
    for (int w : c_.writers)
      for (const std::string& mode : journals::mode_names()) {
        Cell c{"jr1", mode, fmt::format("indexes={};writers={}", c_.jr1_indexes, w)};
        jr1_[c.key()] = {mode, w};
        cells.push_back(c);
      }
  return cells;
}

std::unique_ptr<Site> RealRunner::open(const FsSpec& spec, std::string* why_not) {
  auto site = std::make_unique<FsSite>();
  const std::string base = c_.scratch + "/" + spec.name;
  if (spec.fs_type.empty()) {
    site->data = base;
  } else {
    kit::LoopFsOptions o;
    o.dir = base;
    o.bytes = c_.loop_bytes;
    o.fs_type = spec.fs_type;
    o.mkfs_options = spec.mkfs_options;
    o.mount_options = spec.mount_options;
    // The same on every loop device (a loop device keeps the scheduler a
    // previous user set): the question is the file system, not the scheduler.
    o.scheduler = "none";
    site->loop = kit::LoopFs::Create(o, why_not);
    if (!site->loop) return nullptr;
    site->data = site->loop->mount_point() + "/data";
  }
  std::error_code ec;
  stdfs::create_directories(site->data, ec);
  if (ec) {
    *why_not = fmt::format("mkdir {}: {}", site->data, ec.message());
    return nullptr;  // the site's destructor tears the loop down
  }
  if (spec.nocow) {
    if (std::string e = set_nocow(site->data); !e.empty()) {
      *why_not = e;
      return nullptr;
    }
    site->nocow = "chattr +C on " + site->data + " (every cell's files inherit it)";
  }
  site->probe = iobench::probe(site->data);
  if (!site->probe.error.empty()) {
    *why_not = "probe: " + site->probe.error;
    return nullptr;
  }
  site->dev = site->loop ? site->loop->name() : site->probe.device;
  return site;
}

std::string RealRunner::run(const Cell& cell, const FsSpec&, Site& site, int rep, CellOut* out) {
  if (cell.part == "probe") return run_probe(site, out);
  if (cell.part == "create") return run_create(site, out);
  if (auto it = sweep_.find(cell.key()); it != sweep_.end()) return run_sweep(it->second, site, rep, out);
  if (auto it = engine_.find(cell.key()); it != engine_.end())
    return run_engine(it->second.first, it->second.second, site, rep, out);
  if (auto it = jr1_.find(cell.key()); it != jr1_.end())
    return run_jr1(it->second.first, it->second.second, site, rep, out);
  return "no such cell: " + cell.key();
}

std::string RealRunner::run_probe(Site& s, CellOut* out) {
  const iobench::ProbeResult& p = static_cast<FsSite&>(s).probe;
  out->set("o_direct", p.o_direct, "bool");
  out->set("direct_io_align", p.direct_io_align, "bytes");
  out->set("o_dsync", p.o_dsync, "bool");
  out->set("fallocate", p.fallocate, "bool");
  out->set("hard_links", p.hard_links, "bool");
  return "";
}

std::string RealRunner::run_sweep(const iobench::CellSpec& spec, Site& s, int rep, CellOut* out) {
  FsSite& site = static_cast<FsSite&>(s);
  iobench::SweepEnv env;
  env.dir = site.data;
  env.seed = c_.seed + static_cast<uint64_t>(rep);
  env.probe = &site.probe;
  if (std::string why = iobench::check_cell(spec, env); !why.empty()) return why;
  DiskCounters before;
  env.on_start = [&] {
    sync_fs(site.data);  // the fill, and what an earlier cell left dirty, are on the device before this
    before = read_diskstats(site.dev);
  };
  const iobench::CellResult r = iobench::run_cell(spec, env);
  const DiskCounters after = read_diskstats(site.dev);
  if (!r.skipped.empty()) return r.skipped;
  if (!r.error.empty()) return "failed: " + r.error;
  if (r.interrupted) return "interrupted";
  if (r.ops == 0) return "no op completed";
  out->set("mb_per_s", r.mb_per_s(), "MB/s");
  out->set("iops", r.iops(), "writes/s");
  out->set("ops_per_s", r.ops_per_s(), "ops/s");
  const bool durable = iobench::mode_durable(spec.mode);
  const base::Histogram& h = durable && r.commit.count() ? r.commit : r.lat;
  out->set("commit_p50_us", p_us(h, 50), "us");
  out->set("commit_p99_us", p_us(h, 99), "us");
  out->set("ops", static_cast<double>(r.ops), "count");
  out->set("sync_calls", static_cast<double>(r.sync_calls), "count");
  add_device_metrics(before, after, static_cast<double>(r.ops), out);
  return "";
}


// What creating a journal file costs: a new file, a 4 KiB write, its fsync
// (the file's data and inode), then its folder's fsync (the name).
std::string RealRunner::run_create(Site& s, CellOut* out) {
  FsSite& site = static_cast<FsSite&>(s);
  const std::string dir = site.data + "/create";
  std::error_code ec;
  stdfs::create_directories(dir, ec);
  if (ec) return "mkdir: " + ec.message();
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return fmt::format("open {}: {}", dir, std::strerror(errno));
  std::string err;
  std::vector<char> buf(4096, 'x');
  base::Histogram file_ns, dir_ns;
  sync_fs(site.data);
  const DiskCounters before = read_diskstats(site.dev);
  const Clock::time_point t0 = Clock::now();
  int made = 0;
  for (int i = 0; i < c_.creates && err.empty() && !kit::stop_requested(); ++i) {
    const std::string path = fmt::format("{}/f{}", dir, i);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
      err = fmt::format("create {}: {}", path, std::strerror(errno));
      break;
    }
    const Clock::time_point a = Clock::now();
    if (::pwrite(fd, buf.data(), buf.size(), 0) != static_cast<ssize_t>(buf.size()) || ::fsync(fd) != 0)
      err = fmt::format("write+fsync {}: {}", path, std::strerror(errno));
    const Clock::time_point b = Clock::now();
    ::close(fd);
    if (err.empty() && ::fsync(dfd) != 0) err = fmt::format("fsync {}: {}", dir, std::strerror(errno));
    const Clock::time_point c = Clock::now();
    file_ns.Record(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count()));
    dir_ns.Record(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(c - b).count()));
    ++made;
  }
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  const DiskCounters after = read_diskstats(site.dev);
  ::close(dfd);
  remove_dir(dir);
  if (!err.empty()) return "failed: " + err;
  if (made == 0) return "interrupted";
  out->set("creates_per_s", made / secs, "files/s");
  out->set("file_fsync_p50_us", p_us(file_ns, 50), "us");
  out->set("dir_fsync_p50_us", p_us(dir_ns, 50), "us");
  out->set("ops", made, "count");
  add_device_metrics(before, after, made, out);
  return "";
}

std::string RealRunner::run_engine(const engines::ArmSpec& arm, int writers, Site& s, int rep, CellOut* out) {
  FsSite& site = static_cast<FsSite&>(s);
  std::string conninfo;
  if (arm.engine == engines::ArmSpec::Engine::kPostgres) {
    conninfo = site.conninfo();
    if (conninfo.empty()) return "PostgreSQL: " + site.pg_error;
  }
  const std::string dir = fmt::format("{}/{}-w{}-r{}", site.data, arm.name, writers, rep);
  remove_dir(dir);
  std::error_code ec;
  stdfs::create_directories(dir, ec);
  std::string err;
  std::unique_ptr<engines::Store> store = engines::open_store(arm, "writers", dir, conninfo, &err);
  if (!store) {
    remove_dir(dir);
    return "open: " + err;
  }
  store->reset_counters();
  sync_fs(site.data);
  const DiskCounters before = read_diskstats(site.dev);
  const engines::WritersResult r =
      engines::run_writers(*store, writers, {c_.engine_seconds, c_.engine_max_ops}, c_.seed + rep);
  const DiskCounters after = read_diskstats(site.dev);
  const std::string closed = store->close();
  store.reset();
  remove_dir(dir);
  if (!r.error.empty()) return "failed: " + r.error;
  if (!closed.empty()) return "close: " + closed;
  if (r.writes == 0 || r.seconds <= 0) return "no write completed";
  const double commits = r.counters.commits ? static_cast<double>(r.counters.commits) : r.writes;
  out->set("writes_per_s", r.per_s(), "writes/s");
  out->set("write_p50_us", p_us(r.write_ns, 50), "us");
  out->set("write_p99_us", p_us(r.write_ns, 99), "us");
  out->set("commits", commits, "count");
  out->set("fsyncs", static_cast<double>(r.counters.fsyncs), "count");
  out->set("syncs_per_op", r.counters.fsyncs / commits, "ratio");
  add_device_metrics(before, after, commits, out);
  return "";
}

std::string RealRunner::run_jr1(const std::string& mode, int writers, Site& s, int rep, CellOut* out) {
  FsSite& site = static_cast<FsSite&>(s);
  journals::CellConfig cfg;
  journals::parse_mode(mode, &cfg.journals);
  cfg.indexes = c_.jr1_indexes;
  cfg.writers = writers;
  cfg.seconds = c_.jr1_seconds;
  cfg.max_puts = c_.jr1_max_puts;
  cfg.stop = &kit::stop_requested;
  const std::string dir = fmt::format("{}/jr1-{}-w{}-r{}", site.data, mode, writers, rep);
  remove_dir(dir);
  sync_fs(site.data);
  const DiskCounters before = read_diskstats(site.dev);
  const journals::CellResult r = journals::run_cell(cfg, dir);
  const DiskCounters after = read_diskstats(site.dev);
  remove_dir(dir);
  if (!r.error.empty()) return "failed: " + r.error;
  if (r.puts == 0 || r.seconds <= 0) return "no put completed";
  out->set("puts_per_s", r.puts / r.seconds, "puts/s");
  out->set("put_p50_us", p_us(r.put_ns, 50), "us");
  out->set("puts", static_cast<double>(r.puts), "count");
  out->set("syncs_per_op", static_cast<double>(r.env.syncs) / r.puts, "ratio");
  out->set("bytes_per_put", static_cast<double>(r.env.write_bytes) / r.puts, "bytes");
  add_device_metrics(before, after, static_cast<double>(r.puts), out);
  return "";
}

}  // namespace fenec::scenarios::fs
