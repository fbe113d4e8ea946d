// `iobench diskcheck serve|write|verify`: the power-cut proof `lies` points to.
#include <fmt/format.h>
#include <thread>

#include "iobench/src/cli.h"
#include "iobench/src/diskcheck.h"
#include "iobench/src/files.h"
#include "iobench/src/units.h"
#include "iobench/kit/interrupt.h"

namespace fenec::iobench {
namespace {

struct DiskcheckOpts {
  CommonOpts common;
  std::string host = "127.0.0.1", bind = "127.0.0.1", id = "diskcheck";
  uint16_t port = 5400;
  std::string page_size = "4k", duration = "60s", mode = "fdatasync";
  uint64_t pages = 4096;
  bool keep = false;
};

uint64_t page_size_of(const DiskcheckOpts& o) {
  uint64_t ps = 0;
  std::string err;
  if (!parse_size(o.page_size, &ps, &err)) throw UsageError("--page-size: " + err);
  if (ps < 32) throw UsageError("--page-size must be at least 32 bytes");
  return ps;
}

int serve(const DiskcheckOpts& o) {
  begin_run(o.common);
  DiskcheckServer server;
  std::string log = fmt::format("{}/diskcheck-server-{}.log", o.common.dir, o.port);
  if (std::string err = server.listen(o.bind, o.port, log); !err.empty()) throw std::runtime_error(err);
  fmt::print(stderr, "diskcheck: serving on {}:{}, records in {} (Ctrl-C to stop)\n", o.bind, server.port(), log);
  std::thread t([&server] { server.serve(); });
  while (!kit::stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  server.stop();
  t.join();
  fmt::print(stderr, "diskcheck: stopped after {} acknowledged writes\n", server.acks());
  return 0;
}

int write(const DiskcheckOpts& o) {
  begin_run(o.common);
  DiskcheckWriteOptions w;
  std::string err;
  if (!parse_mode(o.mode, &w.mode, &err)) throw UsageError("--mode: " + err);
  if (!mode_durable(w.mode)) throw UsageError(fmt::format("--mode {} is not durable", o.mode));
  if (!parse_duration(o.duration, &w.seconds, &err)) throw UsageError("--duration: " + err);
  if (o.pages == 0) throw UsageError("--pages must be positive");
  w.host = o.host;
  w.port = o.port;
  w.dir = o.common.dir;
  w.id = o.id;
  w.pages = o.pages;
  w.page_size = page_size_of(o);
  w.seed = resolve_seed(o.common);
  w.stop = kit::stop_requested;
  fmt::print(stderr, "diskcheck: writing {} pages of {} in {} with {}; cut the power now, then run verify\n",
             o.pages, o.page_size, diskcheck_file(w.dir, w.id), o.mode);
  DiskcheckWriteResult r = run_diskcheck_writer(w);
  fmt::print("{} acknowledged writes\n", r.writes);
  if (!r.error.empty()) {
    fmt::print(stderr, "iobench: diskcheck write: {}\n", r.error);
    return 1;
  }
  return 0;
}

int verify(const DiskcheckOpts& o) {
  begin_run(o.common);
  uint64_t ps = page_size_of(o);
  DiskcheckVerifyResult r = run_diskcheck_verify(o.host, o.port, o.common.dir, o.id, ps);
  if (!r.error.empty()) {
    fmt::print(stderr, "iobench: diskcheck verify: {}\n", r.error);
    return 1;
  }
  fmt::print("{} pages checked: {} hold their acknowledged value, {} a newer in-flight one, {} LOST, {} torn\n",
             r.checked, r.ok, r.in_flight, r.lost, r.torn);
  for (const std::string& e : r.examples) fmt::print("  {}\n", e);
  fmt::print("{}\n", r.lost ? "verdict: acknowledged writes were lost: this disk lies about durability (IO-4)"
                            : "verdict: no acknowledged write was lost");
  auto results = make_results(o.common, "diskcheck verify");
  std::string cs = fmt::format("id={};page={}", o.id, o.page_size);
  results->add("IO-4", "diskcheck", cs, "pages_checked", static_cast<double>(r.checked), "count");
  results->add("IO-4", "diskcheck", cs, "pages_lost", static_cast<double>(r.lost), "count");
  results->add("IO-4", "diskcheck", cs, "pages_torn", static_cast<double>(r.torn), "count");
  int rc = emit(*results, o.common);
  if (!o.keep && !r.lost) ::unlink(diskcheck_file(o.common.dir, o.id).c_str());
  return r.lost ? 1 : rc;
}

}  // namespace

RunFn register_diskcheck(CLI::App& root) {
  auto o = std::make_shared<DiskcheckOpts>();
  CLI::App* sub = root.add_subcommand("diskcheck", "Prove durability across a power cut (diskchecker.pl's protocol)");
  sub->footer(
      "1. On a machine that keeps its power:  iobench diskcheck serve --bind 0.0.0.0 --port 5400\n"
      "2. On the machine under test:          iobench diskcheck write --host PEER --dir /data\n"
      "3. Cut its power mid-run; boot it; run: iobench diskcheck verify --host PEER --dir /data\n"
      "The peer records each page's value before its write and once its sync returned; verify reports\n"
      "every acknowledged page that the disk lost. Exit 1 if any was.");
  sub->require_subcommand(1);
  auto* s = sub->add_subcommand("serve", "Record what the writer is about to write and what it was told is durable");
  add_common_flags(s, &o->common);
  s->add_option("--bind", o->bind, "IPv4 address to listen on")->capture_default_str();
  s->add_option("--port", o->port, "TCP port")->capture_default_str();
  auto* w = sub->add_subcommand("write", "Write self-describing pages durably, telling the peer before and after");
  add_common_flags(w, &o->common, true);
  w->add_option("--host", o->host, "The serving peer")->capture_default_str();
  w->add_option("--port", o->port, "Its port")->capture_default_str();
  w->add_option("--id", o->id, "Name of this test file (diskcheck-<id>.dat)")->capture_default_str();
  w->add_option("--pages", o->pages, "Pages in the file")->capture_default_str();
  w->add_option("--page-size", o->page_size, "Bytes per page")->capture_default_str();
  w->add_option("--duration", o->duration, "How long to write")->capture_default_str();
  w->add_option("--mode", o->mode, "fsync, fdatasync, dsync or direct-dsync")->capture_default_str();
  auto* v = sub->add_subcommand("verify", "After the power cut: report acknowledged pages that were lost");
  add_common_flags(v, &o->common);
  v->add_option("--host", o->host, "The serving peer")->capture_default_str();
  v->add_option("--port", o->port, "Its port")->capture_default_str();
  v->add_option("--id", o->id, "Name of the test file")->capture_default_str();
  v->add_option("--page-size", o->page_size, "Bytes per page, as written")->capture_default_str();
  v->add_flag("--keep", o->keep, "Keep the test file after a clean verify");
  return [o, s, w] {
    if (s->parsed()) return serve(*o);
    if (w->parsed()) return write(*o);
    return verify(*o);
  };
}

}  // namespace fenec::iobench
