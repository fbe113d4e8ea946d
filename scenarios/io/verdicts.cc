#include "scenarios/io/verdicts.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>

#include "iobench/src/units.h"

namespace fenec::scenarios::io {
namespace {

using iobench::Layout;
using iobench::Mode;
using iobench::SubmitKind;

double p50_us(const CellResult& c) {
  return base::LatencySummary::Of(iobench::mode_sync(c.spec.mode) != iobench::SyncCall::kNone ? c.commit : c.lat)
      .p50_us;
}

double per_job(const CellResult& c) {
  double s = 0;
  for (double v : c.job_mb_per_s) s += v;
  return c.job_mb_per_s.empty() ? 0 : s / c.job_mb_per_s.size();
}

std::string missing(const char* what) { return fmt::format("not applicable: {} did not run here (see skips)", what); }

}  // namespace

const CellResult* find_cell(const std::vector<CellResult>& cells, Mode mode, uint64_t size, unsigned jobs,
                            Layout layout, SubmitKind submit, unsigned batch) {
  for (const CellResult& c : cells)
    if (c.ran() && c.error.empty() && !c.interrupted && c.ops > 0 && c.spec.mode == mode && c.spec.size == size &&
        c.spec.jobs == jobs && c.spec.layout == layout && c.spec.submit == submit && c.spec.batch == batch &&
        !c.spec.prefill)
      return &c;
  return nullptr;
}

kit::Verdict io1_verdict(const std::vector<CellResult>& cells, Mode durable, const std::string& plot) {
  kit::Verdict v;
  v.finding = "IO-1";
  v.claim = "Durable small writes are bounded by the count of writes, not bytes";
  v.source = "16 KB durable 126 MB/s vs 553 MB/s buffered (i4i); io2: 8 KB durable 7 MB/s, 1 MB 502 MB/s; "
             "16 MB durable reach GB/s";
  v.plot = plot;
  const CellResult* d4 = find_cell(cells, durable, 4096, 1);
  const CellResult* d16 = find_cell(cells, durable, 16384, 1);
  const CellResult* b16 = find_cell(cells, Mode::kBuffered, 16384, 1);
  const CellResult* d1m = find_cell(cells, durable, 1 << 20, 1);
  const CellResult* d16m = find_cell(cells, durable, 16 << 20, 1);
  if (!d4 || !d16 || !b16 || !d16m) {
    v.verdict = missing("the 4k/16k/16m durable or 16k buffered cell");
    return v;
  }
  const char* dn = iobench::mode_name(durable);
  v.ours = fmt::format("{} 16k {:.1f} MB/s vs buffered {:.0f} MB/s; 4k {:.0f} IOPS, 16k {:.0f} IOPS; {}16m {:.0f} MB/s",
                       dn, d16->mb_per_s(), b16->mb_per_s(), d4->iops(), d16->iops(),
                       d1m ? fmt::format("1m {:.0f} MB/s, ", d1m->mb_per_s()) : "", d16m->mb_per_s());
  // Bounded by count: small sizes give about the same IOPS, so MB/s grows with size.
  bool count_bound = d16->iops() > 0.5 * d4->iops();
  bool grows = d16m->mb_per_s() >= 4 * d16->mb_per_s();
  bool below_buffered = d16->mb_per_s() < 0.5 * b16->mb_per_s();
  if (count_bound && grows && below_buffered) {
    v.verdict = "reproduced";
  } else {
    v.verdict = fmt::format("not reproduced:{}{}{}", count_bound ? "" : " 16k IOPS well below 4k IOPS;",
                            grows ? "" : " 16m durable MB/s not >= 4x 16k;",
                            below_buffered ? "" : " durable 16k not below half of buffered");
  }
  return v;
}

kit::Verdict io2_verdict(const std::vector<CellResult>& cells, const std::vector<CellResult>& sizes, Mode durable,
                           uint64_t size, const std::string& plot) {
  kit::Verdict v;
  v.finding = "IO-2";
  v.claim = "Concurrency raises total durable throughput a little and latency a lot";
  v.source = "8 KB durable: 1 thread 15.5 MB/s; 16 threads 5.7 MB/s each (91 MB/s total); 128 threads 522 MB/s total";
  v.plot = plot;
  const CellResult* one = find_cell(cells, durable, size, 1);
  const CellResult* many = nullptr;
  for (unsigned j : {16u, 8u, 4u})
    if ((many = find_cell(cells, durable, size, j))) break;
  if (!one || !many) {
    v.verdict = missing("the 1-job or many-job durable cell");
    return v;
  }
  const std::string sz = iobench::size_label(size);
  const CellResult* big = find_cell(sizes, durable, 1 << 20, 1);
  v.ours = fmt::format("{} {}: 1 job {:.1f} MB/s (p50 {:.0f} us); {} jobs {:.1f} MB/s total, {:.2f} MB/s each "
                       "(p50 {:.0f} us){}",
                       iobench::mode_name(durable), sz, one->mb_per_s(), p50_us(*one), many->spec.jobs,
                       many->mb_per_s(), per_job(*many), p50_us(*many),
                       big ? fmt::format("; 1 job of 1m writes: {:.0f} MB/s", big->mb_per_s()) : "");
  bool total_up = many->mb_per_s() > 1.2 * one->mb_per_s();
  bool latency_up = p50_us(*many) >= 2 * p50_us(*one);
  if (total_up && latency_up)
    v.verdict = "reproduced";
  else
    v.verdict = fmt::format("not reproduced:{}{}", total_up ? "" : " total MB/s did not rise 20%;",
                            latency_up ? "" : " p50 latency did not double");
  return v;
}

kit::Verdict io3_verdict(const CellResult* c, uint64_t dirty_bytes, const std::string& plot) {
  kit::Verdict v;
  v.finding = "IO-3";
  v.claim = "Buffered writes are fast until the page cache must drain";
  v.source = "1.3 GB/s -> ~550 MB/s past ~1 GB (i4i)";
  v.plot = plot;
  if (!c || c->intervals.size() < 3) {
    v.verdict = missing("the long buffered cell");
    return v;
  }
  const auto& iv = c->intervals;
  double first = iv.front().mb_per_s;
  size_t tail_from = iv.size() - std::max<size_t>(1, iv.size() / 3);
  double tail = 0;
  for (size_t i = tail_from; i < iv.size(); ++i) tail += iv[i].mb_per_s;
  tail /= static_cast<double>(iv.size() - tail_from);
  v.ours = fmt::format("buffered 1m: first {:.1f} s {:.0f} MB/s, last third {:.0f} MB/s, after {:.1f} GB in {:.1f} s",
                       iv.front().t_s, first, tail, c->bytes / 1e9, c->seconds);
  if (dirty_bytes) v.ours += fmt::format("; writeback starts at ~{:.1f} GB dirty", dirty_bytes / 1e9);
  if (dirty_bytes && c->bytes < dirty_bytes)
    v.verdict = fmt::format("not reproduced: only {:.1f} GB written, below the ~{:.1f} GB the page cache holds before "
                            "writeback; any change in rate is not the drain",
                            c->bytes / 1e9, dirty_bytes / 1e9);
  else if (tail < 0.7 * first)
    v.verdict = "reproduced";
  else
    v.verdict = fmt::format("not reproduced: the rate held ({:.0f}% of the first interval) over {:.1f} GB",
                            100 * tail / first, c->bytes / 1e9);
  return v;
}

uint64_t dirty_background_bytes() {
  auto read_u64 = [](const char* path, const char* key) -> uint64_t {
    FILE* f = std::fopen(path, "r");
    if (!f) return 0;
    char line[256];
    uint64_t v = 0;
    while (std::fgets(line, sizeof line, f)) {
      if (!key) {
        v = std::strtoull(line, nullptr, 10);
        break;
      }
      if (std::strncmp(line, key, std::strlen(key)) == 0) {
        v = std::strtoull(line + std::strlen(key), nullptr, 10) * 1024;  // meminfo is in kB
        break;
      }
    }
    std::fclose(f);
    return v;
  };
  if (uint64_t b = read_u64("/proc/sys/vm/dirty_background_bytes", nullptr)) return b;
  uint64_t ratio = read_u64("/proc/sys/vm/dirty_background_ratio", nullptr);
  uint64_t avail = read_u64("/proc/meminfo", "MemAvailable:");
  return ratio * avail / 100;
}

kit::Verdict io4_verdict(const iobench::LiesResult& r) {
  kit::Verdict v;
  v.finding = "IO-4";
  v.claim = "Some disks lie about durability";
  v.source = "ephemeral cloud NVMe: small durable writes cost almost nothing extra; io2 / physical NVMe: 10x or more";
  v.plot = "";
  if (r.verdict == iobench::Durability::kUnknown) {
    v.verdict = "not applicable: " + (r.skipped.empty() ? std::string("no figures") : r.skipped);
    return v;
  }
  v.ours = fmt::format("4k durable p50 {:.0f} us vs buffered {:.1f} us ({:.0f}x), fdatasync {:.0f} us: {}",
                       r.durable_p50_us, r.buffered_p50_us, r.ratio, r.flush_p50_us,
                       iobench::durability_name(r.verdict));
  switch (r.verdict) {
    case iobench::Durability::kPlausible:
      v.verdict = "reproduced (the honest class: a durable write costs 10x+; only a power cut proves it)";
      break;
    case iobench::Durability::kSuspicious:
      v.verdict = "reproduced (the lying class: durable costs almost nothing extra; run iobench diskcheck)";
      break;
    case iobench::Durability::kNotDurable:
      v.verdict = "not applicable: memory-backed filesystem, nothing is durable";
      break;
    default:
      v.verdict = "not reproduced: the ratio falls between the two classes";
  }
  return v;
}

kit::Verdict io5_verdict(const iobench::CoherenceResult& c, const iobench::ProbeResult& p) {
  kit::Verdict v;
  v.finding = "IO-5";
  v.claim = "Read-after-direct-write coherence";
  v.source = "Docker on Windows over CIFS: re-read after a direct write into a range already read returned zeros";
  if (!c.skipped.empty() || !c.error.empty()) {
    v.verdict = "not applicable: " + (c.skipped.empty() ? c.error : c.skipped);
    return v;
  }
  v.ours = fmt::format("{} rounds on {} ({}): {} stale reads of {}", c.rounds, p.fs_type, p.device, c.stale, c.reads);
  v.verdict = c.stale ? "reproduced"
                      : fmt::format("not applicable: this mount ({}) is coherent; the stale pattern needs a CIFS-like "
                                    "mount (the detector is proven by iobench's coherence_test)",
                                    p.fs_type);
  return v;
}

kit::Verdict io7_verdict(const std::vector<CellResult>& cells, Mode durable, unsigned batch, const std::string& plot) {
  kit::Verdict v;
  v.finding = "IO-7";
  v.claim = "Vectored I/O: merging buffers into one pwritev presents the disk fewer, bigger writes";
  v.source = "no figure: many buffers in one pwritev (or one ring submission) instead of one write each";
  v.plot = plot;
  const CellResult* pw = find_cell(cells, durable, 4096, 1, Layout::kShared, SubmitKind::kPwrite, batch);
  const CellResult* pv = find_cell(cells, durable, 4096, 1, Layout::kShared, SubmitKind::kPwritev, batch);
  const CellResult* ur = find_cell(cells, durable, 4096, 1, Layout::kShared, SubmitKind::kUring, batch);
  if (!pw || !pv) {
    v.verdict = missing("the batched pwrite / pwritev cells");
    return v;
  }
  double ratio = pv->mb_per_s() / pw->mb_per_s();
  v.ours = fmt::format("{} x{} {} per op: {} pwrites {:.1f} MB/s; one pwritev {:.1f} MB/s ({:.1f}x){}",
                       iobench::mode_name(durable), batch, iobench::size_label(pw->spec.size), batch, pw->mb_per_s(),
                       pv->mb_per_s(), ratio, ur ? fmt::format("; one ring writev {:.1f} MB/s", ur->mb_per_s()) : "");
  v.verdict = ratio >= 2 ? "reproduced" : fmt::format("not reproduced: merged writes only {:.1f}x", ratio);
  return v;
}

}  // namespace fenec::scenarios::io
