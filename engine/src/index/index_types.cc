// The one hash of fenec's indexes: XXH3-64 (fast on short keys, stable
// across runs and machines, so a hash may be persisted beside its key).
#include "engine/src/index/index_types.h"

#include <xxhash.h>

namespace fenec::index {

std::string_view ArmName(Arm arm) { return arm == Arm::kNaive ? "naive" : "sharded"; }

std::optional<Arm> ParseArm(std::string_view name) {
  if (name == "sharded") return Arm::kSharded;
  if (name == "naive") return Arm::kNaive;
  return std::nullopt;
}

HashedKey HashKey(std::string_view key) {
  uint64_t h = XXH3_64bits(key.data(), key.size());
  return {key, h == 0 ? 1 : h};  // 0 marks an empty slot
}

}  // namespace fenec::index
