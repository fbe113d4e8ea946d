#include "iobench/src/mode.h"

#include <fcntl.h>
#include <fmt/format.h>

#include "iobench/src/units.h"

namespace fenec::iobench {
namespace {

template <typename T, size_t N>
bool parse_named(std::string_view text, const T (&values)[N], const char* (*name)(T), const char* what,
                 T* out, std::string* error) {
  std::string known;
  for (T v : values) {
    if (text == name(v)) {
      *out = v;
      return true;
    }
    known += known.empty() ? name(v) : fmt::format(", {}", name(v));
  }
  *error = fmt::format("unknown {} '{}' (known: {})", what, text, known);
  return false;
}

template <typename T>
bool parse_list(std::string_view text, std::vector<T>* out, std::string* error,
                bool (*one)(std::string_view, T*, std::string*)) {
  out->clear();
  for (const std::string& item : split_list(text)) {
    T v{};
    if (!one(item, &v, error)) return false;
    out->push_back(v);
  }
  return true;
}

constexpr Layout kAllLayouts[] = {Layout::kShared, Layout::kPerJob};

}  // namespace

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::kBuffered: return "buffered";
    case Mode::kFsync: return "fsync";
    case Mode::kFdatasync: return "fdatasync";
    case Mode::kDsync: return "dsync";
    case Mode::kDirect: return "direct";
    case Mode::kDirectDsync: return "direct-dsync";
  }
  return "?";
}

bool parse_mode(std::string_view text, Mode* out, std::string* error) {
  return parse_named(text, kAllModes, mode_name, "mode", out, error);
}

bool parse_mode_list(std::string_view text, std::vector<Mode>* out, std::string* error) {
  return parse_list<Mode>(text, out, error, parse_mode);
}

int mode_open_flags(Mode m) {
  switch (m) {
    case Mode::kDsync: return O_DSYNC;
    case Mode::kDirect: return O_DIRECT;
    case Mode::kDirectDsync: return O_DIRECT | O_DSYNC;
    default: return 0;
  }
}

SyncCall mode_sync(Mode m) {
  if (m == Mode::kFsync) return SyncCall::kFsync;
  if (m == Mode::kFdatasync) return SyncCall::kFdatasync;
  return SyncCall::kNone;
}

bool mode_direct(Mode m) { return m == Mode::kDirect || m == Mode::kDirectDsync; }

bool mode_durable(Mode m) { return m != Mode::kBuffered && m != Mode::kDirect; }

const char* sync_name(SyncCall s) {
  switch (s) {
    case SyncCall::kNone: return "none";
    case SyncCall::kFsync: return "fsync";
    case SyncCall::kFdatasync: return "fdatasync";
  }
  return "?";
}

const char* layout_name(Layout l) { return l == Layout::kShared ? "shared" : "per-job"; }

bool parse_layout(std::string_view text, Layout* out, std::string* error) {
  return parse_named(text, kAllLayouts, layout_name, "layout", out, error);
}

bool parse_layout_list(std::string_view text, std::vector<Layout>* out, std::string* error) {
  return parse_list<Layout>(text, out, error, parse_layout);
}

std::string case_name(uint64_t size, unsigned jobs, Layout layout, unsigned batch, unsigned depth) {
  std::string s = fmt::format("size={};jobs={};layout={}", size_label(size), jobs, layout_name(layout));
  if (batch > 1) s += fmt::format(";batch={}", batch);
  if (depth > 1) s += fmt::format(";depth={}", depth);
  return s;
}

}  // namespace fenec::iobench
