// Test helpers shared by the crash tests (durability_test, merger_test): a
// log of (writer, seq) documents and the check that a recovered database
// kept every acknowledged one, with its exact value, and that what survived
// of each writer is a prefix of its seqs: recovery never keeps a later
// commit and drops an earlier one.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "fenec/database.h"

namespace fenec {

inline Schema LogSchema() { return Schema{{Field::Int("writer"), Field::Int("seq"), Field::Text("body")}}; }

// The exact value a writer's seq-th document holds: a length that varies so rows straddle buffers and sectors.
inline Document Expected(int64_t writer, int64_t seq) {
  std::string body = "w" + std::to_string(writer) + "s" + std::to_string(seq) + ":";
  body.append(static_cast<size_t>((seq * 37 + writer * 11) % 300), static_cast<char>('a' + (seq % 26)));
  return {Value(writer), Value(seq), Value(body)};
}

struct Ack {
  uint64_t id;
  int64_t writer, seq;
};

// Each writer's next seq: one past its last stored one, so its seqs stay a prefix across crashes.
inline std::vector<int64_t> NextSeqs(Database* db, CollectionId c, int writers) {
  std::vector<int64_t> next(static_cast<size_t>(writers), 0);
  auto rows = db->Scan(c, {}, 0);
  EXPECT_TRUE(rows.ok());
  if (!rows.ok()) return next;
  for (const Row& r : *rows) {
    int64_t& n = next.at(static_cast<size_t>(r.doc[0].int_value()));
    n = std::max(n, r.doc[1].int_value() + 1);
  }
  return next;
}

inline void VerifyAfterRecovery(Database* db, CollectionId c, const std::vector<Ack>& acks, uint64_t seed) {
  for (const Ack& a : acks) {
    auto got = db->Get(c, a.id);
    ASSERT_TRUE(got.ok()) << "acknowledged id " << a.id << " lost (seed " << seed << "): " << got.status().ToString();
    ASSERT_EQ(*got, Expected(a.writer, a.seq)) << "id " << a.id << " (seed " << seed << ")";
  }
  std::map<int64_t, std::vector<int64_t>> seqs;
  auto rows = db->Scan(c, {}, 0);
  ASSERT_TRUE(rows.ok());
  for (const Row& r : *rows) {
    ASSERT_EQ(r.doc, Expected(r.doc[0].int_value(), r.doc[1].int_value())) << "row " << r.id << " garbled";
    seqs[r.doc[0].int_value()].push_back(r.doc[1].int_value());
  }
  for (auto& [w, s] : seqs) {
    std::sort(s.begin(), s.end());
    for (size_t i = 0; i < s.size(); ++i)
      ASSERT_EQ(s[i], static_cast<int64_t>(i)) << "writer " << w << " kept seq " << s.back() << " but lost " << i
                                               << " (seed " << seed << ")";
  }
  ASSERT_TRUE(db->Check().ok());
}

}  // namespace fenec
