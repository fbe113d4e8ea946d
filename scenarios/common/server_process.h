// fenec-server as a child process, the way an application deploys it: the
// bench talks to it over loopback HTTP only (recon-bench, load-bench). And
// the one figure a bench reads back from its /metrics text.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace fenec::scenarios {

class ServerProcess {
 public:
  ServerProcess() = default;
  ~ServerProcess();  // SIGKILLs a server still running
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Starts `bin args...` with --listen 127.0.0.1:0 added, its stderr to
  // `log_path`, and waits (up to 30 s) for its "listening on HOST:PORT"
  // line. Returns "" or why not.
  std::string Start(const std::string& bin, const std::vector<std::string>& args, const std::string& log_path);
  int port() const { return port_; }
  // SIGTERM, then waits (up to 60 s, then SIGKILL). Returns the exit code, or -1 if killed or signalled.
  int Stop();

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

// The fenec-server beside this binary in the build tree
// (<build>/scenarios/<name>/<name>-bench -> <build>/engine/server/fenec-server), or "".
std::string DefaultServerBinary();

// The value of one series in Prometheus text ("name{labels}" exactly as
// written), or -1 when it is absent or not a number.
double PromValue(const std::string& text, const std::string& series);

}  // namespace fenec::scenarios
