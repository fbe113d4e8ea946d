#include "scenarios/soak/acked.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>
#include <simdjson.h>

#include "engine/src/base/json.h"

namespace fenec::scenarios::soak {
namespace {

uint64_t Mix(uint64_t x) {  // splitmix64's finalizer: a key's fields look random, yet rebuild exactly
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

constexpr const char* kWords[] = {"amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "heron"};
// Non-ASCII text of each UTF-8 length, so a byte lost or mangled on the way shows.
constexpr const char* kTails[] = {"caf\xC3\xA9", "stra\xC3\x9F" "e", "\xE2\x82\xAC" "5", "\xE6\x97\xA5\xE6\x9C\xAC",
                                  "\xF0\x9F\xA6\x8A fox"};

}  // namespace

std::string Word(uint64_t i) { return kWords[i % std::size(kWords)]; }

SoakDoc MakeDoc(int64_t key, uint64_t seed) {
  const uint64_t h = Mix(static_cast<uint64_t>(key) ^ Mix(seed));
  SoakDoc d;
  d.key = key;
  d.n = static_cast<int64_t>(h % kNRange);
  // Multiples of 1/8 and 1/4: exact in binary, so they print and parse back to the same bits.
  d.x = static_cast<double>((h >> 20) % 100000) / 8.0 - 5000.0;
  d.s = fmt::format("{} {} {} #{}", Word(h >> 8), Word(h >> 12), kTails[(h >> 16) % std::size(kTails)], key);
  d.b = ((h >> 40) & 1) != 0;
  for (size_t i = 0; i < d.v.size(); ++i) d.v[i] = static_cast<float>((h >> (44 + 4 * i)) % 16) / 4.0f - 2.0f;
  if (key >= kFatKeys) {
    const size_t lean = d.s.size();
    for (uint64_t i = h; d.s.size() < lean + kFatPadBytes; ++i) d.s += " " + Word(i);
  }
  return d;
}

std::string DocJson(const SoakDoc& d) {
  std::string s;
  base::AppendJsonString(s, d.s);
  return fmt::format(R"j({{"key": {}, "n": {}, "x": {}, "s": {}, "b": {}, "v": [{}, {}, {}, {}]}})j", d.key, d.n, d.x, s,
                     d.b ? "true" : "false", d.v[0], d.v[1], d.v[2], d.v[3]);
}

std::string Differs(const SoakDoc& d, std::string_view doc) {
  simdjson::dom::parser parser;
  simdjson::padded_string text(doc);
  simdjson::dom::object o;
  if (parser.parse(text).get(o)) return fmt::format("not a JSON object: {}", doc);
  int64_t key = 0, n = 0;
  double x = 0;
  std::string_view s;
  bool b = false;
  simdjson::dom::array v;
  if (o["key"].get(key) || key != d.key) return fmt::format("key: want {}, got {}", d.key, doc);
  if (o["n"].get(n) || n != d.n) return fmt::format("key {}: n want {}, got {}", d.key, d.n, doc);
  if (o["x"].get(x) || x != d.x) return fmt::format("key {}: x want {}, got {}", d.key, d.x, doc);
  if (o["s"].get(s) || s != d.s) return fmt::format("key {}: s differs: {}", d.key, doc.substr(0, 300));
  if (o["b"].get(b) || b != d.b) return fmt::format("key {}: b want {}, got {}", d.key, d.b, doc);
  if (o["v"].get(v) || v.size() != d.v.size()) return fmt::format("key {}: v is not 4 numbers: {}", d.key, doc);
  size_t i = 0;
  for (simdjson::dom::element e : v) {
    double f = 0;
    if (e.get(f) || static_cast<float>(f) != d.v[i]) return fmt::format("key {}: v[{}] differs: {}", d.key, i, doc);
    ++i;
  }
  if (o.size() != 6) return fmt::format("key {}: {} fields, want 6: {}", d.key, o.size(), doc);
  return "";
}

void AckedWrites::Add(const std::vector<Ack>& acks) {
  std::lock_guard<std::mutex> lock(mu_);
  acks_.insert(acks_.end(), acks.begin(), acks.end());
}

size_t AckedWrites::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return acks_.size();
}

Ack AckedWrites::at(size_t i) const {
  std::lock_guard<std::mutex> lock(mu_);
  return acks_[i];
}

std::vector<Ack> AckedWrites::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return acks_;
}

VerifyResult Verify(std::vector<Ack> acks, uint64_t seed, const RangeFetch& fetch, int64_t bucket) {
  VerifyResult r;
  std::sort(acks.begin(), acks.end(), [](const Ack& a, const Ack& b) { return a.key < b.key; });
  auto problem = [&r](std::string p) {
    if (r.problems.size() < 10) r.problems.push_back(std::move(p));
  };
  simdjson::dom::parser parser;
  size_t i = 0;
  while (i < acks.size()) {
    const int64_t lo = acks[i].key, hi = lo + std::max<int64_t>(1, bucket);
    std::string err;
    const std::string body = fetch(lo, hi, &err);
    ++r.fetches;
    if (!err.empty()) {
      r.error = fmt::format("FIND keys [{}, {}): {}", lo, hi, err);
      return r;
    }
    simdjson::padded_string text(body);
    simdjson::dom::array rows;
    if (parser.parse(text)["rows"].get(rows)) {
      r.error = fmt::format("FIND keys [{}, {}): no rows in {}", lo, hi, body.substr(0, 200));
      return r;
    }
    std::unordered_map<int64_t, std::string> by_id;  // the documents' JSON text, by id
    for (simdjson::dom::element row : rows) {
      int64_t id = 0;
      simdjson::dom::element doc;
      if (row["id"].get(id) || row["doc"].get(doc)) continue;
      by_id[id] = simdjson::minify(doc);
    }
    for (; i < acks.size() && acks[i].key < hi; ++i) {
      ++r.checked;
      auto it = by_id.find(acks[i].id);
      if (it == by_id.end()) {
        ++r.missing;
        problem(fmt::format("id {} (key {}) acknowledged, not found", acks[i].id, acks[i].key));
        continue;
      }
      if (std::string d = Differs(MakeDoc(acks[i].key, seed), it->second); !d.empty()) {
        ++r.altered;
        problem(fmt::format("id {}: {}", acks[i].id, d));
      }
    }
  }
  return r;
}

}  // namespace fenec::scenarios::soak
