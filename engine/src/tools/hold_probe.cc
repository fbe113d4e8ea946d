// fenec-hold-probe: what runs under the write lock when a single writer's
// hold is long (GR-5's growth run: buffered, one writer, single puts, a
// @unique text key). Each put's lock hold is read from Stats deltas with
// Options::probe_lock_holds on, so a long hold is split into the holder's
// CPU time, the page faults it took, whether it was preempted, and what the
// engine did in it (a handover piece, a new id-index chunk). A diagnostic,
// not a bench: the GetStats around every put adds its own cost to it.
//
//   fenec-hold-probe [--rows N] [--dir DIR] [--over-us U] [--top K] [--no-unique]
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "fenec/database.h"
#include "engine/src/base/cli.h"

namespace {

using fenec::Stats;

// The growth bench's keys (scenarios/growth make_key): an odd multiplier
// mod 2^32, so distinct and spread over the @unique index's tables.
uint64_t Scramble(uint64_t i) { return (i * 0x9E3779B1u) & 0xFFFFFFFFu; }

struct Hold {
  uint64_t put = 0, wall_ns = 0, cpu_ns = 0, faults = 0, preempted = 0, handover = 0, chunk = 0;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Where a single writer's long write-lock holds go (thread CPU, faults, preemption, engine work)."};
  uint64_t rows = 1'000'000, over_us = 1000;
  size_t top = 12;
  std::string dir = "/tmp/fenec-hold-probe";
  app.add_option("--rows", rows, "single puts (default 1000000)");
  app.add_option("--dir", dir, "scratch database folder, removed first and after");
  app.add_option("--over-us", over_us, "a hold longer than this is long (default 1000)");
  app.add_option("--top", top, "longest holds listed (default 12)");
  bool plain = false;
  app.add_flag("--no-unique", plain, "email as plain text: what the engine costs without the @unique index");
  if (int rc = fenec::base::ParseFlags(app, argc, argv); rc >= 0) return rc;

  std::filesystem::remove_all(dir);
  fenec::Options opt;
  opt.durability = fenec::Durability::kBuffered;
  opt.probe_lock_holds = true;
  opt.checkpoint_on_close = false;
  auto db = fenec::Database::Open(dir, opt);
  if (!db.ok()) {
    fmt::print(stderr, "open: {}\n", db.status().ToString());
    return 1;
  }
  auto users = (*db)->CreateCollection("users", {{plain ? fenec::Field::Text("email") : fenec::Field::Text("email").Unique(), fenec::Field::Int("n")}});
  if (!users.ok()) {
    fmt::print(stderr, "create: {}\n", users.status().ToString());
    return 1;
  }
  (*db)->ResetStats();
  std::vector<Hold> longs;
  uint64_t over = 0, over_busy = 0, over_preempted = 0, over_faulting = 0, over_handover = 0, over_chunk = 0;
  Stats s0 = (*db)->GetStats();
  for (uint64_t i = 0; i < rows; ++i) {
    auto id = (*db)->Put(*users, {fenec::Value(fmt::format("user{}@example.com", Scramble(i))),
                                  fenec::Value(static_cast<int64_t>(i))});
    if (!id.ok()) {
      fmt::print(stderr, "put #{}: {}\n", i, id.status().ToString());
      return 1;
    }
    Stats s1 = (*db)->GetStats();
    Hold h{i,
           s1.write_lock_hold_ns - s0.write_lock_hold_ns,
           s1.write_lock_hold_cpu_ns - s0.write_lock_hold_cpu_ns,
           s1.write_lock_hold_faults - s0.write_lock_hold_faults,
           s1.write_lock_hold_preemptions - s0.write_lock_hold_preemptions,
           s1.handover_pieces - s0.handover_pieces,
           (s1.id_chunks_prefaulted - s0.id_chunks_prefaulted) + (s1.id_chunks_fresh_under_lock -
                                                                   s0.id_chunks_fresh_under_lock)};
    s0 = s1;
    if (h.wall_ns < over_us * 1000) continue;
    ++over;
    if (h.cpu_ns * 2 >= h.wall_ns) ++over_busy;
    if (h.preempted > 0) ++over_preempted;
    if (h.faults > 0) ++over_faulting;
    if (h.handover > 0) ++over_handover;
    if (h.chunk > 0) ++over_chunk;
    longs.push_back(h);
  }
  Stats st = (*db)->GetStats();
  fmt::print("puts {}  holds {}  hold total {:.1f} ms wall, {:.1f} ms CPU; faults under the lock {}, "
             "preemptions {}\n",
             rows, st.write_lock_acquisitions, st.write_lock_hold_ns / 1e6, st.write_lock_hold_cpu_ns / 1e6,
             st.write_lock_hold_faults, st.write_lock_hold_preemptions);
  fmt::print("longest hold {:.3f} ms wall, {:.3f} ms CPU, {} faults, {} preemptions; most CPU in one hold {:.3f} ms\n",
             st.write_lock_hold_max_ns / 1e6, st.write_lock_longest_hold_cpu_ns / 1e6,
             st.write_lock_longest_hold_faults, st.write_lock_longest_hold_preemptions,
             st.write_lock_hold_cpu_max_ns / 1e6);
  fmt::print("handover pieces {} ({} entries); id chunks prefaulted {}, fresh under the lock {}; write buffers "
             "prefaulted {}\n",
             st.handover_pieces, st.handover_entries, st.id_chunks_prefaulted, st.id_chunks_fresh_under_lock,
             st.write_buffers_prefaulted);
  fmt::print("holds over {} us: {}; CPU >= half the wall {}, preempted {}, faulted {}, with a handover piece {}, "
             "with a new id chunk {}\n",
             over_us, over, over_busy, over_preempted, over_faulting, over_handover, over_chunk);
  std::sort(longs.begin(), longs.end(), [](const Hold& a, const Hold& b) { return a.wall_ns > b.wall_ns; });
  for (size_t k = 0; k < std::min(top, longs.size()); ++k) {
    const Hold& h = longs[k];
    fmt::print("  put {:>8}: {:7.3f} ms wall {:7.3f} ms CPU  faults {:4}  preempted {}  handover {}  chunk {}\n", h.put,
               h.wall_ns / 1e6, h.cpu_ns / 1e6, h.faults, h.preempted, h.handover, h.chunk);
  }
  (void)(*db)->Close();
  db->reset();
  std::filesystem::remove_all(dir);
  return 0;
}
