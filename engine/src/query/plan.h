// A statement planned against the database's schema: collection resolved to
// its handle, field names to positions, literals made their fields' types,
// and each parameter given the type it must have. What a request still has
// to do is bind its parameters (bind.h) and run (service.h).
//
// Plans are immutable and shared: the plan cache hands the same one to every
// thread. Schemas never change, so a plan stays right until its collection is
// dropped, and a DROP empties the plan cache (its row's clears_plan_cache).
//
// One struct for every kind, its fields labelled with the kinds that use
// them: why not a variant, in statements.h (the registry of kinds).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "fenec/database.h"
#include "engine/src/query/request_limits.h"
#include "engine/src/query/name_table.h"
#include "engine/src/query/statement.h"

namespace fenec::query {

// What a parameter must hold.
enum class SlotKind : uint8_t {
  kField,  // a value of `field`'s type (a condition's operand, a document's value)
  kId,     // a document id: a whole number >= 1
  kLimit,  // a whole number >= 0
  kAfter,  // a FIND's AFTER: a document id to start after, a whole number >= 0
  kEf,     // a NEAR's beam width: a whole number >= 1
  kDocs,   // one document (object) or an array of them, under the collection's schema
};

struct ParamSlot {
  std::string name;       // "1" or the name, as written after '$'
  bool positional = false;
  SlotKind kind = SlotKind::kField;
  Field field;            // kField: name, type, dim
  bool nullable = false;  // a document's value may be null; a condition's may not
  size_t offset = 0;      // first use in the text
};

struct PlannedOperand {
  int slot = -1;  // >= 0: the parameter slot; -1: the literal
  Value literal;
};

struct PlannedCond {
  int field = -1;
  CompareOp op = CompareOp::kEq;
  PlannedOperand value;
};

struct PlannedDoc {
  std::vector<std::pair<int, PlannedOperand>> entries;  // field position -> value
};

struct PlannedAgg {
  AggFn fn = AggFn::kCount;
  int field = -1;  // -1: COUNT(*)
  std::string label;
};

struct Plan {
  StatementKind kind = StatementKind::kGet;
  std::string collection;
  CollectionId cid;
  Schema schema;  // the collection's (kCreate: the one to create)

  PlannedOperand id;                    // kGet, kDelete
  std::vector<PlannedCond> where;       // kFind, kAggregate
  PlannedOperand limit;                 // kFind: literal 0 = none given (Limits::find_page rows; NEAR: the engine's default k)
  PlannedOperand after;                 // kFind AFTER: literal 0 = from the first document
  int near_field = -1;                  // kFind NEAR: the @hnsw field, -1: no NEAR
  PlannedOperand near_vector;           // kFind NEAR
  PlannedOperand ef;                    // kFind NEAR: literal 0 = the engine's default
  std::vector<PlannedDoc> docs;         // kPut, written out
  int docs_slot = -1;                   // kPut $docs
  std::vector<PlannedAgg> aggs;         // kAggregate
  int group_field = -1;                 // kAggregate GROUP BY, -1: none

  std::vector<ParamSlot> slots;
  bool positional = false;  // the parameters are $1..$n (else named)
  size_t text_bytes = 0;    // for the plan cache's accounting

  // A field's position by name, or -1: by hash, so a document's keys cost
  // O(1) each however wide the schema (Schema::FieldIndex scans it).
  int FieldIndex(std::string_view name) const {
    return field_names.Find(name, [this](int i) -> const std::string& { return schema.fields[i].name; });
  }
  // A parameter's slot by name ("1" or "name"), or -1.
  int SlotIndex(std::string_view name) const {
    return slot_names.Find(name, [this](int i) -> const std::string& { return slots[i].name; });
  }
  NameTable field_names;  // schema.fields' names -> their positions
  NameTable slot_names;   // slots' names -> their indexes
};

struct PlanResult {
  std::shared_ptr<const Plan> plan;
  Error error;
  bool ok() const { return plan != nullptr; }
};

// Plans a parsed statement against db's catalog. `text` is the statement's
// text, only to turn offsets into line:col in errors.
// Errors: unknown_collection (404), unknown_field (400), type (400), params (400).
// Errors also: too_large (413) past limits.max_params parameters, or
// written-out documents holding more than limits.max_doc_values values.
PlanResult Prepare(const Statement& st, std::string_view text, const Database& db, const Limits& limits = {});

// A literal made a field's type: an int is accepted for a float field, a
// vector must have the field's dim and finite components. Fails:
// kInvalidArgument, saying why.
Status CoerceLiteral(const Value& in, const Field& field, Value* out);

std::string DescribeField(const Field& f);  // "int", "vector(128)"

}  // namespace fenec::query
