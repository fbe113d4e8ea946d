// Schema, filters and aggregates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fenec/status.h"
#include "fenec/value.h"

namespace fenec {

// How an @hnsw index measures nearness; smaller is nearer for every metric.
//   kL2            squared Euclidean distance (orders as the distance does)
//   kCosine        1 - cos(a, b), in [0, 2]; a zero vector is refused
//   kInnerProduct  1 - a.b on the vectors as given (the largest product is nearest)
enum class VectorMetric : uint8_t { kL2 = 0, kCosine = 1, kInnerProduct = 2 };
const char* VectorMetricName(VectorMetric m);  // "l2" | "cosine" | "ip"

struct Field {
  std::string name;
  FieldType type = FieldType::kText;
  uint32_t dim = 0;           // kVector only: floats per vector (> 0)
  bool unique = false;        // @unique: no two live documents share a non-null value
  bool text_indexed = false;  // @text (kText only): terms indexed for CompareOp::kContains
  bool hnsw = false;          // @hnsw (kVector only): an HNSW index answers Database::Near
  VectorMetric metric = VectorMetric::kL2;  // @hnsw's metric

  static Field Text(std::string name) { return {std::move(name), FieldType::kText}; }
  static Field Int(std::string name) { return {std::move(name), FieldType::kInt}; }
  static Field Float(std::string name) { return {std::move(name), FieldType::kFloat}; }
  static Field Bool(std::string name) { return {std::move(name), FieldType::kBool}; }
  static Field Vector(std::string name, uint32_t dim) { return {std::move(name), FieldType::kVector, dim}; }
  Field& Unique() { unique = true; return *this; }
  Field& TextIndexed() { text_indexed = true; return *this; }
  Field& Hnsw(VectorMetric m = VectorMetric::kL2) {
    hnsw = true;
    metric = m;
    return *this;
  }
};

struct Schema {
  std::vector<Field> fields;
  // Index of the named field, or -1.
  int FieldIndex(std::string_view name) const;
  // kInvalidArgument on: no fields, duplicate names, a name CheckName
  // refuses, vector dim 0, @text on a non-text field, @unique on a vector
  // field, @hnsw on a non-vector field or with @unique, an unknown metric.
  Status Validate() const;
  // kInvalidArgument unless doc has one value per field, each null or of its
  // field's type (an int is accepted for a float field): text valid UTF-8
  // (RFC 3629: no encoded surrogates, nothing past U+10FFFF), floats finite
  // (no NaN or infinity, which JSON cannot carry), vectors of dim finite
  // floats and, for @hnsw under kCosine, not all zeros.
  Status Check(const Document& doc) const;
};

// kInvalidArgument unless name (of a collection or a field; `what` says
// which) has 1 to 255 bytes of valid UTF-8 and no control characters.
Status CheckName(std::string_view what, std::string_view name);

enum class CompareOp : uint8_t {
  kEq, kNe, kLt, kLe, kGt, kGe,
  kContains,  // text field: holds the whole word (terms split on non-alphanumerics, lowercased)
};

struct Condition {
  std::string field;
  CompareOp op = CompareOp::kEq;
  Value value;
};

// A conjunction of conditions; empty matches every document. A null field
// matches no condition but kNe.
struct Filter {
  std::vector<Condition> all;
  Filter& Where(std::string field, CompareOp op, Value value) {
    all.push_back({std::move(field), op, std::move(value)});
    return *this;
  }
};

// count, sum, min and max of one field over the documents a filter matches,
// computed together in one pass. Nulls are not counted in `count` when a
// field is named; with no field, `count` is the documents matched.
struct AggregateResult {
  uint64_t count = 0;
  double sum = 0;          // int and float fields
  int64_t int_sum = 0;     // int fields: exact (wraps on overflow)
  Value min, max;          // null when count == 0; int/float/text/bool fields
};

}  // namespace fenec
