// The soak's traffic: valid clients (puts whose acknowledged ids are
// recorded, gets read back and compared, filters, CONTAINS, COUNT, NEAR) and
// one sender of malformed requests, all threads of the bench, all steered by
// one Gate: which clients run, against which port, and whether a kill is
// under way (so the connection errors it causes are told from others).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "engine/src/base/histogram.h"
#include "scenarios/soak/acked.h"
#include "scenarios/soak/disk.h"
#include "scenarios/soak/malformed.h"

namespace fenec::scenarios::soak {

class Gate {
 public:
  // Lets clients 0..active-1 run against `port`; the rest (and the malformed
  // sender, unless `malformed`) park. Returns at once.
  void Open(int port, int active, bool malformed);
  // Parks everyone and returns once every one of `threads` is parked
  // (each finishes the request it is in first), or after bound_ms.
  bool Close(int threads, int bound_ms);
  void Stop();  // every thread returns
  // A kill is coming: connection errors from now until the next Open are the kill's.
  void MarkKill() { killing_.store(true); }
  bool killing() const { return killing_.load(); }

  // For the threads: blocks while thread `who` (-1: the malformed sender) is
  // parked; returns false once stopped. *port is the port to use; *resumed
  // says it was parked (its kept-alive connection may be gone: reconnect).
  bool Wait(int who, int* port, bool* resumed);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int port_ = 0, active_ = 0, parked_ = 0;
  bool malformed_ = false, stopped_ = false;
  std::atomic<bool> killing_{false};
};

// Answers by class. Connection errors while a kill is under way are the
// kill's (expected); any other is a failure.
struct Classes {
  uint64_t ok = 0, c4xx = 0, c5xx = 0, conn_errors = 0, conn_errors_at_kill = 0;
  void Add(const Classes& o);
};

struct ClientStats {
  Classes classes;
  uint64_t puts = 0, docs_acked = 0, gets = 0, get_mismatches = 0, finds = 0, contains = 0, counts = 0, nears = 0;
  uint64_t bad_answers = 0;  // a 2xx whose body is not what the request asks for
  uint64_t no_space_refused = 0;  // puts refused 507 no_space while the disk was full (expected, disk.h)
  base::Histogram rt_ns;  // every valid request's round trip, the failed ones included
  std::vector<std::string> problems;  // the first few unexpected answers
  void Add(const ClientStats& o);
};

struct ClientOptions {
  int index = 0;
  double rate = 200;  // requests a second at most
  uint64_t seed = 0;
};

// One valid client, until the gate stops it. Takes keys from *next_key,
// records each acknowledged put in *acked; its figures accumulate in a
// ClientStats that Take() hands over and resets (so a phase's figures are
// its own). With `disk`, a put refused 507 no_space inside a fill's window
// is an expected refusal, and each put's times go to the window.
class Client {
 public:
  Client(ClientOptions o, Gate* gate, std::atomic<int64_t>* next_key, AckedWrites* acked, DiskWindow* disk = nullptr)
      : o_(o), gate_(gate), next_key_(next_key), acked_(acked), disk_(disk) {}
  void Run();
  ClientStats Take();

 private:
  ClientOptions o_;
  Gate* gate_;
  std::atomic<int64_t>* next_key_;
  AckedWrites* acked_;
  DiskWindow* disk_;
  std::mutex mu_;
  ClientStats stats_;
};

struct MalformedStats {
  uint64_t sent = 0, refused_right = 0, wrong = 0, conn_errors_at_kill = 0;
  Classes classes;
  std::vector<std::string> problems;  // the first few wrong answers, with the request's name
  void Add(const MalformedStats& o);
};

// Sends the malformed requests, shuffled by seed, round and round, at most
// `rate` a second, each on a fresh connection.
class MalformedSender {
 public:
  MalformedSender(double rate, uint64_t seed, Gate* gate) : rate_(rate), seed_(seed), gate_(gate) {}
  void Run();
  MalformedStats Take();

 private:
  double rate_;
  uint64_t seed_;
  Gate* gate_;
  std::mutex mu_;
  MalformedStats stats_;
};

}  // namespace fenec::scenarios::soak
