// Reading what fio prints with --output-format=json+: a local run's "jobs"
// or a client's "client_stats" (one entry a job a server ran, named by the
// host and port the client was given), into the figures a fleet merges.
//
// What the stream holds besides the JSON, all of it handled here:
//  - text before the document: a client prints each server's lines
//    ("<hostname> Starting 1 process", "client: host=h disconnected") and
//    then the JSON; a local run may print warnings first;
//  - a document cut short (a client killed, a disk full, a copy cut off):
//    the entries complete before the cut are kept, the rest named lost;
//  - fio 3.33's sync.total_ios reads 0 (a counter overrun fixed after 3.33):
//    the sync count is the N beside the sync latency's bins;
//  - the client's "All clients" sum, which fio 3.33 prints without
//    percentiles or bins: left out, since the merge is made here.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "iobench/src/fio_hist.h"

namespace fenec::iobench {

// One job's write figures as fio reported them.
struct FioJob {
  std::string hostname;  // the host a client was given, in a client_stats entry; "" in a local run's jobs
  unsigned port = 0;
  std::string jobname;   // the job section's name
  int error = 0;         // fio's errno for the job (0: it ran)
  double iops = 0;       // write ops/s over the job's own runtime
  uint64_t runtime_ms = 0, total_ios = 0, io_bytes = 0;
  double usr_cpu = 0, sys_cpu = 0;  // percent of the runtime
  FioHist clat;          // write completion latency (ns)
  FioHist sync;          // fsync/fdatasync latency (ns); empty without them
  // The percentiles fio printed beside each (p, ns), to hold the rule against.
  std::vector<std::pair<double, uint64_t>> clat_pct, sync_pct;
  // The job's own options as fio echoes them (bs, direct, sync, fdatasync,
  // numjobs, ioengine ...), the global section's underneath.
  std::map<std::string, std::string> options;
};

struct FioOutput {
  std::string fio_version;          // "fio-3.33"
  std::string text;                 // every line outside the JSON document
  std::vector<FioJob> jobs;         // "All clients" left out
  // Why the document is not whole ("" when it parsed): no JSON at all, a
  // parse error, or cut short after N complete entries.
  std::string problem;
  bool truncated = false;
  // Hosts the client's text says it lost mid-run ("client: host=H disconnected").
  std::vector<std::string> disconnected;
  // Hosts whose server stopped answering a command mid-run ("fio: client H,
  // timeout on cmd SEND_ETA"): how a killed server shows when fio notices it
  // by a timeout rather than by the connection's end.
  std::vector<std::string> timed_out;
  // Hosts it could not reach ("fio: failed to connect to H:P", on stderr).
  std::vector<std::string> unreachable;
  // fio's complaints in the text, each line from "fio: " on ("fio: failed
  // parsing ...", "fio: job x dropped"): why a host may have answered nothing.
  std::vector<std::string> complaints;
  // "fio: bad server cmd version N": a server speaking another protocol.
  std::vector<std::string> version_errors;
};

// Parses a fio run's stdout (and its stderr, where the client reports hosts
// it could not reach). Never throws: what could not be read is in problem.
FioOutput parse_fio_output(std::string_view out, std::string_view err = {});

// What a job was told to do, from the options fio echoes ("job options",
// over "global options"): enough to tell a durable write from a buffered
// one in fio JSON made elsewhere. Options not given read as fio's defaults.
struct FioJobShape {
  uint64_t bs = 4096;
  bool direct = false, dsync = false, fsync = false, fdatasync = false, buffered = true;
  bool overwrite = false;  // fio laid the file out first: writes land on written blocks
  unsigned numjobs = 1;
  std::string ioengine = "psync";
  std::string rw = "read";
};
FioJobShape shape_of(const std::map<std::string, std::string>& options);

}  // namespace fenec::iobench
