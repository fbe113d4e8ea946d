// Where a scratch cluster lives (cluster_folder.h), and that one starts from
// a checkout under a folder closed to the `postgres` user, as a clone in
// root's home (0700 on Debian) is: the folder rules on a made-up user (any
// machine, any user), then a real cluster (skipped where PostgreSQL 15 is
// not installed).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "engine/src/base/testing.h"
#include "scenarios/pg/cluster_folder.h"
#include "scenarios/pg/pg_cluster.h"
#include "scenarios/pg/pq.h"

namespace fenec::scenarios::pg {
namespace {

namespace fs = std::filesystem;

// A user who owns nothing here and is in no group of ours: only the
// others' bits let it through.
ServerUser Stranger() { return {"stranger", 4242424, {4242424}}; }

// The folder tree of the rule tests goes under /var/tmp, not the build
// folder, on purpose: the checkout may itself sit under a folder closed to
// the user, which is the case under test, and would decide every answer.
class Folders : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string t = "/var/tmp/fenec-pg-folders-XXXXXX";
    ASSERT_NE(mkdtemp(t.data()), nullptr);
    base_ = t;
    chmod(base_.c_str(), 0755);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(base_, ec);
  }
  std::string Mkdir(const std::string& rel, mode_t mode) {
    const std::string p = base_ + "/" + rel;
    fs::create_directories(p);
    chmod(p.c_str(), mode);
    return p;
  }
  std::string base_;
};

TEST_F(Folders, FirstClosedNamesTheFolderThatStopsTheUser) {
  const std::string home = Mkdir("home", 0700);
  Mkdir("home/clone/build", 0755);
  EXPECT_EQ(first_closed(home + "/clone/build", Stranger()), home);
  chmod(home.c_str(), 0711);  // search without read is enough
  EXPECT_EQ(first_closed(home + "/clone/build", Stranger()), "");
  EXPECT_EQ(first_closed(base_ + "/nosuch", Stranger()), base_ + "/nosuch");
}

TEST_F(Folders, AReachableFolderKeepsTheCluster) {
  Mkdir("open", 0755);
  const ClusterFolder f = place_cluster(base_ + "/open/pg", Stranger(), {Mkdir("roots", 0755)});
  EXPECT_EQ(f.error, "");
  EXPECT_EQ(f.path, base_ + "/open/pg");
  EXPECT_FALSE(f.made);
}

TEST_F(Folders, AClosedFolderSendsTheClusterToAFolderOfItsOwn) {
  Mkdir("home", 0700);
  const std::string roots = Mkdir("roots", 0755);
  // The first root is closed to the user, the second is the one it can use.
  const ClusterFolder f = place_cluster(base_ + "/home/clone/build/pg", Stranger(), {base_ + "/home", roots});
  ASSERT_EQ(f.error, "");
  EXPECT_TRUE(f.made);
  EXPECT_EQ(f.path.rfind(roots + "/fenec-pg-", 0), 0u) << f.path;
  EXPECT_TRUE(fs::is_directory(f.path));
  EXPECT_FALSE(fs::exists(base_ + "/home/clone/build/pg")) << "the folder asked for was left behind";
}

TEST_F(Folders, NoFolderToUseIsOneLineSayingWhich) {
  Mkdir("home", 0700);
  const ClusterFolder f = place_cluster(base_ + "/home/clone/pg", Stranger(), {base_ + "/home", base_ + "/nosuch"});
  EXPECT_EQ(f.path, "");
  EXPECT_NE(f.error.find(base_ + "/home (mode 0700"), std::string::npos) << f.error;
  EXPECT_NE(f.error.find("stranger"), std::string::npos) << f.error;
  EXPECT_EQ(f.error.find('\n'), std::string::npos) << f.error;
}

// The whole path: a checkout's scratch folder under a 0700 "home", as root's
// clone is. As root the cluster runs as `postgres` in a folder of its own,
// removed at Stop; as anyone else it runs as that user, where it was asked.
TEST(PgCluster, StartsFromUnderAFolderClosedToThePostgresUser) {
  base::ScratchDir scratch("pg_closed_home");
  ASSERT_TRUE(scratch.ok()) << scratch.error();
  const std::string home = scratch.path("home");
  fs::create_directories(home);
  chmod(home.c_str(), 0700);
  const std::string asked = home + "/clone/build/test-scratch/pg";

  PgCluster c;
  const std::string err = c.Start(asked);
  if (c.missing()) GTEST_SKIP() << err;
  ASSERT_EQ(err, "");
  const std::string data = c.dir();
  if (geteuid() == 0) {
    EXPECT_NE(data.rfind(home, 0), 0u) << data;
    struct stat st {};
    ASSERT_EQ(stat(data.c_str(), &st), 0);
    EXPECT_NE(st.st_uid, 0u) << "the cluster's folder belongs to its server's user";
  } else {
    EXPECT_EQ(data, asked);
  }
  EXPECT_TRUE(fs::exists(data + "/postmaster.pid"));
  std::string why;
  PqConn conn(Connect(c.conninfo(), &why));
  ASSERT_TRUE(conn) << why;
  EXPECT_EQ(Exec(conn.get(), "SELECT 1", PGRES_TUPLES_OK), "");
  conn.reset();
  EXPECT_EQ(c.Stop(), "");
  if (geteuid() == 0) {
    EXPECT_FALSE(fs::exists(data)) << "the folder made for the cluster outlived it";
  }
}

}  // namespace
}  // namespace fenec::scenarios::pg
