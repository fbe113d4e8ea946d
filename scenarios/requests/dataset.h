// RQ-1's rows and the parameters its requests carry, the same for both
// systems: N rows of (text, int, 128-dim vector), seeded, ids 1..N in both;
// a pool of query vectors for near and of rows for puts. Every value is
// rendered once, before any timing, as each system's text (a JSON array for
// fenec, an array literal for PostgreSQL): a float printed shortest reads
// back as the same float in both.
//
// Loading: fenec-server gets POST /docs/items, 1 000 rows a request, then
// the bench waits until the @hnsw linker has caught up (fenec_vector_pending
// 0), so no near is timed against a graph still being built. PostgreSQL gets
// one COPY and an ANALYZE. Only items has a vector index (fenec's @hnsw;
// PostgreSQL scans): puts, on both sides, has none beyond its id.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fenec::scenarios::requests {

inline constexpr int kDim = 128;
// n is drawn from [0, kMaxN); a filter asks n >= a bound drawn from [0,
// Dataset::bound_max]: at most 0.9 kMaxN, so a tenth of the rows or more
// match and a LIMIT 10 stops after ~100 rows, and never past the 10th
// largest n, so a small set still answers 10 rows to every filter.
inline constexpr int64_t kMaxN = 1000000;

struct Row {
  std::string name;
  int64_t n = 0;
  std::vector<float> vec;
};

struct Dataset {
  uint64_t seed = 0;
  std::vector<Row> rows;                   // id = index + 1
  std::vector<std::vector<float>> queries;  // near's query vectors
  std::vector<Row> puts;                   // what puts land
  int64_t bound_max = 0;                   // a filter's bound is drawn from [0, bound_max]
};

Dataset MakeDataset(int rows, uint64_t seed, int queries = 64, int puts = 256);

// "[0.1234,-0.5,...]" and "{0.1234,-0.5,...}".
std::string VectorJson(const std::vector<float>& v);
std::string VectorPg(const std::vector<float>& v);
// {"name":"...","n":7,"vec":[...]}
std::string DocJson(const Row& r);

// Puts land in a collection (table) of their own, `puts`, of the same shape
// and index: the rows the reads ask stay the N loaded however many puts a
// run lands (a full run lands hundreds of thousands, and an exact near over
// them would time the puts' rows, not the N asked).
inline constexpr const char* kItems = "items";
inline constexpr const char* kPuts = "puts";

// Creates collections `items` and `puts` (name TEXT, n INT, vec VECTOR(128)
// @hnsw), puts every row into items, then waits for the linker. "" or why not.
std::string LoadFenec(int port, const Dataset& d);
// Creates only `puts`, as LoadFenec does: a server that is asked puts alone
// (the write-through arm). "" or why not.
std::string CreateFenecPuts(int port);
// AGGREGATE <collection> COUNT(*), into *count. "" or why not.
std::string CountFenec(int port, const std::string& collection, uint64_t* count);

// Creates tables `items` and `puts` (id bigint identity primary key, name
// text, n bigint, vec float4[]) afresh and COPYs every row into items with
// its id. "" or why not.
std::string LoadPg(const std::string& conninfo, const Dataset& d);
std::string CountPg(const std::string& conninfo, const std::string& table, uint64_t* count);

}  // namespace fenec::scenarios::requests
