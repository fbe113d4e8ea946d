// run_fleet: the version probe, the job files, the repetitions, and each
// fio invocation's answer read into samples and failures.
//
// One fio invocation costs fio itself a second or more before a job starts
// (its client's start-up and the server's), so --apart runs one invocation
// a host and repetition with every cell in turn (stonewall), the cells'
// order rotated each repetition; --together must run one a cell, since the
// hosts' windows only overlap while they run the same cell. Repetition r
// runs the hosts in turn, then the cells with every host at once, so drift
// on the machines reaches both modes alike.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "iobench/src/fio_job.h"
#include "iobench/src/fleet.h"

namespace fenec::iobench::fleet {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What fio's client is given for a host: "addr,port", "ip6:addr,port".
std::string client_arg(const Host& h) {
  return h.addr.find(':') != std::string::npos ? fmt::format("--client=ip6:{},{}", h.addr, h.port)
                                               : fmt::format("--client={},{}", h.addr, h.port);
}

std::string label_of(const std::string& hostname, unsigned port) {
  Host h;
  h.addr = hostname;
  h.port = port;
  return h.label();
}

// The host part of a label, as fio's "client: host=X disconnected" names it.
std::string addr_of(const std::string& label) {
  const size_t colon = label.rfind(':');
  std::string a = label.substr(0, colon);
  if (a.size() > 1 && a.front() == '[') a = a.substr(1, a.size() - 2);
  return a;
}

// fio parses randseed as a signed 64-bit number: a seed it takes, from ours.
uint64_t fio_seed(uint64_t seed) { return (seed & 0x7fffffffffffffffull) | 1; }

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// The probe's answer: "hostname=vm, be=0, 64-bit, os=Linux, arch=x86-64, fio=fio-3.33, flags=1".
std::string probe_field(const std::string& text, const std::string& key) {
  const size_t at = text.find(key + "=");
  if (at == std::string::npos || (at && text[at - 1] != ' ' && text[at - 1] != '\n')) return "";
  const size_t from = at + key.size() + 1;
  return text.substr(from, text.find_first_of(",\n", from) - from);
}

struct Plan {
  RunMode mode;
  int rep;
  std::string name;                       // "apart-r0-h2", "together-r1-direct-4k-j1-psync"
  std::vector<size_t> hosts;              // indexes into o.hosts
  std::vector<const CellInstance*> cells;
};

class Runner {
 public:
  Runner(const RunOptions& o, FleetData* d) : o_(o), d_(*d), dead_(o.hosts.size(), false) {}

  std::string probe();
  void run(const Plan& inv);
  bool alive(size_t h) const { return !dead_[h]; }
  std::string job_dir() const { return o_.out_dir + "/jobs"; }

 private:
  std::string job_file(const Plan& inv, size_t host, bool create_only, std::string* why);
  // Lays out the cells' files on every host of inv at once, before the
  // measured run, so no host starts writing later than the others for want
  // of its layout (a slow disk lays out slowly): their windows then overlap.
  void prepare(const Plan& inv);
  const RunOptions& o_;
  FleetData& d_;
  std::vector<bool> dead_;
};

std::string Runner::probe() {
  const std::string file = job_dir() + "/probe.fio";
  write_file(file, "# iobench fleet: each host's fio version, and that it runs a job (no I/O)\n"
                   "[probe]\nioengine=null\nrw=write\nsize=4k\n");
  std::vector<Exec> execs;
  for (size_t i = 0; i < o_.hosts.size(); ++i) {
    const std::string base = fmt::format("{}/fio/probe-h{}", o_.out_dir, i + 1);
    execs.push_back({{o_.fio, client_arg(o_.hosts[i]), file}, "", base + ".out", base + ".err", o_.probe_timeout_s});
  }
  const std::vector<ExecResult> res = run_all(execs, o_.stop);
  for (size_t i = 0; i < o_.hosts.size(); ++i) {
    const std::string label = o_.hosts[i].label();
    const std::string out = slurp(execs[i].out_path), err = slurp(execs[i].err_path);
    const FioOutput parsed = parse_fio_output("", out + err);
    const std::string version = probe_field(out, "fio");
    if (!parsed.version_errors.empty())
      return fmt::format("{} speaks another fio protocol (fio: bad server cmd version {}) than this {}: fio's "
                         "client/server protocol changes between versions; install the same fio on every host",
                         label, parsed.version_errors.front(), d_.fio_version);
    if (!version.empty() && version != d_.fio_version)
      return fmt::format("{} runs {}, this client {}: fio's client/server protocol changes between versions "
                         "(97 in fio-3.33); install the same fio on every host",
                         label, version, d_.fio_version);
    if (version.empty()) {
      std::string why = res[i].timed_out ? fmt::format("no answer within {:.0f} s", o_.probe_timeout_s)
                        : !res[i].error.empty() ? res[i].error
                        : !parsed.unreachable.empty() ? "does not answer (fio: failed to connect to " +
                                                            parsed.unreachable.front() + ")"
                                                      : "no probe reply from its fio server";
      if (res[i].stopped) why = "interrupted";
      d_.failures.push_back({label, "", RunMode::kApart, -1, why});
      dead_[i] = true;
      continue;
    }
    d_.host_info[label] = fmt::format("hostname={} os={} arch={} {}", probe_field(out, "hostname"),
                                      probe_field(out, "os"), probe_field(out, "arch"), version);
  }
  return "";
}

std::string Runner::job_file(const Plan& inv, size_t host, bool create_only, std::string* why) {
  FioJobOptions jo;
  jo.create_only = create_only;
  jo.ramp_s = o_.ramp_s;
  jo.directory = o_.hosts[host].dir;
  jo.iops_log = fmt::format("h{}", host + 1);
  jo.log_ms = o_.log_ms;
  jo.randseed = fio_seed(o_.seed);
  std::vector<std::pair<std::string, CellSpec>> cells;
  for (const CellInstance* c : inv.cells) cells.emplace_back(c->name, c->spec);
  const std::string header = fmt::format(
      "iobench fleet: {} mode, repetition {}, host {}{}\nfio --client={},{} <this file>  (or plain fio on the host)",
      run_mode_name(inv.mode), inv.rep, o_.hosts[host].label(), create_only ? ": the files laid out, kept" : "",
      o_.hosts[host].addr, o_.hosts[host].port);
  const std::string text = fio_job_file(cells, jo, header, why);
  if (text.empty()) return "";
  const std::string name = (create_only ? "layout-" : "") + inv.name;
  const std::string path = inv.mode == RunMode::kTogether
                               ? fmt::format("{}/sent/{}-h{}.fio", job_dir(), name, host + 1)
                               : fmt::format("{}/sent/{}.fio", job_dir(), name);
  write_file(path, text);
  return path;
}

void Runner::prepare(const Plan& inv) {
  std::vector<std::string> argv = {o_.fio, "--output-format=json+"};
  for (size_t h : inv.hosts) {
    std::string why;
    const std::string file = job_file(inv, h, true, &why);
    if (file.empty()) continue;  // the measured run reports it
    argv.push_back(client_arg(o_.hosts[h]));
    argv.push_back(fs::absolute(file).string());
  }
  const std::string base = fmt::format("{}/fio/layout-{}", o_.out_dir, inv.name);
  double expect_s = 10;
  for (const CellInstance* c : inv.cells) expect_s += c->spec.total / 1e6;  // a disk of 1 MB/s at the worst
  // Its answer is kept, not read: a host that fails here fails the measured run, which says why.
  run_all({Exec{argv, "", base + ".json", base + ".err", 3 * expect_s + 60}}, o_.stop);
}

void Runner::run(const Plan& inv) {
  bool lays_out = false;
  for (const CellInstance* c : inv.cells) lays_out = lays_out || c->spec.prefill;
  if (inv.mode == RunMode::kTogether && lays_out && inv.hosts.size() > 1) prepare(inv);
  std::vector<std::string> argv = {o_.fio, "--output-format=json+"};
  std::vector<std::string> expected, cells;
  std::map<std::string, std::string> prefix;
  for (const CellInstance* c : inv.cells) cells.push_back(c->name);
  for (size_t h : inv.hosts) {
    std::string why;
    const std::string file = job_file(inv, h, false, &why);
    if (file.empty()) {
      d_.failures.push_back({o_.hosts[h].label(), "", inv.mode, inv.rep, why});
      continue;
    }
    argv.push_back(client_arg(o_.hosts[h]));
    argv.push_back(fs::absolute(file).string());
    expected.push_back(o_.hosts[h].label());
    prefix[o_.hosts[h].label()] = fmt::format("h{}", h + 1);
  }
  if (expected.empty()) return;
  const std::string logs = fmt::format("{}/logs/{}", o_.out_dir, inv.name);
  std::error_code ec;
  fs::create_directories(logs, ec);
  const std::string base = fmt::format("{}/fio/{}", o_.out_dir, inv.name);
  // fio's own start-up, each cell's layout, ramp and runtime, with room for a slow host.
  double expect_s = 10;
  for (const CellInstance* c : inv.cells) expect_s += o_.ramp_s + c->spec.duration_s + 5;
  Exec e{argv, logs, base + ".json", base + ".err", 3 * expect_s + 60};
  const ExecResult r = run_all({e}, o_.stop).front();
  d_.files.push_back(e.out_path);
  d_.invocations.push_back({inv.name, inv.mode, inv.rep, expected.size(), inv.cells.size(), r.seconds});
  const FioOutput out = parse_fio_output(slurp(e.out_path), slurp(e.err_path));
  std::string fallback = r.timed_out ? fmt::format("no answer within {:.0f} s: its fio client was killed",
                                                   e.deadline_s)
                         : r.stopped ? "interrupted"
                         : !r.error.empty() ? r.error
                                            : fmt::format("no result from fio (its client exited {})", r.exit_code);
  const size_t failures_before = d_.failures.size();
  ingest_output(d_, out, inv.mode, inv.rep, "", expected, cells, fallback);
  read_iops_logs(d_, inv.mode, inv.rep, logs, prefix, o_.log_ms);
  // A host that answered nothing in this invocation is left out of the rest of the run.
  for (size_t i = failures_before; i < d_.failures.size(); ++i)
    if (d_.failures[i].cell.empty())
      for (size_t h : inv.hosts)
        if (o_.hosts[h].label() == d_.failures[i].host) dead_[h] = true;
}

}  // namespace

const char* run_mode_name(RunMode m) {
  switch (m) {
    case RunMode::kApart: return "apart";
    case RunMode::kTogether: return "together";
    case RunMode::kIngest: return "ingest";
  }
  return "?";
}

CellKind kind_of(const FioJobShape& s) {
  CellKind k;
  k.bs = s.bs;
  k.jobs = s.numjobs;
  k.syncs = s.fsync || s.fdatasync;
  k.durable = k.syncs || s.dsync;
  const bool writes = s.rw.find("write") != std::string::npos || s.rw == "rw" || s.rw == "randrw";
  k.buffered_ref = writes && s.buffered && s.bs == 4096;
  k.direct_ref = writes && s.direct && s.dsync && s.bs == 4096;
  k.sync_ref = writes && s.fdatasync && !s.direct && s.overwrite && s.bs == 4096;
  k.psync = s.ioengine == "psync";
  return k;
}

void ingest_output(FleetData& d, const FioOutput& out, RunMode mode, int rep, const std::string& file_host,
                   const std::vector<std::string>& expected, const std::vector<std::string>& expected_cells,
                   const std::string& fallback) {
  std::map<std::pair<std::string, std::string>, Sample> merged;
  std::set<std::string> answered;
  for (const FioJob& j : out.jobs) {
    const std::string host = j.hostname.empty() ? file_host : label_of(j.hostname, j.port);
    if (std::find(d.hosts.begin(), d.hosts.end(), host) == d.hosts.end()) d.hosts.push_back(host);
    if (std::find(d.cells.begin(), d.cells.end(), j.jobname) == d.cells.end()) d.cells.push_back(j.jobname);
    if (!d.kinds.count(j.jobname)) d.kinds[j.jobname] = kind_of(shape_of(j.options));
    answered.insert(host);
    if (j.error != 0) {
      d.failures.push_back({host, j.jobname, mode, rep,
                            fmt::format("fio's job failed: error {} ({})", j.error, std::strerror(j.error)), false});
      merged.erase({host, j.jobname});
      continue;
    }
    Sample& s = merged[{host, j.jobname}];
    s.host = host, s.cell = j.jobname, s.mode = mode, s.rep = rep;
    ++s.jobs;
    s.iops += j.iops;
    if (j.runtime_ms) s.mb_per_s += static_cast<double>(j.io_bytes) / (static_cast<double>(j.runtime_ms) / 1e3) / 1e6;
    s.clat.merge(j.clat);
    s.sync.merge(j.sync);
  }
  // A job that failed in one of a host's jobs fails the host's cell: no partial merge.
  std::set<std::pair<std::string, std::string>> failed;
  for (const Failure& f : d.failures)
    if (f.mode == mode && f.rep == rep) failed.insert({f.host, f.cell});
  for (auto& [key, s] : merged)
    if (!failed.count(key)) d.samples.push_back(std::move(s));
  for (const std::string& host : expected) {
    if (answered.count(host)) {
      for (const std::string& cell : expected_cells)
        if (!merged.count({host, cell}) && !failed.count({host, cell}))
          d.failures.push_back({host, cell, mode, rep,
                                out.truncated ? "its result was cut short: " + out.problem : "no result for this cell"});
      continue;
    }
    std::string why = fallback;
    const std::string addr = addr_of(host);
    if (std::find(out.disconnected.begin(), out.disconnected.end(), addr) != out.disconnected.end())
      why = "disconnected mid-run (fio's client: host=" + addr + " disconnected)";
    else if (std::find(out.timed_out.begin(), out.timed_out.end(), addr) != out.timed_out.end())
      why = "stopped answering mid-run (fio: client " + addr + ", timeout on a command)";
    else if (std::find(out.unreachable.begin(), out.unreachable.end(), host) != out.unreachable.end() ||
             std::find(out.unreachable.begin(), out.unreachable.end(), addr + ":" + host.substr(host.rfind(':') + 1)) !=
                 out.unreachable.end())
      why = "does not answer (fio: failed to connect to " + host + ")";
    else if (out.truncated)
      why = "its result was lost: " + out.problem;
    else if (!out.problem.empty() && out.jobs.empty())
      why = out.problem + "; " + fallback;
    if (!out.complaints.empty() && why == fallback) why += " (" + out.complaints.front() + ")";
    d.failures.push_back({host, "", mode, rep, why});
  }
}

FleetData run_fleet(const RunOptions& o, std::string* refused) {
  FleetData d;
  for (const Host& h : o.hosts) d.hosts.push_back(h.label());
  for (const CellInstance& c : o.cells) d.cells.push_back(c.name);
  std::string why;
  d.fio_version = local_fio_version(o.fio, &why);
  if (d.fio_version.empty()) return *refused = why, d;
  std::error_code ec;
  for (const char* sub : {"jobs/sent", "fio", "logs"}) fs::create_directories(o.out_dir + "/" + sub, ec);
  if (ec) return *refused = fmt::format("cannot create {}: {}", o.out_dir, ec.message()), d;
  Runner runner(o, &d);
  // Each cell alone, as plain fio runs it on the host it is copied to.
  for (const CellInstance& c : o.cells) {
    std::string e;
    FioJobOptions plain;
    plain.ramp_s = o.ramp_s;
    plain.randseed = fio_seed(o.seed);
    const std::string text = fio_job_file({{c.name, c.spec}}, plain,
                                          "iobench fleet: " + std::string(c.cell ? c.cell->what : c.name) +
                                              "\nfio " + c.name + ".fio  (in the folder under test)",
                                          &e);
    if (text.empty()) return *refused = e, d;
    write_file(runner.job_dir() + "/" + c.name + ".fio", text);
  }
  if (std::string r = runner.probe(); !r.empty()) return *refused = r, d;
  const size_t n = o.hosts.size(), k = o.cells.size();
  std::vector<Plan> plan;
  for (int rep = 0; rep < o.reps; ++rep) {
    const size_t turn = static_cast<size_t>(rep) + o.seed;
    if (o.apart)
      for (size_t i = 0; i < n; ++i) {
        Plan inv{RunMode::kApart, rep, "", {(i + turn) % n}, {}};
        inv.name = fmt::format("apart-r{}-h{}", rep, inv.hosts[0] + 1);
        for (size_t c = 0; c < k; ++c) inv.cells.push_back(&o.cells[(c + turn) % k]);
        plan.push_back(inv);
      }
    if (o.together)
      for (size_t c = 0; c < k; ++c) {
        const CellInstance& cell = o.cells[(c + turn) % k];
        Plan inv{RunMode::kTogether, rep, fmt::format("together-r{}-{}", rep, cell.name), {}, {&cell}};
        for (size_t i = 0; i < n; ++i) inv.hosts.push_back(i);
        plan.push_back(inv);
      }
  }
  for (size_t i = 0; i < plan.size(); ++i) {
    if (o.stop && o.stop()) {
      d.interrupted = true;
      break;
    }
    Plan inv = plan[i];
    std::erase_if(inv.hosts, [&](size_t h) { return !runner.alive(h); });
    if (o.progress) o.progress(i, plan.size(), inv.name);
    if (!inv.hosts.empty()) runner.run(inv);
  }
  if (o.stop && o.stop()) d.interrupted = true;
  return d;
}

}  // namespace fenec::iobench::fleet
