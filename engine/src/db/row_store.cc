#include "engine/src/db/row_store.h"

#include <algorithm>
#include <cstring>

#include "engine/src/storage/storage.h"

namespace fenec {

RowStore::RowStore(uint32_t buffer_bytes, uint64_t data_end, const uint8_t* map, StatCounters* stats)
    : buffer_bytes_(buffer_bytes), map_(map), data_end_(data_end), stats_(stats) {}

void RowStore::NewBuffer(uint32_t min_capacity) {
  auto b = std::make_shared<WriteBuffer>();
  b->base = data_end_;
  b->capacity = std::max(buffer_bytes_, min_capacity);
  if (b->capacity == buffer_bytes_) {
    base::MutexLock lock(&spare_mu_);
    b->bytes = std::move(spare_);
  }
  spare_wanted_.store(true, std::memory_order_relaxed);
  // Allocated without zeroing: only bytes rows were copied to are ever read or written.
  if (!b->bytes) b->bytes.reset(new uint8_t[b->capacity]);
  buffers_.push_back(std::move(b));
}

void RowStore::RefillSpare() {
  if (!spare_wanted_.load(std::memory_order_relaxed) || refilling_.exchange(true, std::memory_order_acquire)) return;
  spare_wanted_.store(false, std::memory_order_relaxed);
  bool need;
  {
    base::MutexLock lock(&spare_mu_);
    need = !spare_;
  }
  if (need) {
    std::unique_ptr<uint8_t[]> p(new uint8_t[buffer_bytes_]);
    std::memset(p.get(), 0, buffer_bytes_);  // touches every page: the faults happen here, not under the lock
    stats_->Add(Stat::write_buffers_prefaulted);
    base::MutexLock lock(&spare_mu_);
    if (!spare_) spare_ = std::move(p);
  }
  refilling_.store(false, std::memory_order_release);
}

IdEntry RowStore::Land(uint32_t collection, uint64_t id, std::span<const uint8_t> row, BufferList* sealed) {
  if (buffers_.empty() || buffers_.back()->sealed) NewBuffer(static_cast<uint32_t>(row.size()));
  WriteBuffer* cur = buffers_.back().get();
  if (cur->size + row.size() > cur->capacity) {
    if (auto s = SealCurrent()) sealed->push_back(std::move(s));
    NewBuffer(static_cast<uint32_t>(row.size()));
    cur = buffers_.back().get();
  }
  uint64_t offset = cur->base + cur->size;
  std::memcpy(cur->bytes.get() + cur->size, row.data(), row.size());
  cur->size += static_cast<uint32_t>(row.size());
  cur->rows.emplace_back(collection, id);
  data_end_ = cur->base + cur->size;
  IdEntry e;
  e.set(offset | IdEntry::kInBuffer, static_cast<uint32_t>(row.size()));
  return e;
}

std::shared_ptr<WriteBuffer> RowStore::SealCurrent() {
  if (buffers_.empty() || buffers_.back()->sealed || buffers_.back()->size == 0) return nullptr;
  buffers_.back()->sealed = true;
  return buffers_.back();
}

uint64_t RowStore::Reserve(uint64_t bytes) {
  // An empty current buffer sits at data_end_: it must move past the reservation.
  if (!buffers_.empty() && !buffers_.back()->sealed && buffers_.back()->size == 0) buffers_.pop_back();
  uint64_t at = data_end_;
  data_end_ += bytes;
  return at;
}

std::span<const uint8_t> RowStore::Resolve(const IdEntry& e, const BufferList& buffers, const uint8_t* map) {
  uint64_t off = e.offset();
  if (!e.in_buffer()) return {map + off, e.len};
  // The last buffer whose base is at or below the offset holds it.
  auto it = std::upper_bound(buffers.begin(), buffers.end(), off,
                             [](uint64_t o, const std::shared_ptr<WriteBuffer>& b) { return o < b->base; });
  const WriteBuffer* b = std::prev(it)->get();
  return {b->bytes.get() + (off - b->base), e.len};
}

size_t RowStore::Handover(size_t budget, const std::function<IdEntry*(uint32_t, uint64_t)>& entry_of,
                          BufferList* retired) {
  size_t done = 0;
  while (done < budget && !buffers_.empty()) {
    WriteBuffer* b = buffers_.front().get();
    if (!b->sealed || !b->written.load(std::memory_order_acquire)) break;
    while (done < budget && b->handed_over < b->rows.size()) {
      auto [coll, id] = b->rows[b->handed_over++];
      ++done;
      IdEntry* e = entry_of(coll, id);
      // Deleted since (len 0) or not this buffer's row: nothing to hand over.
      if (e == nullptr || !e->present() || !e->in_buffer()) continue;
      uint64_t off = e->offset();
      if (off < b->base || off >= b->base + b->size) continue;
      e->set(off, e->len);
    }
    if (b->handed_over < b->rows.size()) break;
    retired->push_back(std::move(buffers_.front()));
    buffers_.erase(buffers_.begin());
  }
  return done;
}

bool RowStore::handover_pending() const {
  return !buffers_.empty() && buffers_.front()->sealed && buffers_.front()->written.load(std::memory_order_acquire);
}

Status RowStore::Write(Storage* storage, WriteBuffer* buffer) {
  if (!Claim(buffer)) return Status::OK();
  Status s = storage->WriteData(buffer->base, std::span(buffer->bytes.get(), buffer->size));
  Completed(buffer, s.ok());
  return s;
}

void RowStore::Completed(WriteBuffer* buffer, bool ok) {
  if (ok) {
    base::MutexLock lock(&written_mu_);
    buffer->written.store(true, std::memory_order_release);
  }
  written_cv_.SignalAll();
}

void RowStore::WaitWritten(const BufferList& list, const std::function<bool()>& stop) {
  base::MutexLock lock(&written_mu_);
  for (const auto& b : list)
    while (!b->written.load(std::memory_order_acquire) && !stop()) written_cv_.Wait(&written_mu_);
}

void RowStore::NotifyWritten() {
  { base::MutexLock lock(&written_mu_); }
  written_cv_.SignalAll();
}

BufferList RowStore::Unwritten() const {
  BufferList out;
  for (const auto& b : buffers_)
    if (b->sealed && !b->claimed.load(std::memory_order_acquire)) out.push_back(b);
  return out;
}

}  // namespace fenec
