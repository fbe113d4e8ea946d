// Byte coding shared by every on-disk format (journal records, superblocks,
// rows, journal payloads, the catalog): little-endian fixed ints and LEB128
// varints, with a bounds-checked reader (every decode of on-disk bytes goes
// through it, so corrupt input is an error, never an overrun).
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace fenec::base {

using Bytes = std::vector<uint8_t>;

inline void PutVarint(Bytes* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<uint8_t>(v));
}
inline void PutFixed64(Bytes* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}
inline void PutFixed32(Bytes* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}
inline void PutBytes(Bytes* out, std::span<const uint8_t> b) { out->insert(out->end(), b.begin(), b.end()); }
inline void PutString(Bytes* out, std::string_view s) {
  PutVarint(out, s.size());
  out->insert(out->end(), s.begin(), s.end());
}
// In place, at p (a header being filled in).
inline void StoreFixed32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline void StoreFixed64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint64_t LoadFixed64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}
inline uint32_t LoadFixed32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> data) : p_(data.data()), end_(data.data() + data.size()) {}
  bool ok() const { return ok_; }
  bool done() const { return p_ == end_; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  const uint8_t* pos() const { return p_; }

  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) return Fail();
      uint8_t b = *p_++;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
    return Fail();
  }
  uint64_t Fixed64() {
    if (remaining() < 8) return Fail();
    uint64_t v = LoadFixed64(p_);
    p_ += 8;
    return v;
  }
  uint32_t Fixed32() {
    if (remaining() < 4) return static_cast<uint32_t>(Fail());
    uint32_t v = LoadFixed32(p_);
    p_ += 4;
    return v;
  }
  uint8_t Byte() {
    if (p_ == end_) return static_cast<uint8_t>(Fail());
    return *p_++;
  }
  std::span<const uint8_t> Take(size_t n) {
    if (remaining() < n) {
      Fail();
      return {};
    }
    std::span<const uint8_t> s(p_, n);
    p_ += n;
    return s;
  }
  std::string_view String() {
    uint64_t n = Varint();
    auto s = Take(ok_ ? n : 0);
    return {reinterpret_cast<const char*>(s.data()), s.size()};
  }

 private:
  uint64_t Fail() {
    ok_ = false;
    p_ = end_;
    return 0;
  }
  const uint8_t* p_;
  const uint8_t* end_;
  bool ok_ = true;
};

}  // namespace fenec::base
