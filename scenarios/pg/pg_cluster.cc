#include "scenarios/pg/pg_cluster.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "scenarios/pg/cluster_folder.h"

extern char** environ;

namespace fenec::scenarios::pg {
namespace {

// A port the kernel has just handed out on 127.0.0.1 and nobody holds now.
// Another process could take it before PostgreSQL binds it; then the start
// fails with "port in use" in the log, which the error shows.
int free_port(std::string* err) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) {
    *err = fmt::format("socket: {}", std::strerror(errno));
    return 0;
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  } else {
    *err = fmt::format("bind 127.0.0.1:0: {}", std::strerror(errno));
  }
  close(fd);
  return port;
}

std::string tail(const std::string& text, size_t lines) {
  size_t pos = text.size();
  for (size_t n = 0; n <= lines && pos > 0;) {
    pos = text.rfind('\n', pos - 1);
    if (pos == std::string::npos) return text;
    ++n;
  }
  return text.substr(pos + 1);
}

}  // namespace

std::string postgres_script() {
  if (const char* s = std::getenv("FENEC_PG_SCRIPT")) return s;
  return FENEC_PG_SCRIPT_PATH;  // set by scenarios/pg/meson.build
}

// Runs `postgres.sh <command>` with this cluster's folder and port, its
// stdout and stderr into *output; "" on exit 0, else what happened.
std::string PgCluster::Run(const char* command, std::string* output) {
  const std::string script = postgres_script();
  const std::string log = dir_ + ".log";
  std::vector<std::string> env_s;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "FENEC_PG_DIR=", 13) != 0 && std::strncmp(*e, "FENEC_PG_PORT=", 14) != 0 &&
        std::strncmp(*e, "FENEC_PG_SOCKET_DIR=", 20) != 0) {
      env_s.push_back(*e);
    }
  }
  env_s.push_back("FENEC_PG_DIR=" + dir_);
  env_s.push_back(fmt::format("FENEC_PG_PORT={}", port_));
  // No unix socket: every client of ours connects over TCP on 127.0.0.1, and
  // a socket's path under a deep scratch dir can pass sun_path's 107 bytes.
  env_s.push_back("FENEC_PG_SOCKET_DIR=");
  std::vector<char*> envp;
  for (auto& s : env_s) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string bash = "/bin/bash", cmd = command;
  char* argv[] = {bash.data(), const_cast<char*>(script.c_str()), cmd.data(), nullptr};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, bash.c_str(), &fa, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return fmt::format("spawn {}: {}", script, std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  *output = ss.str();
  std::error_code ec;
  std::filesystem::remove(log, ec);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
    missing_ = true;
    return "PostgreSQL 15 is not installed here (scripts/setup.sh installs postgresql-15)";
  }
  return fmt::format("{} {} failed: {}", script, command, tail(*output, 8));
}

std::string PgCluster::Start(const std::string& dir) {
  if (up_) return "";
  missing_ = false;
  std::string err;
  const ServerUser user = server_user(&err);
  if (err.empty()) {
    ClusterFolder f = place_cluster(dir, user, default_roots());
    if (!f.error.empty()) return f.error;
    dir_ = f.path;
    made_ = f.made;
  } else {
    // No `postgres` user: postgres.sh says what is missing (the package, most often).
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return fmt::format("mkdir {}: {}", dir, ec.message());
    dir_ = std::filesystem::absolute(dir).string();
  }
  port_ = free_port(&err);
  if (port_ == 0) {
    RemoveMadeFolder();
    return err;
  }
  std::string out;
  if (err = Run("up", &out); !err.empty()) {
    std::string ignored;
    if (!missing_) (void)Run("down", &ignored);  // a half-started cluster is stopped too
    RemoveMadeFolder();
    return err;
  }
  conninfo_ = fmt::format("host=127.0.0.1 port={} user=postgres dbname=fenec", port_);
  up_ = true;
  return "";
}

std::string PgCluster::Stop() {
  if (!up_) return "";
  up_ = false;
  std::string out;
  const std::string err = Run("down", &out);
  // A server that did not stop keeps its folder: removing files under a
  // running postmaster hides what went wrong.
  if (err.empty()) RemoveMadeFolder();
  return err;
}

void PgCluster::RemoveMadeFolder() {
  if (!made_) return;
  made_ = false;
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string PgCluster::Version() const {
  if (!up_) return "not running";
  PGconn* c = PQconnectdb(conninfo_.c_str());
  std::string v = "unknown";
  if (PQstatus(c) == CONNECTION_OK) {
    PGresult* r = PQexec(c, "SELECT version()");
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) v = PQgetvalue(r, 0, 0);
    PQclear(r);
  }
  PQfinish(c);
  return v;
}

}  // namespace fenec::scenarios::pg
