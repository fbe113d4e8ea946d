#include "scenarios/pg/cluster_folder.h"

#include <fmt/format.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace fenec::scenarios::pg {
namespace {

namespace fs = std::filesystem;

// The kernel's rule for searching a folder, by its mode bits: the owner's
// bits if the user owns it, else the group's if it is in the group, else
// the others'.
bool can_search(const struct stat& st, const ServerUser& user) {
  if (user.uid == 0) return true;
  if (st.st_uid == user.uid) return (st.st_mode & S_IXUSR) != 0;
  if (std::find(user.groups.begin(), user.groups.end(), st.st_gid) != user.groups.end())
    return (st.st_mode & S_IXGRP) != 0;
  return (st.st_mode & S_IXOTH) != 0;
}

std::string owner_name(uid_t uid) {
  const struct passwd* pw = getpwuid(uid);
  return pw != nullptr ? pw->pw_name : std::to_string(uid);
}

}  // namespace

ServerUser server_user(std::string* err) {
  ServerUser u;
  if (geteuid() != 0) {
    u.uid = geteuid();
    u.name = owner_name(u.uid);
    const int n = getgroups(0, nullptr);
    u.groups.resize(n > 0 ? n : 0);
    if (n > 0) u.groups.resize(std::max(getgroups(n, u.groups.data()), 0));
    u.groups.push_back(getegid());
    return u;
  }
  struct passwd pw {};
  struct passwd* found = nullptr;
  char buf[4096];
  if (getpwnam_r("postgres", &pw, buf, sizeof(buf), &found) != 0 || found == nullptr) {
    *err = "no 'postgres' system user (the postgresql-15 package installs it)";
    return u;
  }
  u.name = "postgres";
  u.uid = pw.pw_uid;
  int n = 16;
  u.groups.resize(n);
  while (getgrouplist("postgres", pw.pw_gid, u.groups.data(), &n) < 0) u.groups.resize(n);
  u.groups.resize(n);
  return u;
}

std::string first_closed(const std::string& path, const ServerUser& user) {
  std::error_code ec;
  const fs::path full = fs::weakly_canonical(fs::absolute(path), ec);
  fs::path at;
  for (const fs::path& part : full) {
    if (part.empty()) continue;
    at /= part;
    struct stat st {};
    if (stat(at.c_str(), &st) != 0 || !can_search(st, user)) return at.string();
  }
  return "";
}

std::vector<std::string> default_roots() {
  std::vector<std::string> roots;
  if (const char* t = std::getenv("TMPDIR"); t != nullptr && *t != '\0') roots.emplace_back(t);
  roots.emplace_back("/var/tmp");
  roots.emplace_back("/tmp");
  return roots;
}

ClusterFolder place_cluster(const std::string& dir, const ServerUser& user, const std::vector<std::string>& roots) {
  ClusterFolder f;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    f.error = fmt::format("mkdir {}: {}", dir, ec.message());
    return f;
  }
  const std::string asked = fs::absolute(dir).lexically_normal().string();
  // The folder itself postgres.sh gives to the user; the ones above it must be open already.
  const std::string closed = first_closed(fs::path(asked).parent_path().string(), user);
  if (closed.empty()) {
    f.path = asked;
    return f;
  }
  struct stat want {};
  if (stat(asked.c_str(), &want) != 0) {
    f.error = fmt::format("stat {}: {}", asked, std::strerror(errno));
    return f;
  }
  std::string tried;
  for (const std::string& root : roots) {
    tried += (tried.empty() ? "" : ", ") + root;
    struct stat st {};
    if (stat(root.c_str(), &st) != 0 || st.st_dev != want.st_dev || !first_closed(root, user).empty()) continue;
    std::string made = root + "/fenec-pg-XXXXXX";
    if (mkdtemp(made.data()) == nullptr) continue;
    fs::remove(asked, ec);  // the folder asked for, left empty: only what the run uses stays
    f.path = std::move(made);
    f.made = true;
    return f;
  }
  struct stat cst {};
  stat(closed.c_str(), &cst);
  f.error = fmt::format(
      "PostgreSQL cannot keep its cluster in {}: the {} user, who runs it, cannot pass {} (mode {:04o}, owner {}), "
      "and none of {} is on that file system and open to it; give the run a scratch folder it can reach",
      asked, user.name, closed, cst.st_mode & 07777, owner_name(cst.st_uid), tried);
  return f;
}

}  // namespace fenec::scenarios::pg
