// load-bench's parts, checked by counts: the files hold the rows they were
// written with and both formats read back as the same rows; every fenec and
// PostgreSQL loader lands exactly the file's rows, from each format; and the
// bench's own PostgreSQL is gone after a run that passed, one that failed and
// one interrupted by SIGINT. PostgreSQL's parts are skipped, with the reason,
// where PostgreSQL 15 is not installed; fenec-server's where the binary is
// not given (meson test gives it).
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "engine/src/base/testing.h"
#include "scenarios/load/loaders.h"
#include "scenarios/load/rows.h"
#include "scenarios/pg/cluster_test_fixture.h"
#include "scenarios/pg/pg_cluster.h"

extern char** environ;

namespace fenec::scenarios::load {
namespace {

using ScratchDir = base::ScratchTest;

uint64_t test_seed() { return base::BinarySeed("load_test"); }

std::string Env(const char* name) { return std::getenv(name) != nullptr ? std::getenv(name) : ""; }

// Writes `rows` rows in `format`; the path.
std::string WriteFile(const std::string& dir, Format format, size_t rows, uint32_t dim = 16) {
  DataSpec spec;
  spec.rows = rows;
  spec.dim = dim;
  spec.clusters = 4;
  spec.seed = test_seed();
  const std::string path = dir + "/rows." + format_name(format);
  EXPECT_EQ(write_rows(spec, format, path), "");
  return path;
}

TEST_F(ScratchDir, FilesHoldTheirRowsAndBothFormatsReadAsTheSameRows) {
  const std::string jsonl = WriteFile(dir(), Format::kJsonl, 257), csv = WriteFile(dir(), Format::kCsv, 257);
  EXPECT_EQ(count_rows(jsonl, Format::kJsonl), 257);
  EXPECT_EQ(count_rows(csv, Format::kCsv), 257);  // the header is not a row

  LineReader a(jsonl, Format::kJsonl), b(csv, Format::kCsv);
  a.set_limit(250);
  b.set_limit(250);
  const Schema schema{{Field::Text("body"), Field::Int("n"), Field::Vector("vec", 16)}};
  RowReader ra, rb;
  std::vector<std::string_view> la, lb;
  std::vector<size_t> chunks;
  while (a.Next(100, &la)) {
    ASSERT_TRUE(b.Next(100, &lb));
    ASSERT_EQ(la.size(), lb.size());
    chunks.push_back(la.size());
    for (size_t i = 0; i < la.size(); ++i) {
      Document da, db;
      ASSERT_EQ(ra.ToDocument(Format::kJsonl, la[i], a.capacity_from(la[i].data()), schema, &da), "") << la[i];
      ASSERT_EQ(rb.ToDocument(Format::kCsv, lb[i], b.capacity_from(lb[i].data()), schema, &db), "") << lb[i];
      EXPECT_EQ(da, db) << la[i] << "\n" << lb[i];
      EXPECT_NE(da[0].text().find('"'), std::string::npos);  // the quoted word survived both escapings
    }
  }
  EXPECT_FALSE(b.Next(100, &lb));
  EXPECT_EQ(chunks, (std::vector<size_t>{100, 100, 50}));  // the limit, then nothing more
}

LoadSpec Spec(const std::string& arm, Format format, const std::string& file, size_t rows, Index index = Index::kNone) {
  LoadSpec s;
  s.arm = arm;
  s.format = format;
  s.file = file;
  s.rows = rows;
  s.index = index;
  s.dim = 16;
  s.per_request = 1000;
  return s;
}

// Every loader's read loop: chunks of per_request up to `rows`, rows and
// requests counted, the first error or a stop ending it.
TEST_F(ScratchDir, ChunksComeInPerRequestUpToTheRowsAndStopAtAnError) {
  LoadSpec s;
  s.file = WriteFile(dir(), Format::kCsv, 23);
  s.format = Format::kCsv;
  s.rows = 20;
  s.per_request = 6;
  std::vector<size_t> sizes;
  LoadFigures f;
  auto keep = [&](const Lines& lines, const LineReader&, Clock::time_point) {
    sizes.push_back(lines.size());
    return std::string();
  };
  EXPECT_EQ(ForEachChunk(s, &f, keep), "");
  EXPECT_EQ(sizes, (std::vector<size_t>{6, 6, 6, 2}));
  EXPECT_EQ(f.rows_sent, 20u);
  EXPECT_EQ(f.requests, 4u);

  LoadFigures g;
  size_t calls = 0;
  EXPECT_EQ(ForEachChunk(s, &g, [&](const Lines&, const LineReader&, Clock::time_point) {
              return ++calls == 2 ? std::string("refused") : std::string();
            }),
            "refused");
  EXPECT_EQ(calls, 2u);
  EXPECT_EQ(g.rows_sent, 6u);  // the refused chunk is not counted
  EXPECT_EQ(g.requests, 1u);

  LoadFigures h;
  s.stop = [] { return true; };
  EXPECT_EQ(ForEachChunk(s, &h, keep), "interrupted");
  EXPECT_EQ(h.rows_sent, 0u);
}

TEST_F(ScratchDir, EveryFenecArmLoadsEveryRowOfEachFormat) {
  const std::string server = Env("FENEC_SERVER_BIN");
  if (server.empty()) GTEST_SKIP() << "FENEC_SERVER_BIN not set (meson test sets it)";
  // 2 500 rows: two whole requests and a short one.
  for (Format format : {Format::kJsonl, Format::kCsv}) {
    const std::string file = WriteFile(dir(), format, 2500);
    const int64_t in_file = count_rows(file, format);
    for (const char* arm : {kDocs, kQuery, kBatch, kEmbedded}) {
      const LoadFigures f = Load(Spec(arm, format, file, 2500), server, path(std::string("cell-") + arm), "");
      ASSERT_EQ(f.error, "") << arm << " " << format_name(format);
      EXPECT_EQ(f.rows_sent, static_cast<uint64_t>(in_file)) << arm << " " << format_name(format);
      EXPECT_EQ(f.rows_counted, static_cast<uint64_t>(in_file)) << arm << " " << format_name(format);
      EXPECT_EQ(f.requests, 3u);
    }
  }
}

TEST_F(ScratchDir, AGraphLoadEndsWithEveryVectorLinked) {
  const std::string server = Env("FENEC_SERVER_BIN");
  if (server.empty()) GTEST_SKIP() << "FENEC_SERVER_BIN not set (meson test sets it)";
  const std::string file = WriteFile(dir(), Format::kJsonl, 1200);
  for (const char* arm : {kDocs, kEmbedded}) {
    for (Index index : {Index::kHnswRow, Index::kHnswBatch}) {
      const LoadFigures f = Load(Spec(arm, Format::kJsonl, file, 1200, index), server, path("graph"), "");
      ASSERT_EQ(f.error, "") << arm << " " << index_name(index);
      EXPECT_EQ(f.rows_counted, 1200u);
      EXPECT_GE(f.link_tail_s, 0);   // waited for the linker (pending reached 0)
      EXPECT_GE(f.queue_waits, 0);   // read from the engine's counters
    }
  }
}

// A scratch cluster per test (scenarios/pg/cluster_test_fixture.h).
using PostgresLoad = pg::ClusterTest;

TEST_F(PostgresLoad, CopyAndInsertLoadEveryRowOfEachFormatAndRefuseABadRow) {
  for (Format format : {Format::kJsonl, Format::kCsv}) {
    const std::string file = WriteFile(dir(), format, 2500);
    const int64_t in_file = count_rows(file, format);
    for (const char* arm : {kPgCopy, kPgInsert}) {
      const LoadFigures f = Load(Spec(arm, format, file, 2500), "", "", cluster_.conninfo());
      ASSERT_EQ(f.error, "") << arm << " " << format_name(format);
      EXPECT_EQ(f.rows_sent, static_cast<uint64_t>(in_file)) << arm;
      EXPECT_EQ(f.rows_counted, static_cast<uint64_t>(in_file)) << arm;
    }
  }
  // A vector element that is not a number fails the load, and says so.
  const std::string bad = path("bad.jsonl");
  std::ofstream(bad) << R"({"body":"a","n":1,"vec":[1,2]})" << "\n" << R"({"body":"b","n":2,"vec":[1,"x"]})" << "\n";
  for (const char* arm : {kPgCopy, kPgInsert}) {
    const LoadFigures f = Load(Spec(arm, Format::kJsonl, bad, 2), "", "", cluster_.conninfo());
    EXPECT_NE(f.error, "") << arm;
  }
}

// --- The bench's own cluster is gone after its run, however the run ends.

// Processes whose command line names `needle` (the postmaster runs as `postgres -D <dir>`).
std::vector<std::string> ProcessesNaming(const std::string& needle) {
  std::vector<std::string> found;
  DIR* d = opendir("/proc");
  if (d == nullptr) return found;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream in(std::string("/proc/") + e->d_name + "/cmdline");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string cmd = ss.str();
    for (char& ch : cmd) ch = ch == '\0' ? ' ' : ch;
    if (cmd.find(needle) != std::string::npos) found.push_back(std::string(e->d_name) + ": " + cmd);
  }
  closedir(d);
  return found;
}

// Whether `pid` has exited (or is a zombie waiting for init to reap it)
// within 10 s: `pg_ctl stop -w` returns once the pid file is gone, a moment
// before the postmaster's exit. Its backends exit before it does.
bool Gone(pid_t pid) {
  for (int i = 0; i < 1000; ++i) {
    if (kill(pid, 0) != 0 && errno == ESRCH) return true;
    std::ifstream stat(fmt::format("/proc/{}/stat", pid));
    std::string line;
    std::getline(stat, line);
    const size_t paren = line.rfind(')');
    if (paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z') return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

class BenchRun : public base::ScratchTest {
 protected:
  void SetUp() override {
    base::ScratchTest::SetUp();
    bench_ = Env("LOAD_BENCH_BIN");
    if (bench_.empty() || Env("FENEC_SERVER_BIN").empty()) GTEST_SKIP() << "LOAD_BENCH_BIN, FENEC_SERVER_BIN not set";
    if (!Installed()) GTEST_SKIP() << "PostgreSQL 15 is not installed here (scripts/setup.sh installs postgresql-15)";
    root_ = path("bench");
  }
  static bool Installed() { return access("/usr/lib/postgresql/15/bin/postgres", X_OK) == 0; }

  // Starts the bench with `flags` (its output in <scratch>/bench.log); its pid.
  pid_t Spawn(std::vector<std::string> flags) {
    std::vector<std::string> all = {bench_, "--quick", "--seed", std::to_string(test_seed()),
                                    "--dir", root_, "--results", path("results"), "--plots", path("plots")};
    all.insert(all.end(), flags.begin(), flags.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    const std::string log = path("bench.log");
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
    pid_t pid = -1;
    EXPECT_EQ(posix_spawn(&pid, bench_.c_str(), &fa, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    return pid;
  }
  int Wait(pid_t pid) {
    int status = 0;
    EXPECT_EQ(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string Log() {
    std::ifstream in(path("bench.log"));
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  // The bench's cluster folder, from its "postgres: cluster in DIR" line
  // (waiting up to 60 s for it); "" if it never came.
  std::string PgDir() {
    const std::string key = "postgres: cluster in ";
    for (int i = 0; i < 6000; ++i) {
      const std::string log = Log();
      if (const size_t at = log.find(key); at != std::string::npos) {
        const size_t from = at + key.size();
        return log.substr(from, log.find('\n', from) - from);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return "";
  }

  std::string bench_, root_;
};

TEST_F(BenchRun, PostgresIsGoneAfterARunThatPassed) {
  const pid_t pid = Spawn({"--reps", "1", "--rows", "1500", "--indexes", "none", "--arms",
                           "fenec-docs,postgres-copy,postgres-insert", "--csv-arms", "postgres-copy"});
  EXPECT_EQ(Wait(pid), 0) << Log();
  EXPECT_NE(Log().find("postgres-copy"), std::string::npos) << Log();
  const std::string pg = PgDir();
  ASSERT_NE(pg, "") << Log();
  EXPECT_EQ(ProcessesNaming(pg), std::vector<std::string>{}) << Log();
  EXPECT_EQ(ProcessesNaming(root_), std::vector<std::string>{}) << Log();
}

TEST_F(BenchRun, PostgresIsGoneAfterARunThatFailed) {
  // A fenec-server that exits at once: its cells fail, the run fails, PostgreSQL's cells ran.
  const pid_t pid = Spawn({"--reps", "1", "--rows", "1500", "--indexes", "none", "--arms", "fenec-docs,postgres-copy",
                           "--csv-arms", "postgres-copy", "--server", "/bin/false"});
  EXPECT_EQ(Wait(pid), 1) << Log();
  EXPECT_NE(Log().find("FAILED"), std::string::npos) << Log();
  const std::string pg = PgDir();
  ASSERT_NE(pg, "") << Log();
  EXPECT_EQ(ProcessesNaming(pg), std::vector<std::string>{}) << Log();
  EXPECT_EQ(ProcessesNaming(root_), std::vector<std::string>{}) << Log();
}

TEST_F(BenchRun, PostgresIsGoneAfterARunInterruptedBySigint) {
  const pid_t pid = Spawn({"--rows", "20000", "--indexes", "none", "--arms", "postgres-insert", "--csv-arms",
                           "postgres-copy", "--reps", "100"});
  // Waits for the bench's postmaster (its pid file), then interrupts the bench alone.
  // initdb's standalone backends write their pid negated there first: those are not it.
  const std::string pg = PgDir();
  ASSERT_NE(pg, "") << Log();
  const std::string pidfile = pg + "/postmaster.pid";
  pid_t postmaster = 0;
  for (int i = 0; i < 6000 && postmaster <= 0; ++i) {
    std::ifstream in(pidfile);
    if (!(in >> postmaster)) postmaster = 0;
    if (postmaster <= 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_GT(postmaster, 0) << "no " << pidfile << "\n" << Log();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // into the loads
  kill(pid, SIGINT);
  EXPECT_EQ(Wait(pid), 130) << Log();
  EXPECT_TRUE(Gone(postmaster)) << "postmaster " << postmaster << " still running\n" << Log();
  EXPECT_EQ(ProcessesNaming(pg), std::vector<std::string>{}) << Log();
  EXPECT_EQ(ProcessesNaming(root_), std::vector<std::string>{}) << Log();
}

}  // namespace
}  // namespace fenec::scenarios::load
