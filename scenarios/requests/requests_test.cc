// requests-bench's facts, as counts: both systems hold the rows loaded;
// fenec-server and PostgreSQL answer gets by id and filters alike; the
// PostgreSQL the bench starts is gone after a run that passed, one that
// failed and one interrupted. Where PostgreSQL 15 is not installed, the
// tests that need it are skipped with that reason.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "engine/src/base/testing.h"
#include "scenarios/pg/pg_cluster.h"
#include "scenarios/procs/pin.h"
#include "scenarios/procs/server_process.h"
#include "scenarios/requests/check.h"
#include "scenarios/requests/dataset.h"
#include "scenarios/requests/floor.h"
#include "scenarios/requests/http_client.h"
#include "scenarios/requests/report.h"
#include "scenarios/requests/targets.h"
#include "scenarios/requests/wrk.h"

extern char** environ;

namespace fenec::scenarios::requests {
namespace {

const bool kSigpipeIgnored = [] {
  signal(SIGPIPE, SIG_IGN);
  return true;
}();

// Why PostgreSQL's tests cannot run here, or "".
std::string PgMissing() {
  const char* bin = std::getenv("FENEC_PG_BIN");
  const std::string pg_ctl = std::string(bin != nullptr ? bin : "/usr/lib/postgresql/15/bin") + "/pg_ctl";
  return access(pg_ctl.c_str(), X_OK) == 0 ? "" : "PostgreSQL 15 is not installed here (" + pg_ctl + " missing)";
}

std::string ServerBin() {
  const char* b = std::getenv("FENEC_SERVER_BIN");
  return b != nullptr ? b : "";
}

// A process is gone once no /proc entry, or only a zombie's, is left of it
// (the postmaster is not our child: whoever reaps it may not have yet).
bool Alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t close = line.rfind(')');
  return close == std::string::npos || line.size() < close + 3 || line[close + 2] != 'Z';
}

// Processes whose command line holds `text` (a data folder of this test's).
int ProcessesNaming(const std::string& text) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::ifstream in(e.path() / "cmdline");
    std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    n += cmd.find(text) != std::string::npos && e.path().filename() != std::to_string(getpid()) ? 1 : 0;
  }
  return n;
}

class BothSystems : public base::ScratchTest {
 protected:
  void SetUp() override {
    base::ScratchTest::SetUp();
    if (std::string why = PgMissing(); !why.empty()) GTEST_SKIP() << why;
    ASSERT_FALSE(ServerBin().empty()) << "FENEC_SERVER_BIN is not set";
    d_ = MakeDataset(300, base::TestSeed(), 8, 8);
    const std::string err = pg_.Start(path("pg"));
    if (err.find("not installed") != std::string::npos) GTEST_SKIP() << err;
    ASSERT_EQ(err, "");
    ASSERT_EQ(server_.Start(ServerBin(), {"--data", path("fenec")}, path("server.log")), "");
    ASSERT_EQ(LoadPg(pg_.conninfo(), d_), "");
    ASSERT_EQ(LoadFenec(server_.port(), d_), "");
  }
  void TearDown() override {
    server_.Stop();
    pg_.Stop();
    base::ScratchTest::TearDown();
  }

  Dataset d_;
  pg::PgCluster pg_;
  procs::ServerProcess server_;
};

TEST_F(BothSystems, RowsLoadedAreRowsAskedOnBothSides) {
  uint64_t fenec = 0, pg = 0;
  ASSERT_EQ(CountFenec(server_.port(), kItems, &fenec), "");
  ASSERT_EQ(CountPg(pg_.conninfo(), kItems, &pg), "");
  EXPECT_EQ(fenec, 300u);
  EXPECT_EQ(pg, 300u);
  EXPECT_EQ(CheckLoaded(server_.port(), pg_.conninfo(), d_, 0), "");
}

TEST_F(BothSystems, GetByIdAndFilterAnswerAlike) {
  std::unique_ptr<Conn> fenec, pg;
  ASSERT_EQ(ConnectFenec(server_.port(), d_, &fenec), "");
  ASSERT_EQ(ConnectPg(pg_.conninfo(), d_, false, &pg), "");
  int rows_compared = 0;
  for (Kind k : {Kind::kGetById, Kind::kFilter}) {
    for (uint64_t draw = 0; draw < 40; ++draw) {
      std::vector<AnswerRow> a, b;
      ASSERT_EQ(fenec->Do(k, draw, &a), "");
      ASSERT_EQ(pg->Do(k, draw, &b), "");
      ASSERT_EQ(a.size(), k == Kind::kGetById ? 1u : static_cast<size_t>(kLimit));
      ASSERT_EQ(a, b) << KindName(k) << " draw " << draw;
      for (const AnswerRow& r : a) {
        // Both hold what was loaded, not merely the same thing.
        const Row& want = d_.rows[static_cast<size_t>(r.id - 1)];
        EXPECT_EQ(r.name, want.name);
        EXPECT_EQ(r.n, want.n);
        EXPECT_EQ(r.vec, want.vec);
        if (k == Kind::kFilter) {
          EXPECT_GE(r.n, DrawBound(d_, draw));
        }
      }
      rows_compared += static_cast<int>(a.size());
    }
  }
  EXPECT_EQ(rows_compared, 40 + 40 * kLimit);
  // A filter answers the first matches in id order on both sides.
  std::vector<AnswerRow> a;
  ASSERT_EQ(fenec->Do(Kind::kFilter, 7, &a), "");
  for (size_t i = 1; i < a.size(); ++i) EXPECT_LT(a[i - 1].id, a[i].id);
}

TEST_F(BothSystems, EveryRequestKindIsAnsweredByBoth) {
  std::unique_ptr<Conn> fenec, pg;
  ASSERT_EQ(ConnectFenec(server_.port(), d_, &fenec), "");
  ASSERT_EQ(ConnectPg(pg_.conninfo(), d_, true, &pg), "");
  for (Kind k : kKinds) {
    EXPECT_EQ(fenec->Do(k, 3), "") << KindName(k);
    EXPECT_EQ(pg->Do(k, 3), "") << KindName(k);
  }
  // One put each, into the puts collection; the rows the reads ask are untouched.
  for (const auto& [name, want] : {std::pair{kItems, 300u}, std::pair{kPuts, 1u}}) {
    uint64_t fenec_rows = 0, pg_rows = 0;
    ASSERT_EQ(CountFenec(server_.port(), name, &fenec_rows), "");
    ASSERT_EQ(CountPg(pg_.conninfo(), name, &pg_rows), "");
    EXPECT_EQ(fenec_rows, want) << name;
    EXPECT_EQ(pg_rows, want) << name;
  }
}

// requests-bench as a child process, its stdout read line by line.
class BenchRun : public base::ScratchTest {
 protected:
  void SetUp() override {
    base::ScratchTest::SetUp();
    if (std::string why = PgMissing(); !why.empty()) GTEST_SKIP() << why;
    bench_ = std::getenv("REQUESTS_BENCH_BIN") != nullptr ? std::getenv("REQUESTS_BENCH_BIN") : "";
    ASSERT_FALSE(bench_.empty()) << "REQUESTS_BENCH_BIN is not set";
  }

  void Spawn(const std::string& seconds = "0.02", const std::string& server = "") {
    std::vector<std::string> args = {bench_, "--quick", "--rows", "200", "--clients", "2", "--put-clients", "3", "--mixed-clients", "4", "--seconds", seconds,
                                     "--reps", "2", "--wrk-seconds", "0", "--dir", dir(), "--results", path("results"),
                                     "--plots", path("plots"), "--seed", std::to_string(base::TestSeed())};
    if (!server.empty()) args.insert(args.end(), {"--server", server});
    int out[2];
    ASSERT_EQ(pipe(out), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ASSERT_EQ(posix_spawn(&pid_, bench_.c_str(), &fa, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    close(out[1]);
    out_ = fdopen(out[0], "r");
  }
  // Reads lines until one matches `re` (its first group into *group); false at EOF.
  bool ReadUntil(const std::regex& re, std::string* group) {
    char buf[4096];
    while (fgets(buf, sizeof(buf), out_) != nullptr) {
      std::cmatch m;
      if (std::regex_search(buf, m, re)) {
        if (group != nullptr) *group = m[1];
        return true;
      }
    }
    return false;
  }
  int Wait() {
    while (fgets(buf_, sizeof(buf_), out_) != nullptr) {
    }
    fclose(out_);
    int status = 0;
    waitpid(pid_, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  // The postmaster's pid from the bench's "postgres: up, pid N" line; 0 if it said it was skipped.
  pid_t PostmasterPid() {
    std::string pid;
    if (!ReadUntil(std::regex("postgres: up, pid ([0-9]+)"), &pid)) return 0;
    return static_cast<pid_t>(std::stol(pid));
  }

  std::string bench_;
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
  char buf_[4096];
};

TEST_F(BenchRun, PostgresIsGoneAfterARunThatPassed) {
  Spawn();
  const pid_t pg = PostmasterPid();
  ASSERT_GT(pg, 0) << "the bench did not start PostgreSQL";
  EXPECT_EQ(Wait(), 0);
  EXPECT_FALSE(Alive(pg));
  // What it wrote names every arm.
  std::ifstream csv(path("results") + "/requests/latest.csv");
  std::string text((std::istreambuf_iterator<char>(csv)), std::istreambuf_iterator<char>());
  for (const char* arm : {",fenec-server,", ",postgres,", ",postgres-exact,", ",fenecdb-embedded,", ",loopback-floor,",
                          ",fenec-server-write-through,"})
    EXPECT_NE(text.find(arm), std::string::npos) << arm;
  // The write-through server ran the default pair's put cells, each repetition, paired with the buffered server's.
  EXPECT_NE(text.find("fenec-server-write-through,request=put;clients=2,requests_per_s_reps,2,"), std::string::npos);
  EXPECT_NE(text.find("fenec-server-write-through,request=put;clients=1,requests_per_s_reps,2,"), std::string::npos);
  EXPECT_NE(text.find("fenec-server-write-through/fenec-server,request=put;clients=2,requests_per_s_ratio,"),
            std::string::npos);
  EXPECT_EQ(text.find("fenec-server-write-through,request=get-by-id"), std::string::npos) << "puts alone";
  EXPECT_EQ(ProcessesNaming(dir() + "/requests-"), 0) << "a server of the run is still running";
  EXPECT_NE(text.find("request=get-by-id;clients=1,roundtrip_p50_us"), std::string::npos);
  // The embedded engine's writers beside the durable puts, and the mixed load, both systems.
  EXPECT_NE(text.find("fenecdb-embedded,request=put;clients=3;commit=durable,commits_per_sync"), std::string::npos);
  EXPECT_NE(text.find("fenec-server,request=mixed;clients=4;commit=durable,roundtrip_p99_us"), std::string::npos);
  EXPECT_NE(text.find("postgres,request=mixed;clients=4;commit=durable,roundtrip_p99_us"), std::string::npos);
  // The one-client cells ran pinned (pin.h's default), and the run says where.
  EXPECT_NE(text.find("# one_client_pin=same: client on CPU"), std::string::npos) << text.substr(0, 600);
}

TEST_F(BenchRun, PostgresIsGoneAfterARunThatFailed) {
  // A "server" that exits at once: the run fails after PostgreSQL is up.
  Spawn("0.02", "/bin/false");
  const pid_t pg = PostmasterPid();
  ASSERT_GT(pg, 0);
  EXPECT_NE(Wait(), 0);
  EXPECT_FALSE(Alive(pg));
}

TEST_F(BenchRun, PostgresIsGoneAfterARunInterrupted) {
  Spawn("30");  // cells long enough to be inside one when interrupted
  const pid_t pg = PostmasterPid();
  ASSERT_GT(pg, 0);
  ASSERT_TRUE(ReadUntil(std::regex("both hold 200 rows"), nullptr));
  usleep(300 * 1000);  // inside the first cell
  kill(pid_, SIGINT);
  EXPECT_EQ(Wait(), 130);
  EXPECT_FALSE(Alive(pg));
}

// Pinning moves a thread onto one CPU and back onto all it had; apart puts
// the client and the server on two CPUs where there are two.
TEST(Pin, OntoOneCpuAndBack) {
  using namespace procs;
  cpu_set_t before;
  ASSERT_EQ(sched_getaffinity(0, sizeof(before), &before), 0);
  Placement same, apart;
  ASSERT_EQ(PlacementOf(Pin::kSame, &same), "");
  EXPECT_EQ(same.client, same.server);
  if (CPU_COUNT(&before) >= 2) {
    ASSERT_EQ(PlacementOf(Pin::kApart, &apart), "");
    EXPECT_NE(apart.client, apart.server);
  } else {
    EXPECT_NE(PlacementOf(Pin::kApart, &apart), "");
  }
  std::thread([&] {
    ASSERT_EQ(PinSelf(same.client), "");
    cpu_set_t now;
    ASSERT_EQ(sched_getaffinity(0, sizeof(now), &now), 0);
    EXPECT_EQ(CPU_COUNT(&now), 1);
    EXPECT_TRUE(CPU_ISSET(same.client, &now));
    ASSERT_EQ(PinSelf(-1), "");
    ASSERT_EQ(sched_getaffinity(0, sizeof(now), &now), 0);
    EXPECT_TRUE(CPU_EQUAL(&now, &before));
  }).join();
  EXPECT_NE(PinProcess(999999999, 0), "") << "no such process";
  // Place: a server that cannot be pinned is an error, and the client is
  // still put back where it was.
  std::thread([&] {
    EXPECT_NE(Place(Pin::kSame, same, {999999999}, true), "");
    EXPECT_NE(Place(Pin::kSame, same, {999999999}, false), "");
    cpu_set_t now;
    ASSERT_EQ(sched_getaffinity(0, sizeof(now), &now), 0);
    EXPECT_TRUE(CPU_EQUAL(&now, &before));
    EXPECT_EQ(Place(Pin::kNone, same, {999999999}, true), "") << "none pins nothing";
  }).join();
}

// The floor answers every request, one whose header's end spans two sends
// too, as fenec-server answers /health; stopped, its process is gone.
TEST(LoopbackFloor, AnswersEachRequestAndStops) {
  LoopbackFloor floor;
  ASSERT_EQ(floor.Start(), "");
  const pid_t pid = floor.pid();
  auto c = std::make_unique<HttpClient>();
  ASSERT_EQ(c->Connect(floor.port()), "");
  for (int i = 0; i < 3; ++i) {
    int status = 0;
    std::string answer;
    ASSERT_EQ(c->Send("GET", "/health", "", &status, &answer), "");
    EXPECT_EQ(status, 200);
    EXPECT_EQ(answer, R"({"status":"ok"})");
  }
  c.reset();  // connections are served one after another: the next is served once this one closes
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(floor.port()));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  const std::string head = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r";
  ASSERT_EQ(send(fd, head.data(), head.size(), 0), static_cast<ssize_t>(head.size()));
  usleep(20 * 1000);  // the two parts arrive apart (the answer does not depend on it)
  ASSERT_EQ(send(fd, "\n", 1, 0), 1);
  std::string got;
  char buf[512];
  while (got.find("{\"status\":\"ok\"}") == std::string::npos) {
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    ASSERT_GT(n, 0) << "no answer to a header whose end came in two parts: " << got;
    got.append(buf, static_cast<size_t>(n));
  }
  EXPECT_EQ(got.rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  close(fd);
  floor.Stop();
  EXPECT_FALSE(Alive(pid));
}

TEST(Wrk, ReportIsRead) {
  const std::string text =
      "Running 1s test @ http://127.0.0.1:1/query\n  1 threads and 1 connections\n"
      "  Latency Distribution\n     50%   40.12us\n     75%   45.00us\n     90%   50.00us\n     99%    1.20ms\n"
      "  25000 requests in 1.00s, 3.00MB read\nRequests/sec:  24990.50\nTransfer/sec:      3.00MB\n";
  WrkResult r = ParseWrk(text);
  EXPECT_EQ(r.error, "");
  EXPECT_DOUBLE_EQ(r.p50_us, 40.12);
  EXPECT_DOUBLE_EQ(r.p99_us, 1200);
  EXPECT_DOUBLE_EQ(r.per_s, 24990.5);
  EXPECT_NE(ParseWrk(text + "  Non-2xx or 3xx responses: 7\n").error, "");
}

TEST(Dataset, SameSeedSameRowsAndEveryFilterHasTenMatches) {
  const Dataset a = MakeDataset(150, 42), b = MakeDataset(150, 42);
  ASSERT_EQ(a.rows.size(), 150u);
  for (size_t i = 0; i < a.rows.size(); ++i) EXPECT_EQ(a.rows[i].vec, b.rows[i].vec);
  int at_bound_max = 0;
  for (const Row& r : a.rows) at_bound_max += r.n >= a.bound_max ? 1 : 0;
  EXPECT_GE(at_bound_max, 10);
}

// The checks a sequential run asks each pair for: the buffered pair's cells
// feed the finding, the PostgreSQL targets, the CPU and the write-through
// server's puts; the durable pair's
// feed the durable puts and the sync rounds; the wrk check only if judged.
TEST(RequestChecks, EachPairItsOwnChecksTheSameInEveryWindow) {
  Cells cells;
  for (int rep = 0; rep < 4; ++rep) {
    Figures f;
    f.p50_us = 50 + rep, f.per_s = 1000 + rep, f.handle_mean_us = 5;
    cells[{kFenec, CaseName(Kind::kGetById, 1, false)}].push_back(f);
    f.p50_us = 100;
    cells[{kPostgres, CaseName(Kind::kGetById, 1, false)}].push_back(f);
  }
  auto names = [](const std::vector<kit::Check>& c) {
    std::vector<std::string> out;
    for (const kit::Check& x : c) out.push_back(x.what);
    return out;
  };
  const auto buffered = names(RequestChecks(cells, 8, 32, false, false, kit::Window{}));
  const auto durable = names(RequestChecks(cells, 8, 32, true, false, kit::Window{}));
  const auto with_wrk = names(RequestChecks(cells, 8, 32, false, true, kit::Window{}));
  EXPECT_EQ(buffered.size(), 10u);  // the finding, p50, rate, five kinds' CPU, write-through at 8 and 1
  EXPECT_EQ(durable.size(), 2u);   // durable puts, sync rounds
  EXPECT_EQ(with_wrk.size(), buffered.size() + 2);
  for (const std::string& d : durable)
    EXPECT_EQ(std::find(buffered.begin(), buffered.end(), d), buffered.end()) << d;
  EXPECT_EQ(names(RequestChecks(cells, 8, 32, false, false, kit::Window{2, 4, 0.99})), buffered);
  const std::vector<kit::Check> main = RequestChecks(cells, 8, 32, false, false, kit::Window{2, 4, 0.99});
  EXPECT_EQ(main[1].ratio.reps, 2u);  // fenec/postgres p50 over repetitions 2 and 3
  EXPECT_EQ(main[1].ratio.level, 0.99);
}

}  // namespace
}  // namespace fenec::scenarios::requests
