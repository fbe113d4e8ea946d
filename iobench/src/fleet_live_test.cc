// `iobench fleet` against real fio servers the test starts on loopback: one
// is killed (the server and every process it started, as a host's crash
// would) while its measured job runs, and the run must keep the other host's
// rows, name the dead one with the reason, and exit 1.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "engine/src/base/scratch.h"
#include "engine/src/base/seed.h"
#include "iobench/kit/proc.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool can_connect(const std::string& addr, unsigned port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, addr.c_str(), &sa.sin_addr);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0;
  close(fd);
  return ok;
}

// A port the kernel has free on addr now (fio binds it a moment later).
unsigned free_port(const std::string& addr) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  inet_pton(AF_INET, addr.c_str(), &sa.sin_addr);
  socklen_t len = sizeof sa;
  if (bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0) {
    close(fd);
    return 0;
  }
  close(fd);
  return ntohs(sa.sin_port);
}

// `fio --server` in a process group of its own; it and all it started are
// killed when the test is done with it (or kill() is called). Its job
// processes start sessions of their own: a group kill would leave them
// writing, holding the connection open until the client's command timeout.
class FioServer {
 public:
  FioServer(const std::string& addr, unsigned port) : addr_(addr), port_(port) {
    const std::string arg = "--server=ip:" + addr + "," + std::to_string(port);
    char* argv[] = {const_cast<char*>("fio"), const_cast<char*>(arg.c_str()), nullptr};
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    if (posix_spawnp(&pid_, "fio", nullptr, &attr, argv, environ) != 0) pid_ = -1;
    posix_spawnattr_destroy(&attr);
  }
  ~FioServer() { kill(); }
  bool ready() const {
    for (int i = 0; i < 200 && pid_ > 0; ++i, std::this_thread::sleep_for(50ms))
      if (can_connect(addr_, port_)) return true;
    return false;
  }
  void kill() {
    if (pid_ <= 0) return;
    fenec::kit::kill_process_tree(pid_);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  std::string label() const { return addr_ + ":" + std::to_string(port_); }

 private:
  std::string addr_;
  unsigned port_;
  pid_t pid_ = -1;
};

TEST(FleetLive, AServerKilledMidRunIsReportedAndTheOthersRowsKept) {
  if (std::system("fio --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "fio is not installed (scripts/setup.sh)";
  const char* iobench = std::getenv("IOBENCH");
  ASSERT_NE(iobench, nullptr) << "meson sets IOBENCH to the built binary";
  // Two loopback addresses of their own, so this test meets no other run's servers.
  const uint64_t seed = fenec::base::SeedFromEnv("fleet_live_test");
  std::mt19937_64 rng(seed);
  const std::string net = "127." + std::to_string(100 + rng() % 100) + "." + std::to_string(rng() % 250) + ".";
  FioServer alive(net + "2", free_port(net + "2")), doomed(net + "3", free_port(net + "3"));
  ASSERT_TRUE(alive.ready() && doomed.ready()) << "fio --server did not start on " << net << "2/3";
  fenec::base::ScratchDir dir("fleet-live");
  for (const char* h : {"h1", "h2"}) fs::create_directories(dir.path(h));
  std::ofstream(dir.path("hosts")) << alive.label() << " " << dir.path("h1") << "\n"
                                   << doomed.label() << " " << dir.path("h2") << "\n";
  // Killed in the measured run, not in the probe or the layout before it:
  // its client's output (run/fio/<invocation>.json) exists from its start,
  // and its job has begun writing a moment later.
  auto measured_run_started = [&] {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir.path("run") + "/fio", ec)) {
      const std::string name = e.path().filename().string();
      if (e.path().extension() == ".json" && name.rfind("layout-", 0) != 0 && name.rfind("probe-", 0) != 0)
        return true;
    }
    return false;
  };
  std::thread killer([&] {
    for (int i = 0; i < 1200; ++i, std::this_thread::sleep_for(50ms))
      if (measured_run_started()) {
        std::this_thread::sleep_for(1500ms);
        doomed.kill();
        return;
      }
  });
  const std::string cmd = std::string(iobench) + " fleet --hosts-file " + dir.path("hosts") +
                          " --together --cells overwrite-4k --jobs 1 --submit pwrite --reps 1 --runtime 4s"
                          " --ramp 500ms --seed " + std::to_string(seed) + " --out " + dir.path("run") +
                          " --csv " + dir.path("rows.csv") + " > " + dir.path("out.txt") + " 2> " + dir.path("err.txt");
  const int status = std::system(cmd.c_str());
  killer.join();
  const std::string out = slurp(dir.path("out.txt")), rows = slurp(dir.path("rows.csv"));
  std::string fio_said;  // what fio's client printed, for a failure's message
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir.path("run") + "/fio", ec))
    fio_said += "--- " + e.path().string() + "\n" + slurp(e.path().string()).substr(0, 2000) + "\n";
  SCOPED_TRACE(fio_said);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1)
      << "exit " << WEXITSTATUS(status) << "\n" << out << slurp(dir.path("err.txt")) << fio_said;
  // fio notices a killed server either by the connection's end or by a command's timeout.
  EXPECT_TRUE(out.find(doomed.label() + ": disconnected mid-run") != std::string::npos ||
              out.find(doomed.label() + ": stopped answering mid-run") != std::string::npos)
      << out;
  EXPECT_NE(rows.find("," + alive.label() + ",overwrite-4k-j1-psync;mode=together;rep=0,iops,"), std::string::npos)
      << rows;
  EXPECT_EQ(rows.find("," + doomed.label() + ",overwrite-4k-j1-psync;mode=together;rep=0,iops,"), std::string::npos);
  EXPECT_NE(rows.find("," + doomed.label() + ",verdict,failed,1,"), std::string::npos) << rows;
}

}  // namespace
