// The kill -9 half of every crash test and bench: a child process runs
// writers that report each acknowledged write down a pipe as a WriteAck; the
// parent reads them, kills the child with SIGKILL once it has read
// `kill_after` of them (a random 0..3 ms later, so the kill lands mid-commit),
// then reads every ack the child wrote before it died. What the child
// acknowledged is then checked against what a reopen finds.
//
// The kill comes after `kill_after` acks or `seconds`, whichever is first.
// With kill_after == 0 nobody is killed: the child runs to its own end (a
// clean close) and every ack is read to end of file; a child still running
// after `seconds` is then killed, and that is an error.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fenec::base {

struct WriteAck {
  int64_t id = 0, writer = 0, seq = 0;
};

// In the child: one ack, one atomic pipe write (smaller than PIPE_BUF).
// Exits the child with status 6 if the pipe is gone.
void ReportAck(int fd, const WriteAck& ack);

struct ChildRunOptions {
  uint64_t kill_after = 0;  // acks to read before SIGKILL; 0: let the child finish
  double seconds = 60;      // the kill comes at the latest then (bound on the whole wait)
  uint64_t seed = 0;        // the jitter before the kill
};

struct ChildRun {
  std::vector<WriteAck> acks;  // every ack the child wrote, in pipe order
  uint64_t acks_at_kill = 0;   // acks read when SIGKILL was sent
  bool killed = false;         // the child died of SIGKILL
  int status = 0;              // waitpid's status
  std::string error;           // fork/pipe failure, an early or failed exit, a hang
};

// Forks; the child runs child(write_fd) and must never return (it exits
// with _exit, or is killed). Flushes stdio first, so the child has nothing
// buffered to print twice. Fork before the parent starts threads.
ChildRun RunAckingChild(const ChildRunOptions& options, const std::function<void(int write_fd)>& child);

}  // namespace fenec::base
