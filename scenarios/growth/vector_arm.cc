// growth-bench's vector parts: see vector_arm.h.
#include "scenarios/growth/vector_arm.h"

#include <fmt/format.h>
#include <time.h>

#include <chrono>
#include <filesystem>
#include <vector>

#include <fenec/database.h>

#include "iobench/kit/interrupt.h"
#include "engine/src/index/vector/chunked.h"
#include "engine/src/index/vector/vector_table.h"

namespace fenec::scenarios::growth {

namespace {

using Clock = std::chrono::steady_clock;
namespace vec = index::vec;

uint64_t splitmix(uint64_t& x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double process_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

Document vector_doc(uint64_t seed, uint64_t i) {
  std::vector<float> v(kVectorDim);
  make_vector(seed, i, v.data());
  return Document{Value(std::move(v))};
}

Options db_options(vec::OpenArm arm) {
  Options o;
  o.durability = Durability::kBuffered;  // the figure is the index, not the disk
  o.hnsw.open = arm == vec::OpenArm::kKept ? VectorOpen::kKept : VectorOpen::kNaive;
  return o;
}

uint64_t folder_bytes(const std::string& dir) {
  uint64_t b = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec))
    if (e.is_regular_file(ec)) b += e.file_size(ec);
  return b;
}

}  // namespace

void make_vector(uint64_t seed, uint64_t i, float* out, uint32_t dim) {
  uint64_t x = seed ^ (i * 0xD1B54A32D192ED03ull);
  for (uint32_t j = 0; j < dim; j += 2) {
    const uint64_t r = splitmix(x);
    // 24 random bits a float: uniform in [-1, 1).
    out[j] = static_cast<float>(static_cast<int32_t>(r >> 40) - (1 << 23)) / float(1 << 23);
    if (j + 1 < dim) out[j + 1] = static_cast<float>(static_cast<int32_t>((r >> 8) & 0xFFFFFF) - (1 << 23)) / float(1 << 23);
  }
  out[0] = static_cast<float>(i);  // distinct rows, whatever the stream does
}

std::string vector_arm_name(vec::TableArm arm) { return fmt::format("vector-{}", vec::TableArmName(arm)); }
std::string vector_arm_name(vec::OpenArm arm) { return fmt::format("vector-{}", vec::OpenArmName(arm)); }

VectorPutRun run_vector_puts(vec::TableArm arm, uint64_t n, uint64_t seed, size_t plot_points) {
  VectorPutRun run(n, plot_points);
  vec::VectorArena arena(kVectorDim);
  vec::VectorTable table(arm, &arena);
  std::vector<float> v(kVectorDim);
  const size_t bytes = kVectorDim * sizeof(float);
  uint32_t nodes = 0;
  const Clock::time_point start = Clock::now();
  for (uint64_t i = 0; i < n; ++i) {
    if ((i & 0xFFFF) == 0 && kit::stop_requested()) {
      run.interrupted = true;
      break;
    }
    make_vector(seed, i, v.data());  // the caller's vector: made before the put
    const size_t growths_before = table.growth_log().size();
    const Clock::time_point t0 = Clock::now();
    // IndexCore::Insert's steps on the table, in its order.
    const uint32_t tag = vec::TagOf(vec::HashVector(v.data(), kVectorDim));
    if (table.Find(tag, v.data()) != vec::VectorTable::kNone) {
      ++run.found_again;
    } else {
      const uint32_t node = nodes++;
      arena.Grow(size_t{node} + 1);
      std::memcpy(arena.At(node), v.data(), bytes);
      table.Insert(tag, node);
    }
    const Clock::time_point t1 = Clock::now();
    run.rec.record(i, static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()),
                   table.growth_log().size() != growths_before);
  }
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  run.growths = table.growth_log();
  const vec::TableStats st = table.stats();
  run.entries = st.entries;
  run.vectors_read = st.vectors_read;
  run.compares = st.compares;
  run.memory_bytes = st.memory_bytes;
  return run;
}

VectorBase build_vector_base(const std::string& dir, uint64_t n, uint64_t seed) {
  VectorBase b;
  b.dir = dir;
  b.n = n;
  const Clock::time_point t0 = Clock::now();
  Options o = db_options(vec::OpenArm::kKept);
  // Journal files rotated every 4 MB, so the closing checkpoint drops all
  // but the last: each repetition copies the folder, and an open need not
  // skip a journal of n puts the checkpoint already holds.
  o.journal_file_bytes = 4u << 20;
  auto db = Database::Open(dir, o);
  if (!db.ok()) {
    b.error = "open: " + db.status().ToString();
    return b;
  }
  auto c = (*db)->CreateCollection("v", Schema{{Field::Vector("emb", kVectorDim).Hnsw()}});
  if (!c.ok()) {
    b.error = "create collection: " + c.status().ToString();
    return b;
  }
  constexpr uint64_t kBatch = 256;
  for (uint64_t at = 0; at < n; at += kBatch) {
    if (kit::stop_requested()) {
      b.error = "interrupted";
      return b;
    }
    std::vector<Document> docs;
    for (uint64_t i = at; i < std::min(n, at + kBatch); ++i) docs.push_back(vector_doc(seed, i));
    if (auto ids = (*db)->PutBatch(*c, std::move(docs)); !ids.ok()) {
      b.error = fmt::format("put batch at {}: {}", at, ids.status().ToString());
      return b;
    }
  }
  if (Status s = (*db)->WaitForIndexes(); !s.ok()) {
    b.error = "linking: " + s.ToString();
    return b;
  }
  if (Status s = (*db)->Close(); !s.ok()) {  // checkpoints the graph, tags kept beside it
    b.error = "close: " + s.ToString();
    return b;
  }
  b.build_s = ms_since(t0) / 1000;
  b.bytes = folder_bytes(dir);
  b.ok = true;
  return b;
}

ReopenRun reopen_and_write(const VectorBase& base, const std::string& dir, vec::OpenArm arm, uint64_t seed,
                           uint64_t row) {
  ReopenRun r;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::filesystem::copy(base.dir, dir, std::filesystem::copy_options::recursive, ec);
  if (ec) {
    r.error = "copy: " + ec.message();
    return r;
  }
  Options o = db_options(arm);
  o.checkpoint_on_close = false;  // the copy is thrown away
  Document doc = vector_doc(seed, row);  // made before the clocks start
  double c0 = process_cpu_ms();
  Clock::time_point t0 = Clock::now();
  auto db = Database::Open(dir, o);
  r.open_wall_ms = ms_since(t0);
  r.open_cpu_ms = process_cpu_ms() - c0;
  if (!db.ok()) {
    r.error = "open: " + db.status().ToString();
    return r;
  }
  auto c = (*db)->FindCollection("v");
  if (!c.ok()) {
    r.error = "find collection: " + c.status().ToString();
    return r;
  }
  const Stats at_open = (*db)->GetStats();
  r.read_at_open = at_open.vector_reads_after_load;
  r.owners = at_open.vector_owners;
  r.linked_at_open = at_open.vector_linked;
  // The first write is done when its vector is linked: the linker builds
  // the naive arm's table there, before it can look the vector up.
  c0 = process_cpu_ms();
  t0 = Clock::now();
  auto id = (*db)->Put(*c, std::move(doc));
  Status linked = id.ok() ? (*db)->WaitForIndexes() : id.status();
  r.write_wall_ms = ms_since(t0);
  r.write_cpu_ms = process_cpu_ms() - c0;
  if (!linked.ok()) {
    r.error = "first write: " + linked.ToString();
    return r;
  }
  r.read_at_write = (*db)->GetStats().vector_reads_after_load - r.read_at_open;
  (void)(*db)->Close();
  db->reset();
  std::filesystem::remove_all(dir, ec);
  r.ok = r.owners == base.n;
  if (!r.ok) r.error = fmt::format("reopened with {} vectors, {} were put", r.owners, base.n);
  return r;
}

}  // namespace fenec::scenarios::growth
