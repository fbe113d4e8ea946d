#include "engine/src/ring/global_ring.h"

#include <liburing.h>
#include <linux/ioprio.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>

#include "engine/src/ring/mpsc_queue.h"

namespace fenec::ring {

uint64_t Extent::bytes() const {
  uint64_t n = 0;
  for (const iovec& v : iov) n += v.iov_len;
  return n;
}

size_t IovMax() {
  const long n = sysconf(_SC_IOV_MAX);
  return n > 0 ? static_cast<size_t>(n) : 1024;
}

uint16_t BackgroundIoprio() { return IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 7); }

std::vector<Extent> PlanExtents(std::vector<Page> pages, size_t max_iov) {
  if (max_iov == 0) max_iov = IovMax();
  std::stable_sort(pages.begin(), pages.end(),
                   [](const Page& a, const Page& b) { return a.offset < b.offset; });
  std::vector<Extent> out;
  uint64_t end = 0;  // where the last extent stops
  for (const Page& p : pages) {
    if (p.len == 0) continue;
    if (out.empty() || p.offset != end || out.back().iov.size() >= max_iov) {
      out.push_back(Extent{p.offset, {}});
    }
    out.back().iov.push_back(iovec{const_cast<void*>(p.data), p.len});
    end = p.offset + p.len;
  }
  return out;
}

struct Ring::Request {
  Request* next = nullptr;
  int fd = -1;
  std::vector<Page> pages;
  Done done;
  size_t writes_left = 0;
  FlushResult result;
};

// One sqe's worth of work; kept alive until its cqe, because the kernel may
// read the iovec array as late as when an io-wq worker issues the write.
struct Ring::Write {
  Request* req = nullptr;
  int fd = -1;
  uint64_t offset = 0;
  std::vector<iovec> iov;
  size_t first = 0;  // iovecs before this one were written (short-write resume)
};

struct Ring::State {
  io_uring uring{};
  bool uring_ok = false;
  int efd = -1;
  uint64_t efd_value = 0;  // the armed eventfd read lands here
  MpscQueue<Request> queue;
  std::atomic<bool> sleeping{false};
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> submissions{0}, writes{0}, pages{0}, merged{0}, syscalls{0}, wakeups{0},
      bytes{0};
};

namespace {
constexpr uint64_t kWakeTag = 1;  // user_data of the eventfd read; Write* are never 1

void arm_wakeup(io_uring* u, int efd, uint64_t* buf, std::atomic<uint64_t>* syscalls) {
  io_uring_sqe* sqe = io_uring_get_sqe(u);
  if (sqe == nullptr) {  // the sq is full of writes: submit them to make room
    io_uring_submit(u);
    syscalls->fetch_add(1, std::memory_order_relaxed);
    sqe = io_uring_get_sqe(u);
  }
  io_uring_prep_read(sqe, efd, buf, sizeof(*buf), 0);
  io_uring_sqe_set_data64(sqe, kWakeTag);
}
}  // namespace

Ring::Ring(RingOptions options) : options_(options), state_(std::make_unique<State>()) {
  if (options_.entries < 8) options_.entries = 8;
  if (options_.max_iov == 0) options_.max_iov = IovMax();
  state_->efd = eventfd(0, EFD_CLOEXEC);
  if (state_->efd < 0) {
    status_ = Status::IOError("eventfd", "", errno);
    return;
  }
  // One extra sqe slot for the armed eventfd read.
  if (const int rc = io_uring_queue_init(options_.entries + 1, &state_->uring, 0); rc < 0) {
    status_ = Status::IOError("io_uring_queue_init", "", -rc);
    return;
  }
  state_->uring_ok = true;
  std::promise<void> started;
  std::future<void> ready = started.get_future();
  thread_ = std::thread([this, &started] {
    owner_tid_.store(static_cast<int>(gettid()));
    // io-wq limits belong to the submitting task, so they are set from the owner thread.
    if (options_.max_bound_workers > 0) {
      unsigned limits[2] = {options_.max_bound_workers, 0};
      io_uring_register_iowq_max_workers(&state_->uring, limits);
    }
    started.set_value();
    Run();
  });
  ready.wait();
}

Ring::~Ring() {
  if (thread_.joinable()) {
    state_->stop.store(true, std::memory_order_seq_cst);
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(state_->efd, &one, sizeof(one));
    thread_.join();
  }
  // Requests that raced with a failed start still get their answer.
  for (Request* r = state_->queue.TakeAll(); r != nullptr;) {
    Request* next = r->next;
    r->result.error = -ESHUTDOWN;
    Complete(r);
    r = next;
  }
  if (state_->uring_ok) io_uring_queue_exit(&state_->uring);
  if (state_->efd >= 0) close(state_->efd);
}

void Ring::Flush(int fd, std::vector<Page> pages, Done done) {
  auto* r = new Request;
  r->fd = fd;
  r->pages = std::move(pages);
  r->done = std::move(done);
  State& s = *state_;
  s.submissions.fetch_add(1, std::memory_order_relaxed);
  s.pages.fetch_add(r->pages.size(), std::memory_order_relaxed);
  if (!thread_.joinable()) {
    r->result.error = -ENXIO;
    Complete(r);
    return;
  }
  s.queue.Push(r);
  // Pairs with the fence in Run(): either the owner sees this request before
  // it sleeps, or we see it sleeping and wake it. Never both missed.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (s.sleeping.load(std::memory_order_relaxed)) {
    const uint64_t one = 1;
    if (write(s.efd, &one, sizeof(one)) == sizeof(one)) {
      s.wakeups.fetch_add(1, std::memory_order_relaxed);
    }
  }
}

std::future<FlushResult> Ring::Flush(int fd, std::vector<Page> pages) {
  auto p = std::make_shared<std::promise<FlushResult>>();
  std::future<FlushResult> f = p->get_future();
  Flush(fd, std::move(pages), [p](const FlushResult& r) { p->set_value(r); });
  return f;
}

Counters Ring::counters() const {
  const State& s = *state_;
  Counters c;
  c.submissions = s.submissions.load(std::memory_order_relaxed);
  c.writes = s.writes.load(std::memory_order_relaxed);
  c.pages = s.pages.load(std::memory_order_relaxed);
  c.merged_pages = s.merged.load(std::memory_order_relaxed);
  c.syscalls = s.syscalls.load(std::memory_order_relaxed);
  c.wakeups = s.wakeups.load(std::memory_order_relaxed);
  c.bytes = s.bytes.load(std::memory_order_relaxed);
  return c;
}

void Ring::Complete(Request* r) {
  if (r->done) r->done(r->result);
  delete r;
}

void Ring::Run() {
  State& s = *state_;
  io_uring* u = &s.uring;
  std::deque<Write*> pending;  // planned, not yet in the sq
  unsigned inflight = 0;       // writes in the kernel (the eventfd read not counted)
  arm_wakeup(u, s.efd, &s.efd_value, &s.syscalls);

  auto finish_write = [&](Write* w) {
    Request* r = w->req;
    delete w;
    if (--r->writes_left == 0) Complete(r);
  };

  for (;;) {
    for (Request* r = s.queue.TakeAll(); r != nullptr;) {
      Request* next = r->next;
      std::vector<Extent> extents = PlanExtents(std::move(r->pages), options_.max_iov);
      r->pages.clear();
      r->writes_left = extents.size();
      s.writes.fetch_add(extents.size(), std::memory_order_relaxed);
      size_t npages = 0;
      for (const Extent& e : extents) npages += e.iov.size();
      s.merged.fetch_add(npages - std::min(npages, extents.size()), std::memory_order_relaxed);
      if (extents.empty()) Complete(r);
      for (Extent& e : extents) {
        pending.push_back(new Write{r, r->fd, e.offset, std::move(e.iov), 0});
      }
      r = next;
    }
    bool prepared = false;
    while (!pending.empty() && inflight < options_.entries) {
      io_uring_sqe* sqe = io_uring_get_sqe(u);
      if (sqe == nullptr) break;
      Write* w = pending.front();
      pending.pop_front();
      io_uring_prep_writev(sqe, w->fd, w->iov.data() + w->first,
                           static_cast<unsigned>(w->iov.size() - w->first), w->offset);
      sqe->ioprio = options_.ioprio;
      if (options_.force_async) sqe->flags |= IOSQE_ASYNC;
      io_uring_sqe_set_data(sqe, w);
      ++inflight;
      prepared = true;
    }
    const bool stopping = s.stop.load(std::memory_order_seq_cst);
    if (stopping && pending.empty() && inflight == 0 && s.queue.empty()) break;

    s.sleeping.store(true, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    const bool idle_done = stopping && pending.empty() && inflight == 0;
    const bool block = s.queue.empty() && !idle_done;
    if (block) {
      io_uring_submit_and_wait(u, 1);
      s.syscalls.fetch_add(1, std::memory_order_relaxed);
    } else if (prepared) {
      io_uring_submit(u);
      s.syscalls.fetch_add(1, std::memory_order_relaxed);
    }
    s.sleeping.store(false, std::memory_order_relaxed);

    io_uring_cqe* cqe = nullptr;
    while (io_uring_peek_cqe(u, &cqe) == 0) {
      const uint64_t tag = io_uring_cqe_get_data64(cqe);
      const int res = cqe->res;
      io_uring_cqe_seen(u, cqe);
      if (tag == kWakeTag) {
        arm_wakeup(u, s.efd, &s.efd_value, &s.syscalls);
        continue;
      }
      auto* w = reinterpret_cast<Write*>(tag);
      --inflight;
      if (res == -EAGAIN || res == -EINTR) {
        pending.push_front(w);
        continue;
      }
      if (res <= 0) {
        if (w->req->result.error == 0) w->req->result.error = res < 0 ? res : -EIO;
        finish_write(w);
        continue;
      }
      s.bytes.fetch_add(static_cast<uint64_t>(res), std::memory_order_relaxed);
      w->req->result.bytes += static_cast<uint64_t>(res);
      // A short write: resume after the bytes that landed.
      uint64_t left = static_cast<uint64_t>(res);
      w->offset += left;
      while (w->first < w->iov.size() && left >= w->iov[w->first].iov_len) {
        left -= w->iov[w->first].iov_len;
        ++w->first;
      }
      if (w->first == w->iov.size()) {
        finish_write(w);
        continue;
      }
      iovec& v = w->iov[w->first];
      v.iov_base = static_cast<char*>(v.iov_base) + left;
      v.iov_len -= left;
      pending.push_front(w);
    }
  }
}

Ring& GlobalRing() {
  // Function-local static: started on first use, drained by its destructor at exit.
  static Ring ring;
  return ring;
}

Counters& operator+=(Counters& a, const Counters& b) {
  a.submissions += b.submissions;
  a.writes += b.writes;
  a.pages += b.pages;
  a.merged_pages += b.merged_pages;
  a.syscalls += b.syscalls;
  a.wakeups += b.wakeups;
  a.bytes += b.bytes;
  return a;
}

Counters operator-(Counters a, const Counters& b) {
  a.submissions -= b.submissions;
  a.writes -= b.writes;
  a.pages -= b.pages;
  a.merged_pages -= b.merged_pages;
  a.syscalls -= b.syscalls;
  a.wakeups -= b.wakeups;
  a.bytes -= b.bytes;
  return a;
}

}  // namespace fenec::ring
