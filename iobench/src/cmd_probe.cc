// `iobench probe`: the table every other subcommand's skips refer to.
#include <fmt/format.h>

#include "iobench/src/cli.h"
#include "iobench/src/probe.h"

namespace fenec::iobench {

RunFn register_probe(CLI::App& root) {
  auto o = std::make_shared<CommonOpts>();
  CLI::App* sub = root.add_subcommand("probe", "What the directory's filesystem and device support and require");
  sub->footer(
      "Tries each capability with a real write in --dir rather than trusting the filesystem's name:\n"
      "O_DIRECT and the size/offset and buffer alignment it requires, O_DSYNC, RWF_DSYNC, fallocate,\n"
      "hard links, io_uring. Reads fs type (mountinfo, statfs), device, rotational, write cache and\n"
      "logical block size from /sys/block.");
  add_common_flags(sub, o.get());
  return [o] {
    begin_run(*o);
    ProbeResult p = probe(o->dir);
    fmt::print("{}", probe_table(p));
    if (!p.error.empty()) return 1;
    auto results = make_results(*o, "probe");
    add_probe_rows(*results, p);
    results->attach_json("probe", probe_json(p));
    return emit(*results, *o);
  };
}

}  // namespace fenec::iobench
