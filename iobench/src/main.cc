// iobench: what a durable write costs on this disk, at each size, mode,
// concurrency and submission path, and whether the answer can be trusted.
#include <fmt/format.h>
#include <map>

#include "iobench/src/cli.h"
#include "iobench/src/files.h"
#include "iobench/src/submit.h"
#include "iobench/kit/interrupt.h"
#include "engine/src/base/cli.h"
#include "engine/src/base/version.h"

int main(int argc, char** argv) {
  using namespace fenec::iobench;
  CLI::App app{
      "iobench: characterize durable writes for database engines.\n"
      "  sweep        throughput/latency grid: sizes x modes x jobs x layout x submission path\n"
      "               (paths: " + submit_names() + ")\n"
      "  syncmethods  pg_test_fsync's table: which sync method is fastest here\n"
      "  probe        what the filesystem and device support and require (tried, not assumed)\n"
      "  lies         is a durable write plausibly durable here? (IO-4)\n"
      "  coherence    read-after-direct-write staleness check (IO-5)\n"
      "  diskcheck    serve|write|verify: prove durability across a power cut\n"
      "  advise       the settings each engine should use here, and the durable commits/s to expect\n"
      "  fleet        the same cells asked of many hosts through fio's client/server, merged, the odd host named",
      "iobench"};
  app.require_subcommand(1);
  app.set_version_flag("--version", fenec::base::VersionLine("iobench"));
  std::map<std::string, RunFn> runs;
  runs["sweep"] = register_sweep(app);
  runs["probe"] = register_probe(app);
  runs["syncmethods"] = register_syncmethods(app);
  runs["lies"] = register_lies(app);
  runs["coherence"] = register_coherence(app);
  runs["diskcheck"] = register_diskcheck(app);
  runs["advise"] = register_advise(app);
  runs["fleet"] = register_fleet(app);
  if (int rc = fenec::base::ParseFlags(app, argc, argv); rc >= 0) return rc;
  fenec::kit::install_stop_handlers();
  try {
    for (CLI::App* sub : app.get_subcommands()) return runs.at(sub->get_name())();
  } catch (const UsageError& e) {
    fmt::print(stderr, "iobench: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "iobench: error: {}\n", e.what());
    return 1;
  }
  return 2;
}
