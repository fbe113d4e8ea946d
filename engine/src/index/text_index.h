// TextIndex: the term index behind a @text field (GR-2).
//
// Include as "engine/src/index/text_index.h" and link fenec_index_dep.
// Namespace fenec::index.
//
// Design. A document's text is tokenized (ASCII letters lowercased, split on
// every byte that is not an ASCII letter or digit; bytes >= 0x80 are kept as
// term bytes so UTF-8 words stay whole; a term longer than kMaxTermBytes is
// cut to that length, the same way for documents and queries). Each distinct
// term lives in the same growing structure as UniqueIndex (hash stored
// beside the term, 256 tables past 114 688 terms, each growing on its own),
// and maps to its postings: the ascending row ids of the documents holding
// it. A term held by one row keeps that row inline in its slot (most terms
// of a real vocabulary are rare); from two rows on it points at a sorted
// vector. So a growth moves slots only, never postings.
//
// Queries are AND over one or more terms: the shortest postings list is
// walked and each candidate looked up in the others by binary search;
// results ascend by row id and stop at `limit`.
//
// Row ids must be below 2^63 (the top bit tags an inline posting).
// Concurrency as UniqueIndex: const methods under the shared lock, the rest
// under the exclusive lock; TextDoc is built with no lock.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/src/index/index_types.h"

namespace fenec::index {

class GrowingMap;

// Terms of `text` in order of appearance, repeats kept.
std::vector<std::string> Tokenize(std::string_view text);

// A document's distinct terms, tokenized and hashed OUTSIDE the write lock.
class TextDoc {
 public:
  TextDoc() = default;
  explicit TextDoc(std::string_view text);
  size_t size() const { return terms_.size(); }
  const std::string& term(size_t i) const { return terms_[i]; }

 private:
  friend class TextIndex;
  std::vector<std::string> terms_;   // distinct, in order of first appearance
  std::vector<uint64_t> hashes_;     // hashes_[i] = HashKey(terms_[i]).hash
  mutable uint64_t uncredited_hashes_ = 0;  // added to an index's counter when first used
};

class TextIndex {
 public:
  static constexpr size_t kMaxTermBytes = 128;
  static constexpr uint64_t kMaxRow = (uint64_t{1} << 63) - 1;

  explicit TextIndex(Arm arm = Arm::kSharded);
  ~TextIndex();
  TextIndex(TextIndex&&) noexcept;
  TextIndex& operator=(TextIndex&&) noexcept;
  TextIndex(const TextIndex&) = delete;
  TextIndex& operator=(const TextIndex&) = delete;

  Arm arm() const;

  // Adds `row` to the postings of each distinct term (idempotent per term).
  void Insert(uint64_t row, std::string_view text);
  void Insert(uint64_t row, const TextDoc& doc);
  // Removes `row` from the postings of each term of the text it was inserted
  // with; a term left with no rows is removed.
  void Erase(uint64_t row, std::string_view text);
  void Erase(uint64_t row, const TextDoc& doc);

  // Rows holding every term of `terms` (tokenized as documents are),
  // ascending, at most `limit`. No terms: no rows.
  std::vector<uint64_t> Query(std::string_view terms, size_t limit) const;
  std::vector<uint64_t> Query(const TextDoc& terms, size_t limit) const;
  // Rows holding one term (tokenized; must yield exactly one term, else 0).
  size_t PostingsSize(std::string_view term) const;

  // Replaces the contents by these documents in one presized load (open).
  struct Doc {
    uint64_t row = 0;
    std::string_view text;
  };
  void Rebuild(std::span<const Doc> docs);
  void Clear();

  size_t term_count() const;
  uint64_t postings_count() const;  // (term, row) pairs
  IndexStats stats() const;         // keys = distinct terms; memory includes postings
  const std::vector<GrowthEvent>& growth_log() const;

 private:
  std::span<const uint64_t> PostingsOf(const HashedKey& term, uint64_t* inline_buf) const;
  void AddPosting(const HashedKey& term, uint64_t row);
  void RemovePosting(const HashedKey& term, uint64_t row);
  std::unique_ptr<GrowingMap> map_;
  std::unique_ptr<struct TextCounters> counters_;
};

}  // namespace fenec::index
