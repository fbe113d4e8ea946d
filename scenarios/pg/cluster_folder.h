// Where a scratch cluster's data folder goes. PostgreSQL refuses to run as
// root, so as root scripts/postgres.sh runs it as the `postgres` user, who
// must pass every folder above its data folder. A checkout in root's home
// (0700 on Debian), or a test's mkdtemp folder, is closed to that user: then
// the cluster gets a folder of its own outside, on the same file system as
// the one asked for (the disk a bench measures stays the same), in the first
// of $TMPDIR, /var/tmp and /tmp that is on it and open to the user; whoever
// stops the cluster removes that folder. Where none is, the answer is one
// line saying which folder closed the way and what to do, never a skip.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace fenec::scenarios::pg {

// The user the server runs as: `postgres` when we are root, else ourselves.
struct ServerUser {
  std::string name;
  uid_t uid = 0;
  std::vector<gid_t> groups;  // primary and supplementary
};
// The server's user, or "" in *err (as root, no `postgres` user: the package is missing).
ServerUser server_user(std::string* err);

// The first folder from / down to `path` (itself included) that `user` may
// not search, or "" when every one is open to it (by the mode bits: owner,
// group, other; ACLs are not read). A folder that does not exist stops the walk.
std::string first_closed(const std::string& path, const ServerUser& user);

struct ClusterFolder {
  std::string path;   // the cluster's data folder
  bool made = false;  // made here, outside the folder asked for: the caller removes it after
  std::string error;  // "" or why no folder can hold the cluster
};
// The data folder for a cluster asked to live in `dir` (created here if
// missing): `dir` itself when `user` can reach it, else a new
// <root>/fenec-pg-XXXXXX in the first of `roots` on dir's file system that
// `user` can reach.
ClusterFolder place_cluster(const std::string& dir, const ServerUser& user, const std::vector<std::string>& roots);
// $TMPDIR (when set), /var/tmp, /tmp.
std::vector<std::string> default_roots();

}  // namespace fenec::scenarios::pg
