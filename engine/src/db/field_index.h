// FieldIndexes: a collection's @unique and @text indexes (engine/src/index's
// UniqueIndex and TextIndex), and what the write path asks of them.
//
// Keys are copied, hashed and tokenized when a batch is prepared - outside
// the write lock in the default arm (CC-3) - so the locked part only
// probes, checks and inserts. A batch's uniqueness is all or nothing: every
// @unique field is checked (against the stored rows and within the batch)
// before any index changes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/src/db/row.h"
#include "fenec/schema.h"

#include "engine/src/index/text_index.h"
#include "engine/src/index/unique_index.h"

namespace fenec {

// A batch's index changes, prepared before the lock.
struct PreparedIndexes {
  std::vector<index::UniqueBatch> unique;           // per @unique field (FieldIndexes order)
  std::vector<std::vector<index::TextDoc>> text;    // per @text field, per row
  uint64_t first_id = 0;
};

class FieldIndexes {
 public:
  explicit FieldIndexes(const Schema& schema);
  ~FieldIndexes();
  bool empty() const { return unique_fields_.empty() && text_fields_.empty() && hnsw_fields_.empty(); }
  // The @hnsw fields (schema indexes), in branch order.
  const std::vector<int>& hnsw_fields() const { return hnsw_fields_; }

  // rows[i] is the document with id first_id + i.
  void Prepare(const std::vector<std::vector<FieldRef>>& rows, uint64_t first_id, PreparedIndexes* out) const;
  // kConstraint naming the field and value if the batch would break uniqueness. Changes nothing.
  Status Check(const PreparedIndexes& p) const;
  // After a clean Check.
  void Apply(const PreparedIndexes& p);
  // Removes a stored row's keys and terms (delete).
  void Erase(uint64_t id, const std::vector<FieldRef>& row);

  // The row holding value in @unique field `field` (schema index).
  std::optional<uint64_t> FindUnique(int field, const Value& value) const;
  // Rows whose @text field holds every term, ascending.
  std::vector<uint64_t> TextQuery(int field, const std::string& terms) const;

  // JR-1: each index is a branch storage: a field's @unique index, its
  // @text index or its @hnsw index. In branch order: the @unique ones, the
  // @text ones, then the @hnsw ones. The @hnsw indexes themselves live in
  // the collection's VectorFields (db/vector_field.h), not here.
  struct BranchField {
    int field = 0;  // schema index
    bool text = false;
    bool hnsw = false;
  };
  std::vector<BranchField> branch_fields() const;
  // What a branch stores for a row's field: the @unique key bytes, the
  // @text text, or the @hnsw vector's dim x 4 bytes (the row's own). Empty
  // for an absent value.
  static std::string BranchValue(const Field& field, BranchField b, const FieldRef& ref);
  // Loads one (id, BranchValue) into a @unique or @text index: recovery from
  // a branch, or a rebuild from the rows. kConstraint if a @unique key
  // repeats. (An @hnsw branch loads into its VectorField.)
  Status AddEntry(BranchField b, uint64_t id, std::string_view value);

  // kCorruption unless the indexes hold exactly the rows' keys and terms.
  Status Verify(const std::vector<std::pair<uint64_t, std::vector<FieldRef>>>& rows) const;

 private:
  const Schema& schema_;
  std::vector<int> unique_fields_, text_fields_, hnsw_fields_;  // schema indexes
  std::vector<std::unique_ptr<index::UniqueIndex>> unique_;
  std::vector<std::unique_ptr<index::TextIndex>> text_;
};

}  // namespace fenec
