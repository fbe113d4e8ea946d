// TextIndex: tokenizing, AND queries against a model, growth bounds and
// rebuild. Counts only, never times.
#include "engine/src/index/text_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>

#include "engine/src/index/growing_map.h"
#include "engine/src/base/seed.h"

namespace fenec::index {
namespace {

using Model = std::map<std::string, std::set<uint64_t>>;

std::vector<uint64_t> model_query(const Model& m, const std::vector<std::string>& terms,
                                  size_t limit) {
  std::vector<uint64_t> out;
  if (terms.empty()) return out;
  auto first = m.find(terms[0]);
  if (first == m.end()) return out;
  for (uint64_t row : first->second) {
    bool all = true;
    for (size_t i = 1; i < terms.size() && all; ++i) {
      auto it = m.find(terms[i]);
      all = it != m.end() && it->second.count(row) > 0;
    }
    if (all) out.push_back(row);
    if (out.size() == limit) break;
  }
  return out;
}

TEST(Tokenize, LowercasesSplitsAndKeepsUtf8) {
  EXPECT_EQ(Tokenize("Hello, World! foo_bar 42x  -- \xC3\x89t\xC3\xA9"),
            (std::vector<std::string>{"hello", "world", "foo", "bar", "42x", "\xC3\x89t\xC3\xA9"}));
  EXPECT_TRUE(Tokenize(" ,;- ").empty());
  std::string longword(300, 'A');
  auto t = Tokenize(longword + " b");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0], std::string(TextIndex::kMaxTermBytes, 'a'));
  EXPECT_EQ(t[1], "b");
  TextDoc doc("b a B c a");  // distinct, first appearance order
  ASSERT_EQ(doc.size(), 3u);
  EXPECT_EQ(doc.term(0), "b");
  EXPECT_EQ(doc.term(1), "a");
  EXPECT_EQ(doc.term(2), "c");
}

TEST(TextIndex, QueriesEqualModelUnderRandomInsertsAndErases) {
  for (Arm arm : {Arm::kSharded, Arm::kNaive}) {
    uint64_t seed = base::SeedFromEnv(arm == Arm::kSharded ? "TextModel/sharded" : "TextModel/naive");
    std::mt19937_64 rng(seed);
    TextIndex idx(arm);
    Model model;
    std::map<uint64_t, std::string> docs;  // row -> text, for erases
    // A small common vocabulary (long postings) and a large rare one that
    // takes the term count past the split.
    auto common = [&] { return "Common" + std::to_string(rng() % 40); };
    auto rare = [&] { return "rare" + std::to_string(rng() % 400000); };
    const uint64_t kDocs = 60000;
    for (uint64_t row = 0; row < kDocs; ++row) {
      std::string text = common() + " " + common() + ", " + rare() + " " + rare() + " " + rare();
      idx.Insert(row, text);
      for (const auto& t : Tokenize(text)) model[t].insert(row);
      docs[row] = text;
      if (rng() % 5 == 0) {  // erase a random earlier document
        auto it = docs.lower_bound(rng() % (row + 1));
        if (it != docs.end()) {
          idx.Erase(it->first, it->second);
          for (const auto& t : Tokenize(it->second)) {
            model[t].erase(it->first);
            if (model[t].empty()) model.erase(t);
          }
          docs.erase(it);
        }
      }
    }
    ASSERT_EQ(idx.term_count(), model.size());
    uint64_t pairs = 0;
    for (const auto& [t, rows] : model) pairs += rows.size();
    EXPECT_EQ(idx.postings_count(), pairs);
    if (arm == Arm::kSharded) {
      EXPECT_GT(model.size(), GrowingMap::kSplitKeys);
    }
    uint64_t nonempty = 0;
    for (int q = 0; q < 3000; ++q) {
      std::vector<std::string> terms;
      int n = 1 + static_cast<int>(rng() % 3);
      for (int i = 0; i < n; ++i) terms.push_back(rng() % 4 ? common() : rare());
      size_t limit = 1 + rng() % 50;
      std::string text;
      for (auto& t : terms) text += t + " ";
      terms = Tokenize(text);
      std::sort(terms.begin(), terms.end());
      terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
      auto got = idx.Query(text, limit);
      ASSERT_EQ(got, model_query(model, terms, limit)) << "query '" << text << "' limit " << limit;
      nonempty += !got.empty();
    }
    EXPECT_GT(nonempty, 100u);
    for (int i = 0; i < 40; ++i) {
      std::string t = "common" + std::to_string(i);
      EXPECT_EQ(idx.PostingsSize(t), model.count(t) ? model[t].size() : 0);
    }
  }
}

TEST(TextIndex, ShardedTermGrowthBoundedNaiveWhole) {
  for (Arm arm : {Arm::kSharded, Arm::kNaive}) {
    TextIndex idx(arm);
    const uint64_t n = 400000;
    for (uint64_t i = 0; i < n; ++i) idx.Insert(i, "term" + std::to_string(i));
    EXPECT_EQ(idx.term_count(), n);
    EXPECT_EQ(idx.stats().hash_computations, n);
    for (const GrowthEvent& e : idx.growth_log()) {
      if (e.keys_before < GrowingMap::kSplitKeys) continue;
      double per_shard = std::ceil(e.keys_before / 256.0);
      if (arm == Arm::kSharded) {
        EXPECT_LE(e.keys_moved, per_shard + 6 * std::sqrt(per_shard) + 64) << e.keys_before;
      } else {
        EXPECT_EQ(e.keys_moved, e.keys_before);
      }
    }
    EXPECT_EQ(idx.Query("term123 term123", 10), (std::vector<uint64_t>{123}));
    EXPECT_TRUE(idx.Query("term1 term2", 10).empty());
  }
}

TEST(TextIndex, RebuildEqualsIncrementalAndEraseFreesEverything) {
  uint64_t seed = base::SeedFromEnv("TextRebuild");
  std::mt19937_64 rng(seed);
  std::vector<std::string> texts;
  for (int i = 0; i < 20000; ++i) {
    std::string t;
    for (int w = 0; w < 6; ++w) t += "w" + std::to_string(rng() % 3000) + " ";
    texts.push_back(t);
  }
  TextIndex grown, loaded;
  std::vector<TextIndex::Doc> docs;
  for (size_t i = 0; i < texts.size(); ++i) {
    grown.Insert(i * 3, texts[i]);
    docs.push_back({i * 3, texts[i]});
  }
  std::shuffle(docs.begin(), docs.end(), rng);  // rebuild must not depend on row order
  loaded.Rebuild(docs);
  EXPECT_EQ(loaded.stats().growths, 0u);
  EXPECT_EQ(loaded.term_count(), grown.term_count());
  EXPECT_EQ(loaded.postings_count(), grown.postings_count());
  for (int q = 0; q < 500; ++q) {
    std::string text = "w" + std::to_string(rng() % 3000) + " w" + std::to_string(rng() % 3000);
    ASSERT_EQ(loaded.Query(text, 1000), grown.Query(text, 1000)) << text;
  }
  for (size_t i = 0; i < texts.size(); ++i) grown.Erase(i * 3, texts[i]);
  EXPECT_EQ(grown.term_count(), 0u);
  EXPECT_EQ(grown.postings_count(), 0u);
  IndexStats st = grown.stats();
  EXPECT_EQ(st.memory_bytes, st.capacity_slots * sizeof(Slot) + 256 * sizeof(HashTable) * st.sharded +
                                 grown.growth_log().capacity() * sizeof(GrowthEvent));
}

TEST(TextIndex, InsertIsIdempotentAndEraseOfAbsentIsHarmless) {
  TextIndex idx;
  idx.Insert(7, "alpha beta alpha");
  idx.Insert(7, "alpha");
  idx.Insert(3, "alpha");
  EXPECT_EQ(idx.postings_count(), 3u);
  EXPECT_EQ(idx.Query("ALPHA", 10), (std::vector<uint64_t>{3, 7}));
  EXPECT_EQ(idx.Query("alpha", 1), (std::vector<uint64_t>{3}));
  EXPECT_EQ(idx.Query("alpha beta", 10), (std::vector<uint64_t>{7}));
  EXPECT_TRUE(idx.Query("", 10).empty());
  EXPECT_TRUE(idx.Query("alpha gamma", 10).empty());
  idx.Erase(9, "alpha gamma");
  EXPECT_EQ(idx.postings_count(), 3u);
  idx.Erase(7, "alpha");
  EXPECT_EQ(idx.Query("alpha", 10), (std::vector<uint64_t>{3}));
  EXPECT_EQ(idx.PostingsSize("beta"), 1u);
}

}  // namespace
}  // namespace fenec::index
