// fenec-server's request handler below the socket layer, both ways the
// server answers: the io thread's try (FenecServer::HandleInline, a get by id
// whose plan is cached) and the handler (FenecServer::Handle). The input is
// "METHOD\nTARGET\nAUTHORIZATION\nBODY". The server wants the token
// "fuzz-token", so both the 401 path and every route are reached. Every
// request gets a status in 200..599 other than 500, a content type, an
// endpoint for the metrics, and a body; none crashes. Each request is tried
// inline first, as the server does; then handled; then, since handling may
// have cached its plan, tried inline once more. Whenever the inline path
// answers, its answer must be the handler's, byte for byte: the server picks
// between them only for speed.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/server/server.h"
#include "fuzz/check.h"
#include "fuzz/fuzz_db.h"

namespace {

// Cuts the next '\n'-ended field off `in` (the rest, if there is no '\n').
std::string Field(std::string_view& in) {
  size_t nl = in.find('\n');
  std::string f(in.substr(0, nl));
  in.remove_prefix(nl == std::string_view::npos ? in.size() : nl + 1);
  return f;
}

std::unique_ptr<fenec::server::FenecServer> MakeServer(fenec::Database* db) {
  fenec::server::FenecServer::Config config;
  config.token = "fuzz-token";
  config.http.port = 0;  // never started: no socket is opened
  return std::make_unique<fenec::server::FenecServer>(db, config);
}

void CheckAnswer(const fenec::server::HttpRequest& req, const fenec::server::HttpResponse& res, const char* how) {
  FUZZ_CHECK(res.status >= 200 && res.status < 600 && res.status != 500, "%s %s %s answered %d: %s", how,
             req.method.c_str(), req.target.c_str(), res.status, res.body.c_str());
  FUZZ_CHECK(!res.body.empty() && !res.content_type.empty() && !res.endpoint.empty(),
             "%s %s %s: body %zu bytes, content type '%s', endpoint '%s'", how, req.method.c_str(),
             req.target.c_str(), res.body.size(), res.content_type.c_str(), res.endpoint.c_str());
}

void CheckSame(const fenec::server::HttpRequest& req, const fenec::server::HttpResponse& inl,
               const fenec::server::HttpResponse& handled) {
  CheckAnswer(req, inl, "inline");
  FUZZ_CHECK(inl.status == handled.status && inl.body == handled.body && inl.endpoint == handled.endpoint &&
                 inl.kind == handled.kind && inl.content_type == handled.content_type,
             "%s %s: inline answered %d %s (%s/%s), the handler %d %s (%s/%s)", req.method.c_str(),
             req.target.c_str(), inl.status, inl.body.c_str(), inl.endpoint.c_str(), inl.kind.c_str(),
             handled.status, handled.body.c_str(), handled.endpoint.c_str(), handled.kind.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fenec::fuzz::FuzzDb fdb;  // the process's one: closed and removed at exit
  // Made after fdb, so destroyed before it at exit.
  static std::unique_ptr<fenec::server::FenecServer> server = MakeServer(fdb.db());
  std::string_view in(reinterpret_cast<const char*>(data), size);
  fenec::server::HttpRequest req;
  req.method = Field(in);
  req.target = Field(in);
  req.authorization = Field(in);
  req.body = std::string(in);

  // Each try gets its own copy: the service may grow a body it reads.
  fenec::server::HttpRequest first = req;
  fenec::server::HttpResponse first_res;
  const bool inlined = server->HandleInline(first, first_res);
  fenec::server::HttpRequest handled = req;
  fenec::server::HttpResponse res;
  server->Handle(handled, res);
  CheckAnswer(req, res, "handled");
  if (inlined) {
    CheckSame(req, first_res, res);
  } else {
    fenec::server::HttpRequest again = req;
    fenec::server::HttpResponse again_res;
    if (server->HandleInline(again, again_res)) CheckSame(req, again_res, res);
  }
  if (fdb.Due()) {
    server.reset();  // the server's service holds the old database: dropped first
    fdb.Reset();
    server = MakeServer(fdb.db());
  }
  return 0;
}
