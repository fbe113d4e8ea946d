// The bench's own HTTP/1.1 client: one kept-alive TCP connection to
// 127.0.0.1, each request written in one send() and its answer read by its
// Content-Length, nothing else. RQ-1 times round trips of a few tens of
// microseconds, so the client must not add its own: cpp-httplib builds
// header maps and strings a request (the recon-bench client's get-by-id round
// trip was 63.7 us where wrk's p50 was 40 us). wrk on the same requests
// checks this client (requests-bench's wrk rows).
#pragma once

#include <string>
#include <string_view>

namespace fenec::scenarios::requests {

class HttpClient {
 public:
  HttpClient() = default;
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Connects to 127.0.0.1:port with TCP_NODELAY (the request leaves whole,
  // not held back by Nagle for an ACK). "" or why not.
  std::string Connect(int port);
  // Sends `method path` with `body` (POST: application/json; "" and GET: no
  // body) and reads the answer. "" with *status and *answer set, or why not
  // (the connection is then closed; Connect again to go on).
  std::string Send(std::string_view method, std::string_view path, std::string_view body, int* status,
                   std::string* answer);

 private:
  void Close();

  int fd_ = -1;
  std::string out_, in_;  // kept across requests: no allocation once grown
};

}  // namespace fenec::scenarios::requests
