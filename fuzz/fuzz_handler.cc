// fenec-server's request handler (FenecServer::Handle), below the socket
// layer: the input is "METHOD\nTARGET\nAUTHORIZATION\nBODY". The server
// wants the token "fuzz-token", so both the 401 path and every route are
// reached. Every request gets a status in 200..599 other than 500, a
// content type, an endpoint for the metrics, and a body; none crashes.
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
  fenec::server::HttpResponse res;
  server->Handle(req, res);
  FUZZ_CHECK(res.status >= 200 && res.status < 600 && res.status != 500, "%s %s answered %d: %s",
             req.method.c_str(), req.target.c_str(), res.status, res.body.c_str());
  FUZZ_CHECK(!res.body.empty() && !res.content_type.empty() && !res.endpoint.empty(),
             "%s %s: body %zu bytes, content type '%s', endpoint '%s'", req.method.c_str(), req.target.c_str(),
             res.body.size(), res.content_type.c_str(), res.endpoint.c_str());
  if (fdb.Due()) {
    server.reset();  // the server's service holds the old database: dropped first
    fdb.Reset();
    server = MakeServer(fdb.db());
  }
  return 0;
}
