// Where a bench's one-client latency runs (requests-bench's one-client
// cells, conns-bench's gets). On a VM the round trip of one client on
// loopback is mostly two wake-ups, and which vCPU each side wakes on decides
// their cost: measured here, 0.15 s cells of one client alternating between
// the systems, PostgreSQL's get-by-id p50 was 43 us in some cells and 120-167
// us in others, fenec-server's 74-118 us, as the scheduler put client and
// server on one vCPU or on two (a halted vCPU woken by an IPI costs the host
// a VM exit). A ratio of two such figures measured the scheduler. Pinned,
// both systems get the same placement in every cell:
//   same   the client and the server on CPU 0: a request hands the CPU over,
//          no vCPU is woken (the default: the servers' own costs show most)
//   apart  the client on CPU 0, the server on CPU 1: every request wakes the
//          other vCPU, as a client on another host would
//   none   wherever the scheduler puts them (the old behaviour)
// "The server" is every thread of fenec-server and, in requests-bench,
// PostgreSQL's backend process for the connection (PQbackendPID), not its
// other processes.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace fenec::scenarios::procs {

enum class Pin { kNone, kSame, kApart };
// "none", "same", "apart".
const char* PinName(Pin p);
// For CLI11's --pin: {"same", kSame}, {"apart", kApart}, {"none", kNone}.
const std::map<std::string, Pin>& PinNames();
// The --pin option's help, shared by the benches that take it.
inline constexpr const char* kPinHelp =
    "where the one-client latency runs (scenarios/procs/pin.h): same (client and server on one CPU, default), apart "
    "(client on one, server on another), none (wherever the scheduler puts them)";

// The CPUs for the client and the server under `p`: -1 for "where they were".
struct Placement {
  int client = -1, server = -1;
};
// "" and the CPUs, or why `p` cannot be had here (fewer than 2 CPUs for apart).
std::string PlacementOf(Pin p, Placement* out);

// "same: client on CPU 0, server on CPU 0", or "none": for a run's metadata.
std::string Describe(Pin p, const Placement& at);

// Every thread of process `pid` onto `cpu`, or back onto every CPU this
// process may use (cpu -1). "" or why not.
std::string PinProcess(pid_t pid, int cpu);
// The calling thread (and the threads and processes it starts after) onto
// `cpu`, or back (-1). "" or why not.
std::string PinSelf(int cpu);
// Under `p`, the calling thread onto at.client and every thread of each
// server process onto at.server (pinned), or all of them back (!pinned);
// nothing under Pin::kNone. "" or the first failure; every step is tried,
// so a failed pin still unpins what it can.
std::string Place(Pin p, const Placement& at, const std::vector<pid_t>& servers, bool pinned);

}  // namespace fenec::scenarios::procs
