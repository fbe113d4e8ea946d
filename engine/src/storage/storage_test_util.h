// The storage tests' helpers and fixture (storage_test.cc, storage_crash_test.cc).
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/src/base/testing.h"
#include "engine/src/io/fault_env.h"
#include "engine/src/journal/format.h"
#include "engine/src/journal/reader.h"
#include "engine/src/storage/storage.h"
#include "fenec/env.h"

#define ASSERT_OK(...)                                             \
  do {                                                             \
    const ::fenec::Status st_ = (__VA_ARGS__);                     \
    ASSERT_TRUE(st_.ok()) << #__VA_ARGS__ << ": " << st_.ToString(); \
  } while (0)


namespace fenec {
namespace storage_testing {

using Bytes = std::vector<uint8_t>;

constexpr uint64_t kId = 0x5703a6e;
constexpr uint64_t kSlot = Storage::kSlotSize;
constexpr uint64_t kDataStart = Storage::kDataStart;

inline Bytes Pattern(uint8_t salt, size_t n) {
  Bytes b(n);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(i * 131 + salt);
  return b;
}

inline Bytes Blob(std::mt19937_64& rng, size_t n) {
  Bytes b(n);
  for (auto& byte : b) byte = static_cast<uint8_t>(rng());
  return b;
}

inline Status OpenStorage(Env* env, const std::string& folder, bool create, std::unique_ptr<Storage>* out, uint64_t id = kId,
                   bool error_if_exists = false) {
  return Storage::Open(env, folder, create, error_if_exists, id, out);
}

// Raw access to a file through the default Env: the disk as a tool sees it.
inline Bytes ReadFile(const std::string& path, uint64_t offset, uint64_t length) {
  std::unique_ptr<File> f;
  Bytes out(length);
  size_t got = 0;
  EXPECT_TRUE(Env::Default()->Open(path, OpenMode::kRead, &f).ok() && f->Read(offset, out, &got).ok()) << path;
  out.resize(got);
  return out;
}

inline void WriteFile(const std::string& path, uint64_t offset, const Bytes& bytes) {
  std::unique_ptr<File> f;
  ASSERT_TRUE(Env::Default()->Open(path, OpenMode::kCreate, &f).ok()) << path;
  ASSERT_TRUE(f->Write(offset, bytes).ok());
}

inline uint64_t FileSize(const std::string& path) {
  std::unique_ptr<File> f;
  uint64_t size = 0;
  EXPECT_TRUE(Env::Default()->Open(path, OpenMode::kRead, &f).ok() && f->Size(&size).ok()) << path;
  return size;
}

inline void TruncateFile(const std::string& path, uint64_t size) {
  std::unique_ptr<File> f;
  ASSERT_TRUE(Env::Default()->Open(path, OpenMode::kReadWrite, &f).ok()) << path;
  ASSERT_TRUE(f->Truncate(size).ok());
}

inline Bytes Mapped(const Storage& s, uint64_t at, uint64_t length) { return Bytes(s.map() + at, s.map() + at + length); }

// One checkpoint as the database layer makes one: rows appended at the
// current data_end, then the catalog right after them.
struct Ckpt {
  uint64_t seq = 0, lsn = 0, rows_at = kDataStart, catalog_at = 0, data_end = kDataStart;
  Bytes rows, catalog;
};

Ckpt Fresh() { return Ckpt{}; }  // a freshly created database: seq 0, no catalog

inline Status Commit(Storage* s, uint64_t lsn, Bytes rows, Bytes catalog, Ckpt* out) {
  Ckpt c;
  c.seq = s->superblock().seq + 1;
  c.lsn = lsn;
  c.rows_at = s->superblock().data_end;
  c.catalog_at = c.rows_at + rows.size();
  c.data_end = c.catalog_at + catalog.size();
  c.rows = std::move(rows);
  c.catalog = std::move(catalog);
  *out = c;
  if (Status st = s->WriteData(c.rows_at, c.rows); !st.ok()) return st;
  return s->CommitCheckpoint(c.lsn, c.catalog_at, c.catalog, c.data_end);
}

// The storage is at checkpoint c, whole: superblock fields, catalog and rows.
inline void ExpectAt(const Storage& s, const Ckpt& c) {
  const Superblock& sb = s.superblock();
  EXPECT_EQ(sb.storage_id, kId);
  EXPECT_EQ(sb.seq, c.seq);
  EXPECT_EQ(sb.checkpoint_lsn, c.lsn);
  EXPECT_EQ(sb.data_end, c.data_end);
  EXPECT_EQ(sb.catalog_offset, c.catalog_at);
  EXPECT_EQ(sb.catalog_length, c.catalog.size());
  Bytes catalog;
  Status st = s.ReadCatalog(&catalog);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE(catalog == c.catalog) << "catalog of checkpoint " << c.seq;
  EXPECT_TRUE(Mapped(s, c.rows_at, c.rows.size()) == c.rows) << "rows of checkpoint " << c.seq;
}

class StorageTest : public base::ScratchTest {
 protected:
  std::string Folder(const std::string& name = "db") const { return path(name); }
  std::string DataFile(const std::string& name = "db") const { return path(name) + "/data.fdb"; }
};

}  // namespace storage_testing
}  // namespace fenec
