// One soak run: fenec-server (a child process, short connection deadlines)
// under everything at once, in cycles, each cycle's server in the next of
// --modes' durabilities (durable, write-through: both promise that a kill -9
// loses no acknowledged write), round and round:
//
//   unloaded  client 0 alone, for its latency unloaded
//   loaded    every client, the malformed sender, and waves of held
//             connections (conns-holder's idle and slow-drip ones, plus
//             slow-body sockets of our own), each wave held past the
//             server's deadlines so they close it; in the cycles --fills
//             picks, a filler fills the server's file system and removes
//             itself a few seconds later (disk.h), while the clients write
//   kill      SIGKILL while the load runs (mid-write), everyone parked
//   restart   the server recovers its folder (in the next cycle's mode);
//             every write acknowledged so far is looked up by id and
//             compared field by field, and the `edge` collection the
//             malformed requests aimed at must be as it was, before the
//             next cycle's load
//
// The server's folder is on a file system of the run's own (kit::LoopFs,
// ext4, disk_bytes), so that a fill fills it and nothing else; where one
// cannot be made (not root, no loop devices) the run goes on in the scratch
// folder without fills and says why (SoakReport::disk_skipped). The mount,
// its loop device and the filler are gone at the end, on failure and on a
// stop.
//
// A server that dies between our kills crashed on its own: counted, and the
// run then restarts it and goes on verifying.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fenec/stats.h"
#include "scenarios/soak/disk.h"
#include "scenarios/soak/load.h"

namespace fenec::scenarios::soak {

struct SoakConfig {
  std::string server_bin, holder_bin;
  std::string data_dir, log_path;  // the server's folder; the children's stderr
  double seconds = 30;             // the whole run, spread over the cycles
  int cycles = 3;                  // kill -9 / restart cycles (at least 1)
  double unloaded_s = 2;           // client 0 alone, each cycle
  int clients = 4;
  double rate = 200;             // requests a second per valid client, at most
  double malformed_rate = 40;    // malformed requests a second
  int idle = 200, slow = 20;     // held by conns-holder, each wave
  int slow_body = 5;             // sockets that send half a body, each wave
  double idle_timeout_s = 4, header_timeout_s = 3, body_timeout_s = 3;  // the server's deadlines
  // The server's --durability, cycle by cycle, repeated over the cycles.
  std::vector<std::string> modes = {"durable", "write-through"};
  // Which cycles fill and free the disk: '1' fills, '0' not, repeated over the cycles.
  std::string fills = "110";
  uint64_t disk_bytes = 256ull << 20;  // the server's own file system; 0: the scratch folder, no fills
  std::string disk_dir;                // its backing file and mount point (created)
  double full_s = 2;                   // a fill keeps the disk full at least this long
  uint64_t seed = 1;
  // Progress lines (one a phase).
  std::function<void(const std::string&)> progress;
};

struct CycleFigures {
  std::string mode;                                 // the server's durability this cycle
  bool fill_planned = false;                        // --fills picked this cycle (and the disk is ours)
  FillFigures fill;                                 // the fill's figures, the clients' counts in them
  uint64_t lost_new = 0;                            // lost writes this cycle's verification found first
  uint64_t disk_used = 0;                           // the server's file system's used bytes after the restart
  double unloaded_p50_us = 0, unloaded_p99_us = 0;  // client 0 alone
  double loaded_p50_us = 0, loaded_p99_us = 0;      // client 0 beside everything else
  double served_p99_us = 0;                         // every valid client, loaded
  uint64_t unloaded_requests = 0, loaded_requests = 0;
  double rss_loaded = 0;                            // the server's, at the end of the load
  uint64_t acked = 0;                               // acknowledged writes so far
  VerifyResult verify;
  double restart_s = 0, verify_s = 0;
  bool killed_by_us = true;                         // false: it had died on its own
};

struct SoakReport {
  std::vector<CycleFigures> cycles;
  ClientStats valid;          // every valid request of the run
  MalformedStats malformed;
  uint64_t acked = 0;
  uint64_t missing = 0, altered = 0;  // the most any verification found (each looks for every ack so far)
  int restarts = 0, own_crashes = 0;
  std::vector<std::string> crashes;              // how each own crash ended
  double rss_start = 0, rss_peak = 0, rss_end = 0;
  uint64_t waves = 0, held_idle = 0, held_slow = 0, slow_body_sent = 0, slow_body_closed = 0;
  // The servers' own counts (fenec_http_*), summed over the servers' lives.
  double closed_idle = 0, closed_header = 0, closed_body = 0, rejected = 0;
  // The servers' engine counters (fenec/stats.h), read off /metrics before
  // each kill: counters summed over the servers' lives, gauges the last one's.
  Stats engine;
  uint64_t edge_changed = 0;   // verifications that found `edge` not as it was
  std::string disk;            // the server's file system ("ext4, 256 MiB on /dev/loop3"), or ""
  std::string disk_skipped;    // why the run had no disk of its own and made no fills, or ""
  uint64_t disk_problems = 0;  // fills after which /health answered wrong or writes never resumed
  int final_exit = -1;         // the last server's exit code on SIGTERM (0: clean)
  double elapsed_s = 0;
  std::string error;           // the run could not go on (setup, restart, verification)
  std::vector<std::string> problems;

  uint64_t lost() const { return missing + altered; }
  // Every way the soak can fail: a lost write, an own crash, an answer of
  // the wrong class (a 507 outside a fill's window among them), a malformed
  // request not refused, writes that did not resume after a fill, a run cut short.
  bool failed() const;
};

SoakReport RunSoak(const SoakConfig& c, const std::function<bool()>& stop);

// Creates `soak` and `edge` and puts edge's seed document. Returns "" or why not.
std::string CreateCollections(int port);
// True when `edge` still holds just its seed document.
bool EdgeAsSeeded(int port);

}  // namespace fenec::scenarios::soak
