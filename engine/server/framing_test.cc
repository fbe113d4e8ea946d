// Request framing (RFC 9112 6.1-6.3, http_guard.h's FramingCheck): a request
// whose body's end is not certain is answered 400 (501 for a coding this
// server does not implement) with Connection: close, and the connection is
// closed with nothing after it read as a request. Each such request is sent
// with a valid POST hidden after it, which stores a marker if it ever runs;
// none may. Good framing keeps the connection, and an answer to a HEAD
// ends at its header. Statuses, bytes and counts, never times.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <httplib.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "fenec/database.h"
#include "engine/server/http_guard.h"
#include "engine/server/server.h"
#include "engine/server/test_client.h"
#include "engine/src/base/testing.h"

namespace fenec::server {
namespace framing_test {

const bool kSigpipeIgnored = [] {
  signal(SIGPIPE, SIG_IGN);
  return true;
}();

using Fields = std::vector<std::pair<std::string, std::string>>;

int Verdict(const Fields& fields, unsigned version = 11, bool folded = false) {
  FramingCheck check;
  for (const auto& [name, value] : fields) check.Field(name, value);
  return check.Verdict(version, folded);
}

TEST(FramingCheck, ALengthOrChunkedAloneOrNeitherPasses) {
  EXPECT_EQ(Verdict({}), 0);
  EXPECT_EQ(Verdict({{"Host", "x"}, {"Content-Length", "12"}}), 0);
  EXPECT_EQ(Verdict({{"content-length", "0"}}, 10), 0);
  EXPECT_EQ(Verdict({{"Content-Length", "007"}}), 0);  // 1*DIGIT
  EXPECT_EQ(Verdict({{"Transfer-Encoding", "chunked"}}), 0);
  EXPECT_EQ(Verdict({{"TRANSFER-ENCODING", "Chunked"}}), 0);
  EXPECT_EQ(Verdict({{"X-Transfer_Note", "chunked"}, {"Content_Type", "a"}}), 0);  // '_' elsewhere is no matter
}

TEST(FramingCheck, EverythingElseIs400Or501) {
  const std::vector<std::pair<Fields, int>> cases = {
      {{{"Transfer-Encoding", "gzip"}}, 400},
      {{{"Transfer-Encoding", "chunked, gzip"}}, 400},
      {{{"Transfer-Encoding", "chunked, chunked"}}, 400},
      {{{"Transfer-Encoding", "gzip, chunked, chunked"}}, 400},
      {{{"Transfer-Encoding", ""}}, 400},
      {{{"Transfer-Encoding", ", chunked"}}, 400},
      {{{"Transfer-Encoding", "chunked;x=1"}}, 400},
      {{{"Transfer-Encoding", "\"chunked\""}}, 400},
      {{{"Transfer-Encoding", "chunked\xa0"}}, 400},
      {{{"Transfer-Encoding", ""}, {"Transfer-Encoding", "chunked"}}, 400},
      {{{"Transfer-Encoding", "chunked"}, {"Content-Length", "5"}}, 400},
      {{{"Content-Length", "5"}, {"Transfer-Encoding", "gzip"}}, 400},
      {{{"Content-Length", "5"}, {"Content-Length", "5"}}, 400},
      {{{"Content-Length", "5, 5"}}, 400},
      {{{"Content-Length", "+5"}}, 400},
      {{{"Content-Length", ""}}, 400},
      {{{"Transfer_Encoding", "chunked"}}, 400},
      {{{"content_length", "5"}}, 400},
      {{{"Transfer-Encoding", "gzip, chunked"}}, 501},
      {{{"Transfer-Encoding", "x-custom;q=1 , chunked"}}, 501},
      {{{"Transfer-Encoding", "gzip,,chunked"}}, 501},
      {{{"Transfer-Encoding", "gzip"}, {"Transfer-Encoding", "chunked"}}, 501},
  };
  for (const auto& [fields, want] : cases) {
    std::string shown;
    for (const auto& [n, v] : fields) shown += n + ": " + v + "; ";
    EXPECT_EQ(Verdict(fields), want) << shown;
  }
  EXPECT_EQ(Verdict({{"Transfer-Encoding", "chunked"}}, 10), 400);  // RFC 9112 6.1: faulty in HTTP/1.0
  EXPECT_EQ(Verdict({{"Content-Length", "5"}}, 11, /*folded=*/true), 400);
  FramingCheck check;
  check.Field("Transfer-Encoding", "gzip, chunked");
  EXPECT_EQ(check.Verdict(11, false), 501);
  EXPECT_NE(std::string(check.why()).find("not implemented"), std::string::npos) << check.why();
}

TEST(FramingCheck, ObsFoldAndChunkExtensions) {
  EXPECT_FALSE(HasObsFold("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n"));
  EXPECT_TRUE(HasObsFold("POST / HTTP/1.1\r\nContent-Length:\r\n 2\r\n\r\n"));
  EXPECT_TRUE(HasObsFold("POST / HTTP/1.1\r\nX: a\r\n\tb\r\n\r\n"));
  EXPECT_FALSE(HasObsFold("Host: a\r\n"));  // a space after the last line ending is not in the header
  EXPECT_TRUE(ChunkExtensionClean(""));
  EXPECT_TRUE(ChunkExtensionClean(";a=b;c=\"d e\t\""));
  EXPECT_FALSE(ChunkExtensionClean(";a=\"x\ny\""));
  EXPECT_FALSE(ChunkExtensionClean(";a=\"x\ry\""));
  EXPECT_FALSE(ChunkExtensionClean(std::string(";a=\"\0\"", 6)));
}

// A POST /query head (Host and Content-Type fine) with `fields` for framing.
std::string Head(const std::string& fields, const char* version = "1.1") {
  return fmt::format("POST /query HTTP/{}\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{}\r\n", version,
                     fields);
}

// A complete, valid request that stores {"k": marker} in t when it runs.
std::string Hidden(const std::string& marker, const std::string& extra_fields = "") {
  const std::string body = fmt::format(R"j([{{"k": "{}"}}])j", marker);
  return fmt::format(
      "POST /docs/t HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{}Content-Length: {}\r\n\r\n{}",
      extra_fields, body.size(), body);
}

// The same as a chunked request: two chunks (one with an extension) and a trailer.
std::string HiddenChunked(const std::string& marker) {
  const std::string body = fmt::format(R"j([{{"k": "{}"}}])j", marker);
  return fmt::format(
      "POST /docs/t HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
      "{:x};note=first\r\n{}\r\n{:x}\r\n{}\r\n0\r\nX-Trailer: 1\r\n\r\n",
      4, body.substr(0, 4), body.size() - 4, body.substr(4));
}

// The answers in bytes read off one connection, each its head and
// Content-Length bytes of body; a last one cut short is kept as it came.
std::vector<std::string> Answers(const std::string& bytes) {
  std::vector<std::string> out;
  for (size_t at = 0; at < bytes.size();) {
    const size_t end = bytes.find("\r\n\r\n", at);
    const size_t length = bytes.find("\r\nContent-Length: ", at);
    if (end == std::string::npos || length == std::string::npos || length > end) {
      out.push_back(bytes.substr(at));
      break;
    }
    const size_t size = end + 4 - at + std::stoul(bytes.substr(length + 18));
    out.push_back(bytes.substr(at, size));
    at += size;
  }
  return out;
}

class FramingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Options o;
    o.durability = Durability::kBuffered;
    auto db = Database::Open(dir_.path() + "/db", o);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    ASSERT_TRUE(db_->CreateCollection("t", Schema{{Field::Text("k")}}).ok());
    FenecServer::Config c;
    c.http.port = 0;
    server_ = std::make_unique<FenecServer>(db_.get(), c);
    ASSERT_TRUE(server_->Start().ok());
  }
  void TearDown() override {
    if (server_) server_->Stop();
    if (db_) {
      EXPECT_TRUE(db_->Close().ok());
    }
  }
  // Whether a document with k = marker is stored, asked on a new connection.
  bool Stored(const std::string& marker) {
    httplib::Client c("127.0.0.1", server_->port());
    auto r = c.Post("/query", fmt::format(R"j({{"statement": "FIND t WHERE k = $1", "params": ["{}"]}})j", marker),
                    "application/json");
    EXPECT_TRUE(r && r->status == 200) << (r ? r->body : "no answer");
    return r && r->body.find(marker) != std::string::npos;
  }
  std::string Metrics() {
    httplib::Client c("127.0.0.1", server_->port());
    auto r = c.Get("/metrics");
    EXPECT_TRUE(r && r->status == 200);
    return r ? "\n" + r->body : "";
  }
  static std::string Rejected(const char* reason) {
    return fmt::format("fenec_http_rejected_total{{reason=\"{}\"}}", reason);
  }
  static std::string Refused(int status) {
    return fmt::format("fenec_requests_total{{endpoint=\"refused\",kind=\"\",code=\"{}\"}}", status);
  }

  base::ScratchDir dir_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<FenecServer> server_;
};

// What follows the head: "{}" for a 2-byte length, a chunked body's end, or nothing.
constexpr char kTwo[] = "{}";
constexpr char kLastChunk[] = "0\r\n\r\n";

struct Smuggle {
  const char* name;
  std::string head;  // the first request's header, through its blank line
  std::string body;  // what it sends before the hidden request
  int status;
  const char* reason;  // fenec_http_rejected_total's
};

// Each framing of the class, its body chosen so that the server before this
// check would have run the hidden request (where Beast let it through).
std::vector<Smuggle> Smuggles() {
  return {
      // Transfer-Encoding with chunked not final, or not alone (RFC 9112 6.1, 6.3).
      {"TE gzip", Head("Transfer-Encoding: gzip\r\n"), "", 400, "framing"},
      {"TE chunked, gzip", Head("Transfer-Encoding: chunked, gzip\r\n"), "", 400, "framing"},
      {"TE chunked, chunked", Head("Transfer-Encoding: chunked, chunked\r\n"), "", 400, "framing"},
      {"TE identity", Head("Transfer-Encoding: identity\r\n"), "", 400, "framing"},
      {"TE empty", Head("Transfer-Encoding: \r\n"), "", 400, "framing"},
      {"TE xchunked", Head("Transfer-Encoding: xchunked\r\n"), "", 400, "framing"},
      {"TE quoted chunked", Head("Transfer-Encoding: \"chunked\"\r\n"), "", 400, "framing"},
      {"TE chunked;x=1", Head("Transfer-Encoding: chunked;x=1\r\n"), kLastChunk, 400, "framing"},
      {"TE , chunked", Head("Transfer-Encoding: , chunked\r\n"), kLastChunk, 400, "framing"},
      {"TE chunked obs-text", Head("Transfer-Encoding: chunked\xa0\r\n"), kLastChunk, 400, "framing"},
      {"TE empty, TE chunked", Head("Transfer-Encoding: \r\nTransfer-Encoding: chunked\r\n"), kLastChunk, 400,
       "framing"},
      {"TE chunked twice (fields)", Head("Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n"), kLastChunk,
       400, "framing"},
      {"TE chunked, TE gzip", Head("Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n"), kLastChunk, 400,
       "framing"},
      // A coding before chunked: the length is known, the coding is not (501).
      {"TE gzip, chunked", Head("Transfer-Encoding: gzip, chunked\r\n"), kLastChunk, 501, "framing"},
      {"TE x-custom, chunked", Head("Transfer-Encoding: x-custom, chunked\r\n"), kLastChunk, 501, "framing"},
      {"TE gzip, TE chunked", Head("Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n"), kLastChunk, 501,
       "framing"},
      // Transfer-Encoding and Content-Length together, either order.
      {"TE chunked + CL", Head("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n"), kLastChunk, 400, "framing"},
      {"CL + TE chunked", Head("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"), kLastChunk, 400, "framing"},
      {"TE gzip + CL", Head("Transfer-Encoding: gzip\r\nContent-Length: 2\r\n"), kTwo, 400, "framing"},
      {"CL + TE gzip", Head("Content-Length: 2\r\nTransfer-Encoding: gzip\r\n"), kTwo, 400, "framing"},
      // Transfer-Encoding in HTTP/1.0 (RFC 9112 6.1), kept alive or with a length.
      {"HTTP/1.0 TE chunked keep-alive", Head("Connection: keep-alive\r\nTransfer-Encoding: chunked\r\n", "1.0"),
       kLastChunk, 400, "framing"},
      {"HTTP/1.0 TE chunked + CL", Head("Transfer-Encoding: chunked\r\nContent-Length: 2\r\n", "1.0"), kTwo, 400,
       "framing"},
      // Content-Length: several, a list, or not a plain decimal (RFC 9112 6.3).
      {"CL twice, equal", Head("Content-Length: 2\r\nContent-Length: 2\r\n"), kTwo, 400, "framing"},
      {"CL twice, differing", Head("Content-Length: 2\r\nContent-Length: 3\r\n"), kTwo, 400, "framing"},
      {"CL list 2, 2", Head("Content-Length: 2, 2\r\n"), kTwo, 400, "framing"},
      {"CL list 2, 3", Head("Content-Length: 2, 3\r\n"), kTwo, 400, "framing"},
      {"CL +2", Head("Content-Length: +2\r\n"), kTwo, 400, "framing"},
      {"CL -2", Head("Content-Length: -2\r\n"), kTwo, 400, "framing"},
      {"CL 0x2", Head("Content-Length: 0x2\r\n"), kTwo, 400, "framing"},
      {"CL 2 2", Head("Content-Length: 2 2\r\n"), kTwo, 400, "framing"},
      {"CL 2.0", Head("Content-Length: 2.0\r\n"), kTwo, 400, "framing"},
      {"CL empty", Head("Content-Length: \r\n"), kTwo, 400, "framing"},
      {"CL past 2^64", Head("Content-Length: 18446744073709551618\r\n"), kTwo, 400, "framing"},
      // Lines read otherwise by another parser: obs-fold (any field), whitespace
      // before the colon, a name with '_' for '-'.
      {"CL obs-fold", Head("Content-Length:\r\n 2\r\n"), kTwo, 400, "framing"},
      {"TE obs-fold", Head("Transfer-Encoding:\r\n chunked\r\n"), kLastChunk, 400, "framing"},
      {"TE obs-fold gzip,", Head("Transfer-Encoding: gzip,\r\n\tchunked\r\n"), kLastChunk, 400, "framing"},
      {"obs-fold elsewhere", Head("X-Note: a\r\n b\r\nContent-Length: 2\r\n"), kTwo, 400, "framing"},
      {"CL space before colon", Head("Content-Length : 2\r\n"), kTwo, 400, "bad_http"},
      {"TE space before colon", Head("Transfer-Encoding : chunked\r\n"), kLastChunk, 400, "bad_http"},
      {"Transfer_Encoding", Head("Transfer_Encoding: chunked\r\n"), "", 400, "framing"},
      {"Content_Length", Head("Content_Length: 2\r\n"), "", 400, "framing"},
      // A chunked body refused mid-way: its end is not where Beast stopped.
      {"chunk ext with a bare LF", Head("Transfer-Encoding: chunked\r\n"), "2;a=\"x\ny\"\r\n{}\r\n0\r\n\r\n", 400,
       "framing"},
      {"chunk ext with a bare CR", Head("Transfer-Encoding: chunked\r\n"), "2;a=\"x\ry\"\r\n{}\r\n0\r\n\r\n", 400,
       "framing"},
      {"chunk size +2", Head("Transfer-Encoding: chunked\r\n"), "+2\r\n{}\r\n0\r\n\r\n", 400, "framing"},
      {"chunk size past 2^64", Head("Transfer-Encoding: chunked\r\n"), "10000000000000002\r\n{}\r\n0\r\n\r\n", 400,
       "framing"},
      {"chunk longer than its size", Head("Transfer-Encoding: chunked\r\n"), "1\r\n{}\r\n0\r\n\r\n", 400, "framing"},
      {"chunk size ends in a bare LF", Head("Transfer-Encoding: chunked\r\n"), "2\n{}\r\n0\r\n\r\n", 400, "framing"},
      {"CL in the trailer", Head("Transfer-Encoding: chunked\r\n"), "2\r\n{}\r\n0\r\nContent-Length: 5\r\n\r\n", 400,
       "framing"},
  };
}

// Every framing of the class, each with a valid request hidden after it:
// answered once, Connection: close, closed by the server (EOF), the hidden
// request never run, and each refusal counted under its reason and status.
TEST_F(FramingTest, AnUncertainBodyEndIsRefusedAndNothingAfterItRuns) {
  double want_framing = 0, want_bad_http = 0, want_400 = 0, want_501 = 0;
  int row = 0;
  for (const Smuggle& s : Smuggles()) {
    SCOPED_TRACE(s.name);
    const std::string marker = fmt::format("smuggled-{}", row++);
    RawConn conn(server_->port());
    ASSERT_TRUE(conn.ok());
    ASSERT_TRUE(conn.Send(s.head + s.body + Hidden(marker)));
    // Bounded: a server that kept the connection would leave eof false.
    const RawConn::Read r = conn.ReadToClose(5'000);
    EXPECT_EQ(StatusOf(r.bytes), s.status) << r.bytes;
    EXPECT_NE(r.bytes.find("\r\nConnection: close\r\n"), std::string::npos) << r.bytes;
    EXPECT_NE(r.bytes.find(R"("error":{"code":")"), std::string::npos) << r.bytes;
    EXPECT_TRUE(r.eof) << r.bytes;
    EXPECT_EQ(Answers(r.bytes).size(), 1u) << r.bytes;
    EXPECT_FALSE(Stored(marker));
    (std::string(s.reason) == "framing" ? want_framing : want_bad_http) += 1;
    (s.status == 501 ? want_501 : want_400) += 1;
    const std::string m = Metrics();
    EXPECT_EQ(MetricValue(m, Rejected("framing")), want_framing);
    EXPECT_EQ(MetricValue(m, Rejected("bad_http")), want_bad_http);
    EXPECT_EQ(MetricValue(m, Refused(400)), want_400);
    EXPECT_EQ(MetricValue(m, Refused(501)), want_501 > 0 ? want_501 : -1);
  }
  EXPECT_EQ(*db_->Count(*db_->FindCollection("t")), 0u);
  EXPECT_EQ(server_->connection_stats().bad_framing, static_cast<uint64_t>(want_framing));
  // The control: the hidden request alone does run, so the checks above could fail.
  RawConn conn(server_->port());
  ASSERT_TRUE(conn.Send(Hidden("alone", "Connection: close\r\n")));
  EXPECT_EQ(StatusOf(conn.ReadToClose(5'000).bytes), 200);
  EXPECT_TRUE(Stored("alone"));
}

// A header that arrives in pieces goes through the same screening (the
// pieces make the server wait for the rest; nothing here depends on it).
TEST_F(FramingTest, AFoldInAHeaderSentInPiecesIsSeen) {
  RawConn conn(server_->port());
  ASSERT_TRUE(conn.ok());
  const std::string head = Head("X-Note: a\r\n b\r\nTransfer-Encoding:\r\n chunked\r\n");
  for (size_t at = 0; at < head.size(); at += 16) {
    ASSERT_TRUE(conn.Send(head.substr(at, 16)));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(conn.Send(std::string(kLastChunk) + Hidden("pieces")));
  const RawConn::Read r = conn.ReadToClose(5'000);
  EXPECT_EQ(StatusOf(r.bytes), 400) << r.bytes;
  EXPECT_TRUE(r.eof);
  EXPECT_FALSE(Stored("pieces"));
  EXPECT_EQ(server_->connection_stats().bad_framing, 1u);
}

// Good framing keeps the connection: a chunked request (extension, trailer)
// and a Content-Length one, pipelined in one send and one after the other,
// each answered 200 on the same connection and each stored.
TEST_F(FramingTest, GoodFramingKeepsTheConnection) {
  {
    RawConn conn(server_->port());
    ASSERT_TRUE(conn.Send(HiddenChunked("chunked-1") + Hidden("length-1", "Connection: close\r\n")));
    const RawConn::Read r = conn.ReadToClose(5'000);
    EXPECT_TRUE(r.eof);
    const std::vector<std::string> answers = Answers(r.bytes);
    ASSERT_EQ(answers.size(), 2u) << r.bytes;
    EXPECT_EQ(StatusOf(answers[0]), 200) << answers[0];
    EXPECT_EQ(answers[0].find("Connection: close"), std::string::npos) << answers[0];
    EXPECT_EQ(StatusOf(answers[1]), 200) << answers[1];
    EXPECT_NE(answers[1].find("Connection: close"), std::string::npos) << answers[1];
  }
  {
    RawConn conn(server_->port());
    ASSERT_TRUE(conn.Send(Hidden("length-2")));
    RawConn::Read r = conn.ReadAnswer(5'000);
    EXPECT_EQ(StatusOf(r.bytes), 200) << r.bytes;
    EXPECT_FALSE(r.eof);
    EXPECT_EQ(r.bytes.find("Connection: close"), std::string::npos) << r.bytes;
    ASSERT_TRUE(conn.Send(HiddenChunked("chunked-2")));
    r = conn.ReadAnswer(5'000);
    EXPECT_EQ(StatusOf(r.bytes), 200) << r.bytes;
    EXPECT_FALSE(r.eof);
    ASSERT_TRUE(conn.Send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"));
    r = conn.ReadToClose(5'000);
    EXPECT_EQ(StatusOf(r.bytes), 200) << r.bytes;
    EXPECT_TRUE(r.eof);
  }
  for (const char* marker : {"chunked-1", "length-1", "length-2", "chunked-2"}) EXPECT_TRUE(Stored(marker)) << marker;
  EXPECT_EQ(*db_->Count(*db_->FindCollection("t")), 4u);
  const ConnectionStats st = server_->connection_stats();
  EXPECT_EQ(st.bad_framing, 0u);
  EXPECT_EQ(st.bad_http, 0u);
}

// A HEAD's answer ends at its header (RFC 9112 6.3), whatever its status:
// with a body after it, a client or proxy would read that body as the start
// of the next answer on the connection.
TEST_F(FramingTest, AHeadAnswerEndsAtItsHeader) {
  RawConn conn(server_->port());
  ASSERT_TRUE(conn.Send("HEAD /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                        "HEAD /docs/t/1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                        "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"));
  const RawConn::Read r = conn.ReadToClose(5'000);
  EXPECT_TRUE(r.eof);
  const size_t first = r.bytes.find("\r\n\r\n");
  ASSERT_NE(first, std::string::npos) << r.bytes;
  EXPECT_EQ(StatusOf(r.bytes), 200) << r.bytes;
  EXPECT_NE(r.bytes.substr(0, first).find("\r\nContent-Length: 15"), std::string::npos) << r.bytes;  // the GET's size
  const std::string rest = r.bytes.substr(first + 4);
  EXPECT_EQ(StatusOf(rest), 405) << r.bytes;  // HEAD /docs/t/1: only GET is routed there
  const size_t second = rest.find("\r\n\r\n");
  ASSERT_NE(second, std::string::npos) << r.bytes;
  const std::string last = rest.substr(second + 4);
  EXPECT_EQ(StatusOf(last), 200) << r.bytes;
  EXPECT_EQ(last.substr(last.find("\r\n\r\n") + 4), R"j({"status":"ok"})j") << r.bytes;
}

}  // namespace framing_test
}  // namespace fenec::server
