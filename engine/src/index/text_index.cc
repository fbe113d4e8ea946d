// TextIndex: see text_index.h for the design.
#include "engine/src/index/text_index.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <numeric>
#include <utility>

#include "engine/src/index/growing_map.h"

namespace fenec::index {

namespace {

// A slot's value: an inline row (top bit set) or a PostingList* (top bit
// clear: user-space pointers are below 2^63 on every 64-bit Linux).
constexpr uint64_t kInlineBit = uint64_t{1} << 63;
using PostingList = std::vector<uint64_t>;

bool is_inline(uint64_t v) { return (v & kInlineBit) != 0; }
PostingList* list_of(uint64_t v) { return reinterpret_cast<PostingList*>(v); }
uint64_t list_bytes(const PostingList* l) { return sizeof(PostingList) + l->capacity() * sizeof(uint64_t); }

bool term_byte(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

}  // namespace

struct alignas(64) TextCounters {
  std::atomic<uint64_t> hashes{0};
  uint64_t postings = 0;        // (term, row) pairs
  uint64_t postings_bytes = 0;  // PostingList objects and their arrays
  void add_hashes(uint64_t n) {
    hashes.store(hashes.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
};

std::vector<std::string> Tokenize(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !term_byte(static_cast<unsigned char>(text[i]))) ++i;
    if (i == text.size()) break;
    std::string term;
    for (; i < text.size() && term_byte(static_cast<unsigned char>(text[i])); ++i) {
      if (term.size() == TextIndex::kMaxTermBytes) continue;  // cut, but consume the rest
      char c = text[i];
      term += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    out.push_back(std::move(term));
  }
  return out;
}

TextDoc::TextDoc(std::string_view text) {
  std::vector<std::string> all = Tokenize(text);
  std::vector<uint64_t> h(all.size());
  for (size_t i = 0; i < all.size(); ++i) h[i] = HashKey(all[i]).hash;
  uncredited_hashes_ = all.size();
  // Distinct terms in order of first appearance: sort occurrences by
  // (hash, position), keep the first of each run of equal terms.
  std::vector<size_t> order(all.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return h[a] != h[b] ? h[a] < h[b] : a < b; });
  std::vector<size_t> keep;
  for (size_t j = 0; j < order.size(); ++j) {
    bool dup = false;
    for (size_t k = j; k-- > 0 && h[order[k]] == h[order[j]];)
      if (all[order[k]] == all[order[j]]) { dup = true; break; }
    if (!dup) keep.push_back(order[j]);
  }
  std::sort(keep.begin(), keep.end());
  for (size_t i : keep) {
    terms_.push_back(std::move(all[i]));
    hashes_.push_back(h[i]);
  }
}

TextIndex::TextIndex(Arm arm)
    : map_(std::make_unique<GrowingMap>(arm)), counters_(std::make_unique<TextCounters>()) {}

TextIndex::~TextIndex() {
  if (map_) Clear();
}
TextIndex::TextIndex(TextIndex&&) noexcept = default;
TextIndex& TextIndex::operator=(TextIndex&& o) noexcept {
  if (this != &o) {
    if (map_) Clear();
    map_ = std::move(o.map_);
    counters_ = std::move(o.counters_);
  }
  return *this;
}

Arm TextIndex::arm() const { return map_->arm(); }

void TextIndex::AddPosting(const HashedKey& term, uint64_t row) {
  assert(row <= kMaxRow);
  Slot* s = map_->Find(term);
  if (s == nullptr) {
    map_->InsertAbsent(term, kInlineBit | row);
    ++counters_->postings;
    return;
  }
  if (is_inline(s->value)) {
    uint64_t r0 = s->value & ~kInlineBit;
    if (r0 == row) return;
    auto* l = new PostingList{std::min(r0, row), std::max(r0, row)};
    s->value = reinterpret_cast<uint64_t>(l);
    counters_->postings_bytes += list_bytes(l);
    ++counters_->postings;
    return;
  }
  PostingList* l = list_of(s->value);
  counters_->postings_bytes -= list_bytes(l);
  if (l->back() < row) {
    l->push_back(row);  // rows usually arrive in ascending order
    ++counters_->postings;
  } else if (auto it = std::lower_bound(l->begin(), l->end(), row); *it != row) {
    l->insert(it, row);
    ++counters_->postings;
  }
  counters_->postings_bytes += list_bytes(l);
}

void TextIndex::RemovePosting(const HashedKey& term, uint64_t row) {
  Slot* s = map_->Find(term);
  if (s == nullptr) return;
  if (is_inline(s->value)) {
    if ((s->value & ~kInlineBit) != row) return;
    map_->Erase(term, nullptr);
    --counters_->postings;
    return;
  }
  PostingList* l = list_of(s->value);
  auto it = std::lower_bound(l->begin(), l->end(), row);
  if (it == l->end() || *it != row) return;
  --counters_->postings;
  counters_->postings_bytes -= list_bytes(l);
  l->erase(it);
  if (l->size() == 1) {  // back to inline: no list for a single row
    s->value = kInlineBit | l->front();
    delete l;
  } else {
    counters_->postings_bytes += list_bytes(l);
  }
}

void TextIndex::Insert(uint64_t row, std::string_view text) { Insert(row, TextDoc(text)); }

void TextIndex::Insert(uint64_t row, const TextDoc& doc) {
  counters_->add_hashes(std::exchange(doc.uncredited_hashes_, 0));
  for (size_t i = 0; i < doc.terms_.size(); ++i)
    AddPosting({doc.terms_[i], doc.hashes_[i]}, row);
  map_->WriteHappened();
}

void TextIndex::Erase(uint64_t row, std::string_view text) { Erase(row, TextDoc(text)); }

void TextIndex::Erase(uint64_t row, const TextDoc& doc) {
  counters_->add_hashes(std::exchange(doc.uncredited_hashes_, 0));
  for (size_t i = 0; i < doc.terms_.size(); ++i)
    RemovePosting({doc.terms_[i], doc.hashes_[i]}, row);
  map_->WriteHappened();
}

std::vector<uint64_t> TextIndex::Query(std::string_view terms, size_t limit) const {
  return Query(TextDoc(terms), limit);
}

std::vector<uint64_t> TextIndex::Query(const TextDoc& doc, size_t limit) const {
  counters_->add_hashes(std::exchange(doc.uncredited_hashes_, 0));
  std::vector<uint64_t> out;
  if (doc.terms_.empty() || limit == 0) return out;
  std::vector<uint64_t> inline_rows(doc.terms_.size());
  std::vector<std::span<const uint64_t>> lists;
  for (size_t i = 0; i < doc.terms_.size(); ++i) {
    const Slot* s = map_->Find({doc.terms_[i], doc.hashes_[i]});
    if (s == nullptr) return out;
    if (is_inline(s->value)) {
      inline_rows[i] = s->value & ~kInlineBit;
      lists.emplace_back(&inline_rows[i], 1);
    } else {
      lists.emplace_back(*list_of(s->value));
    }
  }
  std::sort(lists.begin(), lists.end(), [](auto a, auto b) { return a.size() < b.size(); });
  // Walk the shortest list; in the others, search forward from where the
  // previous (smaller) candidate was found.
  std::vector<size_t> from(lists.size(), 0);
  for (uint64_t row : lists[0]) {
    bool all = true;
    for (size_t j = 1; j < lists.size() && all; ++j) {
      auto it = std::lower_bound(lists[j].begin() + from[j], lists[j].end(), row);
      from[j] = static_cast<size_t>(it - lists[j].begin());
      if (it == lists[j].end()) return out;  // no later row can match either
      all = *it == row;
    }
    if (all) {
      out.push_back(row);
      if (out.size() == limit) break;
    }
  }
  return out;
}

size_t TextIndex::PostingsSize(std::string_view term) const {
  TextDoc doc(term);
  counters_->add_hashes(std::exchange(doc.uncredited_hashes_, 0));
  if (doc.terms_.size() != 1) return 0;
  const Slot* s = map_->Find({doc.terms_[0], doc.hashes_[0]});
  if (s == nullptr) return 0;
  return is_inline(s->value) ? 1 : list_of(s->value)->size();
}

void TextIndex::Rebuild(std::span<const Doc> docs) {
  std::vector<TextDoc> parsed;
  parsed.reserve(docs.size());
  std::vector<uint64_t> hashes;
  for (const Doc& d : docs) {
    parsed.emplace_back(d.text);
    hashes.insert(hashes.end(), parsed.back().hashes_.begin(), parsed.back().hashes_.end());
  }
  // Distinct terms, by hash: equal hashes of different terms are vanishingly
  // rare and would only cost one growth.
  std::sort(hashes.begin(), hashes.end());
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
  Clear();
  map_->Presize(hashes);
  // Ascending rows make every posting an append.
  std::vector<size_t> order(docs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return docs[a].row < docs[b].row; });
  for (size_t i : order) Insert(docs[i].row, parsed[i]);
}

void TextIndex::Clear() {
  map_->ForEach([](const Slot& s) {
    if (!is_inline(s.value)) delete list_of(s.value);
  });
  map_->Clear();
  counters_->postings = 0;
  counters_->postings_bytes = 0;
}

size_t TextIndex::term_count() const { return map_->size(); }
uint64_t TextIndex::postings_count() const { return counters_->postings; }

IndexStats TextIndex::stats() const {
  IndexStats st = map_->stats();
  st.hash_computations = counters_->hashes.load(std::memory_order_relaxed);
  st.memory_bytes += counters_->postings_bytes;
  return st;
}

const std::vector<GrowthEvent>& TextIndex::growth_log() const { return map_->growth_log(); }

}  // namespace fenec::index
