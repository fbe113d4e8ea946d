// A test fixture with a scratch PostgreSQL cluster of its own, started in the
// test's scratch dir (or beside it: pg_cluster.h) and stopped (and checked
// stopped) after it: one copy for
// every scenario test that talks to PostgreSQL. Where PostgreSQL is not
// installed the test is skipped with that reason; any other failure to start
// fails it.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "engine/src/base/testing.h"
#include "scenarios/pg/pg_cluster.h"

namespace fenec::scenarios::pg {

class ClusterTest : public base::ScratchTest {
 protected:
  void SetUp() override {
    base::ScratchTest::SetUp();
    if (const std::string err = cluster_.Start(path("pg")); !err.empty()) {
      if (cluster_.missing()) GTEST_SKIP() << err;
      FAIL() << err;
    }
  }
  void TearDown() override {
    EXPECT_EQ(cluster_.Stop(), "");
    base::ScratchTest::TearDown();
  }
  PgCluster cluster_;
};

}  // namespace fenec::scenarios::pg
