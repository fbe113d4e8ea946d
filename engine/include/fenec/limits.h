// The limits fenecdb enforces, declared once. Each is checked on the write
// side before anything lands (over it: Status::TooLarge naming the limit,
// nothing changed), so recovery never meets a record it refuses; readers and
// recovery check the same constants. fenec-server's flags are bounded by them.
#pragma once

#include <cstdint>

namespace fenec::limits {

// One journal record's payload: a commit (a put, a batch, a delete, a new
// collection) and each index branch's record of it. Recovery treats a longer
// length field as corruption, so the writer refuses a commit that would need one.
inline constexpr uint64_t kMaxCommitBytes = 256u << 20;

// Live collections in one database (a dropped one no longer counts).
inline constexpr uint32_t kMaxCollections = 4096;

// Fields in one schema (Schema::Validate).
inline constexpr uint32_t kMaxFields = 4096;

// Bytes of a collection's or a field's name (CheckName).
inline constexpr uint32_t kMaxNameBytes = 255;

// Floats in a vector field (Schema::Validate; the vector index checks the same bound).
inline constexpr uint32_t kMaxVectorDim = 65536;

}  // namespace fenec::limits
