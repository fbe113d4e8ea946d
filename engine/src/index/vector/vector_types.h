// The vector index's options, answers and counters (vector_index.h has the
// design). Namespace fenec::index::vec.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace fenec::index::vec {

// How near two vectors are; smaller is nearer, for every metric.
//   kL2            squared Euclidean distance, sum (a_i - b_i)^2 (no square root:
//                  it orders the same and costs nothing).
//   kCosine        1 - cos(a, b): vectors are normalized to unit length when
//                  inserted and queried (scalar code in index order, so the
//                  stored bytes are the same on every machine), then 1 - a.b.
//                  Range [0, 2]. A zero vector is rejected.
//   kInnerProduct  1 - a.b on the vectors as given (hnswlib's "ip" space, so
//                  the two report the same numbers): the largest inner product
//                  is the nearest. May be negative. Vectors are not normalized.
enum class Metric : uint8_t { kL2, kCosine, kInnerProduct };

// How inserts are linked (VS-1).
//   kBatch  batches of up to batch_size inserts run as resumable insert
//           processes whose distance work is gathered and computed on every
//           core, after the batch's nodes are pre-linked to each other.
//   kRow    one vector at a time, the standard algorithm (the "before").
enum class InsertArm : uint8_t { kRow, kBatch };

// How the table of held vectors grows (GR-3): see vector_table.h.
enum class TableArm : uint8_t { kSharded, kNaive };

// How that table is built when a serialized graph is loaded (GR-4).
//   kKept   at Load, from the 4-byte tag each node keeps beside the graph:
//           no vector is read.
//   kNaive  at the first write after Load, by reading and hashing every
//           vector (the "before").
enum class OpenArm : uint8_t { kKept, kNaive };

// kBinary (VS-2): each vector is also kept as one bit a dimension; searches
// walk the graph on the query's estimated distance to each code and rescore
// the best on the full vectors (quantize.h).
// kScalar4 (VS-2): 4 bits a dimension, a uniform quantizer per dimension
// (scalar4.h), walked and rescored the same way.
enum class Quantization : uint8_t { kNone, kBinary, kScalar4 };

// The visited set of a search's walk (MM-2). kBitmap is what ships: one
// VisitedBitmap a thread (visited.h), cleared in O(1) by a version bump.
// The other two exist to measure MM-2 inside the engine's own searches
// (VectorIndex::SearchWith, scenarios/vector's mm2 part): an open-addressing
// hash set (VisitedHash started at 16 slots, micro's MM-2 "flat" set)
// either kept a thread and cleared (zeroing the table the largest search
// left) or made new for every search (its doublings paid each time).
enum class VisitedSet : uint8_t { kBitmap, kHashCleared, kHashNew };

std::string_view MetricName(Metric m);              // "l2" | "cosine" | "ip"
std::string_view InsertArmName(InsertArm a);        // "row" | "batch"
std::string_view TableArmName(TableArm a);          // "sharded" | "naive"
std::string_view OpenArmName(OpenArm a);            // "kept" | "naive"
std::string_view VisitedSetName(VisitedSet v);      // "bitmap" | "hash-cleared" | "hash-new"
std::optional<Metric> ParseMetric(std::string_view name);
std::optional<InsertArm> ParseInsertArm(std::string_view name);

struct Options {
  uint32_t dim = 0;                 // floats a vector; 1..65536. Required.
  Metric metric = Metric::kL2;
  uint32_t m = 16;                  // links a node selects; level-0 lists hold 2m,
                                    // upper lists m. 2..128.
  uint32_t ef_construction = 100;   // beam width while linking an insert (>= m is used).
  uint32_t ef_search = 64;          // beam width of a search that passes ef = 0.
  InsertArm insert_arm = InsertArm::kBatch;
  uint32_t batch_size = 512;        // inserts a batch links together (kBatch), 1..4096.
  uint32_t threads = 0;             // threads computing a batch's distances, the
                                    // caller's included; 0: hardware_concurrency.
  uint64_t seed = 0x5eed;           // levels are drawn from an RNG seeded with it:
                                    // the same inserts in the same order give the
                                    // same graph, in either arm, on any thread count.
  TableArm table_arm = TableArm::kSharded;
  OpenArm open_arm = OpenArm::kKept;
  Quantization quantization = Quantization::kNone;
  uint32_t oversample = 16;         // kBinary: rescore the best oversample * k (1..32);
                                    // why 16: engine/doc/vectors.md, VS-2.
  bool rescore = true;              // kBinary: false returns the codes' ranking as is
                                    // (distances are then estimates, in the metric's units).
  // Where the full vectors live: "" in anonymous memory (default); else in
  // this file, mapped, truncated when the index first grows (a cache the
  // caller rebuilds at open: engine/doc/vectors.md, "Vectors in a file").
  // The batch arm then reads each step's cold vectors ahead (cold_read.h).
  std::string vector_file;
};

// One growth of a hash table of the index (the held-vector table, the owner map).
struct GrowthEvent {
  uint64_t entries_before = 0;  // entries in the whole table when it grew
  uint64_t moved = 0;           // slots placed into the new table(s)
  uint64_t vectors_read = 0;    // vectors read and hashed to place them (naive arm only)
  uint64_t cpu_ns = 0;          // the growing thread's CPU time
  uint64_t wall_ns = 0;         // the same growth on the monotonic clock (preemption included)
  int16_t shard = -1;           // -1: the single table
};

struct Hit {
  uint64_t owner = 0;
  float distance = 0;
};

// A search's predicate on the owner id (FenecQL's WHERE). See Search().
using Filter = std::function<bool(uint64_t owner)>;

struct InsertItem {
  uint64_t owner = 0;
  std::span<const float> vector;
};

// Counters. Exact when read with no write running; searches add theirs once
// per search (relaxed atomics), so a read during searches may lag by those.
struct Stats {
  // What the index holds.
  uint64_t nodes = 0;          // nodes ever added (ids are dense: 0 .. nodes-1)
  uint64_t owners = 0;         // owners held
  uint64_t tombstones = 0;     // nodes with no owner, still linked (walked through)
  uint64_t dead = 0;           // tombstones Cleanup unlinked
  int max_level = -1;          // the entry point's level (-1: empty)
  // Searches.
  uint64_t searches = 0;
  uint64_t search_distances = 0;   // distances computed by searches (full or Hamming)
  uint64_t search_rescored = 0;    // full distances of kBinary rescoring (included above)
  uint64_t nodes_visited = 0;      // nodes whose lists searches read (hops)
  uint64_t visited_zeroings = 0;   // clears of a search's visited set that zeroed
                                   // memory: kBitmap's only when a thread's
                                   // version wraps (once in 65 536 searches)
  // Writes.
  uint64_t inserts = 0;            // Insert items
  uint64_t nodes_linked = 0;       // new nodes linked into the graph
  uint64_t owner_hits = 0;         // inserts that found their vector held (no new node)
  uint64_t erases = 0;
  uint64_t insert_distances = 0;   // distances computed to link inserts (search + heuristic)
  uint64_t distances_total = 0;    // every distance the index computed
  // Batch arm (VS-1); all 0 in the row arm.
  uint64_t batches = 0;
  uint64_t processes_run = 0;
  uint64_t prelink_edges_added = 0;
  uint64_t prelink_edges_pruned = 0;   // pre-link edges the heuristic dropped later
  uint64_t rounds = 0;                 // groups run on the pool (each a barrier, then linked)
  uint64_t round_distances_total = 0;  // distances computed in those rounds (gathered a step at a time)
  uint64_t round_distances_max = 0;    // the most in one round
  uint64_t vectors_preloaded = 0;      // vectors prefetched before their distances
  // Vectors in a file (Options::vector_file); 0 in memory.
  uint64_t pages_preloaded = 0;        // pages not in the page cache the batch arm read past it
  uint64_t link_major_faults = 0;      // the process's major faults while linking (getrusage)
  // The table of held vectors (GR-3) and its build after a load (GR-4).
  uint64_t table_growths = 0;
  uint64_t table_max_entries_moved = 0;
  uint64_t table_entries_moved_total = 0;
  uint64_t table_vectors_read = 0;           // to grow or (re)build it, ever
  uint64_t table_longest_growth_cpu_ns = 0;
  uint64_t table_compares = 0;               // vector compares confirming a tag match
  uint64_t vectors_read_after_load = 0;      // to build the table after Load (0 in kKept)

  double distances_per_search() const { return searches ? double(search_distances) / double(searches) : 0; }
};

// Bytes the index's data occupies, by part (records in use, not slack),
// plus what it has reserved in all (chunks are mapped 4096 records at a
// time; pages never written are not resident).
struct MemoryBreakdown {
  uint64_t vectors_full = 0;    // nodes * dim * 4 (rounded up to 16 bytes a vector)
  uint64_t vectors_binary = 0;  // kBinary: nodes * dim / 8 (rounded up to 8 bytes a vector)
  uint64_t vectors_scalar4 = 0; // kScalar4: nodes * dim / 2 (rounded up to 16 bytes a vector)
  uint64_t graph_links = 0;     // level-0 records ((2 + 2m) * 4 bytes: seq, count, ids) + upper lists
  uint64_t table = 0;           // the held-vector table's slots
  uint64_t node_meta = 0;       // 25 bytes a node (owner, upper-list pointer, tag, level, flags)
  uint64_t owners = 0;          // the owner -> node map and extra owners
  uint64_t reserved = 0;        // every mapping and allocation, slack included
  uint64_t total() const { return vectors_full + vectors_binary + vectors_scalar4 + graph_links + table + node_meta + owners; }
};

struct CleanupReport {
  uint64_t tombstones = 0;      // tombstones found
  uint64_t unlinked = 0;        // of those, unlinked (now dead)
  uint64_t lists_repaired = 0;  // neighbour lists that named one and were re-selected
};

}  // namespace fenec::index::vec
