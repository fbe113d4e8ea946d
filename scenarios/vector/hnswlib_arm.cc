// The hnswlib arm: Debian's libhnswlib-dev (header-only), built as its own
// users build it, optimized for this machine (meson.build compiles this file
// alone with -O3 -march=native, so hnswlib.h defines USE_AVX512 and L2Space
// takes its AVX-512 kernel on a CPU that has it).
//
// hnswlib's headers define non-inline functions (cpuid, AVXCapable, ...), so
// this is the one file of the project that includes them. hnswlib throws
// (std::runtime_error on a full index, an allocation failure): caught here,
// turned into the scenario's error line.
#include "scenarios/vector/arm.h"

#include <hnswlib/hnswlib.h>

#include <atomic>
#include <exception>
#include <thread>

namespace fenec::scenarios::vector {
namespace {

class HnswlibArm final : public AnnArm {
 public:
  explicit HnswlibArm(const ArmParams& p) : p_(p), space_(p.dim) {}

  std::string build(const Dataset& d) override {
    try {
      index_ = std::make_unique<hnswlib::HierarchicalNSW<float>>(&space_, d.size(), p_.m, p_.ef_construction,
                                                                 p_.seed);
      // hnswlib's own ParallelFor (its python bindings' addItems): each
      // thread takes the next row until none is left. addPoint is
      // thread-safe; the graph depends on the order threads reach it.
      std::atomic<size_t> next{0};
      std::atomic<bool> failed{false};
      std::string error;
      std::atomic_flag error_set;
      auto work = [&] {
        for (;;) {
          const size_t i = next.fetch_add(1, std::memory_order_relaxed);
          if (i >= d.size() || failed.load(std::memory_order_relaxed)) return;
          try {
            index_->addPoint(d.row(i).data(), static_cast<hnswlib::labeltype>(i));
          } catch (const std::exception& e) {
            if (!error_set.test_and_set()) error = e.what();
            failed = true;
            return;
          }
        }
      };
      const unsigned threads = p_.threads ? p_.threads : 1;
      std::vector<std::thread> pool;
      for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
      work();
      for (auto& t : pool) t.join();
      if (failed) return "hnswlib addPoint: " + error;
      return "";
    } catch (const std::exception& e) {
      return std::string("hnswlib: ") + e.what();
    }
  }

  std::vector<uint64_t> search(std::span<const float> q, size_t k, size_t ef) override {
    std::vector<uint64_t> out;
    if (!index_) return out;
    index_->setEf(ef);
    // searchKnn answers farthest first (a max-heap).
    auto heap = index_->searchKnn(q.data(), k);
    out.resize(heap.size());
    for (size_t i = heap.size(); i > 0; --i) {
      out[i - 1] = heap.top().second;
      heap.pop();
    }
    return out;
  }

 private:
  ArmParams p_;
  hnswlib::L2Space space_;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> index_;
};

}  // namespace

std::unique_ptr<AnnArm> make_hnswlib_arm(const ArmParams& p) { return std::make_unique<HnswlibArm>(p); }

std::string hnswlib_build_flags() { return FENEC_HNSWLIB_FLAGS; }

std::string hnswlib_simd() {
#if defined(USE_AVX512)
  return AVX512Capable() ? "avx512" : AVXCapable() ? "avx" : "sse";
#elif defined(USE_AVX)
  return AVXCapable() ? "avx" : "sse";
#elif defined(USE_SSE)
  return "sse";
#else
  return "scalar";
#endif
}

}  // namespace fenec::scenarios::vector
