// The engine's hot paths with fixed work and fixed keys, for micro-icount.
// Inputs are built in prepare() (not counted); the returned work is counted.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/src/index/unique_index.h"
#include "engine/src/journal/format.h"
#include "scenarios/micro/engine_benches.h"

namespace fenec::scenarios::micro {
namespace {

std::vector<std::string> keys(size_t n) {
  std::vector<std::string> k;
  k.reserve(n);
  for (size_t i = 0; i < n; ++i) k.push_back(fmt::format("user-{:08}", i * 7919 % n));
  return k;
}

}  // namespace

std::vector<IcountKernel> engine_icount_kernels() {
  std::vector<IcountKernel> out;
  out.reserve(64);  // one fixed-size block, as micro-icount's
  out.push_back({"ENG/unique_put", []() -> IcountWork {
    auto k = std::make_shared<const std::vector<std::string>>(keys(5000));
    return [k] {
      index::UniqueIndex u;
      for (size_t i = 0; i < k->size(); ++i) u.Put((*k)[i], i + 1);
      return static_cast<uint64_t>(u.size());
    };
  }});
  out.push_back({"ENG/unique_find", []() -> IcountWork {
    auto k = std::make_shared<const std::vector<std::string>>(keys(5000));
    auto u = std::make_shared<index::UniqueIndex>();
    for (size_t i = 0; i < k->size(); ++i) u->Put((*k)[i], i + 1);
    return [k, u] {
      uint64_t found = 0;
      for (int rep = 0; rep < 20; ++rep) {
        for (const auto& key : *k) found += u->Find(key).has_value();
      }
      return found;
    };
  }});
  out.push_back({"ENG/journal_encode", []() -> IcountWork {
    return [] {
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
    };
  }});
  out.push_back({"ENG/journal_verify", []() -> IcountWork {
    return [] {
      const std::vector<uint8_t> payload(256, 0xa5);
      std::vector<uint8_t> rec;
      journal::AppendRecord(&rec, 7, 42, payload);
      journal::RecordHeader h;
      std::span<const uint8_t> body;
      uint64_t ok = 0;
      for (int i = 0; i < 2000; ++i) ok += journal::ParseRecord(rec, 7, &h, &body) == journal::ReadResult::kOk;
      return ok;
    };
  }});
  return out;
}

}  // namespace fenec::scenarios::micro
