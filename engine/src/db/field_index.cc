#include "engine/src/db/field_index.h"

#include "engine/src/db/filter.h"

#include <fmt/format.h>

#include <algorithm>

namespace fenec {

FieldIndexes::FieldIndexes(const Schema& schema) : schema_(schema) {
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    if (schema.fields[i].unique) unique_fields_.push_back(static_cast<int>(i));
    if (schema.fields[i].text_indexed) text_fields_.push_back(static_cast<int>(i));
    if (schema.fields[i].hnsw) hnsw_fields_.push_back(static_cast<int>(i));
  }
  for (size_t k = 0; k < unique_fields_.size(); ++k) unique_.push_back(std::make_unique<index::UniqueIndex>());
  for (size_t k = 0; k < text_fields_.size(); ++k) text_.push_back(std::make_unique<index::TextIndex>());
}

FieldIndexes::~FieldIndexes() = default;

std::vector<FieldIndexes::BranchField> FieldIndexes::branch_fields() const {
  std::vector<BranchField> out;
  for (int f : unique_fields_) out.push_back({f, false});
  for (int f : text_fields_) out.push_back({f, true});
  for (int f : hnsw_fields_) out.push_back({f, false, true});
  return out;
}

std::string FieldIndexes::BranchValue(const Field& field, BranchField b, const FieldRef& ref) {
  if (!ref.present) return {};
  if (b.hnsw) return std::string(reinterpret_cast<const char*>(ref.vec), size_t{field.dim} * 4);
  if (!b.text) return UniqueKey(field.type, ref);
  return std::string(ref.text);
}


void FieldIndexes::Prepare(const std::vector<std::vector<FieldRef>>& rows, uint64_t first_id,
                           PreparedIndexes* out) const {
  out->first_id = first_id;
  out->unique.assign(unique_fields_.size(), index::UniqueBatch());
  out->text.assign(text_fields_.size(), {});
  for (size_t k = 0; k < unique_fields_.size(); ++k) {
    int f = unique_fields_[k];
    for (size_t r = 0; r < rows.size(); ++r)
      if (rows[r][f].present) out->unique[k].Put(UniqueKey(schema_.fields[f].type, rows[r][f]), first_id + r);
  }
  for (size_t k = 0; k < text_fields_.size(); ++k) {
    int f = text_fields_[k];
    out->text[k].reserve(rows.size());
    for (const auto& row : rows) out->text[k].emplace_back(row[f].present ? row[f].text : std::string_view());
  }
}

Status FieldIndexes::Check(const PreparedIndexes& p) const {
  for (size_t k = 0; k < unique_fields_.size(); ++k) {
    if (auto v = unique_[k]->Check(p.unique[k]))
      return Status::Constraint(fmt::format("@unique field '{}': {}", schema_.fields[unique_fields_[k]].name,
                                            v->message()));
  }
  return Status::OK();
}

void FieldIndexes::Apply(const PreparedIndexes& p) {
  for (size_t k = 0; k < unique_fields_.size(); ++k) {
    auto v = unique_[k]->Apply(p.unique[k]);
    assert(!v && "Apply after a clean Check");
    (void)v;
  }
  for (size_t k = 0; k < text_fields_.size(); ++k)
    for (size_t r = 0; r < p.text[k].size(); ++r)
      if (p.text[k][r].size() > 0) text_[k]->Insert(p.first_id + r, p.text[k][r]);
}

void FieldIndexes::Erase(uint64_t id, const std::vector<FieldRef>& row) {
  for (size_t k = 0; k < unique_fields_.size(); ++k) {
    int f = unique_fields_[k];
    if (row[f].present) unique_[k]->Erase(UniqueKey(schema_.fields[f].type, row[f]));
  }
  for (size_t k = 0; k < text_fields_.size(); ++k) {
    int f = text_fields_[k];
    if (row[f].present) text_[k]->Erase(id, row[f].text);
  }
}

Status FieldIndexes::AddEntry(BranchField b, uint64_t id, std::string_view value) {
  if (b.hnsw) return Status::OK();
  if (!b.text) {
    for (size_t k = 0; k < unique_fields_.size(); ++k) {
      if (unique_fields_[k] != b.field) continue;
      if (auto v = unique_[k]->Put(value, id))
        return Status::Constraint(fmt::format("@unique field '{}': {}", schema_.fields[b.field].name, v->message()));
    }
    return Status::OK();
  }
  for (size_t k = 0; k < text_fields_.size(); ++k)
    if (text_fields_[k] == b.field && !value.empty()) text_[k]->Insert(id, value);
  return Status::OK();
}

std::optional<uint64_t> FieldIndexes::FindUnique(int field, const Value& value) const {
  for (size_t k = 0; k < unique_fields_.size(); ++k)
    if (unique_fields_[k] == field) return unique_[k]->Find(UniqueKey(value));
  return std::nullopt;
}

std::vector<uint64_t> FieldIndexes::TextQuery(int field, const std::string& terms) const {
  for (size_t k = 0; k < text_fields_.size(); ++k)
    if (text_fields_[k] == field) return text_[k]->Query(terms, SIZE_MAX);
  return {};
}

Status FieldIndexes::Verify(const std::vector<std::pair<uint64_t, std::vector<FieldRef>>>& rows) const {
  for (size_t k = 0; k < unique_fields_.size(); ++k) {
    int f = unique_fields_[k];
    size_t keys = 0;
    for (const auto& [id, row] : rows) {
      if (!row[f].present) continue;
      ++keys;
      auto held = unique_[k]->Find(UniqueKey(schema_.fields[f].type, row[f]));
      if (!held || *held != id)
        return Status::Corruption(fmt::format("@unique '{}': row {} not indexed", schema_.fields[f].name, id));
    }
    if (keys != unique_[k]->size())
      return Status::Corruption(fmt::format("@unique '{}': {} keys indexed, {} in rows", schema_.fields[f].name,
                                            unique_[k]->size(), keys));
  }
  for (size_t k = 0; k < text_fields_.size(); ++k) {
    int f = text_fields_[k];
    uint64_t pairs = 0;
    for (const auto& [id, row] : rows) {
      if (!row[f].present) continue;
      std::vector<std::string> terms = Tokenize(row[f].text);
      std::sort(terms.begin(), terms.end());
      pairs += static_cast<uint64_t>(std::unique(terms.begin(), terms.end()) - terms.begin());
    }
    if (pairs != text_[k]->postings_count())
      return Status::Corruption(fmt::format("@text '{}': {} postings indexed, {} in rows", schema_.fields[f].name,
                                            text_[k]->postings_count(), pairs));
  }
  return Status::OK();
}


}  // namespace fenec
