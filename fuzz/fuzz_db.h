// The database the query, request and handler fuzz targets run against:
// opened once per process in a scratch folder, with collections that cover
// every field type and index kind, so the seeds' statements plan and run.
//
// Writes accumulate across inputs; the targets Reset() to an empty database
// every kResetEvery inputs, or once it holds kMaxStored documents (Due(): a
// 1 MiB input can put 40 000), so a long fuzz run's memory stays
// bounded: state carried across inputs is allowed, state growing without end
// is not what we mean to test. Each Reset first checks the old database
// (Database::Check): no sequence of requests may leave its indexes
// disagreeing with its rows.
//
// Two services share the database: service() with the default request
// limits (the server's), where the fuzzer's large inputs (-max_len 1 MiB,
// scripts/fuzz.sh) look for work that grows faster than the request, and
// tight_service() with limits a few dozen bytes or items wide, so that every
// limit's refusal (413, nothing stored) is reached by small inputs too.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "fenec/database.h"
#include "engine/src/base/scratch.h"
#include "engine/src/query/service.h"

namespace fenec::fuzz {

inline constexpr const char* kFuzzSchema[] = {
    R"j({"statement": "CREATE COLLECTION items (name TEXT @unique, bio TEXT @text, age INT, score FLOAT, ok BOOL, emb VECTOR(3))"})j",
    R"j({"statement": "CREATE COLLECTION vecs (tag TEXT, v VECTOR(4) @hnsw)"})j",
    R"j({"statement": "CREATE COLLECTION plain (n INT, s TEXT)"})j",
};

class FuzzDb {
 public:
  static constexpr int kResetEvery = 2000;
  static constexpr uint64_t kMaxStored = 100000;

  FuzzDb() { Reset(); }

  Database* db() { return db_.get(); }
  query::Service* service() { return service_.get(); }
  query::Service* tight_service() { return tight_.get(); }

  static query::Limits TightLimits() {
    query::Limits l;
    l.max_statement_bytes = 512;
    l.max_tokens = 64;
    l.max_params = 4;
    l.max_doc_keys = 3;
    l.max_docs = 4;
    l.max_doc_values = 16;
    l.max_batch_statements = 3;
    l.keep_parser_bytes = 256;
    return l;
  }

  // Counts an input; true every kResetEvery inputs or past kMaxStored
  // documents (time for a Reset()).
  bool Due() { return ++inputs_ % kResetEvery == 0 || Stored() > kMaxStored; }

  // Documents stored in the schema's collections now.
  uint64_t Stored() const {
    uint64_t n = 0;
    for (const char* c : {"items", "vecs", "plain"}) {
      auto cid = db_->FindCollection(c);
      if (!cid.ok()) continue;
      auto count = db_->Count(*cid);
      if (count.ok()) n += *count;
    }
    return n;
  }

  // Checks the database, then replaces it with a fresh one (dropping the
  // service: anything built on db() must be dropped before).
  void Reset() {
    service_.reset();
    tight_.reset();
    if (db_) {
      if (Status s = db_->WaitForIndexes(); !s.ok()) Die("wait for indexes: " + s.ToString());
      if (Status s = db_->Check(); !s.ok()) Die("the requests left the database inconsistent: " + s.ToString());
      if (Status s = db_->Close(); !s.ok()) Die("close: " + s.ToString());
    }
    db_.reset();
    // Each generation in its own folder: the old one is removed by its ScratchDir.
    dir_ = std::make_unique<base::ScratchDir>("fuzz");
    if (!dir_->ok()) Die("scratch folder: " + dir_->error());
    Options o;
    o.durability = Durability::kBuffered;  // no fsync per write: inputs per second are what count here
    o.checkpoint_on_close = false;
    o.hnsw.threads = 1;  // one linker thread: the fuzzer's process stays one busy core
    auto db = Database::Open(dir_->path() + "/db", o);
    if (!db.ok()) Die("open: " + db.status().ToString());
    db_ = std::move(*db);
    service_ = std::make_unique<query::Service>(db_.get());
    tight_ = std::make_unique<query::Service>(db_.get(), TightLimits());
    for (const char* create : kFuzzSchema) {
      std::string body = create;
      query::Answer a = service_->Query(body);
      if (a.http != 200) Die(std::string(create) + " -> " + a.body);
    }
  }

 private:
  [[noreturn]] static void Die(const std::string& why) {
    std::fprintf(stderr, "fuzz database: %s\n", why.c_str());
    std::abort();
  }

  std::unique_ptr<base::ScratchDir> dir_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<query::Service> service_;
  std::unique_ptr<query::Service> tight_;
  long inputs_ = 0;
};

}  // namespace fenec::fuzz
