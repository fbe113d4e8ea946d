// journals-bench's JR-3 workload: iobench's priority cells (iobench/src/prio.h:
// a journal's fdatasyncs beside a saturating O_DIRECT background at a
// priority, and the two-writer positive control), with one background of
// its own besides pwrite threads:
//   threads  depth threads of pwrite, each thread's priority set with
//            ioprio_set(2) as `ionice` does (iobench's direct_writers);
//   ring     the engine's own ring (engine/src/ring/global_ring.h, the
//            DataFlush::kGlobalRing path), each sqe carrying the priority
//            (RingOptions::ioprio; BE/7 is the engine's default).
#pragma once

#include <string>
#include <vector>

#include "iobench/src/prio.h"

namespace fenec::scenarios::journals {

using iobench::prio::BgPrio;
using iobench::prio::bg_prio_name;
using iobench::prio::bg_prio_names;
using iobench::prio::ControlCell;
using iobench::prio::data_file_path;
using iobench::prio::ioprio_of;
using iobench::prio::JournalCell;
using iobench::prio::parse_bg_prio;
using iobench::prio::prepare_data_file;
using iobench::prio::PrioConfig;
using iobench::prio::run_control_cell;
using iobench::prio::set_thread_ioprio;
using iobench::prio::thread_ioprio;

enum class Flusher { kThreads, kRing };
const std::vector<std::string>& flusher_names();  // "threads", "ring"
bool parse_flusher(const std::string& name, Flusher* out);

JournalCell run_journal_cell(const PrioConfig& cfg, BgPrio prio, Flusher flusher);

}  // namespace fenec::scenarios::journals
