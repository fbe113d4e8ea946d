// Branch storages (JR-1): each index of a collection - a field's @unique
// index, its @text index or its @hnsw index - is a storage of its own, a
// folder with its own data file and Journals/, beside the documents'
// storage (the root):
//
//   <db>/Indexes/c<collection>.f<field>.<unique|text|hnsw>/{data.fdb, Journals/}
//
// A branch journal record is an index's change for one root commit:
//   u64 root_lsn | varint n | n x (varint id, u8 op, varint len, value bytes)
// op 1 = put (value = FieldIndexes::BranchValue), 0 = erase (no value).
// Every root record that touches a collection has one record in each of
// its branches (n may be 0), appended in the same write-lock hold, so a
// branch's records follow the root's order. root_lsn is the root record's
// LSN: at open, a branch's records past the root's recovered end were never
// acknowledged and are ignored, and a branch that stops short of the last
// root record touching its collection is behind and is rebuilt from the
// documents.
//
// A branch checkpoint's catalog: u64 root_lsn | varint n | n x (varint id,
// varint len, value) for every live row with a value, ids ascending. An
// @hnsw branch's catalog goes on (the trailer): u8 metric | varint dim |
// varint m | varint graph length | the graph (VectorIndex::Serialize) as of
// root_lsn. Its values are the vectors (dim x 4 bytes), so the graph loads
// from the branch's own folder alone; its journal records after the
// checkpoint are kept in order (tail) and applied to the loaded graph.
//
// With shared journals the records ride in the root's journal file, which
// is hard-linked into the branch's Journals/ (group_commit.h); with separate
// journals the branch writes its own. Either way a branch recovers from its
// own folder alone, with the same reader (journal/reader.h).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/src/base/coding.h"
#include "engine/src/db/field_index.h"
#include "fenec/env.h"
#include "engine/src/journal/group_commit.h"
#include "engine/src/journal/reader.h"
#include "engine/src/journal/writer.h"
#include "engine/src/storage/storage.h"

namespace fenec {

struct Branch {
  FieldIndexes::BranchField field;
  std::unique_ptr<Storage> storage;
  uint32_t stream = 0;  // shared journals: its stream in the root's GroupCommit
  // Separate journals: its own writer and group commit.
  std::unique_ptr<journal::JournalWriter> writer;
  std::unique_ptr<journal::GroupCommit> gc;
};

std::string BranchFolder(const std::string& root_folder, uint32_t collection, FieldIndexes::BranchField b);
// Removes a branch folder and everything in it (a storage's folder is two
// levels deep); OK if it is absent. Fails: kIOError, as the Env's calls.
Status RemoveFolder(Env* env, const std::string& folder);

// Record payloads. The root LSN is not known until the record is appended
// under the write lock: payloads are built with 8 zero bytes in front and
// SetRootLsn fills them in.
void BeginBranchRecord(size_t entries, base::Bytes* out);
void AddBranchPut(uint64_t id, std::string_view value, base::Bytes* out);
void AddBranchErase(uint64_t id, base::Bytes* out);
void SetRootLsn(uint64_t root_lsn, base::Bytes* payload);

// One journal change of an @hnsw branch after its checkpoint.
struct BranchOp {
  uint64_t id = 0;
  bool put = false;
  std::string value;  // put: the vector's bytes
};

// A branch's index as its own folder holds it: the value of every id.
struct BranchState {
  uint64_t root_lsn = 0;        // the last root commit it reflects
  uint64_t last_lsn = 0;        // the branch's own last LSN read (new records go after it)
  uint64_t records = 0;         // journal records applied
  uint64_t ignored_ahead = 0;   // records past max_root_lsn, ignored
  uint64_t checkpoint_lsn = 0;  // the branch's own checkpoint LSN
  std::vector<std::string> values;  // by id; empty = no entry (@hnsw: as of the checkpoint)
  std::vector<uint8_t> present;
  // @hnsw only: the checkpoint's trailer, and the journal's changes after it.
  bool hnsw = false;
  uint8_t metric = 0;  // VectorMetric
  uint32_t dim = 0, m = 0;
  std::vector<uint8_t> graph;  // empty: no checkpoint with a graph yet
  std::vector<BranchOp> tail;
  journal::ReplayResult replay;  // how its journal read (RecoveryMode::kPointInTime: what it dropped)
  uint64_t entries() const;  // @hnsw: with the tail applied
};

// Recovers a branch from its folder: its checkpoint, then its journal
// records with root_lsn <= max_root_lsn (UINT64_MAX: all, for a branch
// opened alone), its journal read by `mode`. Fails: kCorruption (a record
// or catalog that does not parse; a lost record, as ReplayJournals),
// kIOError.
Status RecoverBranch(Env* env, const Storage& storage, bool hnsw, uint64_t max_root_lsn, BranchState* out,
                     RecoveryMode mode = RecoveryMode::kTolerateTornTail);

// A branch checkpoint's catalog, built from (id, value) pairs in id order.
class BranchCatalog {
 public:
  explicit BranchCatalog(uint64_t root_lsn);
  void Add(uint64_t id, std::string_view value);
  // @hnsw: what follows the entries (see the top).
  void SetHnswTrailer(uint8_t metric, uint32_t dim, uint32_t m, std::span<const uint8_t> graph);
  // Writes it where no crash can hurt the previous one, then the superblock.
  Status Commit(Storage* storage, uint64_t branch_lsn);

 private:
  base::Bytes head_, body_, trailer_;
  uint64_t n_ = 0;
};

// Opens a branch folder alone, read-only in spirit (troubleshooting an
// index): recovers and returns its state (an @hnsw branch is told by its
// folder's name). Fails: kNotFound, as RecoverBranch.
Status OpenBranchAlone(Env* env, const std::string& folder, BranchState* out);

}  // namespace fenec
