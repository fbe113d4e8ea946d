#include "engine/src/base/scratch.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace fenec::base {

std::string ScratchRoot() {
  for (const char* var : {"FENEC_TEST_DIR", "TMPDIR"}) {
    const char* v = std::getenv(var);
    if (v != nullptr && *v != '\0') return v;
  }
  return "/tmp";
}

ScratchDir::ScratchDir(std::string_view tag) {
  std::string root = ScratchRoot();
  std::error_code ec;
  std::filesystem::create_directories(root, ec);  // FENEC_TEST_DIR may not exist yet
  std::string tmpl = root + "/fenec-" + std::string(tag) + "-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    error_ = "mkdtemp " + tmpl + ": " + std::strerror(errno);
    return;
  }
  path_ = std::move(tmpl);
}

ScratchDir::~ScratchDir() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string ScratchDir::path(std::string_view name) const { return path_ + "/" + std::string(name); }

size_t ScratchDir::entries() const {
  size_t n = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(path_, ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec))
    ++n;
  return n;
}

}  // namespace fenec::base
