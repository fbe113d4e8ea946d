// One cell: `clients` threads, each on its own connection, asking one kind
// of request in a closed loop (the next as soon as the last is answered)
// for a time. The one loop both systems are timed by: the same threads, the
// same pacing, the same draws, only the connection differs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/src/base/histogram.h"
#include "scenarios/requests/targets.h"

namespace fenec::scenarios::requests {

struct CellConfig {
  Kind kind = Kind::kGetById;
  int clients = 1;
  double seconds = 1;        // each client asks until this has passed ...
  int min_per_client = 1;    // ... and it has asked at least this many (a slow near gets a few)
  int warmup_per_client = 20;  // asked before the clock starts, not timed
  int max_per_client = 1'000'000;  // ... and never more than this many (a loop bounded in count as in time)
  uint64_t seed = 1;           // draws: seed, client and index
  std::function<bool()> stop;  // polled between requests (Ctrl-C)
};

struct CellResult {
  base::Histogram ns;        // every timed round trip
  uint64_t requests = 0;
  double wall_s = 0;         // from the clients' common start to the last one's end
  double client_cpu_s = 0;   // the client threads' own CPU time over the timed part
  std::string error;         // the first failed request's, "" if none
  double per_s() const { return wall_s > 0 ? static_cast<double>(requests) / wall_s : 0; }
};

// Runs on conns[0 .. clients-1] (there must be that many).
CellResult RunCell(std::vector<std::unique_ptr<Conn>>& conns, const CellConfig& cfg);

}  // namespace fenec::scenarios::requests
