// UniqueIndex and HashTable: growth bounds, hashing counts, model equality,
// batch all-or-nothing. Counts only, never times.
#include "engine/src/index/unique_index.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <unordered_map>

#include "engine/src/index/growing_map.h"
#include "engine/src/index/hash_table.h"
#include "engine/src/base/seed.h"

namespace fenec::index {
namespace {

std::string key_of(uint64_t i) {
  // Mixed lengths: short keys stay inline in the slot, long ones go to the heap.
  if (i % 3 == 0) return "k" + std::to_string(i);
  return "user-" + std::to_string(i * 2654435761u) + "@example.org";
}

// What a growth may move: a 256th of the keys plus the spread of one shard
// around its mean (binomial, ~sqrt of it; 6 sigma so no seed fails) and 64.
uint64_t growth_bound(uint64_t keys) {
  double per_shard = std::ceil(static_cast<double>(keys) / 256.0);
  return static_cast<uint64_t>(per_shard + 6.0 * std::sqrt(per_shard) + 64.0);
}

std::map<std::string, uint64_t> contents(const UniqueIndex& idx) {
  std::map<std::string, uint64_t> m;
  idx.ForEach([&](std::string_view k, uint64_t r) { m.emplace(std::string(k), r); });
  return m;
}

TEST(HashTable, SlotIsHashPlusRowPlusKey) {
  // The stored hash is the only overhead over (row, key): 8 bytes a slot.
  EXPECT_EQ(sizeof(Slot), sizeof(uint64_t) + sizeof(uint64_t) + sizeof(SlotKey));
  EXPECT_EQ(sizeof(SlotKey), 16u);
}

TEST(HashTable, EqualHashesWrapAroundAndBackwardShift) {
  // Crafted hashes: every key lands on the last slot and wraps, and all
  // share one hash, so the key bytes decide and erase must shift back.
  HashTable t(16);
  const uint64_t h = 15;
  std::vector<std::string> keys;
  for (int i = 0; i < 10; ++i) keys.push_back("key-number-" + std::to_string(i) + "-long");
  for (int i = 0; i < 10; ++i) t.InsertNew({h, uint64_t(i), SlotKey::Make(keys[i])});
  EXPECT_EQ(t.size(), 10u);
  for (int i = 0; i < 10; ++i) {
    Slot* s = t.Find(h, keys[i]);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->value, uint64_t(i));
  }
  EXPECT_EQ(t.Find(h, "absent"), nullptr);
  t.Erase(t.Find(h, keys[0]));
  t.Erase(t.Find(h, keys[5]));
  EXPECT_EQ(t.Find(h, keys[0]), nullptr);
  EXPECT_EQ(t.Find(h, keys[5]), nullptr);
  for (int i : {1, 2, 3, 4, 6, 7, 8, 9}) ASSERT_NE(t.Find(h, keys[i]), nullptr) << i;
  EXPECT_EQ(t.GrowTo(64), 8u);
  for (int i : {1, 2, 3, 4, 6, 7, 8, 9}) ASSERT_NE(t.Find(h, keys[i]), nullptr) << i;
}

TEST(UniqueIndex, ShardedGrowthMovesAtMostA256thAndNeverHashes) {
  UniqueIndex idx(Arm::kSharded);
  const uint64_t n = 700000;
  uint64_t growths_seen = 0;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t hashes_before = idx.stats().hash_computations;
    ASSERT_FALSE(idx.Put(key_of(i), i).has_value());
    IndexStats st = idx.stats();
    // One hash per put, whether or not this put paid for a growth.
    ASSERT_EQ(st.hash_computations, hashes_before + 1) << "put " << i;
    growths_seen = st.growths;
  }
  const auto& log = idx.growth_log();
  ASSERT_EQ(log.size(), growths_seen);
  uint64_t move_steps = 0, move_starts = 0, shard_doublings = 0, single_doublings = 0;
  for (const GrowthEvent& e : log) {
    if (e.kind == GrowthEvent::Kind::kMoveStep) {
      ++move_steps;
      EXPECT_LE(e.keys_moved, GrowingMap::kMoveSlotsPerStep);
    } else if (e.kind == GrowthEvent::Kind::kMoveStart) {
      ++move_starts;
      EXPECT_EQ(e.keys_moved, 0u);
    } else if (e.shard >= 0) {
      ++shard_doublings;
    } else {
      ++single_doublings;  // only tables small enough to move within one step
      EXPECT_LE(e.capacity_after, 2 * GrowingMap::kMoveSlotsPerStep);
    }
    EXPECT_LE(e.keys_moved, std::max<uint64_t>(GrowingMap::kMoveSlotsPerStep, growth_bound(e.keys_before)))
        << "at " << e.keys_before << " keys";
  }
  // Incremental moves of the 512..131 072-slot single tables, one step per 256 old slots.
  EXPECT_EQ(move_steps, (2 * GrowingMap::kSplitCapacity - 2 * GrowingMap::kMoveSlotsPerStep) /
                            GrowingMap::kMoveSlotsPerStep);
  EXPECT_EQ(move_starts, 9u);            // out of 512, 1024, ... 131 072 slots
  EXPECT_GE(shard_doublings, 256u * 2);  // 1024 -> 2048 -> 4096 for every shard by 700 k
  EXPECT_EQ(single_doublings, 6u);       // 0 -> 16 -> 32 -> 64 -> 128 -> 256 -> 512
  IndexStats st = idx.stats();
  EXPECT_EQ(st.keys, n);
  EXPECT_EQ(st.hash_computations, n);
  EXPECT_FALSE(st.moving);
  EXPECT_TRUE(st.sharded);
  EXPECT_LE(st.max_keys_moved, growth_bound(n));
  EXPECT_GT(st.puts_that_grew, 0u);
  EXPECT_LE(st.puts_that_grew, st.growths);
  for (uint64_t i = 0; i < n; i += 997) {
    ASSERT_EQ(idx.Find(key_of(i)), i);
  }
}

TEST(UniqueIndex, NaiveDoublingMovesTheWholeTable) {
  UniqueIndex idx(Arm::kNaive);
  const uint64_t n = 500000;
  for (uint64_t i = 0; i < n; ++i) ASSERT_FALSE(idx.Put(key_of(i), i).has_value());
  std::vector<uint64_t> at;
  for (const GrowthEvent& e : idx.growth_log()) {
    ASSERT_EQ(e.kind, GrowthEvent::Kind::kDouble);
    ASSERT_EQ(e.shard, -1);
    if (e.keys_before == 0) continue;  // the first allocation
    EXPECT_EQ(e.keys_moved, e.keys_before);                  // every key moved at once
    EXPECT_EQ(e.keys_before, e.capacity_after / 2 / 8 * 7);  // at 7/8 of the old table
    at.push_back(e.keys_before);
  }
  // The doublings the source measured (from 229 376 keys on) are all here.
  for (uint64_t k : {114688u, 229376u, 458752u}) EXPECT_NE(std::find(at.begin(), at.end(), k), at.end()) << k;
  EXPECT_EQ(idx.stats().max_keys_moved, 458752u);
  EXPECT_EQ(idx.stats().hash_computations, n);
}

TEST(UniqueIndex, RandomMixEqualsModel) {
  for (Arm arm : {Arm::kSharded, Arm::kNaive}) {
    uint64_t seed = base::SeedFromEnv(arm == Arm::kSharded ? "RandomMixEqualsModel/sharded"
                                                            : "RandomMixEqualsModel/naive");
    std::mt19937_64 rng(seed);
    UniqueIndex idx(arm);
    std::unordered_map<std::string, uint64_t> model;
    const uint64_t key_space = 180000, ops = 650000;
    uint64_t key_calls = 0, violations = 0, finds_hit = 0;
    bool saw_move_into_shards = false;
    for (uint64_t op = 0; op < ops; ++op) {
      std::string k = key_of(rng() % key_space);
      uint64_t dice = rng() % 10;
      ++key_calls;
      if (dice < 6) {
        uint64_t row = rng() % 1000000;
        auto v = idx.Put(k, row);
        auto it = model.find(k);
        if (it == model.end()) {
          ASSERT_FALSE(v.has_value()) << "op " << op;
          model.emplace(k, row);
        } else if (it->second == row) {
          ASSERT_FALSE(v.has_value());
        } else {
          ASSERT_TRUE(v.has_value());
          EXPECT_EQ(v->holder_row, it->second);
          ++violations;
        }
      } else if (dice < 8) {
        auto r = idx.Erase(k);
        auto it = model.find(k);
        ASSERT_EQ(r.has_value(), it != model.end()) << "op " << op;
        if (r) {
          EXPECT_EQ(*r, it->second);
          model.erase(it);
        }
      } else {
        auto r = idx.Find(k);
        auto it = model.find(k);
        ASSERT_EQ(r.has_value(), it != model.end()) << "op " << op;
        if (r) {
          EXPECT_EQ(*r, it->second);
          ++finds_hit;
        }
      }
      ASSERT_EQ(idx.size(), model.size());
      IndexStats now = idx.stats();
      saw_move_into_shards |= now.moving && now.sharded;
    }
    EXPECT_GT(violations, 0u);
    EXPECT_GT(finds_hit, 0u);
    EXPECT_EQ(idx.stats().hash_computations, key_calls);
    if (arm == Arm::kSharded) {
      EXPECT_TRUE(saw_move_into_shards) << "the mix must cross the split";
    }
    auto got = contents(idx);
    ASSERT_EQ(got.size(), model.size());
    for (const auto& [k, r] : model) ASSERT_EQ(got.at(k), r);
  }
}

TEST(UniqueIndex, BatchViolationChangesNothing) {
  UniqueIndex idx;
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_FALSE(idx.Put(key_of(i), i));
  auto before = contents(idx);

  UniqueBatch within;  // two puts of one key for different rows
  within.Erase(key_of(1));
  within.Put("fresh-a", 5000);
  within.Put("fresh-b", 5001);
  within.Put("fresh-a", 5002);
  auto v = idx.Apply(within);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->kind, UniqueViolation::Kind::kInBatch);
  EXPECT_EQ(v->put_index, 2u);
  EXPECT_EQ(v->other_put_index, 0u);
  EXPECT_EQ(v->key, "fresh-a");
  EXPECT_NE(v->message().find("fresh-a"), std::string::npos);
  EXPECT_EQ(contents(idx), before);

  UniqueBatch existing;  // a key another row holds
  existing.Put("fresh-c", 6000);
  existing.Put(key_of(7), 6001);
  v = idx.Apply(existing);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->kind, UniqueViolation::Kind::kExisting);
  EXPECT_EQ(v->holder_row, 7u);
  EXPECT_EQ(v->put_index, 1u);
  EXPECT_EQ(contents(idx), before);
  EXPECT_EQ(idx.Check(existing)->kind, UniqueViolation::Kind::kExisting);

  UniqueBatch single_put_fails;
  EXPECT_TRUE(idx.Put(key_of(3), 99).has_value());
  EXPECT_EQ(contents(idx), before);

  UniqueBatch move;  // erase then put: a key changes hands, a row keeps its own key
  move.Erase(key_of(7));
  move.Put(key_of(7), 6001);
  move.Put(key_of(8), 8);
  move.Put("fresh-d", 6002);
  EXPECT_FALSE(idx.Check(move).has_value());
  EXPECT_FALSE(idx.Apply(move).has_value());
  EXPECT_EQ(idx.Find(key_of(7)), 6001u);
  EXPECT_EQ(idx.Find(key_of(8)), 8u);
  EXPECT_EQ(idx.Find("fresh-d"), 6002u);
  EXPECT_EQ(idx.size(), 1001u);
}

TEST(UniqueIndex, BatchHashesOnceOutsideTheIndex) {
  UniqueIndex idx;
  UniqueBatch b;
  for (int i = 0; i < 100; ++i) b.Put(key_of(i), i);
  b.Erase("nothing");
  EXPECT_EQ(idx.stats().hash_computations, 0u);
  EXPECT_FALSE(idx.Check(b).has_value());
  EXPECT_FALSE(idx.Apply(b).has_value());
  EXPECT_EQ(idx.stats().hash_computations, 101u);  // credited once, check + apply hash nothing
}

TEST(UniqueIndex, RebuildEqualsIncrementalAndDoesNotGrow) {
  uint64_t seed = base::SeedFromEnv("RebuildEqualsIncrementalAndDoesNotGrow");
  std::mt19937_64 rng(seed);
  for (uint64_t n : {0ul, 5ul, 114688ul, 200000ul}) {
    for (Arm arm : {Arm::kSharded, Arm::kNaive}) {
      UniqueIndex grown(arm);
      std::vector<std::string> keys;
      for (uint64_t i = 0; i < n; ++i) keys.push_back(key_of(rng()));
      std::vector<UniqueIndex::Entry> entries;
      for (uint64_t i = 0; i < n; ++i) {
        if (!grown.Put(keys[i], i)) entries.push_back({keys[i], i});
      }
      UniqueIndex loaded(arm);
      ASSERT_FALSE(loaded.Rebuild(entries).has_value());
      EXPECT_EQ(loaded.stats().growths, 0u) << n;
      ASSERT_EQ(loaded.size(), grown.size());
      uint64_t same = 0;
      loaded.ForEach([&](std::string_view k, uint64_t r) { same += grown.Find(k) == r; });
      EXPECT_EQ(same, grown.size()) << n;
      // It keeps growing normally afterwards.
      for (uint64_t i = 0; i < 1000; ++i) ASSERT_FALSE(loaded.Put("after-" + std::to_string(i), i));
      EXPECT_EQ(loaded.size(), entries.size() + 1000);
    }
  }
  UniqueIndex dup;
  std::vector<UniqueIndex::Entry> bad = {{"a", 1}, {"b", 2}, {"a", 3}};
  auto v = dup.Rebuild(bad);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->put_index, 2u);
  EXPECT_EQ(v->other_put_index, 0u);
  EXPECT_EQ(dup.size(), 0u);
}

TEST(UniqueIndex, OddKeysAndMemoryAccounting) {
  UniqueIndex idx;
  std::string zeros("\0\0\0", 3), big(100000, 'x');
  EXPECT_FALSE(idx.Put("", 1));
  EXPECT_FALSE(idx.Put(zeros, 2));
  EXPECT_FALSE(idx.Put(big, 3));
  EXPECT_FALSE(idx.Put(std::string(15, 'y'), 4));  // the longest inline key
  EXPECT_FALSE(idx.Put(std::string(16, 'y'), 5));  // the shortest heap key
  EXPECT_EQ(idx.Find(""), 1u);
  EXPECT_EQ(idx.Find(zeros), 2u);
  EXPECT_EQ(idx.Find(std::string("\0\0", 2)), std::nullopt);
  EXPECT_EQ(idx.Find(big), 3u);
  EXPECT_EQ(idx.Find(std::string(15, 'y')), 4u);
  EXPECT_EQ(idx.Find(std::string(16, 'y')), 5u);
  IndexStats st = idx.stats();
  // Slots plus the two heap keys (each at least its length), nothing hidden.
  EXPECT_GE(st.memory_bytes, st.capacity_slots * sizeof(Slot) + 100000 + 16);
  EXPECT_LE(st.memory_bytes, st.capacity_slots * sizeof(Slot) + 100000 + 16 + 4096);
  EXPECT_EQ(idx.Erase(big), 3u);
  EXPECT_LE(idx.stats().memory_bytes, st.capacity_slots * sizeof(Slot) + 16 + 4096);
  EXPECT_EQ(ParseArm("naive"), Arm::kNaive);
  EXPECT_EQ(ParseArm("sharded"), Arm::kSharded);
  EXPECT_EQ(ParseArm("other"), std::nullopt);
}

}  // namespace
}  // namespace fenec::index
