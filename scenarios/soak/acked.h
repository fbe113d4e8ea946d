// What the soak's clients were told landed, and the check that it is all
// still there after a kill -9 and a restart.
//
// Each document put carries a unique `key` (one counter for all clients);
// its other fields are a function of the key and the run's seed, so the
// record of an acknowledged write is just (id, key) and its content can be
// rebuilt to compare with what the server answers. The fields span the
// value kinds (int, float, text with 2-, 3- and 4-byte UTF-8, bool, a
// vector for NEAR), each chosen to print back exactly.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace fenec::scenarios::soak {

// The soak's collection: `key` is @unique (a put clashing on it would be a
// 409: a key is never reused), `s` @text for CONTAINS, `v` @hnsw for NEAR.
inline constexpr const char* kSoakSchema =
    "CREATE COLLECTION soak (key INT @unique, n INT, x FLOAT, s TEXT @text, b BOOL, v VECTOR(4) @hnsw)";
inline constexpr int kNRange = 1000000;  // n is in [0, kNRange)
// Keys from kFatKeys on are fat documents: their `s` carries kFatPadBytes
// more of the vocabulary's words. The clients put them while the disk is
// full (disk.h), so the room the server keeps ahead (megabytes of journal
// and data file) runs out in a second or two, not a minute, and the puts
// meet the refusal; their words are few and repeated, so the @text index
// gains no terms.
inline constexpr int64_t kFatKeys = 1'000'000'000'000;
inline constexpr size_t kFatPadBytes = 32 << 10;

struct SoakDoc {
  int64_t key = 0, n = 0;
  double x = 0;
  std::string s;
  bool b = false;
  std::array<float, 4> v{};
};

SoakDoc MakeDoc(int64_t key, uint64_t seed);
// The document as a JSON object (a /docs body element or a $docs parameter).
std::string DocJson(const SoakDoc& d);
// "" when `doc` (a JSON object, as the server answers a document) holds
// exactly d's fields and values; else the first difference.
std::string Differs(const SoakDoc& d, std::string_view doc);
// A word that some documents' `s` holds (for CONTAINS), from a small vocabulary.
std::string Word(uint64_t i);

struct Ack {
  int64_t id = 0, key = 0;
};

// Every acknowledged write, from every client thread.
class AckedWrites {
 public:
  void Add(const std::vector<Ack>& acks);
  size_t size() const;
  // The i-th ack (i < size()), for reading back a random acknowledged document.
  Ack at(size_t i) const;
  std::vector<Ack> Snapshot() const;

 private:
  mutable std::mutex mu_;
  std::vector<Ack> acks_;
};

struct VerifyResult {
  uint64_t checked = 0;  // acknowledged writes looked for
  uint64_t missing = 0;  // no document with that id
  uint64_t altered = 0;  // a document with that id, but not what was written
  uint64_t fetches = 0;
  std::vector<std::string> problems;  // the first few, for the log
  std::string error;                  // a fetch failed: nothing can be said
  uint64_t lost() const { return missing + altered; }
};

// Answers FIND soak WHERE key >= lo AND key < hi: the body
// {"rows":[{"id":..,"doc":{..}},...],"count":n}, or "" with *error set.
using RangeFetch = std::function<std::string(int64_t lo, int64_t hi, std::string* error)>;

// Looks up every ack by id in the documents `fetch` answers, a range of
// `bucket` keys at a time, and compares each with the document its key makes.
VerifyResult Verify(std::vector<Ack> acks, uint64_t seed, const RangeFetch& fetch, int64_t bucket);

}  // namespace fenec::scenarios::soak
