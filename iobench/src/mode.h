// The axes of an iobench grid: how a write is made durable (Mode) and where
// each job writes (Layout); and the names the reports rely on (the case
// string). How a write is handed to the kernel, and the arm name that
// carries it, are the submission paths' (submit.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fenec::iobench {

enum class Mode { kBuffered, kFsync, kFdatasync, kDsync, kDirect, kDirectDsync };
enum class SyncCall { kNone, kFsync, kFdatasync };
enum class Layout { kShared, kPerJob };

inline constexpr Mode kAllModes[] = {Mode::kBuffered, Mode::kFsync,  Mode::kFdatasync,
                                     Mode::kDsync,    Mode::kDirect, Mode::kDirectDsync};

const char* mode_name(Mode m);
bool parse_mode(std::string_view text, Mode* out, std::string* error);
bool parse_mode_list(std::string_view text, std::vector<Mode>* out, std::string* error);
// Flags added to O_WRONLY when a job opens its file in this mode.
int mode_open_flags(Mode m);
// The call made after each write (or each round of writes at --depth > 1).
SyncCall mode_sync(Mode m);
bool mode_direct(Mode m);
// Whether a write counts as durable when the mode's write (and sync) returns.
bool mode_durable(Mode m);
const char* sync_name(SyncCall s);

const char* layout_name(Layout l);
bool parse_layout(std::string_view text, Layout* out, std::string* error);
bool parse_layout_list(std::string_view text, std::vector<Layout>* out, std::string* error);

// "size=4k;jobs=1;layout=shared", then ";batch=N" when N > 1 and ";depth=N" when N > 1.
std::string case_name(uint64_t size, unsigned jobs, Layout layout, unsigned batch, unsigned depth);

}  // namespace fenec::iobench
