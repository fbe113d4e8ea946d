// The JSON request bodies, run for real: the first byte picks the endpoint
// (POST /query, POST /docs/{collection}, POST /batch, GET /docs/{c}/{id}) in
// its low two bits, the collection of /docs in the next two, and the service
// in the fifth: the default request limits, or tight ones (fuzz_db.h) so that
// every limit is reached by a small input. The rest is the body (for GET:
// "collection/id"). Each input is executed by the query service against the
// fuzz database: every answer is a 2xx or a 4xx with a JSON body, never a
// crash or a 5xx (no engine error is reachable from a request), a 413 names
// its limit in `where`, a refused request stores nothing, and the database
// stays consistent.
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/src/query/answer_check.h"
#include "engine/src/query/service.h"
#include "fuzz/check.h"
#include "fuzz/fuzz_db.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fenec::fuzz::FuzzDb fdb;  // the process's one: closed and removed at exit
  if (size == 0) return 0;
  static constexpr const char* kCollections[] = {"items", "vecs", "plain", "nosuch"};
  const uint8_t pick = data[0];
  std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  fenec::query::Service& svc = (pick & 16) ? *fdb.tight_service() : *fdb.service();
  const uint64_t before = fdb.Stored();
  fenec::query::Answer a;
  switch (pick % 4) {
    case 0: a = svc.Query(body); break;
    case 1: a = svc.PutDocs(kCollections[(pick / 4) % 4], body); break;
    case 2: a = svc.Batch(body); break;
    default: {
      std::string_view path(body);
      size_t slash = path.find('/');
      a = svc.GetDoc(path.substr(0, slash), slash == std::string_view::npos ? "" : path.substr(slash + 1));
    }
  }
  FUZZ_CHECK(a.http >= 200 && a.http < 500, "answered %d: %s", a.http, a.body.c_str());
  FUZZ_CHECK(!a.body.empty() && (a.body[0] == '{' || a.body[0] == '['), "answer body '%s'", a.body.c_str());
  if (a.http == 413) {
    FUZZ_CHECK(fenec::query::ErrorCode(a.body) == "too_large", "a 413 with code '%s'",
               fenec::query::ErrorCode(a.body).c_str());
    FUZZ_CHECK(fenec::query::ErrorWhere(a.body).find("(limit max_") != std::string::npos,
               "a 413 whose where names no limit: %s", a.body.c_str());
  }
  if (a.http >= 400) {
    FUZZ_CHECK(fdb.Stored() == before, "a %d answer changed what is stored: %s", a.http, a.body.c_str());
  }
  if (fdb.Due()) fdb.Reset();
  return 0;
}
