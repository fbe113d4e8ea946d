// Schema, filters and aggregates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fenec/status.h"
#include "fenec/value.h"

namespace fenec {

struct Field {
  std::string name;
  FieldType type = FieldType::kText;
  uint32_t dim = 0;           // kVector only: floats per vector (> 0)
  bool unique = false;        // @unique: no two live documents share a non-null value
  bool text_indexed = false;  // @text (kText only): terms indexed for CompareOp::kContains

  static Field Text(std::string name) { return {std::move(name), FieldType::kText}; }
  static Field Int(std::string name) { return {std::move(name), FieldType::kInt}; }
  static Field Float(std::string name) { return {std::move(name), FieldType::kFloat}; }
  static Field Bool(std::string name) { return {std::move(name), FieldType::kBool}; }
  static Field Vector(std::string name, uint32_t dim) { return {std::move(name), FieldType::kVector, dim}; }
  Field& Unique() { unique = true; return *this; }
  Field& TextIndexed() { text_indexed = true; return *this; }
};

struct Schema {
  std::vector<Field> fields;
  // Index of the named field, or -1.
  int FieldIndex(std::string_view name) const;
  // kInvalidArgument on: no fields, duplicate or empty names, vector dim 0,
  // @text on a non-text field, @unique on a vector field.
  Status Validate() const;
  // kInvalidArgument unless doc has one value per field, each null or of its
  // field's type (an int is accepted for a float field), vectors of dim floats.
  Status Check(const Document& doc) const;
};

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
