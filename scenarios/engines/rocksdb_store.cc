// The RocksDB arms (librocksdb-dev, Debian's 7.8): one DB, its WAL on,
// WriteOptions::sync = true for rocksdb-durable (each write waits for an
// fsync of the WAL; RocksDB's writer threads form groups that share one) and
// false for rocksdb-buffered (the write reaches the OS, not the disk), the
// same documents as every other arm. A row's key is its id (8 bytes, big
// endian, so ids sort in insertion order); the value is n then the body.
// fsyncs are RocksDB's own WAL_FILE_SYNCED ticker.
#include <fmt/format.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/statistics.h>
#include <rocksdb/version.h>
#include <rocksdb/write_batch.h>

#include <atomic>
#include <cstring>
#include <filesystem>

#include "scenarios/engines/store.h"

namespace fenec::scenarios::engines {
namespace {

std::string key_of(uint64_t id) {
  std::string k(8, '\0');
  for (int i = 0; i < 8; ++i) k[i] = static_cast<char>(id >> (56 - 8 * i));
  return k;
}

std::string value_of(const Doc& d) {
  std::string v(8, '\0');
  std::memcpy(v.data(), &d.n, 8);
  v += d.body;
  return v;
}

bool doc_of(const std::string& v, Doc* d) {
  if (v.size() < 8) return false;
  std::memcpy(&d->n, v.data(), 8);
  d->body.assign(v, 8);
  return true;
}

class RocksStore;

class RocksSession : public Session {
 public:
  explicit RocksSession(RocksStore* store) : store_(store) {}
  std::string put(const Doc& doc) override;
  std::string put_batch(const std::vector<Doc>& docs) override;
  std::string get(uint64_t id, Doc* out, bool* found) override;
  std::string aggregate(Aggregate* out) override;

 private:
  RocksStore* store_;
};

class RocksStore : public Store {
 public:
  explicit RocksStore(bool durable) { write_.sync = durable; }
  ~RocksStore() override { (void)close(); }

  std::string open(const std::string& path, const std::map<std::string, std::string>& settings) {
    rocksdb::Options o;
    o.create_if_missing = true;
    if (!settings.empty()) {
      // The arm's settings as RocksDB's own option string: DB and column family options alike.
      std::string text;
      for (const auto& [name, value] : settings) text += name + "=" + value + ";";
      rocksdb::ConfigOptions config;
      config.ignore_unknown_options = false;
      rocksdb::Options set;
      const rocksdb::Status s = rocksdb::GetOptionsFromString(config, o, text, &set);
      if (!s.ok()) return "rocksdb options " + text + ": " + s.ToString();
      o = set;
    }
    o.statistics = rocksdb::CreateDBStatistics();
    stats_ = o.statistics;
    rocksdb::DB* db = nullptr;
    const rocksdb::Status s = rocksdb::DB::Open(o, path, &db);
    if (!s.ok()) return "rocksdb open " + path + ": " + s.ToString();
    db_.reset(db);
    return settings_held(settings);
  }

  // RocksDB sanitizes some options at open without a word (7.8 sets
  // recycle_log_file_num to 0 unless wal_recovery_mode is
  // kSkipAnyCorruptedRecords): an arm run with a setting RocksDB dropped
  // would measure the default under another name. So each setting asked for
  // is read back from the open DB; one changed is an error.
  std::string settings_held(const std::map<std::string, std::string>& settings) const {
    if (settings.empty()) return "";
    const rocksdb::Options now = db_->GetOptions();
    rocksdb::ConfigOptions config;
    std::string db_text, cf_text;
    if (!rocksdb::GetStringFromDBOptions(config, rocksdb::DBOptions(now), &db_text).ok() ||
        !rocksdb::GetStringFromColumnFamilyOptions(config, rocksdb::ColumnFamilyOptions(now), &cf_text).ok())
      return "rocksdb: the open DB's options could not be read back";
    const std::string text = ";" + db_text + ";" + cf_text + ";";
    for (const auto& [name, value] : settings) {
      const size_t at = text.find(";" + name + "=");
      if (at == std::string::npos) continue;  // not a plain option: nothing to compare
      const size_t from = at + name.size() + 2;
      const std::string held = text.substr(from, text.find(';', from) - from);
      if (held != value)
        return fmt::format("rocksdb: {}={} was asked for, and the open DB has {}={} (RocksDB changed it at open{})",
                           name, value, name, held,
                           name == "recycle_log_file_num" ? ": it recycles logs only with "
                                                            "wal_recovery_mode=kSkipAnyCorruptedRecords"
                                                          : "");
    }
    return "";
  }

  std::unique_ptr<Session> session(std::string*) override { return std::make_unique<RocksSession>(this); }

  void reset_counters() override {
    commits_.store(0);
    base_syncs_ = stats_->getTickerCount(rocksdb::WAL_FILE_SYNCED);
    base_bytes_ = stats_->getTickerCount(rocksdb::WAL_FILE_BYTES);
  }

  Counters counters() const override {
    Counters c;
    c.commits = commits_.load();
    c.fsyncs = stats_->getTickerCount(rocksdb::WAL_FILE_SYNCED) - base_syncs_;
    c.extra["wal_bytes"] = {static_cast<double>(stats_->getTickerCount(rocksdb::WAL_FILE_BYTES) - base_bytes_),
                            "bytes"};
    return c;
  }

  std::string close() override {
    if (!db_) return "";
    const rocksdb::Status s = db_->Close();
    db_.reset();
    return s.ok() ? "" : "rocksdb close: " + s.ToString();
  }

  // One write: `docs` under ids taken from one counter, in one WriteBatch.
  std::string write(const std::vector<Doc>& docs) {
    rocksdb::WriteBatch b;
    const uint64_t first = next_id_.fetch_add(docs.size(), std::memory_order_relaxed);
    for (size_t i = 0; i < docs.size(); ++i) b.Put(key_of(first + i), value_of(docs[i]));
    const rocksdb::Status s = db_->Write(write_, &b);
    if (!s.ok()) return "rocksdb write: " + s.ToString();
    commits_.fetch_add(1, std::memory_order_relaxed);
    return "";
  }

  rocksdb::DB* db() { return db_.get(); }

 private:
  std::unique_ptr<rocksdb::DB> db_;
  std::shared_ptr<rocksdb::Statistics> stats_;
  rocksdb::WriteOptions write_;
  std::atomic<uint64_t> next_id_{1}, commits_{0};
  uint64_t base_syncs_ = 0, base_bytes_ = 0;
};

std::string RocksSession::put(const Doc& doc) { return store_->write({doc}); }

std::string RocksSession::put_batch(const std::vector<Doc>& docs) { return store_->write(docs); }

std::string RocksSession::get(uint64_t id, Doc* out, bool* found) {
  std::string v;
  const rocksdb::Status s = store_->db()->Get(rocksdb::ReadOptions(), key_of(id), &v);
  *found = s.ok();
  if (s.IsNotFound()) return "";
  if (!s.ok()) return "rocksdb get: " + s.ToString();
  return doc_of(v, out) ? "" : fmt::format("rocksdb get: value of id {} is {} bytes", id, v.size());
}

// count and sum over one snapshot (an iterator sees the DB as it was when made).
std::string RocksSession::aggregate(Aggregate* out) {
  std::unique_ptr<rocksdb::Iterator> it(store_->db()->NewIterator(rocksdb::ReadOptions()));
  *out = {};
  Doc d;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const rocksdb::Slice v = it->value();
    if (v.size() < 8) return "rocksdb aggregate: short value";
    std::memcpy(&d.n, v.data(), 8);
    ++out->count;
    out->sum += d.n;
  }
  return it->status().ok() ? "" : "rocksdb aggregate: " + it->status().ToString();
}

}  // namespace

std::string rocksdb_version() { return fmt::format("RocksDB {}.{}.{}", ROCKSDB_MAJOR, ROCKSDB_MINOR, ROCKSDB_PATCH); }

std::unique_ptr<Store> open_rocksdb(const ArmSpec& arm, const std::string& dir, std::string* err) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    *err = fmt::format("mkdir {}: {}", dir, ec.message());
    return nullptr;
  }
  auto store = std::make_unique<RocksStore>(arm.durable);
  if (*err = store->open(dir + "/rocksdb", arm.settings); !err->empty()) return nullptr;
  store->reset_counters();
  return store;
}

}  // namespace fenec::scenarios::engines
