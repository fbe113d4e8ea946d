// A child process the bench talks to only over loopback: fenec-server, and
// the holder that keeps thousands of connections open
// (scenarios/conns/holder.cc). The holder lives in its own process because
// the target's connections must not share the bench's descriptors (20 000 a
// process here) or its CPU accounting, and because that is how a crowd of
// clients looks to a server.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace fenec::scenarios::procs {

class Child {
 public:
  Child() = default;
  ~Child();  // SIGKILLs a child still running
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // Starts argv (argv[0] the binary) with its stdout a pipe to us, its stdin
  // a pipe from us (closed by Stop: a holder takes that as its cue to go) and
  // its stderr appended to log_path, then waits up to `wait` for a line of
  // its stdout containing `ready`. Returns "" (and the line in *line) or why not.
  std::string Start(const std::vector<std::string>& argv, const std::string& log_path, const std::string& ready,
                    std::chrono::seconds wait, std::string* line);
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }
  // Closes its stdin, waits up to `grace` for it to exit on its own (the
  // holder does), then SIGTERMs it and waits up to 60 s (then SIGKILL).
  // Returns its exit code, or -1 if it was killed or died by a signal.
  int Stop(std::chrono::milliseconds grace = std::chrono::milliseconds(0));
  // Resident set size now, from /proc/PID/statm; 0 if unreadable.
  uint64_t rss_bytes() const;

 private:
  pid_t pid_ = -1;
  int stdin_ = -1, stdout_ = -1;
};

// A sibling binary in this build tree: <build>/scenarios/conns/<here> ->
// <build>/<relative>; "" if absent.
std::string BuildTreeBinary(const std::string& relative);

}  // namespace fenec::scenarios::procs
