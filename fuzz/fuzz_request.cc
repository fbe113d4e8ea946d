// The JSON request bodies, run for real: the first byte picks the endpoint
// (POST /query, POST /docs/{collection}, POST /batch, GET /docs/{c}/{id}),
// the rest is the body (for GET: "collection/id"). Each input is executed by
// the query service against the fuzz database (fuzz_db.h): every answer is
// a 2xx or a 4xx with a JSON body, never a crash or a 5xx (no engine error
// is reachable from a request), and the database stays consistent.
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/src/query/service.h"
#include "fuzz/check.h"
#include "fuzz/fuzz_db.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fenec::fuzz::FuzzDb fdb;  // the process's one: closed and removed at exit
  if (size == 0) return 0;
  static constexpr const char* kCollections[] = {"items", "vecs", "plain", "nosuch"};
  const uint8_t pick = data[0];
  std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  fenec::query::Service& svc = *fdb.service();
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
  if (fdb.Due()) fdb.Reset();
  return 0;
}
