#include "scenarios/micro/engine_benches.h"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/src/index/unique_index.h"
#include "engine/src/journal/format.h"

namespace fenec::scenarios::micro {
namespace {

constexpr size_t kIndexKeys = 100000;  // past nothing in particular: a mid-size @unique index
constexpr size_t kPutKeys = 10000;
constexpr size_t kPayload = 256;       // a small document's journal record

std::vector<std::string> make_keys(size_t n, const char* prefix) {
  std::vector<std::string> keys;
  keys.reserve(n);
  for (size_t i = 0; i < n; ++i) keys.push_back(fmt::format("{}{:08}", prefix, i * 7919 % n));
  return keys;
}

void bench_unique_find(benchmark::State& st) {
  static const std::vector<std::string> keys = make_keys(kIndexKeys, "user-");
  static const index::UniqueIndex idx = [] {
    index::UniqueIndex u;
    for (size_t i = 0; i < keys.size(); ++i) u.Put(keys[i], i + 1);
    return u;
  }();
  size_t i = 0;
  uint64_t found = 0;
  for (auto _ : st) {
    found += idx.Find(keys[i]).has_value() ? 1 : 0;
    i = (i + 4099) % keys.size();
  }
  if (found != static_cast<uint64_t>(st.iterations())) st.SkipWithError("a stored key was not found");
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations()));
}

void bench_unique_put(benchmark::State& st) {
  static const std::vector<std::string> keys = make_keys(kPutKeys, "order-");
  for (auto _ : st) {
    // From empty: the growths a young index goes through are part of the cost.
    index::UniqueIndex u;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (u.Put(keys[i], i + 1).has_value()) {
        st.SkipWithError("unexpected uniqueness violation");
        return;
      }
    }
    benchmark::DoNotOptimize(u.size());
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * kPutKeys));
}

void bench_journal_encode(benchmark::State& st) {
  const std::vector<uint8_t> payload(kPayload, 0x5a);
  std::vector<uint8_t> out;
  out.reserve(64 * (journal::kHeaderSize + kPayload));
  uint64_t lsn = 1;
  for (auto _ : st) {
    if (out.size() >= 63 * (journal::kHeaderSize + kPayload)) out.clear();
    journal::AppendRecord(&out, 7, lsn++, payload);
  }
  benchmark::DoNotOptimize(out.data());
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations()));
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * kPayload));
}

void bench_journal_verify(benchmark::State& st) {
  const std::vector<uint8_t> payload(kPayload, 0xa5);
  std::vector<uint8_t> rec;
  journal::AppendRecord(&rec, 7, 42, payload);
  journal::RecordHeader h;
  std::span<const uint8_t> body;
  for (auto _ : st) {
    // Parsing verifies the XXH3 checksum: the cost recovery pays per record.
    if (journal::ParseRecord(rec, 7, &h, &body) != journal::ReadResult::kOk) {
      st.SkipWithError("a good record failed to parse");
      return;
    }
    benchmark::DoNotOptimize(body.data());
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations()));
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * kPayload));
}

// The comparison arms: the same work done by the standard library, measured in
// the same run, so the CI compares ratios that a busy machine does not move.
void bench_std_map_find(benchmark::State& st) {
  static const std::vector<std::string> keys = make_keys(kIndexKeys, "user-");
  static const std::unordered_map<std::string, uint64_t> m = [] {
    std::unordered_map<std::string, uint64_t> u;
    for (size_t i = 0; i < keys.size(); ++i) u.emplace(keys[i], i + 1);
    return u;
  }();
  size_t i = 0;
  uint64_t found = 0;
  for (auto _ : st) {
    found += m.find(keys[i]) != m.end() ? 1 : 0;
    i = (i + 4099) % keys.size();
  }
  benchmark::DoNotOptimize(found);
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations()));
}

void bench_std_map_put(benchmark::State& st) {
  static const std::vector<std::string> keys = make_keys(kPutKeys, "order-");
  for (auto _ : st) {
    std::unordered_map<std::string, uint64_t> u;
    for (size_t i = 0; i < keys.size(); ++i) u.emplace(keys[i], i + 1);
    benchmark::DoNotOptimize(u.size());
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * kPutKeys));
}

// Copying a record's bytes into the journal buffer: what encoding costs at least.
void bench_memcpy_record(benchmark::State& st) {
  const std::vector<uint8_t> payload(kPayload + journal::kHeaderSize, 0x5a);
  std::vector<uint8_t> out;
  out.reserve(64 * payload.size());
  for (auto _ : st) {
    if (out.size() >= 63 * payload.size()) out.clear();
    out.insert(out.end(), payload.begin(), payload.end());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations()));
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * kPayload));
}

}  // namespace

void register_engine_benchmarks(std::map<std::string, std::string>* cases) {
  benchmark::RegisterBenchmark("ENG/unique_find", bench_unique_find);
  benchmark::RegisterBenchmark("ENG/unique_put", bench_unique_put);
  benchmark::RegisterBenchmark("ENG/journal_encode", bench_journal_encode);
  benchmark::RegisterBenchmark("ENG/journal_verify", bench_journal_verify);
  benchmark::RegisterBenchmark("ENG/std_map_find", bench_std_map_find);
  benchmark::RegisterBenchmark("ENG/std_map_put", bench_std_map_put);
  benchmark::RegisterBenchmark("ENG/memcpy_record", bench_memcpy_record);
  (*cases)["ENG/std_map_find"] = fmt::format("keys={}", kIndexKeys);
  (*cases)["ENG/std_map_put"] = fmt::format("keys={};from=empty", kPutKeys);
  (*cases)["ENG/memcpy_record"] = fmt::format("payload={}", kPayload);
  (*cases)["ENG/unique_find"] = fmt::format("keys={}", kIndexKeys);
  (*cases)["ENG/unique_put"] = fmt::format("keys={};from=empty", kPutKeys);
  (*cases)["ENG/journal_encode"] = fmt::format("payload={}", kPayload);
  (*cases)["ENG/journal_verify"] = fmt::format("payload={}", kPayload);
}

}  // namespace fenec::scenarios::micro
