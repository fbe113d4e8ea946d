// Filters and aggregates compiled against a schema, evaluated on encoded
// rows' fields (FieldRef) without materializing documents.
#pragma once

#include <string>
#include <vector>

#include "engine/src/db/row.h"
#include "fenec/schema.h"

namespace fenec {

// Terms of text as TextIndex tokenizes them: ASCII letters lowercased,
// split on every byte that is not an ASCII letter or digit, bytes >= 0x80
// kept, terms cut at 128 bytes.
std::vector<std::string> Tokenize(std::string_view text);

class CompiledFilter {
 public:
  // kInvalidArgument: unknown field, constant of the wrong type, vector
  // field, kContains on a non-text field or with no terms.
  static Status Compile(const Schema& schema, const Filter& filter, CompiledFilter* out);
  bool Matches(const std::vector<FieldRef>& row) const;
  bool empty() const { return conds_.empty(); }
  // A condition an index can answer: kEq on a @unique field, kContains on a
  // @text field. -1 if none. The rest of the filter still applies to its rows.
  int unique_eq() const { return unique_eq_; }
  int text_contains() const { return text_contains_; }
  int field_of(int cond) const { return conds_[cond].field; }
  const Value& constant_of(int cond) const { return conds_[cond].constant; }

 private:
  struct Cond {
    int field;
    FieldType type;
    CompareOp op;
    Value constant;
    double d = 0;                    // numeric constant as a double (float field or mixed compare)
    bool int_exact = false;          // int field vs int constant: compare exactly
    std::vector<std::string> terms;  // kContains
  };
  bool Eval(const Cond& c, const FieldRef& f) const;
  std::vector<Cond> conds_;
  int unique_eq_ = -1, text_contains_ = -1;
};

class Aggregator {
 public:
  // field < 0: count documents only. kInvalidArgument for a vector field.
  static Status Make(const Schema& schema, const std::string& field, Aggregator* out);
  void Add(const std::vector<FieldRef>& row);
  AggregateResult result() const;

 private:
  int field_ = -1;
  FieldType type_ = FieldType::kInt;
  AggregateResult r_;
  bool any_ = false;
  int64_t imin_ = 0, imax_ = 0;
  double fmin_ = 0, fmax_ = 0;
  std::string smin_, smax_;
  bool bmin_ = false, bmax_ = false;
};

}  // namespace fenec
