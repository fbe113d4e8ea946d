#include "scenarios/journals/jr3.h"

#include <fmt/format.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <iostream>

#include "iobench/kit/interrupt.h"
#include "iobench/kit/block_device.h"
#include "iobench/kit/console.h"
#include "iobench/kit/loopfs.h"

namespace fenec::scenarios::journals {
namespace {

namespace fs = std::filesystem;

// Runs every arm of one device `reps` times, interleaved; fills d.
void measure(kit::Harness& h, const Jr3Options& o, const std::vector<std::string>& prios, PrioDevice* d) {
  PrioConfig cfg = o.cell;
  cfg.stop = &kit::stop_requested;
  if (std::string e = prepare_data_file(cfg); !e.empty()) {
    d->skip_reason = "data file: " + e;
    return;
  }
  std::vector<std::function<std::string()>> arms;
  if (o.control)
    for (bool idle : {false, true})
      arms.push_back([&, idle] {
        ControlCell c = run_control_cell(cfg, idle);
        std::string e = c.error;
        d->control[idle].push_back(std::move(c));
        return e;
      });
  for (const std::string& f : o.flushers) {
    Flusher fl = Flusher::kThreads;
    parse_flusher(f, &fl);
    for (const std::string& p : prios) {
      BgPrio bp = BgPrio::kEqual;
      parse_bg_prio(p, &bp);
      // The journal alone does not depend on the flusher: measured once.
      if (bp == BgPrio::kNone && &f != &o.flushers.front()) continue;
      const std::string flusher = bp == BgPrio::kNone ? "none" : f;
      arms.push_back([&, fl, bp, flusher, p] {
        JournalCell c = run_journal_cell(cfg, bp, fl);
        std::string e = c.error;
        d->cells[{flusher, p}].push_back(std::move(c));
        return e;
      });
    }
  }
  kit::Progress progress("jr3 " + d->label, arms.size() * static_cast<size_t>(h.reps()));
  size_t done = 0;
  std::string failed;
  kit::run_interleaved(h.reps(), arms.size(), [&](size_t arm, int) {
    if (!failed.empty()) return;
    failed = arms[arm]();
    progress.update(++done);
  });
  progress.finish();
  std::error_code ec;
  fs::remove(data_file_path(cfg), ec);
  if (!failed.empty()) {
    d->skip_reason = "failed: " + failed;
    d->control.clear();
    d->cells.clear();
  }
}

}  // namespace

bool run_jr3(kit::Harness& h, const Jr3Options& o, PrioReport* rep) {
  bool ok = true;
  for (const std::string& which : o.devices) {
    if (kit::stop_requested()) break;
    PrioDevice d;
    if (which == "loop") {
      d.label = "loop-bfq";
      std::string why;
      kit::LoopFsOptions lo;
      lo.dir = h.data_dir() + "/jr3-loop";
      lo.bytes = o.loop_bytes;
      // Scoped: unmounted, detached and deleted before the next device, on
      // failure and on Ctrl-C alike (the loop winds down, then this scope ends).
      std::unique_ptr<kit::LoopFs> loop = kit::LoopFs::Create(lo, &why);
      if (!loop) {
        d.skip_reason = "no bfq loop device: " + why;
      } else {
        d.device = loop->name();
        d.scheduler = loop->scheduler();
        Jr3Options here = o;
        here.cell.dir = loop->mount_point() + "/jr3";
        measure(h, here, o.prios, &d);
      }
    } else {
      Jr3Options here = o;
      here.cell.dir = h.data_dir() + "/jr3-disk";
      d.device = kit::disk_of_path(h.data_dir());
      d.scheduler = d.device.empty() ? "" : kit::read_block_schedulers(d.device).active;
      d.label = d.device.empty() ? "disk" : d.device + "-" + (d.scheduler.empty() ? "unknown" : d.scheduler);
      if (d.device.empty()) d.skip_reason = "the scratch dir has no block device below it (tmpfs?)";
      else measure(h, here, o.disk_prios, &d);
      std::error_code ec;
      fs::remove_all(here.cell.dir, ec);
    }
    // BE levels are weighed only by bfq; mq-deadline, kyber and none serve them alike.
    d.judge_be7 = d.scheduler == "bfq";
    if (d.skip_reason.rfind("failed: ", 0) == 0) {
      ok = false;
      std::cerr << fmt::format("journals-bench: JR-3 on {} FAILED: {}\n", d.label, d.skip_reason);
    }
    add_prio_rows(h.results(), d);
    rep->devices.push_back(std::move(d));
  }
  return ok;
}

}  // namespace fenec::scenarios::journals
