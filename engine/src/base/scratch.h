// ScratchDir: a fresh folder for a test's or a tool's files, removed with
// everything in it when the ScratchDir goes.
//
// It lives under ScratchRoot(): $FENEC_TEST_DIR if set (meson sets it to the
// build folder for every test, a real disk filesystem, where /tmp may be a
// tmpfs that has no O_DIRECT and never syncs), else $TMPDIR, else /tmp. The
// name is unique (mkdtemp) and starts with the tag, so a folder left behind by
// a killed run says who made it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fenec::base {

std::string ScratchRoot();

class ScratchDir {
 public:
  // Creates <ScratchRoot()>/fenec-<tag>-XXXXXX. On failure path() is empty
  // and error() says why.
  explicit ScratchDir(std::string_view tag = "scratch");
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  bool ok() const { return !path_.empty(); }
  const std::string& error() const { return error_; }
  const std::string& path() const { return path_; }
  // path()/name.
  std::string path(std::string_view name) const;
  // Entries left in the folder (a test checks that a run removed its own files).
  size_t entries() const;

 private:
  std::string path_, error_;
};

}  // namespace fenec::base
