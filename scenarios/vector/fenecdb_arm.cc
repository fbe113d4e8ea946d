// The fenecdb arm: see fenecdb_arm.h.
#include "scenarios/vector/fenecdb_arm.h"

#include <filesystem>
#include <unordered_map>

#include "fenec/database.h"

namespace fenec::scenarios::vector {
namespace {

constexpr size_t kPutBatch = 256;

class FenecDbArm final : public AnnArm {
 public:
  FenecDbArm(const ArmParams& p, std::string dir, bool durable) : p_(p), dir_(std::move(dir)), durable_(durable) {}
  ~FenecDbArm() override {
    if (db_) (void)db_->Close();
    db_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string build(const Dataset& d) override {
    Options o;
    o.durability = durable_ ? Durability::kDurable : Durability::kBuffered;
    o.hnsw.m = p_.m;
    o.hnsw.ef_construction = p_.ef_construction;
    o.hnsw.threads = p_.threads;
    o.hnsw.insert = VectorInsert::kBatch;
    auto db = Database::Open(dir_, o);
    if (!db.ok()) return "Database::Open: " + db.status().ToString();
    db_ = std::move(db).value();
    auto c = db_->CreateCollection("v", Schema{{Field::Vector("emb", d.dim).Hnsw()}});
    if (!c.ok()) return "CreateCollection: " + c.status().ToString();
    c_ = *c;
    row_of_.reserve(d.size());
    for (size_t at = 0; at < d.size(); at += kPutBatch) {
      std::vector<Document> docs;
      const size_t end = std::min(d.size(), at + kPutBatch);
      for (size_t i = at; i < end; ++i) {
        const auto r = d.row(i);
        docs.push_back({Value(std::vector<float>(r.begin(), r.end()))});
      }
      auto ids = db_->PutBatch(c_, std::move(docs));
      if (!ids.ok()) return "PutBatch: " + ids.status().ToString();
      for (size_t i = 0; i < ids->size(); ++i) row_of_[(*ids)[i]] = at + i;
    }
    const Status s = db_->WaitForIndexes();
    if (!s.ok()) return "WaitForIndexes: " + s.ToString();
    return "";
  }

  std::vector<uint64_t> search(std::span<const float> q, size_t k, size_t ef) override {
    std::vector<uint64_t> out;
    if (!db_) return out;
    NearOptions no;
    no.k = k;
    no.ef = ef;
    auto hits = db_->Near(c_, 0, q, no);
    if (!hits.ok()) return out;
    for (const auto& h : *hits) {
      auto it = row_of_.find(h.id);
      out.push_back(it == row_of_.end() ? UINT64_MAX : it->second);
    }
    return out;
  }

 private:
  ArmParams p_;
  std::string dir_;
  bool durable_;
  std::unique_ptr<Database> db_;
  CollectionId c_{};
  std::unordered_map<DocId, uint64_t> row_of_;
};

}  // namespace

std::unique_ptr<AnnArm> make_fenecdb_arm(const ArmParams& p, const std::string& dir, bool durable) {
  return std::make_unique<FenecDbArm>(p, dir, durable);
}

}  // namespace fenec::scenarios::vector
