// The round trip every arm's store passes (concurrency_test.cc for SQLite,
// peers_test.cc for RocksDB and PostgreSQL): rows put one a commit and in a
// batch come back by id, in insertion order, from another session.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "scenarios/engines/store.h"
#include "scenarios/engines/workload.h"

namespace fenec::scenarios::engines {

// 50 puts and a 30-row batch through one session, read back by id from
// another, then the aggregate; the store counts 51 commits.
inline void RoundTrip(Store& store, uint64_t seed) {
  std::string err;
  auto s = store.session(&err);
  ASSERT_TRUE(s) << err;
  std::mt19937_64 rng(seed);
  std::vector<Doc> written;
  for (int i = 0; i < 50; ++i) {
    written.push_back(make_doc(rng, i, static_cast<int64_t>(rng() % 1000) - 500));
    ASSERT_EQ(s->put(written.back()), "");
  }
  std::vector<Doc> batch;
  for (int i = 0; i < 30; ++i) batch.push_back(make_doc(rng, 100 + i, i));
  ASSERT_EQ(s->put_batch(batch), "");
  written.insert(written.end(), batch.begin(), batch.end());
  auto other = store.session(&err);
  ASSERT_TRUE(other) << err;
  int64_t sum = 0;
  for (size_t i = 0; i < written.size(); ++i) {
    Doc got;
    bool found = false;
    ASSERT_EQ(other->get(i + 1, &got, &found), "");
    ASSERT_TRUE(found) << "id " << i + 1;
    EXPECT_EQ(got.body, written[i].body);
    EXPECT_EQ(got.n, written[i].n);
    sum += written[i].n;
  }
  bool found = true;
  Doc none;
  ASSERT_EQ(other->get(written.size() + 1, &none, &found), "");
  EXPECT_FALSE(found);
  Aggregate a;
  ASSERT_EQ(other->aggregate(&a), "");
  EXPECT_EQ(a.count, written.size());
  EXPECT_EQ(a.sum, sum);
  EXPECT_EQ(store.counters().commits, 51u);
}

}  // namespace fenec::scenarios::engines
