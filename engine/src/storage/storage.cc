#include "engine/src/storage/storage.h"
#include "engine/src/base/coding.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <fmt/format.h>

#include <random>

#include "engine/src/journal/format.h"
#include "engine/src/journal/reader.h"

namespace fenec {
namespace {

constexpr uint32_t kSuperMagic = 0x42444546;  // "FEDB"
constexpr uint32_t kVersion = 1;
constexpr size_t kSuperBytes = 8 + 7 * 8;     // magic, version, 7 fields; checksum follows


std::vector<uint8_t> EncodeSuperblock(const Superblock& sb) {
  std::vector<uint8_t> slot(Storage::kSlotSize, 0);
  uint8_t* p = slot.data();
  base::StoreFixed32(p, kSuperMagic);
  base::StoreFixed32(p + 4, kVersion);
  uint64_t fields[7] = {sb.storage_id,     sb.seq,           sb.checkpoint_lsn,  sb.data_end,
                        sb.catalog_offset, sb.catalog_length, sb.catalog_checksum};
  for (int i = 0; i < 7; ++i) base::StoreFixed64(p + 8 + 8 * i, fields[i]);
  base::StoreFixed64(p + kSuperBytes, XXH3_64bits(p, kSuperBytes));
  return slot;
}

bool DecodeSuperblock(const uint8_t* p, Superblock* sb) {
  if (base::LoadFixed32(p) != kSuperMagic || base::LoadFixed32(p + 4) != kVersion) return false;
  if (base::LoadFixed64(p + kSuperBytes) != XXH3_64bits(p, kSuperBytes)) return false;
  uint64_t f[7];
  for (int i = 0; i < 7; ++i) f[i] = base::LoadFixed64(p + 8 + 8 * i);
  *sb = Superblock{f[0], f[1], f[2], f[3], f[4], f[5], f[6]};
  return true;
}

std::string Parent(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

Status Storage::Open(Env* env, const std::string& folder_in, bool create_if_missing, bool error_if_exists,
                     uint64_t storage_id, std::unique_ptr<Storage>* out) {
  std::string folder = folder_in;
  while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
  std::unique_ptr<Storage> s(new Storage(env, folder));
  bool exists = env->Exists(folder + "/data.fdb");
  if (exists && error_if_exists) return Status::AlreadyExists("database exists: " + folder);
  if (!exists) {
    if (!create_if_missing) return Status::NotFound("no database (data.fdb) in folder", folder);
    if (Status st = s->Create(storage_id); !st.ok()) return st;
  }
  if (Status st = s->Load(); !st.ok()) return st;
  *out = std::move(s);
  return Status::OK();
}

Storage::~Storage() = default;

Status Storage::Create(uint64_t storage_id) {
  if (storage_id == 0) {
    std::random_device rd;
    while (storage_id == 0) storage_id = (uint64_t{rd()} << 32) ^ rd();
  }
  if (Status s = env_->CreateDir(folder_); !s.ok()) return s;
  if (Status s = env_->SyncDir(Parent(folder_)); !s.ok()) return s;
  if (Status s = env_->CreateDir(journal_dir()); !s.ok()) return s;
  std::string tmp = folder_ + "/data.fdb.tmp";
  std::unique_ptr<File> f;
  if (Status s = env_->Open(tmp, OpenMode::kCreate, &f); !s.ok()) return s;
  if (Status s = f->Truncate(0); !s.ok()) return s;
  Superblock sb{storage_id, 0, 0, kDataStart, 0, 0, 0};  // seq 0 lives in slot 0 (slot = seq % 2)
  std::vector<uint8_t> head = EncodeSuperblock(sb);
  head.resize(kDataStart, 0);  // slot 1 empty: no valid superblock there yet
  if (Status s = f->Write(0, head); !s.ok()) return s;
  if (Status s = f->Sync(); !s.ok()) return s;
  f.reset();
  if (Status s = env_->Rename(tmp, folder_ + "/data.fdb"); !s.ok()) return s;
  if (Status s = env_->SyncDir(folder_); !s.ok()) return s;
  created_ = true;
  return Status::OK();
}

Status Storage::Load() {
  if (Status s = env_->CreateDir(journal_dir()); !s.ok()) return s;  // a copied folder may lack it
  if (Status s = env_->Open(folder_ + "/data.fdb", OpenMode::kReadWrite, &file_); !s.ok()) return s;
  std::vector<uint8_t> head(kDataStart);
  size_t got = 0;
  if (Status s = file_->Read(0, head, &got); !s.ok()) return s;
  Superblock a, b;
  bool va = got >= kSlotSize && DecodeSuperblock(head.data(), &a);
  bool vb = got >= kDataStart && DecodeSuperblock(head.data() + kSlotSize, &b);
  if (!va && !vb) return Status::Corruption("no valid superblock", folder_ + "/data.fdb");
  sb_ = (va && (!vb || a.seq > b.seq)) ? a : b;
  uint64_t size = 0;
  if (Status s = file_->Size(&size); !s.ok()) return s;
  data_room_.store(size, std::memory_order_release);
  return file_->Map(kMapReserve, &map_);
}

Status Storage::MakeDataRoom(uint64_t end) {
  if (end <= data_room_.load(std::memory_order_acquire)) return Status::OK();
  base::MutexLock lock(&room_mu_);
  const uint64_t from = data_room_.load(std::memory_order_acquire);
  if (end <= from) return Status::OK();
  const uint64_t to = end + kDataRoomAhead;
  Status s = file_->Allocate(from, to - from);
  if (s.code() == StatusCode::kNotSupported) {
    data_room_.store(UINT64_MAX, std::memory_order_release);
    return Status::OK();
  }
  if (!s.ok()) return s;
  data_room_.store(to, std::memory_order_release);
  return Status::OK();
}

Status Storage::ReadCatalog(std::vector<uint8_t>* out) const {
  out->clear();
  if (sb_.catalog_offset == 0) return Status::OK();
  out->resize(sb_.catalog_length);
  size_t got = 0;
  // On failure *out is left empty: bytes that fail their checksum never reach a caller.
  if (Status s = file_->Read(sb_.catalog_offset, *out, &got); !s.ok()) {
    out->clear();
    return s;
  }
  if (got != sb_.catalog_length || XXH3_64bits(out->data(), out->size()) != sb_.catalog_checksum) {
    out->clear();
    return Status::Corruption(fmt::format("catalog at {} fails its checksum", sb_.catalog_offset),
                              folder_ + "/data.fdb");
  }
  return Status::OK();
}

Status Storage::WriteData(uint64_t offset, std::span<const uint8_t> bytes) {
  writes_.fetch_add(1, std::memory_order_relaxed);
  bytes_.fetch_add(bytes.size(), std::memory_order_relaxed);
  return file_->Write(offset, bytes);
}

Status Storage::CommitCheckpoint(uint64_t checkpoint_lsn, uint64_t catalog_offset, std::span<const uint8_t> catalog,
                                 uint64_t data_end) {
  if (Status s = WriteData(catalog_offset, catalog); !s.ok()) return s;
  syncs_.fetch_add(1, std::memory_order_relaxed);
  if (Status s = file_->Sync(); !s.ok()) return s;
  Superblock next = sb_;
  next.seq = sb_.seq + 1;
  next.checkpoint_lsn = checkpoint_lsn;
  next.data_end = data_end;
  next.catalog_offset = catalog_offset;
  next.catalog_length = catalog.size();
  next.catalog_checksum = XXH3_64bits(catalog.data(), catalog.size());
  std::vector<uint8_t> slot = EncodeSuperblock(next);
  if (Status s = WriteData((next.seq % 2) * kSlotSize, slot); !s.ok()) return s;
  syncs_.fetch_add(1, std::memory_order_relaxed);
  if (Status s = file_->Sync(); !s.ok()) return s;
  sb_ = next;
  return Status::OK();
}

Status Storage::DeleteJournalsThrough(uint64_t lsn, uint64_t* deleted) {
  *deleted = 0;
  std::vector<journal::JournalFile> files;
  if (Status s = journal::ListJournalFiles(env_, journal_dir(), &files); !s.ok()) return s;
  for (size_t i = 0; i + 1 < files.size(); ++i) {
    if (files[i + 1].first_lsn > lsn + 1) break;
    if (Status s = env_->DeleteFile(files[i].path); !s.ok() && !s.IsNotFound()) return s;
    ++*deleted;
  }
  return Status::OK();
}

StorageCounters Storage::counters() const {
  return {writes_.load(std::memory_order_relaxed), syncs_.load(std::memory_order_relaxed),
          bytes_.load(std::memory_order_relaxed)};
}

void Storage::ResetCounters() {
  writes_.store(0);
  syncs_.store(0);
  bytes_.store(0);
}

}  // namespace fenec
