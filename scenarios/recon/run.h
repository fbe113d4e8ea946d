// One run of the ledger against a running fenec-server: client threads
// sending transfers on kept-alive connections, and (unless the arm is
// no-recon) one more running the reconciliation every second.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/src/base/histogram.h"
#include "scenarios/recon/ledger.h"

namespace fenec::scenarios::recon {

struct RunConfig {
  bool reconcile = true;
  double seconds = 10;
  int rate_per_client = 0;  // transfers a second per client; 0: each sends as soon as its last is answered
  int retry_every = 100;    // every Nth transfer is sent again and must be refused (409); 0: never
  uint64_t seed = 1;
  std::function<bool()> stop;  // polled: true ends the run early (Ctrl-C)
};

struct TransferPoint {
  float t_s;         // when it was sent, seconds from the run's start
  float latency_ms;  // its round trip
};

struct ReconPoint {
  double start_s;
  double ms;
};

struct RunResult {
  base::Histogram transfer_ns;
  uint64_t transfers = 0;
  uint64_t over_50ms = 0;
  uint64_t errors = 0;              // transfers not answered 200 (the run is then invalid)
  uint64_t retries_rejected = 0;    // re-sent transfers refused, as they must be
  uint64_t retries_applied = 0;     // re-sent transfers accepted: applied twice, an invariant break
  double seconds = 0;
  std::vector<TransferPoint> points;  // every transfer, for the plot
  std::vector<ReconPoint> recons;     // every reconciliation completed
  uint64_t violations = 0;            // reconciliations whose invariant failed
  std::string first_violation, first_error;
};

// Runs against the server on 127.0.0.1:port. books[c] is client c's books,
// already holding what the database holds (the prefill); the run appends.
RunResult RunLedger(int port, const LedgerShape& shape, std::vector<std::unique_ptr<Books>>& books,
                    const RunConfig& config);

// Creates the collections, the accounts, and lands `prefill` transfers per
// client (500 to a POST /docs/entries, both legs of each in the same
// request). logs[c] receives client c's transfers. Returns "" or why not.
std::string Prefill(int port, const LedgerShape& shape, int prefill, uint64_t seed, const std::function<bool()>& stop,
                    std::vector<std::vector<Transfer>>* logs);

// One reconciliation on its own: "" if the invariant holds, else why not.
std::string ReconcileOnce(int port, const LedgerShape& shape, const std::vector<std::unique_ptr<Books>>& books);

}  // namespace fenec::scenarios::recon
