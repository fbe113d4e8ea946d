// A lock-free multi-producer, single-consumer queue for the ring's flush requests.
//
// Producers push with one CAS onto an intrusive stack; the single consumer
// takes the whole stack with one exchange and reverses it, so requests come
// out in the order they were pushed. Taking everything at once (never one
// node) is what makes the stack ABA-free: no producer ever sees a node the
// consumer is about to reuse.
#pragma once

#include <atomic>

namespace fenec::ring {

template <typename T>  // T has a member `T* next`
class MpscQueue {
 public:
  // Any thread. Returns true if the queue was empty before: a hint only.
  bool Push(T* node) {
    T* head = head_.load(std::memory_order_relaxed);
    do {
      node->next = head;
    } while (!head_.compare_exchange_weak(head, node, std::memory_order_release,
                                          std::memory_order_relaxed));
    return head == nullptr;
  }

  // Consumer only: every node pushed so far, oldest first, as a linked list.
  T* TakeAll() {
    T* node = head_.exchange(nullptr, std::memory_order_acquire);
    T* fifo = nullptr;
    while (node != nullptr) {
      T* next = node->next;
      node->next = fifo;
      fifo = node;
      node = next;
    }
    return fifo;
  }

  bool empty() const { return head_.load(std::memory_order_seq_cst) == nullptr; }

 private:
  std::atomic<T*> head_{nullptr};
};

}  // namespace fenec::ring
