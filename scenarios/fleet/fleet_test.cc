// The local fleet fleet-bench builds: its servers answer, the slow host's
// writes are limited, and everything it made (servers, cgroup, mounts, loop
// devices) is gone after it, whether it was built whole or failed half-way.
#include "scenarios/fleet/hosts.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "engine/src/base/scratch.h"
#include "iobench/kit/loopfs.h"

namespace fenec::scenarios::fleet {
namespace {

namespace fs = std::filesystem;

std::string skip_reason() {
  if (std::string why = kit::loop_unavailable_reason(); !why.empty()) return why;
  if (std::system("fio --version >/dev/null 2>&1") != 0) return "fio is not installed (scripts/setup.sh)";
  return throttle_unavailable_reason();
}

struct Made {
  std::vector<std::string> mounts, images;
  std::vector<pid_t> servers;
  std::string cgroup;
};

Made what_it_made(const LocalFleet& f) {
  Made m;
  for (const LocalHost& h : f.hosts()) {
    m.mounts.push_back(h.host.dir);
    if (h.loop) m.images.push_back(h.loop->backing_file());
    m.servers.push_back(h.server);
  }
  const std::string t = f.throttle();
  m.cgroup = t.substr(0, t.rfind('/'));
  return m;
}

void expect_gone(const Made& m) {
  for (const std::string& p : m.mounts) EXPECT_FALSE(kit::is_mounted(p)) << p;
  for (const std::string& img : m.images) EXPECT_EQ(kit::loop_devices_backed_by(img), 0) << img;
  for (pid_t pid : m.servers) EXPECT_TRUE(::kill(pid, 0) != 0 && errno == ESRCH) << "server " << pid << " still runs";
  if (!m.cgroup.empty()) {
    EXPECT_FALSE(fs::exists(m.cgroup)) << m.cgroup;
  }
}

TEST(LocalFleet, BuildsServersOnFileSystemsOfTheirOwnAndLeavesNothing) {
  if (std::string why = skip_reason(); !why.empty()) GTEST_SKIP() << why;
  base::ScratchDir dir("fleet-hosts");
  FleetOptions o;
  o.dir = dir.path();
  o.kinds = {HostKind::kHealthy, HostKind::kSlow, HostKind::kLying};
  o.first_addr = 40 + static_cast<unsigned>(getpid() % 150);  // 127.0.0.x of its own beside other runs
  o.loop_bytes = 256ull << 20;
  o.tmpfs_bytes = 64ull << 20;
  o.slow_iops = 77;
  std::string why;
  auto f = LocalFleet::Build(o, &why);
  ASSERT_NE(f, nullptr) << why;
  ASSERT_EQ(f->hosts().size(), 3u);
  const Made m = what_it_made(*f);
  for (const LocalHost& h : f->hosts()) {
    EXPECT_TRUE(kit::is_mounted(h.host.dir)) << h.host.dir;
    EXPECT_GT(h.server, 0);
    EXPECT_EQ(::kill(h.server, 0), 0);
  }
  EXPECT_EQ(f->hosts()[2].fs, "tmpfs");
  EXPECT_NE(f->throttle().find(" 77"), std::string::npos) << f->throttle();
  std::ifstream procs(m.cgroup + "/cgroup.procs");
  pid_t in_group = 0;
  ASSERT_TRUE(procs >> in_group) << "the slow host's server runs in the cgroup";
  EXPECT_EQ(in_group, f->hosts()[1].server);
  f.reset();
  expect_gone(m);
}

TEST(LocalFleet, AFailedBuildTearsDownWhatItMade) {
  if (std::string why = skip_reason(); !why.empty()) GTEST_SKIP() << why;
  base::ScratchDir dir("fleet-hosts");
  FleetOptions o;
  o.dir = dir.path();
  o.kinds = {HostKind::kHealthy, HostKind::kLying};
  o.first_addr = 40 + static_cast<unsigned>((getpid() + 7) % 150);
  o.loop_bytes = 256ull << 20;
  o.tmpfs_bytes = 64ull << 20;
  o.fio = dir.path() + "/no-such-fio";  // the first server cannot start, after its loop device was built
  std::string why;
  EXPECT_EQ(LocalFleet::Build(o, &why), nullptr);
  EXPECT_NE(why.find("no-such-fio"), std::string::npos) << why;
  EXPECT_EQ(kit::loop_devices_backed_by(dir.path() + "/h1/loop.img"), 0);
  EXPECT_FALSE(kit::is_mounted(dir.path() + "/h1/mnt"));
}

}  // namespace
}  // namespace fenec::scenarios::fleet
