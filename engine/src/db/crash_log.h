// Test helpers shared by the crash tests (durability_test, merger_test): a
// log of (writer, seq) documents and the check that a recovered database
// kept every acknowledged one, with its exact value, and that what survived
// of each writer is a prefix of its seqs: recovery never keeps a later
// commit and drops an earlier one.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
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

// The same log with a vector the writer and seq determine, under an @hnsw
// index: the crash tests' vector collection.
inline constexpr uint32_t kLogDim = 8;
inline Schema VectorLogSchema() {
  return Schema{{Field::Int("writer"), Field::Int("seq"), Field::Text("body"), Field::Vector("emb", kLogDim).Hnsw()}};
}
inline Document ExpectedWithVector(int64_t writer, int64_t seq) {
  Document d = Expected(writer, seq);
  std::vector<float> v(kLogDim);
  uint64_t x = static_cast<uint64_t>(writer) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(seq) + 1;
  for (float& f : v) {  // splitmix64: distinct, well-spread vectors
    x += 0x9E3779B97F4A7C15ull;
    uint64_t z = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    f = static_cast<float>(static_cast<double>((z ^ (z >> 31)) >> 11) / 9007199254740992.0 * 2 - 1);
  }
  d.push_back(Value(std::move(v)));
  return d;
}
using DocMaker = Document (*)(int64_t writer, int64_t seq);

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

// Four writers commit into c, each from its next seq, until crash() is
// called (once, when crash_after puts were acknowledged) and the database
// refuses writes. Writer `batched` (-1: none) puts 3 documents a commit with
// PutBatch; before_put(writer, seq), if given, runs before each commit.
// Returns every acknowledged put.
inline std::vector<Ack> WritersUntilCrash(Database* db, CollectionId c, uint64_t crash_after,
                                        const std::function<void()>& crash, int batched = -1,
                                        const std::function<void(int, int64_t)>& before_put = {},
                                        DocMaker make = Expected) {
  std::vector<int64_t> base = NextSeqs(db, c, 4);
  std::mutex mu;
  std::vector<Ack> acks;
  std::atomic<bool> crashed{false};
  std::vector<std::thread> ts;
  for (int w = 0; w < 4; ++w) {
    ts.emplace_back([&, w] {
      const int64_t step = w == batched ? 3 : 1;
      for (int64_t seq = base[w];; seq += step) {
        if (before_put) before_put(w, seq);
        std::vector<DocId> ids;
        if (step == 1) {
          auto id = db->Put(c, make(w, seq));
          if (!id.ok()) return;  // the crash fail-stopped the database
          ids.push_back(*id);
        } else {
          std::vector<Document> docs;
          for (int64_t k = 0; k < step; ++k) docs.push_back(make(w, seq + k));
          auto r = db->PutBatch(c, std::move(docs));
          if (!r.ok()) return;
          ids = std::move(*r);
        }
        std::lock_guard lock(mu);
        for (int64_t k = 0; k < step; ++k) acks.push_back({ids[static_cast<size_t>(k)], w, seq + k});
        if (acks.size() >= crash_after && !crashed.exchange(true)) crash();
      }
    });
  }
  for (auto& t : ts) t.join();
  return acks;
}

inline void VerifyAfterRecovery(Database* db, CollectionId c, const std::vector<Ack>& acks, uint64_t seed,
                                DocMaker make = Expected) {
  for (const Ack& a : acks) {
    auto got = db->Get(c, a.id);
    ASSERT_TRUE(got.ok()) << "acknowledged id " << a.id << " lost (seed " << seed << "): " << got.status().ToString();
    ASSERT_EQ(*got, make(a.writer, a.seq)) << "id " << a.id << " (seed " << seed << ")";
  }
  std::map<int64_t, std::vector<int64_t>> seqs;
  auto rows = db->Scan(c, {}, 0);
  ASSERT_TRUE(rows.ok());
  for (const Row& r : *rows) {
    ASSERT_EQ(r.doc, make(r.doc[0].int_value(), r.doc[1].int_value())) << "row " << r.id << " garbled";
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

// A NEAR for an acknowledged document's vector finds it among the nearest
// 10, for a seeded sample of the acks; returns the share found.
inline double NearFindsAcked(Database* db, CollectionId c, const std::vector<Ack>& acks, size_t sample,
                             uint64_t seed) {
  if (acks.empty()) return 1;
  uint64_t x = seed;
  size_t found = 0, n = std::min(sample, acks.size());
  for (size_t s = 0; s < n; ++s) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const Ack& a = acks[(x >> 33) % acks.size()];
    auto hits = db->Near(c, "emb", ExpectedWithVector(a.writer, a.seq).back().vector());
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    if (!hits.ok()) continue;
    for (const NearHit& h : *hits) found += h.id == a.id;
  }
  return double(found) / double(n);
}

}  // namespace fenec
