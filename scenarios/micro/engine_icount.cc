// The engine's hot paths with fixed work and fixed keys, for micro-icount.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/src/index/unique_index.h"
#include "journal/format.h"
#include "scenarios/micro/engine_benches.h"

namespace fenec::micro {

std::vector<std::pair<std::string, std::function<uint64_t()>>> engine_icount_kernels() {
  auto keys = [](size_t n) {
    std::vector<std::string> k;
    for (size_t i = 0; i < n; ++i) k.push_back(fmt::format("user-{:08}", i * 7919 % n));
    return k;
  };
  std::vector<std::pair<std::string, std::function<uint64_t()>>> out;
  out.emplace_back("ENG/unique_put", [keys] {
    const auto k = keys(5000);
    index::UniqueIndex u;
    for (size_t i = 0; i < k.size(); ++i) u.put(k[i], i + 1);
    return static_cast<uint64_t>(u.size());
  });
  // Built here, before micro-icount zeroes the counters: only the finds count.
  auto find_keys = std::make_shared<const std::vector<std::string>>(keys(5000));
  auto find_index = std::make_shared<index::UniqueIndex>();
  for (size_t i = 0; i < find_keys->size(); ++i) find_index->put((*find_keys)[i], i + 1);
  out.emplace_back("ENG/unique_find", [find_keys, find_index] {
    uint64_t found = 0;
    for (int rep = 0; rep < 20; ++rep) {
      for (const auto& key : *find_keys) found += find_index->find(key).has_value();
    }
    return found;
  });
  out.emplace_back("ENG/journal_encode", [] {
    const std::vector<uint8_t> payload(256, 0x5a);
    std::vector<uint8_t> buf;
    uint64_t bytes = 0;
    for (uint64_t lsn = 1; lsn <= 2000; ++lsn) {
      if (buf.size() > 60000) {
        bytes += buf.size();
        buf.clear();
      }
      journal::AppendRecord(&buf, 7, lsn, payload);
    }
    return bytes + buf.size();
  });
  out.emplace_back("ENG/journal_verify", [] {
    const std::vector<uint8_t> payload(256, 0xa5);
    std::vector<uint8_t> rec;
    journal::AppendRecord(&rec, 7, 42, payload);
    journal::RecordHeader h;
    std::span<const uint8_t> body;
    uint64_t ok = 0;
    for (int i = 0; i < 2000; ++i) ok += journal::ParseRecord(rec, 7, &h, &body) == journal::ReadResult::kOk;
    return ok;
  });
  return out;
}

}  // namespace fenec::micro
