#include "iobench/src/diskcheck.h"

#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sstream>
#include <sys/socket.h>
#include <unistd.h>

#include "iobench/src/diskcheck_net.h"
#include "iobench/src/files.h"
#include "iobench/src/io_error.h"

namespace fenec::iobench {
namespace {

constexpr uint64_t kMagic = 0x4b43484b53444e46ull;  // "FNDSKCHK"
constexpr size_t kHeader = 24;                        // magic, page, value
constexpr size_t kMaxBadExamples = 10;

bool page_matches(const uint8_t* got, uint64_t page_size, uint64_t* value, bool* zero) {
  *zero = true;
  for (uint64_t i = 0; i < page_size && *zero; ++i) *zero = got[i] == 0;
  if (*zero) {
    *value = 0;
    return true;
  }
  uint64_t magic, page;
  std::memcpy(&magic, got, 8);
  std::memcpy(&page, got + 8, 8);
  std::memcpy(value, got + 16, 8);
  if (magic != kMagic) return false;
  std::vector<uint8_t> want(page_size);
  make_page(page, *value, want.data(), page_size);
  return std::memcmp(want.data(), got, page_size) == 0;
}

}  // namespace

void make_page(uint64_t page, uint64_t value, uint8_t* out, uint64_t page_size) {
  std::memcpy(out, &kMagic, 8);
  std::memcpy(out + 8, &page, 8);
  std::memcpy(out + 16, &value, 8);
  Rng rng(page * 0x9e3779b97f4a7c15ull ^ value);
  for (uint64_t i = kHeader; i < page_size; i += 8) {
    uint64_t v = rng.next();
    std::memcpy(out + i, &v, std::min<uint64_t>(8, page_size - i));
  }
}

std::string diskcheck_file(const std::string& dir, const std::string& id) {
  return fmt::format("{}/diskcheck-{}.dat", dir, id);
}

// ---- server ----

DiskcheckServer::~DiskcheckServer() {
  stop();
  if (log_) std::fclose(log_);
}

std::string DiskcheckServer::listen(const std::string& bind, uint16_t port, const std::string& log_path) {
  if (!log_path.empty()) {
    if (FILE* in = std::fopen(log_path.c_str(), "r")) {
      char line[256];
      while (std::fgets(line, sizeof line, in)) {
        std::string l(line);
        if (!l.empty() && l.back() == '\n') l.pop_back();
        apply(l, true);
      }
      std::fclose(in);
    }
    log_ = std::fopen(log_path.c_str(), "a");
    if (!log_) return fmt::format("cannot append to {}: {}", log_path, std::strerror(errno));
  }
  std::string err;
  listen_fd_ = tcp_listen(bind, port, &port_, &err);
  return listen_fd_ < 0 ? err : "";
}

void DiskcheckServer::serve() {
  while (!stopping_) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR && !stopping_) continue;
      break;
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
      ::close(fd);
      break;
    }
    clients_.push_back(fd);
    threads_.emplace_back([this, fd] { handle(fd); });
  }
}

void DiskcheckServer::stop() {
  if (stopping_.exchange(true)) return;
  if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int fd : clients_) ::shutdown(fd, SHUT_RDWR);
    threads.swap(threads_);
  }
  for (auto& t : threads) t.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
}

void DiskcheckServer::handle(int fd) {
  LineConn conn(fd);
  std::string line;
  while (conn.read_line(&line)) {
    std::string reply = apply(line, false);
    if (!conn.write_all(reply)) break;
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::erase(clients_, fd);
}

std::string DiskcheckServer::apply(const std::string& line, bool from_log) {
  std::istringstream in(line);
  std::string verb, id;
  uint64_t page = 0, value = 0;
  in >> verb >> id;
  if (verb == "PING") return "OK\n";
  if (verb == "DUMP") {
    std::string out;
    for (const auto& [p, s] : pages(id)) {
      out += fmt::format("{} {}", p, s.acked);
      for (uint64_t v : s.pending) out += fmt::format(" {}", v);
      out += "\n";
    }
    return out + "END\n";
  }
  if ((verb != "PRE" && verb != "POST") || !(in >> page >> value) || id.empty() || value == 0)
    return "ERR expected PRE|POST <id> <page> <value>, or DUMP <id>\n";
  std::lock_guard<std::mutex> lock(mu_);
  PageState& s = state_[id][page];
  if (verb == "PRE") {
    s.pending.insert(value);
  } else {
    s.pending.erase(value);
    // Values only grow, so every older pending write is now superseded too.
    s.pending.erase(s.pending.begin(), s.pending.lower_bound(value));
    s.acked = std::max(s.acked, value);
    if (!from_log) acks_.fetch_add(1);
  }
  if (log_ && !from_log) {
    // The peer keeps its power: its log needs the OS, not the disk, to hold it.
    std::fprintf(log_, "%s\n", line.c_str());
    std::fflush(log_);
  }
  return "OK\n";
}

PageMap DiskcheckServer::pages(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = state_.find(id);
  return it == state_.end() ? PageMap{} : it->second;
}

// ---- writer ----

DiskcheckWriteResult run_diskcheck_writer(const DiskcheckWriteOptions& o) {
  DiskcheckWriteResult r;
  std::string err;
  int sock = tcp_connect(o.host, o.port, &err);
  if (sock < 0) {
    r.error = err;
    return r;
  }
  LineConn conn(sock);
  std::string reply;
  if (!conn.call("PING", &reply) || reply != "OK") {
    r.error = fmt::format("{}:{} is not a diskcheck server (reply '{}')", o.host, o.port, reply);
    return r;
  }
  const std::string path = diskcheck_file(o.dir, o.id);
  if (::access(path.c_str(), F_OK) != 0) {
    bool fell_back = false;
    if (IoError e = create_preallocated(path, o.pages * o.page_size, &fell_back); !e.ok()) {
      r.error = e.message;
      return r;
    }
  }
  Fd fd;
  if (IoError e = open_file(path, O_WRONLY | mode_open_flags(o.mode), &fd); !e.ok()) {
    r.error = e.message;
    return r;
  }
  AlignedBuffer page(o.page_size);
  Rng rng(o.seed);
  // Values must grow across runs too: start from the clock.
  uint64_t value = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.seconds);
  const SyncCall call = mode_sync(o.mode);
  uint64_t calls = 0;
  while (std::chrono::steady_clock::now() < deadline && !(o.stop && o.stop())) {
    uint64_t p = rng.below(o.pages);
    ++value;
    std::string tail = fmt::format("{} {} {}", o.id, p, value);
    if (!conn.call("PRE " + tail, &reply) || reply != "OK") {
      r.error = fmt::format("PRE refused by the peer: '{}'", reply);
      break;
    }
    make_page(p, value, page.data(), o.page_size);
    IoError e = pwrite_full(fd.get(), page.data(), o.page_size, p * o.page_size, path, &calls);
    if (e.ok() && call != SyncCall::kNone) e = sync_fd(fd.get(), call == SyncCall::kFdatasync, path);
    if (!e.ok()) {
      r.error = e.message;
      break;
    }
    if (!conn.call("POST " + tail, &reply) || reply != "OK") {
      r.error = fmt::format("POST refused by the peer: '{}'", reply);
      break;
    }
    ++r.writes;
  }
  return r;
}

// ---- verify ----

DiskcheckVerifyResult verify_pages(const std::string& path, uint64_t page_size, const PageMap& expected) {
  DiskcheckVerifyResult r;
  Fd fd;
  if (IoError e = open_file(path, O_RDONLY, &fd); !e.ok()) {
    r.error = e.message;
    return r;
  }
  std::vector<uint8_t> got(page_size);
  auto note = [&](std::string s) {
    if (r.examples.size() < kMaxBadExamples) r.examples.push_back(std::move(s));
  };
  for (const auto& [p, s] : expected) {
    ++r.checked;
    size_t n = 0;
    if (IoError e = pread_full(fd.get(), got.data(), page_size, p * page_size, path, &n); !e.ok()) {
      r.error = e.message;
      return r;
    }
    if (n < page_size) std::memset(got.data() + n, 0, page_size - n);
    uint64_t v = 0;
    bool zero = false;
    if (!page_matches(got.data(), page_size, &v, &zero)) {
      ++r.torn;
      if (s.pending.empty()) {
        ++r.lost;
        note(fmt::format("page {}: torn or corrupt, acknowledged value {} lost", p, s.acked));
      } else {
        note(fmt::format("page {}: torn while a write was in flight (not an acknowledged loss)", p));
      }
      continue;
    }
    if (v == s.acked) {
      ++r.ok;
    } else if (s.pending.count(v)) {
      ++r.in_flight;
    } else {
      ++r.lost;
      note(fmt::format("page {}: acknowledged value {} lost; found {}", p, s.acked,
                       zero ? std::string("zeros") : fmt::format("older value {}", v)));
    }
  }
  return r;
}

DiskcheckVerifyResult run_diskcheck_verify(const std::string& host, uint16_t port, const std::string& dir,
                                           const std::string& id, uint64_t page_size) {
  DiskcheckVerifyResult r;
  std::string err;
  int sock = tcp_connect(host, port, &err);
  if (sock < 0) {
    r.error = err;
    return r;
  }
  LineConn conn(sock);
  if (!conn.write_all(fmt::format("DUMP {}\n", id))) {
    r.error = "the peer closed the connection";
    return r;
  }
  PageMap expected;
  std::string line;
  bool ended = false;
  while (conn.read_line(&line)) {
    if (line == "END") {
      ended = true;
      break;
    }
    std::istringstream in(line);
    uint64_t p = 0, v = 0;
    in >> p;
    PageState& s = expected[p];
    in >> s.acked;
    while (in >> v) s.pending.insert(v);
  }
  if (!ended) {
    r.error = "the peer's DUMP ended early";
    return r;
  }
  return verify_pages(diskcheck_file(dir, id), page_size, expected);
}

}  // namespace fenec::iobench
