// The project's version and the commit a binary was built from, for every
// tool's --version: "0.1.0 (commit 36d06138ff)". The version is meson's project
// version (meson.build, its one declaration); the commit is `git describe`'s
// at build time, "unknown" outside a git checkout. Only the tools link it
// (fenec_version_dep): a new commit recompiles one file and relinks them.
#pragma once

#include <string>
#include <string_view>

namespace fenec::base {

// "0.1.0"
std::string_view Version();
// git describe's "36d06138ff" (a tag's name once there is one), "...+" with
// uncommitted changes, or "unknown" outside a git checkout.
std::string_view Commit();
// "<tool> 0.1.0 (commit 36d06138ff)": what --version prints.
std::string VersionLine(std::string_view tool);

}  // namespace fenec::base
