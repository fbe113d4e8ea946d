// journals-bench's JR-3 rows, verdicts, plot and console table: per device
// (the bfq loop device, and vda as it is), the positive control and the
// journal's fdatasync latency under each background priority.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "findings/catalogue.h"
#include "iobench/kit/harness.h"
#include "iobench/kit/results.h"
#include "iobench/kit/verdict.h"
#include "scenarios/journals/priority.h"

namespace fenec::scenarios::journals {

// JR-3 holds where the journal's p99 with the background at low priority is
// at most this fraction of its p99 at equal priority (whole interval
// below). A fifth off: a p99 of a few hundred fdatasyncs moves by a tenth or
// so between repetitions of one arm on this machine, so a smaller cut could
// be that alone; and the finding's "must get priority" means a cut a user
// sees, not a trace.
inline constexpr double kP99Line = findings::jr3::kP99.value;
// The control shows priority where the normal writer's share of the bytes
// beside an IDLE writer is at least 1.5x its share beside an equal one
// (whole interval above): from about a half to at least three quarters, so
// the IDLE writer kept at most half of what it had at equal priority. A
// scheduler that honours IDLE starves it (the ratio nears 2x); one that
// ignores it leaves the ratio near 1x.
inline constexpr double kControlLine = findings::jr3::kControl.value;

struct PrioDevice {
  std::string label;       // "loop-bfq", "vda-mq-deadline": the case column's device=
  std::string device;      // "loop3", "vda"
  std::string scheduler;   // active during the run
  std::string skip_reason; // non-empty: nothing ran here
  std::map<bool, std::vector<ControlCell>> control;                         // idle? -> repetitions
  std::map<std::pair<std::string, std::string>, std::vector<JournalCell>> cells;  // (flusher, prio)
  bool judge_be7 = true;  // false on mq-deadline, which serves every BE level alike
};

struct PrioReport {
  std::vector<PrioDevice> devices;
};

std::string prio_case(const PrioDevice& d, const std::string& flusher);

// Rows for one device: control shares and MB/s, per arm the journal's
// fdatasync p50/p99 (geometric mean of the repetitions, 95% interval), the
// background MB/s, commits, and each low-priority arm's p99 over equal
// (paired by repetition). A skipped device gets skip rows.
void add_prio_rows(kit::Results& r, const PrioDevice& d);
// The control's check: the normal writer's share beside IDLE / beside equal >= kControlLine.
kit::Check control_check(const PrioDevice& d);
// JR-3's checks on one device: p99 (low priority) / p99 (equal) <= kP99Line
// for each flusher and each low priority measured (be7 only where judge_be7).
std::vector<kit::Check> p99_checks(const PrioDevice& d);
// One verdict a device, gated by its control: control missed -> not
// applicable; straddling -> inconclusive; cleared -> judged on p99_checks.
kit::Verdict prio_verdict(const PrioDevice& d, const std::string& plot_png);
// JR-3's row when the part did not run (quick mode): skipped, with `why`.
kit::Verdict prio_skipped(const std::string& why);
void write_prio_plot(kit::Harness& h, const PrioReport& rep);
void print_prio_tables(const PrioReport& rep);

}  // namespace fenec::scenarios::journals
