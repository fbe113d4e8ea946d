// `iobench fleet`: the durable-write cells asked of many hosts at once
// through fio's client/server, fio's answers merged exactly and the odd host
// named (iobench/doc/fleet.md has the design, the deployment and its limits).
//
// Four steps, each usable alone:
//   run_fleet()    drives the local `fio --client` (never a connection of its
//                  own): each host's fio version checked against this one,
//                  each cell written as a fio job (fio_job.h) into the run's
//                  folder, run --apart (one host at a time: each disk alone)
//                  and --together (every host at once), repetitions
//                  interleaving hosts and cells; a host that does not
//                  answer, dies or returns a cut document is a Failure and
//                  the run goes on with the others;
//   ingest_files() the same data from fio json+ made elsewhere;
//   judge_fleet()  per cell the hosts' bins summed (an exact merge, fio's
//                  percentile rule on the sum), the fleet's rate as the sum
//                  of the hosts' rates over the window they all ran in, and
//                  each host against the fleet: lying by IO-4's rule (lies.h's
//                  judge, as `iobench lies`), slow or fast when its ratio to
//                  the fleet's median clears the fleet's spread with its
//                  whole 95% interval;
//   fleet_report.cc  the table, the verdicts, tidy rows, JSON, Markdown, plots.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "iobench/kit/interrupt.h"
#include "iobench/kit/stats.h"
#include "iobench/src/cells.h"
#include "iobench/src/fio_hist.h"
#include "iobench/src/fio_json.h"
#include "iobench/src/lies.h"

namespace fenec::kit {
class Results;
}

namespace fenec::iobench::fleet {

inline constexpr unsigned kFioPort = 8765;  // fio --server's default

struct Host {
  std::string addr;        // as `fio --client` is given it: a name or an address
  unsigned port = kFioPort;
  std::string dir;         // the folder the jobs write in there; "": the server's working directory
  std::string label() const;  // "addr:port"
};
// "h1,h2:8766,[::1]:8765": false and *why on a malformed item.
bool parse_hosts(const std::string& text, std::vector<Host>* out, std::string* why);
// A host a line, "addr[:port] [dir]"; '#' starts a comment.
bool read_hosts_file(const std::string& path, std::vector<Host>* out, std::string* why);

enum class RunMode { kApart, kTogether, kIngest };
const char* run_mode_name(RunMode m);

// What a cell's jobs were told, as the fleet judges them: which latency is
// the durable one, and whether the cell is one of IO-4's references.
struct CellKind {
  uint64_t bs = 0;
  unsigned jobs = 1;
  bool durable = false;        // a durable write (a sync call, or O_DSYNC)
  bool syncs = false;          // its durable latency is the sync call's (fdatasync/fsync)
  bool buffered_ref = false;   // 4 KiB buffered writes
  bool direct_ref = false;     // 4 KiB O_DIRECT|O_DSYNC
  bool sync_ref = false;       // 4 KiB write + fdatasync, not O_DIRECT
  bool psync = true;           // fio's psync engine (the references prefer it)
};
CellKind kind_of(const FioJobShape& shape);

// One host's answer to one cell in one repetition: its jobs' entries merged.
struct Sample {
  std::string host, cell;
  RunMode mode = RunMode::kApart;
  int rep = 0;
  unsigned jobs = 0;       // fio job entries merged (numjobs)
  double iops = 0;         // the sum of each job's own rate (fio's write.iops)
  double mb_per_s = 0;
  FioHist clat, sync;
  // From the host's iops log (unix ms; 0: no log): when it measured, and its
  // rate inside the window every host of its invocation shared (0: none).
  double start_ms = 0, end_ms = 0, window_iops = 0;
  // The rate the fleet judges: the window's where there is one, else fio's.
  double rate() const { return window_iops > 0 ? window_iops : iops; }
};

struct Failure {
  std::string host;
  std::string cell;        // "": every cell of that invocation
  RunMode mode = RunMode::kApart;
  int rep = -1;            // -1: before any repetition (the version probe)
  std::string reason;
  // The host failed (no answer, died, its answer cut short): the run's exit
  // code says so. Not fatal: one job fio itself refused there (io_uring
  // missing, O_DIRECT refused), reported as that cell skipped on that host.
  bool fatal = true;
};

// The window every host of one together-mode invocation measured in.
struct Window {
  std::string cell;
  int rep = 0;
  double start_ms = 0, end_ms = 0;
  size_t hosts = 0;
  bool used = false;       // long enough to rate the hosts in (else fio's own rates)
};

// One fio client run: what the fan-out cost (its wall time, start to exit).
struct Invocation {
  std::string name;        // "apart-r0-h2", "together-r1-direct-4k-j1-psync"
  RunMode mode = RunMode::kApart;
  int rep = 0;
  size_t hosts = 0, cells = 0;
  double seconds = 0;
};

struct FleetData {
  std::vector<std::string> hosts;            // labels, in the order given
  std::vector<std::string> cells;            // cell names, in the order first seen
  std::map<std::string, CellKind> kinds;     // by cell
  std::vector<Sample> samples;
  std::vector<Failure> failures;
  std::vector<Window> windows;
  std::vector<Invocation> invocations;
  std::map<std::string, std::string> host_info;  // label -> what its probe said (hostname, fio version)
  std::vector<std::string> files;            // the fio outputs read, kept in the run's folder
  std::string fio_version;                   // this client's
  bool interrupted = false;
};

struct RunOptions {
  std::vector<Host> hosts;
  std::vector<CellInstance> cells;
  bool apart = true, together = true;
  int reps = 3;
  double ramp_s = 1;           // ramp_time: covers the hosts' staggered starts
  std::string out_dir;         // job files, fio's output and logs (created)
  std::string fio = "fio";     // the local fio
  uint64_t seed = 1;           // the rotation of hosts and cells, fio's randseed
  unsigned log_ms = 100;       // the iops logs' interval
  double probe_timeout_s = 20;
  bool (*stop)() = kit::stop_requested;
  // Before each fio invocation: done so far, the total, what runs now.
  std::function<void(size_t, size_t, const std::string&)> progress;
  // After a fio client started (for tests that kill a server mid-run): the mode and repetition.
  std::function<void(RunMode, int)> on_started;
};

// Checks versions, writes the job files, runs every repetition and reads the
// answers. A version mismatch refuses the run: *refused says so in one line
// and no cell runs. Never throws on a host's failure.
FleetData run_fleet(const RunOptions& o, std::string* refused);

// fio json+ outputs made elsewhere (a client's client_stats, or a local
// run's jobs, whose host is the file's name): each (host, job) seen again in
// a later file is a further repetition.
FleetData ingest_files(const std::vector<std::string>& paths);
// One fio output into data: for run_fleet, ingest_files and the tests.
// Entries without a host (a local run) are `file_host`'s. `expected` (host
// labels) should each have answered every cell of `expected_cells`: a host
// missing becomes a Failure with the reason the output gives (disconnected,
// unreachable, cut short), else `fallback`; a missing cell, one for that cell.
void ingest_output(FleetData& data, const FioOutput& out, RunMode mode, int rep, const std::string& file_host,
                   const std::vector<std::string>& expected, const std::vector<std::string>& expected_cells,
                   const std::string& fallback = "no result");
// Each sample's span and window rate from the iops logs under `dir` named
// "<prefix>.<cell>_iops.<job>.log*" (prefix: the host's), then the window
// the invocation's hosts shared.
void read_iops_logs(FleetData& data, RunMode mode, int rep, const std::string& dir,
                    const std::map<std::string, std::string>& log_prefix, unsigned log_ms);

// --- judgement ---------------------------------------------------------------

struct CellSummary {
  RunMode mode = RunMode::kApart;
  std::string cell;
  FioHist merged;                            // every host's, every repetition's durable latency, summed
  std::map<std::string, FioHist> by_host;    // each host's, its repetitions summed
  std::map<std::string, kit::Ratio> host_rate;  // each host's rate over repetitions (ops/s)
  std::vector<double> fleet_rate;            // per repetition: the hosts' rates summed
  kit::Ratio fleet;                          // over repetitions
  bool windowed = false;                     // the rates are the shared window's
  size_t hosts = 0;                          // hosts with a sample
};

struct HostVerdict {
  std::string host;
  Durability lies = Durability::kUnknown;
  std::vector<std::string> lies_reasons;
  double durable_p50_us = 0, buffered_p50_us = 0;
  std::string speed;                         // "slow", "fast" or ""
  kit::Ratio p50, rate;                      // over the fleet's median: per repetition the mean over the durable cells
  double p50_line = 0, rate_line = 0;        // the spread each had to clear
  std::string speed_note;                    // why judged as it was, or why not judged
  std::string failure;                       // what failed there ("": nothing)
  bool lying() const { return lies == Durability::kSuspicious || lies == Durability::kNotDurable; }
  bool named() const { return lying() || !speed.empty(); }
};

struct Judgement {
  RunMode judged = RunMode::kApart;          // the mode the hosts were judged in
  std::vector<CellSummary> cells;
  std::vector<HostVerdict> hosts;
  std::vector<std::string> notes;
};

// A host is named slow or fast when its ratio to the fleet's median clears
// the larger of this and the fleet's spread (kSpreadSigmas robust standard
// deviations of the compared hosts' ratios) with its whole 95% interval.
inline constexpr double kMinLine = 1.5;
inline constexpr double kSpreadSigmas = 2.5;
// Fewer hosts than this (lying ones left out) cannot say which one is odd.
inline constexpr size_t kMinHostsToCompare = 3;

Judgement judge_fleet(const FleetData& data);

// --- output (fleet_report.cc) -----------------------------------------------

// The verdicts, then the table host x cell, then the failures.
std::string fleet_text(const FleetData& data, const Judgement& j);
void add_fleet_rows(kit::Results& r, const FleetData& data, const Judgement& j);
std::string fleet_json(const FleetData& data, const Judgement& j);
std::string fleet_markdown(const FleetData& data, const Judgement& j, const std::string& plots_rel);
// Per cell the hosts' latency CDFs and the merged one; the hosts' rates with
// their intervals. (base path, "" or why not) for each chart.
std::vector<std::pair<std::string, std::string>> write_fleet_plots(const FleetData& data, const Judgement& j,
                                                                   const std::string& prefix);

// --- running fio -------------------------------------------------------------

struct Exec {
  std::vector<std::string> argv;
  std::string cwd;                 // "": ours
  std::string out_path, err_path;  // stdout and stderr go to these files
  double deadline_s = 600;         // then the process group is killed
};
struct ExecResult {
  int exit_code = -1;              // -1: killed, or never started
  bool timed_out = false, stopped = false;
  std::string error;               // why it could not start
  double seconds = 0;
};
// Runs each in its own process group, all at once, waiting for all; a stop
// request (stop()) interrupts them (SIGINT, then SIGKILL).
std::vector<ExecResult> run_all(const std::vector<Exec>& execs, bool (*stop)());
// `fio --version`'s answer ("fio-3.33"), or "" and *why.
std::string local_fio_version(const std::string& fio, std::string* why);

}  // namespace fenec::iobench::fleet
