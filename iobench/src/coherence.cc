#include "iobench/src/coherence.h"

#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "iobench/kit/results.h"
#include "iobench/src/units.h"

namespace fenec::iobench {
namespace {

constexpr size_t kMaxMismatchExamples = 5;

bool all_zero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i]) return false;
  return true;
}

// Reads [off, off+len) through `read` (retrying short reads) into buf.
IoError read_range(const ReadFn& read, int fd, uint8_t* buf, size_t len, uint64_t off, const std::string& path) {
  size_t got = 0;
  while (got < len) {
    ssize_t n = read(fd, buf + got, len - got, static_cast<off_t>(off + got));
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return io_error("buffered read of", path, errno);
    }
    if (n == 0) return io_failure("buffered read of", path, fmt::format("end of file at {}", off + got));
    got += static_cast<size_t>(n);
  }
  return {};
}

}  // namespace

CoherenceResult run_coherence(const CoherenceOptions& o, const ProbeResult& probe) {
  CoherenceResult res;
  if (!probe.o_direct) {
    res.skipped = fmt::format("O_DIRECT is not supported at {}: {}", o.dir, probe.o_direct_note);
    return res;
  }
  if (std::string why = probe.direct_size_problem(o.chunk); !why.empty()) {
    res.skipped = why;
    return res;
  }
  ReadFn read = o.read ? o.read : ReadFn([](int fd, void* b, size_t n, off_t off) { return ::pread(fd, b, n, off); });
  const uint64_t chunk = o.chunk;
  const std::string path = fmt::format("{}/iobench-coherence-{}.dat", o.dir, ::getpid());
  bool fell_back = false;
  // Each round uses two fresh chunks, plus one chunk of slack past the end.
  IoError e = create_preallocated(path, (uint64_t{o.rounds} * 2 + 1) * chunk, &fell_back);
  if (!e.ok()) {
    res.error = e.message;
    return res;
  }
  ScratchFile guard(path);
  Fd wfd, rfd;
  if (e = open_file(path, O_WRONLY | O_DIRECT | O_DSYNC, &wfd); !e.ok()) {
    res.error = e.message;
    return res;
  }
  if (e = open_file(path, O_RDONLY, &rfd); !e.ok()) {
    res.error = e.message;
    return res;
  }
  AlignedBuffer a(chunk), b(chunk), got(2 * chunk);
  uint64_t calls = 0;
  auto check = [&](const uint8_t* want, const uint8_t* have, uint64_t off, const char* step) {
    ++res.reads;
    if (std::memcmp(want, have, chunk) == 0) return;
    ++res.stale;
    bool zero = all_zero(have, chunk);
    if (zero) ++res.stale_zero;
    if (res.examples.size() < kMaxMismatchExamples)
      res.examples.push_back(fmt::format("round {}: {} at offset {} returned {}", res.rounds, step, off,
                                         zero ? "zeros" : "other bytes"));
  };
  for (unsigned r = 0; r < o.rounds && !o.stop(); ++r) {
    const uint64_t pos = uint64_t{r} * 2 * chunk;
    a.fill_random(o.seed * 1000003 + r * 2);
    b.fill_random(o.seed * 1000003 + r * 2 + 1);
    // 1. Sequential durable direct write.
    if (e = pwrite_full(wfd.get(), a.data(), chunk, pos, path, &calls); !e.ok()) break;
    // 2. Buffered read across the written chunk and past it: the second half
    //    is still unwritten, and now in the reader's cache.
    if (e = read_range(read, rfd.get(), got.data(), 2 * chunk, pos, path); !e.ok()) break;
    check(a.data(), got.data(), pos, "read after direct write");
    // 3. Direct write into the range just read.
    if (e = pwrite_full(wfd.get(), b.data(), chunk, pos + chunk, path, &calls); !e.ok()) break;
    // 4. Re-read it: a coherent mount returns b, IO-5's mount returned zeros.
    if (e = read_range(read, rfd.get(), got.data(), chunk, pos + chunk, path); !e.ok()) break;
    check(b.data(), got.data(), pos + chunk, "re-read of a range rewritten after it was read");
    ++res.rounds;
  }
  if (!e.ok()) res.error = e.message;
  return res;
}

void add_coherence_rows(kit::Results& r, const CoherenceOptions& o, const CoherenceResult& c,
                        const std::string& finding) {
  std::string cs = fmt::format("chunk={};rounds={}", size_label(o.chunk), o.rounds);
  if (!c.skipped.empty()) {
    r.skip("coherence", cs, c.skipped);
    return;
  }
  if (!c.error.empty()) {
    r.skip("coherence", cs, "failed: " + c.error);
    return;
  }
  r.add(finding, "coherence", cs, "rounds", c.rounds, "count");
  r.add(finding, "coherence", cs, "reads", static_cast<double>(c.reads), "count");
  r.add(finding, "coherence", cs, "stale_reads", static_cast<double>(c.stale), "count");
  r.add(finding, "coherence", cs, "stale_zero_reads", static_cast<double>(c.stale_zero), "count");
}

}  // namespace fenec::iobench
