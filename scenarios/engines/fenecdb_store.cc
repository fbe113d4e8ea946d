// The fenecdb arms: one Database shared by every thread (as fenec-server
// shares it), durable or buffered (sync_ms 250), with the one design switch
// the bench part measures set to its naive value for the "-naive" arm.
#include <fmt/format.h>

#include "scenarios/engines/store.h"

#include <fenec/database.h>

#include <filesystem>

namespace fenec::scenarios::engines {
namespace {

double us(uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

class FenecdbSession : public Session {
 public:
  FenecdbSession(Database* db, CollectionId coll) : db_(db), coll_(coll) {}

  std::string put(const Doc& doc) override {
    auto r = db_->Put(coll_, Document{Value(doc.body), Value(doc.n)});
    return r.ok() ? "" : r.status().ToString();
  }

  std::string put_batch(const std::vector<Doc>& docs) override {
    std::vector<Document> batch;
    batch.reserve(docs.size());
    for (const Doc& d : docs) batch.push_back(Document{Value(d.body), Value(d.n)});
    auto r = db_->PutBatch(coll_, std::move(batch));
    return r.ok() ? "" : r.status().ToString();
  }

  std::string get(uint64_t id, Doc* out, bool* found) override {
    auto r = db_->Get(coll_, id);
    *found = r.ok();
    if (!r.ok()) return r.status().IsNotFound() ? "" : r.status().ToString();
    const Document& d = *r;
    if (d.size() != 2 || !d[0].is_text() || !d[1].is_int()) return fmt::format("get {}: unexpected shape", id);
    out->body = d[0].text();
    out->n = d[1].int_value();
    return "";
  }

  std::string aggregate(Aggregate* out) override {
    auto r = db_->Aggregate(coll_, "n");
    if (!r.ok()) return r.status().ToString();
    out->count = r->count;
    out->sum = r->int_sum;
    return "";
  }

 private:
  Database* db_;
  CollectionId coll_;
};

class FenecdbStore : public Store {
 public:
  FenecdbStore(std::unique_ptr<Database> db, CollectionId coll) : db_(std::move(db)), coll_(coll) {}
  ~FenecdbStore() override {
    if (db_) db_->Close();
  }

  std::unique_ptr<Session> session(std::string*) override {
    return std::make_unique<FenecdbSession>(db_.get(), coll_);
  }

  void reset_counters() override { db_->ResetStats(); }

  bool write_lock_hold_ns(uint64_t* total) const override {
    *total = db_->GetStats().write_lock_hold_ns;
    return true;
  }

  Counters counters() const override {
    const Stats s = db_->GetStats();
    Counters c;
    c.commits = s.commits;
    c.fsyncs = s.fsyncs;
    auto& e = c.extra;
    // Every other counter fenec/stats.h declares, by its field name. A
    // cell's rounds add up (merge_rounds): the maxima come below, in us.
    for (Stat k : kAllStats) {
      if (Info(k).kind != StatKind::kCounter || k == Stat::commits || k == Stat::fsyncs) continue;
      e[Info(k).name] = {static_cast<double>(s.get(k)), UnitName(Info(k).unit)};
    }
    // Named as PostgreSQL's pg_stat_wal figure, so the writers part reports both arms' mean sync alike.
    e["wal_sync_ms"] = {us(s.journal_sync_ns) / 1000.0, "ms"};
    const double acq = s.write_lock_acquisitions ? static_cast<double>(s.write_lock_acquisitions) : 1.0;
    e["lock_hold_mean_us"] = {us(s.write_lock_hold_ns) / acq, "us"};
    e["lock_hold_max_us"] = {us(s.write_lock_hold_max_ns), "us"};
    e["lock_wait_max_us"] = {us(s.write_lock_wait_max_ns), "us"};
    e["pin_mean_us"] = {s.pins ? us(s.pin_ns) / static_cast<double>(s.pins) : 0.0, "us"};
    e["pin_max_us"] = {us(s.pin_max_ns), "us"};
    return c;
  }

  std::string close() override {
    if (!db_) return "";
    Status st = db_->Close();
    db_.reset();
    return st.ok() ? "" : st.ToString();
  }

 private:
  std::unique_ptr<Database> db_;
  CollectionId coll_;
};

}  // namespace


std::unique_ptr<Store> open_fenecdb(const ArmSpec& arm, const std::string& part, const std::string& dir,
                                    std::string* err) {
  Options o;
  o.durability = arm.durable ? Durability::kDurable : Durability::kBuffered;
  // The scratch folder is thrown away: a checkpoint at close would only
  // cost the run time, it is not part of any measurement.
  o.checkpoint_on_close = false;
  if (arm.append_journal) o.journal_zero_ahead = 0;
  o.commit_window_us = arm.commit_window_us;
  for (const auto& [name, value] : arm.settings) {
    if (name == "journal_zero_ahead") {
      o.journal_zero_ahead = std::stoull(value);
    } else if (name == "commit_window_us" && ParseCommitWindow(value, &o.commit_window_us)) {
    } else if (name == "data_flush" && (value == "kPwrite" || value == "kGlobalRing")) {
      o.data_flush = value == "kPwrite" ? DataFlush::kPwrite : DataFlush::kGlobalRing;
    } else {
      *err = fmt::format("fenecdb: setting {}={} is not one this arm applies", name, value);
      return nullptr;
    }
  }
  if (arm.naive) {
    if (part == "writers") o.commit_mode = CommitMode::kNaive;          // CC-1
    else if (part == "readers") o.buffer_write = BufferWrite::kUnderLock;  // CC-4
    else if (part == "batches") o.batch_build = BatchBuild::kUnderLock;    // CC-3
    else if (part == "long-read") o.long_reads = LongReads::kUnderLock;    // CC-5
  }
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(dir).parent_path(), ec);
  auto db = Database::Open(dir, o);
  if (!db.ok()) {
    *err = db.status().ToString();
    return nullptr;
  }
  auto coll = (*db)->CreateCollection("docs", Schema{{Field::Text("body"), Field::Int("n")}});
  if (!coll.ok()) {
    *err = coll.status().ToString();
    return nullptr;
  }
  auto store = std::make_unique<FenecdbStore>(std::move(*db), *coll);
  store->reset_counters();
  return store;
}

}  // namespace fenec::scenarios::engines

