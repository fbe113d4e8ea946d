#include "engine/src/db/branch.h"
#include "engine/src/base/coding.h"

#include <fmt/format.h>

#include <cerrno>

#include "engine/src/journal/format.h"
#include "engine/src/journal/reader.h"

namespace fenec {

std::string BranchFolder(const std::string& root_folder, uint32_t collection, FieldIndexes::BranchField b) {
  return fmt::format("{}/Indexes/c{}.f{}.{}", root_folder, collection, b.field,
                     b.hnsw ? "hnsw" : b.text ? "text" : "unique");
}

Status RemoveFolder(Env* env, const std::string& folder) {
  std::vector<std::string> names;
  if (Status s = env->ListDir(folder, &names); !s.ok()) return s.IsNotFound() ? Status::OK() : s;
  for (const std::string& name : names) {
    const std::string path = folder + "/" + name;
    Status s = env->DeleteFile(path);
    if (s.err() == EISDIR || s.err() == EPERM) s = RemoveFolder(env, path);  // a directory
    if (!s.ok() && !s.IsNotFound()) return s;
  }
  Status s = env->DeleteDir(folder);
  return s.IsNotFound() ? Status::OK() : s;
}

void BeginBranchRecord(size_t entries, base::Bytes* out) {
  out->clear();
  base::PutFixed64(out, 0);
  base::PutVarint(out, entries);
}

void AddBranchPut(uint64_t id, std::string_view value, base::Bytes* out) {
  base::PutVarint(out, id);
  out->push_back(1);
  base::PutString(out, value);
}

void AddBranchErase(uint64_t id, base::Bytes* out) {
  base::PutVarint(out, id);
  out->push_back(0);
}

void SetRootLsn(uint64_t root_lsn, base::Bytes* payload) { base::StoreFixed64(payload->data(), root_lsn); }

uint64_t BranchState::entries() const {
  std::vector<uint8_t> live = present;
  for (const BranchOp& op : tail) {
    if (live.size() <= op.id) live.resize(op.id + 1, 0);
    live[op.id] = op.put;
  }
  uint64_t n = 0;
  for (uint8_t p : live) n += p;
  return n;
}

namespace {

void Set(BranchState* st, uint64_t id, std::string_view value) {
  if (st->values.size() <= id) {
    st->values.resize(id + 1);
    st->present.resize(id + 1, 0);
  }
  st->values[id].assign(value);
  st->present[id] = 1;
}

void Erase(BranchState* st, uint64_t id) {
  if (id < st->present.size()) {
    st->present[id] = 0;
    st->values[id].clear();
  }
}

}  // namespace

Status RecoverBranch(Env* env, const Storage& storage, bool hnsw, uint64_t max_root_lsn, BranchState* out,
                     RecoveryMode mode) {
  *out = BranchState{};
  out->hnsw = hnsw;
  const std::string where = storage.folder() + "/data.fdb";
  std::vector<uint8_t> blob;
  if (Status s = storage.ReadCatalog(&blob); !s.ok()) return s;
  if (!blob.empty()) {
    base::ByteReader in(blob);
    out->root_lsn = in.Fixed64();
    uint64_t n = in.Varint();
    for (uint64_t i = 0; i < n && in.ok(); ++i) {
      uint64_t id = in.Varint();
      std::string_view v = in.String();
      if (in.ok()) Set(out, id, v);
    }
    if (hnsw && in.ok()) {
      out->metric = in.Byte();
      out->dim = static_cast<uint32_t>(in.Varint());
      out->m = static_cast<uint32_t>(in.Varint());
      auto graph = in.Take(in.Varint());
      if (in.ok()) out->graph.assign(graph.begin(), graph.end());
    }
    if (!in.ok() || !in.done()) return Status::Corruption("branch catalog does not parse", where);
  }
  const Superblock& sb = storage.superblock();
  out->checkpoint_lsn = sb.checkpoint_lsn;
  journal::ReplayResult& replay = out->replay;
  Status s = journal::ReplayJournals(
      env, storage.journal_dir(), sb.storage_id, sb.checkpoint_lsn,
      [&](uint64_t lsn, std::span<const uint8_t> payload) -> Status {
        base::ByteReader in(payload);
        uint64_t root_lsn = in.Fixed64();
        uint64_t n = in.Varint();
        if (!in.ok()) return Status::Corruption(fmt::format("branch record {} does not parse", lsn), where);
        if (root_lsn > max_root_lsn) {  // never acknowledged: the root has no such commit
          ++out->ignored_ahead;
          return Status::OK();
        }
        for (uint64_t i = 0; i < n; ++i) {
          uint64_t id = in.Varint();
          uint8_t op = in.Byte();
          std::string_view v = op == 1 ? in.String() : std::string_view();
          if (!in.ok()) break;
          if (hnsw) {  // applied to the loaded graph in order, so kept in order
            out->tail.push_back({id, op == 1, std::string(v)});
          } else if (op == 1) {
            Set(out, id, v);
          } else {
            Erase(out, id);
          }
        }
        if (!in.ok() || !in.done()) return Status::Corruption(fmt::format("branch record {} does not parse", lsn), where);
        if (root_lsn > out->root_lsn) out->root_lsn = root_lsn;
        ++out->records;
        return Status::OK();
      },
      &replay, mode);
  if (!s.ok()) return s;
  out->last_lsn = replay.last_lsn;
  return Status::OK();
}

BranchCatalog::BranchCatalog(uint64_t root_lsn) { base::PutFixed64(&head_, root_lsn); }

void BranchCatalog::Add(uint64_t id, std::string_view value) {
  base::PutVarint(&body_, id);
  base::PutString(&body_, value);
  ++n_;
}

void BranchCatalog::SetHnswTrailer(uint8_t metric, uint32_t dim, uint32_t m, std::span<const uint8_t> graph) {
  trailer_.clear();
  trailer_.push_back(metric);
  base::PutVarint(&trailer_, dim);
  base::PutVarint(&trailer_, m);
  base::PutVarint(&trailer_, graph.size());
  trailer_.insert(trailer_.end(), graph.begin(), graph.end());
}

Status BranchCatalog::Commit(Storage* storage, uint64_t branch_lsn) {
  base::PutVarint(&head_, n_);
  head_.insert(head_.end(), body_.begin(), body_.end());
  head_.insert(head_.end(), trailer_.begin(), trailer_.end());
  // The data region holds only catalogs. The new one goes before the
  // current one if it fits there, else after it: never over it, so a crash
  // mid-write leaves the previous checkpoint whole.
  const Superblock& sb = storage->superblock();
  uint64_t at = Storage::kDataStart;
  if (sb.catalog_offset != 0 && head_.size() > sb.catalog_offset - Storage::kDataStart)
    at = sb.catalog_offset + sb.catalog_length;
  return storage->CommitCheckpoint(branch_lsn, at, head_, at + head_.size());
}

Status OpenBranchAlone(Env* env, const std::string& folder, BranchState* out) {
  std::unique_ptr<Storage> st;
  if (Status s = Storage::Open(env, folder, /*create_if_missing=*/false, false, 0, &st); !s.ok()) return s;
  std::string_view name = folder;
  while (name.size() > 1 && name.back() == '/') name.remove_suffix(1);
  const bool hnsw = name.size() >= 5 && name.substr(name.size() - 5) == ".hnsw";
  return RecoverBranch(env, *st, hnsw, UINT64_MAX, out);
}

}  // namespace fenec
