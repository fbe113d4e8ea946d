// The loopback's floor for one client: a process that answers each request
// with a fixed /health-sized answer, one blocking recv and one send a
// request, nothing parsed, counted or scheduled. Its round trip is what any
// server over this loopback pays before it does any work, so the one-client
// ratios can be read against it: a target below the floor's own ratio
// cannot be met by a faster server, only by another transport.
#pragma once

#include <sys/types.h>

#include <string>

namespace fenec::scenarios::requests {

class LoopbackFloor {
 public:
  LoopbackFloor() = default;
  ~LoopbackFloor() { Stop(); }
  LoopbackFloor(const LoopbackFloor&) = delete;
  LoopbackFloor& operator=(const LoopbackFloor&) = delete;

  // Listens on 127.0.0.1 (any free port) and forks the answering process:
  // "" or why not.
  std::string Start();
  void Stop();
  int port() const { return port_; }
  pid_t pid() const { return pid_; }

 private:
  int port_ = -1;
  pid_t pid_ = -1;
};

}  // namespace fenec::scenarios::requests
