// What the database did: every counter declared once, in FENEC_STATS.
//
//   fenec::Stats st = db->GetStats();
//   st.commits ...                                   // a field, as ever
//   for (fenec::Stat s : fenec::kAllStats)           // or every one, by its declaration
//     printf("%s %llu %s\n", Info(s).name, (unsigned long long)st.get(s), UnitName(Info(s).unit));
//
// One X-macro line a counter (RocksDB declares its tickers once and keeps a
// name map beside them; here the one line is both): the Stats field, the
// Stat enum that subsystems index their atomics with, ResetStats, the
// server's /metrics (name, # HELP, # TYPE) and the benches' result rows are
// all produced from it, and engine/src/db/stats_test.cc checks each against
// it. Adding a counter is its line here plus the line that counts it.
//
// Columns: X(name, unit, kind, finding, help)
//   unit     kCount, kNs (nanoseconds), kBytes, kLsn, kBool (a bool field)
//   kind     kCounter: only grows; ResetStats zeroes it.
//            kMaximum: the largest since open or ResetStats (ResetStats zeroes it).
//            kPeak: the largest since open; ResetStats keeps it.
//            kGauge: as things stand (what is open, held, recovered at open,
//                    the LSNs, fail_stopped); ResetStats keeps it.
//   finding  the FINDINGS.md ID the counter evidences, or "" for none
//   help     one line: what is counted (the /metrics # HELP text)
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <type_traits>

#define FENEC_STATS(X)                                                                                            \
  X(commits, kCount, kCounter, "", "Acknowledged write commits (puts, batches, deletes).")                        \
  X(commits_already_durable, kCount, kCounter, "CC-1", "Commits whose LSN an earlier fsync had covered.")         \
  X(commits_covered_while_waiting, kCount, kCounter, "CC-1", "Commits another leader's fsync covered.")           \
  X(group_leads, kCount, kCounter, "CC-1", "Group-commit fsync rounds led (each one journal write + fsync).")     \
  X(journal_write_commits_max, kCount, kMaximum, "CC-1", "The most commits one journal write carried.")          \
  X(commit_window_waits, kCount, kCounter, "", "Group-commit rounds whose leader waited (commit_window_us).")     \
  X(commit_window_filled, kCount, kCounter, "", "Of them, ended early: the commits in flight had queued.")        \
  X(commit_window_wait_ns, kNs, kCounter, "", "Time leaders waited in the commit window.")                        \
  X(commit_window_ns, kNs, kGauge, "", "The window a round's leader may wait now (adaptive: its recent fdatasync).") \
  X(fsyncs, kCount, kCounter, "", "fdatasync calls: journal_fsyncs + data_fsyncs + branch_journal_fsyncs.")       \
  X(journal_fsyncs, kCount, kCounter, "", "fdatasync calls on the root's journal.")                               \
  X(data_fsyncs, kCount, kCounter, "", "fdatasync calls on the data file (checkpoints).")                         \
  X(journal_writes, kCount, kCounter, "", "Write syscalls to the root's journal files.")                          \
  X(journal_sync_ns, kNs, kCounter, "", "Time in the root journal's fdatasyncs.")                                 \
  X(journal_zero_bytes, kBytes, kCounter, "",                                                                     \
    "Zeros written ahead of journal records, every journal (Options::journal_zero_ahead).")                       \
  X(data_writes, kCount, kCounter, "", "Write syscalls to the data file.")                                        \
  X(bytes_written, kBytes, kCounter, "", "Journal and data bytes written.")                                       \
  X(durable_lsn, kLsn, kGauge, "", "Highest LSN known durable.")                                                  \
  X(last_lsn, kLsn, kGauge, "", "Highest LSN landed.")                                                            \
                                                                                                                  \
  X(write_lock_acquisitions, kCount, kCounter, "", "Exclusive lock acquisitions.")                                \
  X(write_lock_wait_ns, kNs, kCounter, "", "Total time writers waited for the exclusive lock.")                   \
  X(write_lock_wait_max_ns, kNs, kMaximum, "", "Longest wait for the exclusive lock.")                            \
  X(write_lock_hold_ns, kNs, kCounter, "", "Total time the exclusive lock was held.")                             \
  X(write_lock_hold_max_ns, kNs, kMaximum, "", "Longest hold of the exclusive lock.")                             \
  X(write_lock_holds_over_1ms, kCount, kCounter, "", "Holds of the exclusive lock longer than 1 ms.")             \
  X(write_lock_handovers, kCount, kCounter, "CC-2", "Exclusive acquisitions by another thread than the last holder.") \
  X(write_lock_contended, kCount, kCounter, "CC-2", "Exclusive acquisitions that found the lock held and waited.")  \
  /* Options::probe_lock_holds only (else 0): what the holds cost the holding thread; a hold long in */           \
  /* wall time but short in CPU time was preempted. */                                                            \
  X(write_lock_hold_cpu_ns, kNs, kCounter, "", "Thread CPU time during exclusive holds (probe_lock_holds).")      \
  X(write_lock_hold_cpu_max_ns, kNs, kMaximum, "", "Most CPU time one exclusive hold used (probe_lock_holds).")   \
  X(write_lock_longest_hold_cpu_ns, kNs, kMaximum, "",                                                            \
    "CPU time of the hold write_lock_hold_max_ns measured (probe_lock_holds).")                                   \
  X(write_lock_hold_faults, kCount, kCounter, "", "Page faults taken while holding (probe_lock_holds).")          \
  X(write_lock_longest_hold_faults, kCount, kMaximum, "", "Page faults of the longest hold (probe_lock_holds).")  \
  X(write_lock_hold_preemptions, kCount, kCounter, "",                                                            \
    "Involuntary context switches while holding (probe_lock_holds).")                                             \
  X(write_lock_longest_hold_preemptions, kCount, kMaximum, "",                                                    \
    "Involuntary context switches of the longest hold (probe_lock_holds).")                                       \
                                                                                                                  \
  X(pins, kCount, kCounter, "CC-5", "Long reads pinned.")                                                         \
  X(pin_ns, kNs, kCounter, "CC-5", "Time pinning: pin_wait_ns + pin_hold_ns.")                                    \
  X(pin_max_ns, kNs, kMaximum, "CC-5", "Longest pin (wait and hold).")                                            \
  X(pin_wait_ns, kNs, kCounter, "CC-5", "Time waiting for the shared lock to pin.")                               \
  X(pin_hold_ns, kNs, kCounter, "CC-5", "Time holding the shared lock while pinning (what writers wait behind).") \
  X(pin_hold_max_ns, kNs, kMaximum, "CC-5", "Longest hold of the shared lock while pinning.")                    \
  X(pinned_rows, kCount, kCounter, "CC-5", "Id-index entries pinned (shared, never copied).")                     \
  X(pin_chunks_shared, kCount, kCounter, "CC-5",                                                                  \
    "Id-index chunks pins shared: ceil(entries / 65 536) a collection.")                                          \
  X(id_chunks_copied, kCount, kCounter, "CC-5", "Id-index chunks a writer copied because a pin held them.")       \
  X(id_chunks_prefaulted, kCount, kCounter, "", "Spare id-index chunks zeroed and faulted in outside the lock.")  \
  X(id_chunks_fresh_under_lock, kCount, kCounter, "", "Id-index chunks taken under the lock with no spare ready.") \
                                                                                                                  \
  X(buffer_flushes, kCount, kCounter, "CC-4", "Write buffers written to the data file.")                          \
  X(buffer_flushes_under_lock, kCount, kCounter, "CC-4", "Write buffers written with the exclusive lock held.")   \
  X(handover_pieces, kCount, kCounter, "CC-4", "Lock holds that handed over entries.")                            \
  X(handover_entries, kCount, kCounter, "CC-4", "Entries handed over.")                                           \
  X(write_buffers_prefaulted, kCount, kCounter, "", "Spare write buffers whose pages were touched outside the lock.") \
  X(writes_deferred_for_sync, kCount, kCounter, "GR-5", "Writes put off while the periodic fsync ran.")           \
  X(periodic_syncs, kCount, kCounter, "", "Background journal fsync rounds that synced something (unsynced modes).") \
                                                                                                                  \
  /* Storages and their journals; a branch is an index's storage. */                                              \
  X(branches, kCount, kGauge, "JR-1", "Branch storages open (one per @unique / @text field).")                    \
  X(journals_shared, kBool, kGauge, "JR-1",                                                                       \
    "Shared journals in effect (false: kSeparate, or the hard-link fallback).")                                   \
  X(journal_links, kCount, kCounter, "JR-1", "Journal files hard-linked into branches' Journals/.")               \
  X(branch_journal_writes, kCount, kCounter, "JR-1", "Write syscalls to branches' own journals (kSeparate).")      \
  X(branch_journal_fsyncs, kCount, kCounter, "JR-1", "fdatasync calls on branches' own journals (kSeparate).")    \
  X(branches_recovered, kCount, kGauge, "JR-1", "At open: indexes loaded from their own branch storage.")         \
  X(branches_rebuilt, kCount, kGauge, "JR-1", "At open: branches behind the root, rebuilt from the documents.")   \
                                                                                                                  \
  X(merger_batches, kCount, kCounter, "JR-2", "Batches of operations the transaction merger executed.")           \
  X(merger_ops, kCount, kCounter, "JR-2", "Operations the transaction merger executed.")                          \
  X(merger_async_completions, kCount, kCounter, "JR-2", "Merger batches completed while the next one ran.")      \
  X(merger_self_completions, kCount, kCounter, "JR-2", "Merger batches the merger completed itself (kMergerSync).") \
  X(merger_self_completions_with_work, kCount, kCounter, "JR-2",                                                  \
    "Of them, completions during which more operations queued: work that waited for the merger's fsync.")      \
  X(ring_flushes, kCount, kCounter, "", "Write buffers written through the global io_uring (kGlobalRing).")      \
  X(async_puts, kCount, kCounter, "", "Puts and batches landed by PutBatchAsync, waited for off the caller's thread.") \
  X(async_rounds, kCount, kCounter, "", "Rounds of PutBatchAsync's waiter thread (tickets taken together).")    \
  X(async_puts_no_wait, kCount, kCounter, "", "Puts TryPutBatchAsync landed without waiting (counted in async_puts too).") \
  X(async_puts_would_wait, kCount, kCounter, "",                                                                  \
    "TryPutBatchAsync calls refused, nothing changed: the write lock taken, an @hnsw queue full, a checkpoint owed.") \
  X(async_acks, kCount, kCounter, "", "PutBatchAsync callbacks made by its waiter thread, success or error.")     \
  X(async_acks_before_durable, kCount, kCounter, "",                                                              \
    "PutBatchAsync successes called back before the durable LSN covered them: must be 0.")                      \
                                                                                                                  \
  /* @hnsw vector indexes (engine/doc/vectors.md), summed over every one; a reopened index starts at */           \
  /* zero: the counters say what this session did (a loaded graph has 0 rounds). */                              \
  X(vector_indexes, kCount, kGauge, "", "@hnsw fields open.")                                                     \
  X(vector_nodes, kCount, kGauge, "", "Graph nodes (one per distinct vector ever linked).")                       \
  X(vector_owners, kCount, kGauge, "", "Documents the @hnsw graphs hold.")                                        \
  X(vector_tombstones, kCount, kGauge, "", "Deleted vectors still linked (never answered).")                      \
  X(vector_pending, kCount, kGauge, "", "Vectors landed, not yet linked (a NEAR scans them exactly).")             \
  X(vector_queue_waits, kCount, kCounter, "", "Writers that waited for room in a full queue (queue_bound).")      \
  X(vector_linked, kCount, kCounter, "", "Vectors the linkers linked into a graph.")                              \
  X(vector_link_batches, kCount, kCounter, "", "Linker rounds (each one InsertBatch, or one Insert in kRow).")     \
  X(vector_prelink_edges_added, kCount, kCounter, "VS-1", "Edges between batch-mates before linking.")            \
  X(vector_prelink_edges_pruned, kCount, kCounter, "VS-1", "Pre-link edges dropped later by the heuristic.")      \
  X(vector_rounds, kCount, kCounter, "VS-1", "Gathered distance rounds of batch linking.")                        \
  X(vector_round_distances, kCount, kCounter, "VS-1", "Distances computed in the gathered rounds.")               \
  X(vector_round_distances_max, kCount, kPeak, "VS-1", "The most distances one gathered round computed.")         \
  X(vector_preloaded, kCount, kCounter, "VS-3", "Vectors batch linking read ahead (prefetched or advised).")     \
  X(vector_pages_preloaded, kCount, kCounter, "VS-3", "Uncached vector-file pages batch linking read past the cache.")     \
  X(vector_link_major_faults, kCount, kCounter, "VS-3", "Major faults while linking (vectors in a file).")         \
  X(vector_insert_distances, kCount, kCounter, "", "Distances computed to link vectors.")                         \
  X(vector_searches, kCount, kCounter, "", "Graph searches (one per NEAR and index).")                            \
  X(vector_search_distances, kCount, kCounter, "", "Distances the graph searches computed.")                      \
  X(vector_pending_scanned, kCount, kCounter, "", "Pending vectors NEARs compared exactly.")                      \
  X(vector_table_growths, kCount, kCounter, "GR-3", "Growths of the held-vector tables.")                         \
  X(vector_table_entries_moved, kCount, kCounter, "GR-3", "Entries the held-vector table growths moved.")         \
  X(vector_table_max_entries_moved, kCount, kPeak, "GR-3", "The most entries one held-vector table growth moved.") \
  X(vector_reads_after_load, kCount, kCounter, "GR-4",                                                            \
    "Vectors read to build the held-vector tables after open (kKept: 0).")                                        \
  X(vector_cleanups_unlinked, kCount, kCounter, "", "Tombstones checkpoints unlinked.")                           \
  X(vector_bytes_full, kBytes, kGauge, "", "Full vectors in memory.")                                             \
  X(vector_bytes_binary, kBytes, kGauge, "VS-2", "One-bit codes in memory.")                                      \
  X(vector_bytes_graph, kBytes, kGauge, "", "Neighbour lists in memory.")                                         \
                                                                                                                  \
  X(checkpoints, kCount, kCounter, "", "Checkpoints.")                                                            \
  /* Of them, taken by a put whose record would have made replay skip more ids than it allows */                  \
  /* (ids burned by refused puts; engine/doc/journal.md, Limits). */                                              \
  X(id_gap_checkpoints, kCount, kCounter, "", "Checkpoints a put's id gap forced.")                               \
  X(id_reservations, kCount, kCounter, "", "Id reservations journaled ahead of acknowledged ids (unsynced modes).") \
  X(id_reservation_waits, kCount, kCounter, "",                                                                   \
    "Acknowledgements that waited for their ids' reservation to be fdatasync'ed.")                                \
  /* A full disk: writes refused before they land, never after (engine/doc/journal.md, "A full disk"). */        \
  X(no_space_refusals, kCount, kCounter, "", "Writes refused (kNoSpace) because the disk had no room for them.")  \
  X(no_space_episodes, kCount, kCounter, "", "Times the disk ran out of room for writes (each until it had some).") \
  /* Open's recovery. Its lock holds are not in the write_lock_* figures, which start after it. */                \
  X(recovered_records, kCount, kGauge, "", "Journal records replayed at open.")                                   \
  X(recovery_ns, kNs, kGauge, "", "Open's recovery (catalog, replay, checkpoint), wall time.")                    \
  X(recovery_discarded_bytes, kBytes, kGauge, "", "Torn journal tail ignored at open.")                           \
  X(recovery_dropped_records, kCount, kGauge, "",                                                                 \
    "RecoveryMode::kPointInTime: intact records past an unreadable durable one, dropped at open.")                \
  X(recovery_dropped_bytes, kBytes, kGauge, "", "RecoveryMode::kPointInTime: bytes dropped at open.")             \
  X(fail_stopped, kBool, kGauge, "", "True once a failed write or fsync stopped the database's writes.")          \
  X(no_space, kBool, kGauge, "", "True while the disk refuses room for writes (they resume once it has some).")

namespace fenec {

enum class StatUnit : uint8_t { kCount, kNs, kBytes, kLsn, kBool };
enum class StatKind : uint8_t { kCounter, kMaximum, kPeak, kGauge };

// Stat::commits, Stat::journal_links ...: an index into kAllStats and Info.
enum class Stat : uint16_t {
#define FENEC_STAT_ENUM(name, unit, kind, finding, help) name,
  FENEC_STATS(FENEC_STAT_ENUM)
#undef FENEC_STAT_ENUM
};

struct StatInfo {
  const char* name;     // the Stats field, and the bench rows' metric
  StatUnit unit;
  StatKind kind;
  const char* finding;  // "" when it evidences none
  const char* help;
};

inline constexpr StatInfo kStatInfo[] = {
#define FENEC_STAT_INFO(name, unit, kind, finding, help) {#name, StatUnit::unit, StatKind::kind, finding, help},
    FENEC_STATS(FENEC_STAT_INFO)
#undef FENEC_STAT_INFO
};
inline constexpr size_t kStatCount = std::size(kStatInfo);

inline constexpr std::array<Stat, kStatCount> kAllStats = [] {
  std::array<Stat, kStatCount> a{};
  for (size_t i = 0; i < kStatCount; ++i) a[i] = static_cast<Stat>(i);
  return a;
}();

constexpr const StatInfo& Info(Stat s) { return kStatInfo[static_cast<size_t>(s)]; }
// Whether ResetStats zeroes it (kCounter, kMaximum).
constexpr bool ZeroedByReset(StatKind k) { return k == StatKind::kCounter || k == StatKind::kMaximum; }
// "count", "ns", "bytes", "lsn", "bool": the bench rows' unit.
const char* UnitName(StatUnit u);
const char* KindName(StatKind k);  // "counter", "maximum", "peak", "gauge"

// Prometheus: fenec_<name>, a kNs one in seconds (its _ns suffix becomes
// _seconds), a kCounter's name ending in _total; # TYPE counter for
// kCounter, gauge for the rest.
std::string MetricName(Stat s);
double MetricValue(Stat s, uint64_t v);  // v as the metric states it (ns to seconds)

template <StatUnit U>
using StatValue = std::conditional_t<U == StatUnit::kBool, bool, uint64_t>;

struct Stats {
#define FENEC_STAT_FIELD(name, unit, kind, finding, help) StatValue<StatUnit::unit> name = {};
  FENEC_STATS(FENEC_STAT_FIELD)
#undef FENEC_STAT_FIELD

  // Any counter by its declaration (a bool as 0 / 1).
  uint64_t get(Stat s) const;
  void set(Stat s, uint64_t v);
  // Figures of a later life of the same database (a bench's server across
  // restarts) added to these: counters summed, maxima the larger, gauges
  // as `later` has them.
  void Accumulate(const Stats& later);

  double vector_distances_per_round() const {
    return vector_rounds ? double(vector_round_distances) / double(vector_rounds) : 0;
  }
  double vector_distances_per_search() const {
    return vector_searches ? double(vector_search_distances) / double(vector_searches) : 0;
  }
};

}  // namespace fenec
