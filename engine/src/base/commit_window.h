// The adaptive commit window's bound (Options::commit_window_us's default,
// journal/group_commit.h): at most 1/kAdaptiveWindowSyncDivisor of a recent
// fdatasync and kAdaptiveWindowMaxUs, none under kAdaptiveWindowMinUs (a
// sync that cheap, as on tmpfs, is not worth a timed wait). Here, below
// both, so iobench's advise prices the very bound the engine keeps.
#pragma once

#include <cstdint>

namespace fenec {

inline constexpr uint32_t kAdaptiveWindowSyncDivisor = 2;
inline constexpr uint32_t kAdaptiveWindowMinUs = 20;
inline constexpr uint32_t kAdaptiveWindowMaxUs = 1000;

}  // namespace fenec
