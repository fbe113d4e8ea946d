// Counted work of the statement language, for tests that check a request's
// cost grows with the request and no faster (query_work_test.cc):
// counting the steps, not timing them. One set per thread, so a test reads
// what its own requests did; a counter is one increment where it is bumped.
#pragma once

#include <cstdint>

namespace fenec::query {

struct WorkCounters {
  uint64_t name_probes = 0;     // slots a NameTable looked at (name_table.h)
  uint64_t name_compares = 0;   // names it compared byte by byte (same hash)
  uint64_t tokens = 0;          // tokens the parser's lexer made
  uint64_t parser_releases = 0; // JSON parsers freed after a large body (service.cc)
};

inline WorkCounters& Work() {
  thread_local WorkCounters counters;
  return counters;
}

}  // namespace fenec::query
