// InsertProcess: one new node's way into the graph, as a resumable state
// machine (VS-1). Both insert arms run it: the row arm one at a time,
// computing each request's distances at once; the batch arm hundreds at a
// time, gathering their requests into rounds (batch.cc).
//
// States (Phase), and how a process enters and leaves each:
//   kEntry    Start() puts it here. With an entry point, it posts the
//             distance to it (one id) and waits; resumed, it goes to
//             kDescend if the entry's level is above the node's, else to
//             kBeam. With an empty graph it goes to kBeam at once (only
//             its pre-link seeds to start from).
//   kDescend  greedy descent through the levels above the node's: it posts
//             the current node's list at the current layer; resumed, it
//             moves to the nearest if that is nearer, else goes one layer
//             down; at the node's level it goes to kBeam.
//   kBeam     a beam search of width ef_construction on one layer, from the
//             previous layer's results (or the descent's node) and the
//             layer's seeds: it pops the nearest candidate and posts its
//             unvisited neighbours; resumed, it takes their distances into
//             its heaps. When the nearest candidate is farther than the
//             worst of a full result set, the layer is done: the heuristic
//             selects M neighbours from the results (computing the
//             distances it needs itself), and the process goes one layer
//             down, or to kDone after layer 0.
//   kDone     Advance() returns kChosen; the scheduler links it (IndexCore::
//             Link) and publishes the node.
// A process only reads the graph; the scheduler writes it between rounds.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/src/index/vector/core.h"
#include "engine/src/index/vector/graph.h"
#include "engine/src/index/vector/visited.h"

namespace fenec::index::vec {

class ColdReader;

class InsertProcess {
 public:
  enum class State : uint8_t { kNeedDistances, kChosen };

  // Prepares the process for `node` (its vector and level already set):
  // empty seeds, choices and reverse links. Seeds (pre-link candidates) may
  // be added with seeds(), and reverse links may arrive in incoming(), from
  // then on; Begin() must come before the first Advance.
  void Start(const IndexCore* core, uint32_t node);
  // Sets where the walk starts: the graph's entry point as of now (a
  // process of a batch's later group sees the groups linked before it).
  void Begin(std::optional<Graph::Entry> entry);
  void Start(const IndexCore* core, uint32_t node, std::optional<Graph::Entry> entry) {
    Start(core, node);
    Begin(entry);
  }
  // Runs until the process needs distances (request() / distances()) or
  // has chosen its neighbours at every layer.
  State Advance();

  // Optional, between filling distances() and Advance(): takes the
  // distances into the heaps and hints the cache to fetch the list the
  // process reads next. The scheduler calls it for every process of a task
  // before advancing any, so their list misses overlap instead of coming
  // one after another.
  void TakeDistances();

  // The batch arm with vectors in a file: the calling thread's reader, which
  // holds the vectors of the process's request once the step's reads are
  // done (null: the arena's vectors, as the row arm and memory read them).
  void set_reader(const ColdReader* r) { reader_ = r; }
  // The request wants its vectors read, no distances (the heuristic's).
  bool vectors_only() const { return vectors_only_; }

  std::span<const uint32_t> request() const { return request_; }
  // To be filled by the caller: distances()[i] = d(node, request()[i]).
  std::span<float> distances() { return dists_; }
  const float* vector() const { return vec_; }

  uint32_t node() const { return node_; }
  int level() const { return level_; }
  std::vector<Neighbor>& seeds(int layer) { return layers_[layer].seeds; }
  const std::vector<Neighbor>& seeds(int layer) const { return layers_[layer].seeds; }
  const std::vector<Neighbor>& chosen(int layer) const { return layers_[layer].chosen; }
  // Reverse links from batch-mates linked while this node was in flight.
  std::vector<Neighbor>& incoming(int layer) { return layers_[layer].incoming; }
  // Distances computed inside the process (the heuristic), since Start.
  uint64_t own_distances() const { return own_distances_; }
  uint64_t nodes_visited() const { return nodes_visited_; }

 private:
  enum class Phase : uint8_t { kEntry, kDescend, kBeam, kDone };
  struct Layer {
    std::vector<Neighbor> seeds, chosen, incoming;
  };

  bool Post(uint32_t node, int layer, bool skip_visited);
  bool DescendOrBegin();
  void StartBeam();
  void Absorb();
  bool NextBeamRequest();
  bool PostHeuristic();
  void FinishLayer();
  void AddEntry(const Neighbor& e);
  bool Eligible(uint32_t id) const { return (graph_->flags(id) & kDeleted) == 0; }

  const IndexCore* core_ = nullptr;
  const Graph* graph_ = nullptr;
  uint32_t node_ = 0;
  int level_ = 0;
  int layer_ = 0;
  int top_layer_ = -1;  // the graph's top level when the process started (-1: empty)
  uint32_t ef_ = 0, m_ = 0;
  const float* vec_ = nullptr;
  std::optional<Graph::Entry> entry_;
  Phase phase_ = Phase::kEntry;
  bool awaiting_ = false;
  // The heuristic reads at most this many x M results ahead (it stops once
  // M are kept; any it reads past them come through the arena).
  static constexpr uint32_t kHeuristicReads = 4;
  const ColdReader* reader_ = nullptr;
  bool vectors_only_ = false;  // the request posted is the heuristic's
  bool sorted_ = false;        // top_ sorted ascending (the heuristic's request)
  std::vector<const float*> vecs_;

  Neighbor cur_{0, 0};  // the descent's node (and the beam's entry on the first graph layer)
  std::vector<Neighbor> cand_;  // min-heap (std::greater)
  std::vector<Neighbor> top_;   // max-heap, at most ef_
  std::vector<Neighbor> prev_;  // the last layer's results, ascending: the next layer's entries
  VisitedHash visited_;
  std::vector<uint32_t> request_;
  std::vector<float> dists_;
  std::vector<uint32_t> links_;
  std::vector<Neighbor> scratch_;
  std::vector<Layer> layers_;
  uint64_t own_distances_ = 0;
  uint64_t nodes_visited_ = 0;
};

// The batch arm's working state (batch.cc), kept between batches.
struct BatchScratch {
  // A list to change when a group is linked: `from` joins `target`'s list at `layer`
  // (from == Graph::kNone: target is a finishing node, its own list).
  struct LinkReq {
    uint32_t target, layer, from;
    float d;
  };
  std::vector<InsertProcess> procs;
  std::vector<LinkReq> reqs;
  std::vector<uint32_t> groups;  // where each target's requests start in reqs
  std::vector<float> matrix;     // a pre-link group's distances, row-major
};

}  // namespace fenec::index::vec
