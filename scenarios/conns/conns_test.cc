// conns-bench's parts against the real binaries: conns-holder holds what it
// says it holds and the server counts every one; a slow-drip connection is
// closed at the server's --header-timeout and counted, through the flag.
// Counts only, every wait bounded.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "engine/src/base/testing.h"
#include "scenarios/conns/probe.h"
#include "scenarios/procs/child.h"
#include "scenarios/procs/metrics.h"

namespace fenec::scenarios::conns {
namespace {

using procs::Child;
using procs::FetchMetrics;
using procs::PromValue;

class ConnsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_bin_ = std::getenv("FENEC_SERVER_BIN") ? std::getenv("FENEC_SERVER_BIN") : "";
    holder_bin_ = std::getenv("CONNS_HOLDER_BIN") ? std::getenv("CONNS_HOLDER_BIN") : "";
    if (server_bin_.empty() || holder_bin_.empty()) GTEST_SKIP() << "FENEC_SERVER_BIN, CONNS_HOLDER_BIN not set (meson test sets them)";
    log_ = dir_.path() + "/children.log";
  }
  int StartServer(std::vector<std::string> flags) {
    std::vector<std::string> argv = {server_bin_, "--listen", "127.0.0.1:0", "--data", dir_.path() + "/db"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    std::string line;
    std::string err = server_.Start(argv, log_, "listening on", std::chrono::seconds(30), &line);
    EXPECT_EQ(err, "");
    if (!err.empty()) return 0;
    return std::stoi(line.substr(line.rfind(':', line.find(" (")) + 1));
  }
  std::string Log() {
    std::ifstream in(log_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  base::ScratchDir dir_;
  std::string server_bin_, holder_bin_, log_;
  Child server_;
};

// More connections than the old thread-per-connection server's default cap (256).
TEST_F(ConnsTest, HolderHoldsAndTheServerCountsEveryConnection) {
  const int port = StartServer({"--idle-timeout", "900", "--header-timeout", "900"});
  ASSERT_GT(port, 0);
  ASSERT_EQ(Prefill(port, 50), "");
  Child holder;
  std::string said;
  ASSERT_EQ(holder.Start({holder_bin_, "--port", std::to_string(port), "--idle", "300", "--slow", "10", "--drip-ms", "100"},
                         log_, "holding", std::chrono::seconds(60), &said),
            "");
  EXPECT_NE(said.find("holding 300 idle 10 slow"), std::string::npos) << said;
  EXPECT_EQ(WaitForGauge(port, [](double g) { return g >= 311; }, 20'000), 311);
  GetFigures g = MeasureGets(port, 50, 10, 50, [] { return false; });
  EXPECT_EQ(g.error, "");
  EXPECT_EQ(g.count, 50u);
  // 300 idle, 10 slow and the measuring one; WaitForGauge's own connection,
  // closed a moment before, is still counted until the server reads its end.
  EXPECT_GE(g.gauge_before, 311);
  EXPECT_LE(g.gauge_before, 312);
  EXPECT_GE(g.gauge_after, 311);
  EXPECT_LE(g.gauge_after, 312);
  EXPECT_EQ(holder.Stop(std::chrono::milliseconds(10'000)), 0);
  EXPECT_NE(Log().find("the server closed 0 of 300 idle, 0 of 10 slow"), std::string::npos) << Log();
  EXPECT_EQ(WaitForGauge(port, [](double v) { return v <= 1; }, 20'000), 1);
  EXPECT_EQ(server_.Stop(), 0);
}

TEST_F(ConnsTest, SlowDripIsClosedAtTheHeaderTimeoutFlag) {
  const int port = StartServer({"--header-timeout", "0.3"});
  ASSERT_GT(port, 0);
  Child holder;
  ASSERT_EQ(holder.Start({holder_bin_, "--port", std::to_string(port), "--idle", "0", "--slow", "5", "--drip-ms", "50"},
                         log_, "holding", std::chrono::seconds(60), nullptr),
            "");
  const std::string series = "fenec_http_connections_closed_total{reason=\"header_timeout\"}";
  double closed = -1;
  for (int i = 0; i < 1000 && closed < 5; ++i) {
    closed = PromValue(FetchMetrics(port), series);
    if (closed < 5) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(closed, 5);
  EXPECT_EQ(holder.Stop(std::chrono::milliseconds(10'000)), 0);
  EXPECT_NE(Log().find("the server closed 0 of 0 idle, 5 of 5 slow"), std::string::npos) << Log();
  EXPECT_EQ(server_.Stop(), 0);
}

}  // namespace
}  // namespace fenec::scenarios::conns
