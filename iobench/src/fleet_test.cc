// iobench fleet: hosts as users write them, cells as fio jobs, the judgement
// on fixed figures (a lying host, a slow one, healthy ones left alone), the
// shared window from fio's iops logs, failures named, and the whole tool
// against two real fio servers, one killed mid-run.
#include "iobench/src/fleet.h"

#include <gtest/gtest.h>

#include <fstream>

#include "engine/src/base/scratch.h"
#include "iobench/src/fio_job.h"

namespace fenec::iobench::fleet {
namespace fleet_test {

TEST(FleetHosts, ParsesHostsAndPorts) {
  std::vector<Host> h;
  std::string why;
  ASSERT_TRUE(parse_hosts("db1, db2:8766,[::1]:9000,10.0.0.4", &h, &why)) << why;
  ASSERT_EQ(h.size(), 4u);
  EXPECT_EQ(h[0].label(), "db1:8765");
  EXPECT_EQ(h[1].port, 8766u);
  EXPECT_EQ(h[2].addr, "::1");
  EXPECT_EQ(h[2].label(), "[::1]:9000");
  EXPECT_EQ(h[3].label(), "10.0.0.4:8765");
  for (const char* bad : {"", "a,", "a:", "a:0", "a:70000", "a:x", "::1:80", "[::1", "a,a:8765", "a b"})
    EXPECT_FALSE(parse_hosts(bad, &h, &why)) << bad;
}

TEST(FleetHosts, ReadsAHostsFile) {
  base::ScratchDir dir("fleet-hosts");
  const std::string path = dir.path("hosts");
  std::ofstream(path) << "# the fleet\ndb1 /data/fio\n\n  db2:8766   # no folder: the server's own\n";
  std::vector<Host> h;
  std::string why;
  ASSERT_TRUE(read_hosts_file(path, &h, &why)) << why;
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h[0].dir, "/data/fio");
  EXPECT_EQ(h[1].label(), "db2:8766");
  EXPECT_TRUE(h[1].dir.empty());
  std::ofstream(path) << "db1 /a extra\n";
  EXPECT_FALSE(read_hosts_file(path, &h, &why));
  EXPECT_NE(why.find(":1:"), std::string::npos) << why;
}

TEST(FleetCells, EachCellIsAFioJobOfTheSameWrites) {
  const CellInstance direct = instance_of(*find_fleet_cell("direct-4k"), 1, SubmitKind::kPwrite, 2);
  EXPECT_EQ(direct.name, "direct-4k-j1-psync");
  std::string why;
  FioJobOptions jo;
  jo.ramp_s = 0.5;
  jo.directory = "/data";
  const std::string s = fio_job_section(direct.spec, direct.name, jo, &why);
  for (const char* line : {"[direct-4k-j1-psync]", "directory=/data", "rw=write", "bs=4096", "ioengine=psync",
                           "numjobs=1", "direct=1", "sync=dsync", "overwrite=1", "time_based=1", "runtime=2000ms",
                           "ramp_time=500ms", "unlink=1"})
    EXPECT_NE(s.find(std::string(line) + "\n"), std::string::npos) << line << " in\n" << s;
  const CellInstance append = instance_of(*find_fleet_cell("append-4k"), 16, SubmitKind::kUring, 1);
  const std::string a = fio_job_section(append.spec, append.name, {}, &why);
  for (const char* line : {"fdatasync=1", "overwrite=0", "fallocate=none", "numjobs=16", "ioengine=io_uring"})
    EXPECT_NE(a.find(std::string(line) + "\n"), std::string::npos) << line << " in\n" << a;
  EXPECT_EQ(a.find("filename="), std::string::npos) << "16 jobs, a file each";
  const FleetCell* cell = nullptr;
  unsigned jobs = 0;
  SubmitKind k{};
  ASSERT_TRUE(parse_instance_name("append-4k-j16-io_uring", &cell, &jobs, &k));
  EXPECT_EQ(std::string(cell->name), "append-4k");
  EXPECT_EQ(jobs, 16u);
  EXPECT_EQ(k, SubmitKind::kUring);
  EXPECT_FALSE(parse_instance_name("append-4k-j0-psync", &cell, &jobs, &k));
  CellSpec batched = direct.spec;
  batched.batch = 4;
  EXPECT_EQ(fio_job_section(batched, "b", {}, &why), "");
  EXPECT_NE(why.find("no fio equivalent"), std::string::npos);
  CellSpec shared = direct.spec;
  shared.jobs = 4;
  shared.total = 4 << 20;
  const std::string sh = fio_job_section(shared, "s", {}, &why);
  EXPECT_NE(sh.find("filename=s.dat\n"), std::string::npos);
  EXPECT_NE(sh.find("offset_increment=1048576\n"), std::string::npos);
}

// --- the judgement, on figures fixed here ---------------------------------------

FioHist hist_at(double us, uint64_t n) {
  FioHist h;
  // Around the figure, as a real cell's spread of latencies.
  h.add_index(FioHist::index_of(static_cast<uint64_t>(us * 900)), n / 4);
  h.add_index(FioHist::index_of(static_cast<uint64_t>(us * 1000)), n / 2);
  h.add_index(FioHist::index_of(static_cast<uint64_t>(us * 1150)), n - n / 4 - n / 2);
  return h;
}

const char* kBuffered = "buffered-4k-j1-psync";
const char* kDirect = "direct-4k-j1-psync";
const char* kOverwrite = "overwrite-4k-j1-psync";

FleetData fleet_of(const std::vector<std::tuple<std::string, double, double, double>>& hosts, int reps) {
  FleetData d;
  d.cells = {kBuffered, kDirect, kOverwrite};
  d.kinds[kBuffered] = kind_of(shape_of({{"rw", "write"}, {"bs", "4096"}, {"overwrite", "1"}}));
  d.kinds[kDirect] = kind_of(shape_of({{"rw", "write"}, {"bs", "4096"}, {"direct", "1"}, {"sync", "dsync"}}));
  d.kinds[kOverwrite] = kind_of(shape_of({{"rw", "write"}, {"bs", "4096"}, {"fdatasync", "1"}, {"overwrite", "1"}}));
  for (const auto& [host, buffered_us, durable_us, rate] : hosts) {
    d.hosts.push_back(host);
    for (int r = 0; r < reps; ++r) {
      const double drift = 1 + 0.04 * ((r * 7 + static_cast<int>(host.size())) % 5 - 2);  // repetitions differ a little
      auto add = [&](const char* cell, double clat_us, double sync_us, double iops) {
        Sample s;
        s.host = host, s.cell = cell, s.rep = r, s.jobs = 1, s.iops = iops / drift;
        s.clat = hist_at(clat_us * drift, 1000);
        if (sync_us > 0) s.sync = hist_at(sync_us * drift, 1000);
        d.samples.push_back(s);
      };
      add(kBuffered, buffered_us, 0, 1e6 / buffered_us);
      add(kDirect, durable_us, 0, rate);
      add(kOverwrite, buffered_us, durable_us, rate);
    }
  }
  return d;
}

TEST(FleetJudge, NamesTheLyingAndTheSlowHostAndNobodyElse) {
  const FleetData d = fleet_of({{"h1:8765", 3, 200, 4000},
                                {"h2:8765", 3.2, 240, 3500},   // 1.2x h1: a fleet's ordinary spread
                                {"h3:8765", 3, 2000, 450},     // a slow disk
                                {"h4:8765", 2, 2, 300000},     // durable writes that cost nothing: lying
                                {"h5:8765", 3, 210, 3900}},
                               3);
  const Judgement j = judge_fleet(d);
  ASSERT_EQ(j.hosts.size(), 5u);
  std::map<std::string, const HostVerdict*> v;
  for (const HostVerdict& h : j.hosts) v[h.host] = &h;
  EXPECT_TRUE(v["h4:8765"]->lying()) << durability_name(v["h4:8765"]->lies);
  EXPECT_EQ(v["h4:8765"]->speed, "") << "a lying host is not compared with disks";
  EXPECT_EQ(v["h3:8765"]->speed, "slow") << v["h3:8765"]->speed_note;
  EXPECT_FALSE(v["h3:8765"]->lying());
  for (const char* healthy : {"h1:8765", "h2:8765", "h5:8765"}) {
    EXPECT_FALSE(v[healthy]->named()) << healthy << ": " << v[healthy]->speed_note;
    EXPECT_EQ(v[healthy]->lies, Durability::kPlausible) << healthy;
  }
  EXPECT_GT(v["h3:8765"]->p50.ci95.lo, v["h3:8765"]->p50_line);
  EXPECT_GE(v["h3:8765"]->p50_line, kMinLine);
}

// One very slow host must not hide a second, merely slow, one: the line is
// the spread of every host, which one odd host does not move.
TEST(FleetJudge, AVerySlowHostHidesNoOtherSlowOne) {
  const FleetData d = fleet_of({{"h1:8765", 3, 200, 4000},
                                {"h2:8765", 3, 20000, 45},  // 100x the others
                                {"h3:8765", 3, 1000, 800},  // 5x: slow, if not as slow
                                {"h4:8765", 3.2, 240, 3500},
                                {"h5:8765", 3, 210, 3900}},
                               3);
  const Judgement j = judge_fleet(d);
  std::map<std::string, const HostVerdict*> v;
  for (const HostVerdict& h : j.hosts) v[h.host] = &h;
  EXPECT_EQ(v["h2:8765"]->speed, "slow") << v["h2:8765"]->speed_note;
  EXPECT_EQ(v["h3:8765"]->speed, "slow") << v["h3:8765"]->speed_note;
  for (const char* healthy : {"h1:8765", "h4:8765", "h5:8765"})
    EXPECT_FALSE(v[healthy]->named()) << healthy << ": " << v[healthy]->speed_note;
  // fleet-bench's shape: three disks compared, one of them throttled. The
  // healthy two are judged against a line near kMinLine, not one the slow
  // host widened to thousands.
  const Judgement k = judge_fleet(fleet_of({{"h1:8765", 3, 200, 4000},
                                            {"h2:8765", 3, 20000, 45},
                                            {"h3:8765", 3, 230, 3600}},
                                           3));
  for (const HostVerdict& h : k.hosts) {
    EXPECT_LT(h.p50_line, 2.0) << h.host << ": " << h.speed_note;
    EXPECT_EQ(h.speed, h.host == "h2:8765" ? "slow" : "") << h.host << ": " << h.speed_note;
  }
}

TEST(FleetJudge, MergesEveryHostsBinsExactly) {
  const FleetData d = fleet_of({{"h1:8765", 3, 200, 4000}, {"h2:8765", 3, 300, 3000}}, 2);
  const Judgement j = judge_fleet(d);
  for (const CellSummary& c : j.cells) {
    FioHist sum;
    for (const Sample& s : d.samples)
      if (s.cell == c.cell) sum.merge(c.cell == std::string(kOverwrite) ? s.sync : s.clat);
    EXPECT_EQ(c.merged, sum) << c.cell;
    EXPECT_EQ(c.hosts, 2u);
    EXPECT_EQ(c.fleet_rate.size(), 2u) << "a fleet rate a repetition";
  }
  for (const HostVerdict& h : j.hosts) {
    EXPECT_EQ(h.speed, "");
    EXPECT_NE(h.speed_note.find("not judged"), std::string::npos) << "two hosts: either could be the odd one";
  }
}

TEST(FleetJudge, AFleetOfOneHostIsThatHost) {
  const FleetData d = fleet_of({{"h1:8765", 3, 200, 4000}}, 3);
  const Judgement j = judge_fleet(d);
  for (const CellSummary& c : j.cells) {
    EXPECT_EQ(c.merged, c.by_host.at("h1:8765")) << c.cell;
    EXPECT_DOUBLE_EQ(c.fleet.value, c.host_rate.at("h1:8765").value) << c.cell;
    EXPECT_DOUBLE_EQ(c.fleet.ci95.lo, c.host_rate.at("h1:8765").ci95.lo) << c.cell;
  }
}

TEST(FleetIngest, NamesWhyAnExpectedHostIsMissing) {
  FleetData d;
  FioOutput out;
  FioJob ok;
  ok.hostname = "10.0.0.2", ok.port = 8765, ok.jobname = "c", ok.iops = 10, ok.runtime_ms = 1000;
  ok.clat = hist_at(100, 10);
  FioJob refused = ok;
  refused.jobname = "u", refused.error = 38;
  out.jobs = {ok, refused};
  out.disconnected = {"10.0.0.3"};
  out.unreachable = {"10.0.0.4:8765"};
  ingest_output(d, out, RunMode::kTogether, 1, "", {"10.0.0.2:8765", "10.0.0.3:8765", "10.0.0.4:8765"}, {"c", "u"},
                "no result");
  ASSERT_EQ(d.samples.size(), 1u);
  EXPECT_EQ(d.samples[0].host, "10.0.0.2:8765");
  std::map<std::string, const Failure*> f;
  for (const Failure& x : d.failures) f[x.host + "/" + x.cell] = &x;
  ASSERT_EQ(d.failures.size(), 3u);
  EXPECT_FALSE(f["10.0.0.2:8765/u"]->fatal) << "fio refused one job there: that cell is skipped";
  EXPECT_NE(f["10.0.0.3:8765/"]->reason.find("disconnected mid-run"), std::string::npos);
  EXPECT_NE(f["10.0.0.4:8765/"]->reason.find("does not answer"), std::string::npos);
  EXPECT_TRUE(f["10.0.0.4:8765/"]->fatal);
}

TEST(FleetIngest, RatesEachHostInTheWindowAllShared) {
  base::ScratchDir dir("fleet-logs");
  FleetData d;
  d.cells = {"c"};
  d.hosts = {"a:1", "b:1"};
  for (const char* h : {"a:1", "b:1"}) {
    Sample s;
    s.host = h, s.cell = "c", s.mode = RunMode::kTogether, s.iops = 1;
    d.samples.push_back(s);
  }
  auto log = [&](const std::string& name, double from, double value) {
    std::ofstream out(dir.path(name));
    for (int k = 1; k <= 10; ++k) out << static_cast<long>(from + 100 * k) << ", " << value << ", 1, 4096, 0\n";
  };
  log("h1.c_iops.1.log.a", 1000, 100);  // measures 1000..2000
  log("h2.c_iops.1.log.b", 1200, 200);  // 1200..2200
  log("h2.c_iops.2.log.b", 1200, 50);   // b's second job
  read_iops_logs(d, RunMode::kTogether, 0, dir.path(), {{"a:1", "h1"}, {"b:1", "h2"}}, 100);
  ASSERT_EQ(d.windows.size(), 1u);
  EXPECT_TRUE(d.windows[0].used);
  EXPECT_DOUBLE_EQ(d.windows[0].start_ms, 1200);
  EXPECT_DOUBLE_EQ(d.windows[0].end_ms, 2000);
  EXPECT_DOUBLE_EQ(d.samples[0].window_iops, 100);
  EXPECT_DOUBLE_EQ(d.samples[1].window_iops, 250) << "the sum of its jobs";
  EXPECT_DOUBLE_EQ(d.samples[0].start_ms, 1000);
  const Judgement j = judge_fleet(d);
  ASSERT_EQ(j.cells.size(), 1u);
  EXPECT_TRUE(j.cells[0].windowed);
  EXPECT_DOUBLE_EQ(j.cells[0].fleet_rate[0], 350);
}

}  // namespace fleet_test
}  // namespace fenec::iobench::fleet
