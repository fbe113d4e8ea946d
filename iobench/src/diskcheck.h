// diskchecker.pl's protocol: proof of durability across a power cut.
//
// A logging peer (`serve`, on a machine that keeps its power) records, for
// each page the writer touches, the value it is about to write (PRE, answered
// before the write starts) and the value whose sync returned (POST: the write
// was acknowledged as durable). After the writer's machine loses power and
// comes back, `verify` reads every page and asks the peer what it may hold:
// the last acknowledged value or one still in flight. Anything older (or a
// page torn apart) is an acknowledged write the disk lost.
//
// Pages are self-describing: a header (magic, page number, value) and a body
// derived from them, so verify can tell a whole page from a torn one.
// The wire protocol is lines of text over TCP:
//   PRE <id> <page> <value>   -> OK
//   POST <id> <page> <value>  -> OK
//   DUMP <id>                 -> "<page> <acked> [pending...]" lines, then END
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "iobench/src/mode.h"

namespace fenec::iobench {

struct PageState {
  uint64_t acked = 0;           // 0 = never acknowledged
  std::set<uint64_t> pending;   // PREs not yet followed by their POST
};
using PageMap = std::map<uint64_t, PageState>;

class DiskcheckServer {
 public:
  DiskcheckServer() = default;
  ~DiskcheckServer();
  // Binds and listens ("" on success). Port 0 picks a free one (see port()).
  // log_path (optional) gets every record appended and is replayed first, so
  // a restarted server keeps what it knew.
  std::string listen(const std::string& bind, uint16_t port, const std::string& log_path = "");
  uint16_t port() const { return port_; }
  // Serves clients until stop(); a thread per connection.
  void serve();
  void stop();
  uint64_t acks() const { return acks_.load(); }
  PageMap pages(const std::string& id) const;

 private:
  void handle(int fd);
  std::string apply(const std::string& line, bool from_log);
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> acks_{0};
  mutable std::mutex mu_;
  std::map<std::string, PageMap> state_;
  std::vector<int> clients_;
  std::vector<std::thread> threads_;
  FILE* log_ = nullptr;
};

struct DiskcheckWriteOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 5400;
  std::string dir = ".";
  std::string id = "diskcheck";
  uint64_t pages = 4096;
  uint64_t page_size = 4096;
  double seconds = 60;
  Mode mode = Mode::kFdatasync;  // fsync, fdatasync, dsync or direct-dsync
  uint64_t seed = 1;
  bool (*stop)() = nullptr;
};

struct DiskcheckWriteResult {
  std::string error;
  uint64_t writes = 0;  // acknowledged by the peer
};

std::string diskcheck_file(const std::string& dir, const std::string& id);
DiskcheckWriteResult run_diskcheck_writer(const DiskcheckWriteOptions& o);

struct DiskcheckVerifyResult {
  std::string error;
  uint64_t checked = 0;   // pages the peer knows of
  uint64_t ok = 0;        // hold the acknowledged value
  uint64_t in_flight = 0; // hold a newer, not yet acknowledged value (allowed)
  uint64_t lost = 0;      // hold something older than what was acknowledged
  uint64_t torn = 0;      // not a whole page of any value
  std::vector<std::string> examples;
};

DiskcheckVerifyResult verify_pages(const std::string& path, uint64_t page_size, const PageMap& expected);
// Fetches the peer's records over TCP, then verify_pages.
DiskcheckVerifyResult run_diskcheck_verify(const std::string& host, uint16_t port, const std::string& dir,
                                           const std::string& id, uint64_t page_size);

// The page image for (page, value); exposed so tests can forge an old page.
void make_page(uint64_t page, uint64_t value, uint8_t* out, uint64_t page_size);

}  // namespace fenec::iobench
