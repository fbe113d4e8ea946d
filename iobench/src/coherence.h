// IO-5: read-after-direct-write coherence. On a Linux container over a CIFS
// volume this pattern returned stale zeros: preallocate a file; write with
// O_DIRECT|O_DSYNC on one descriptor; read through a second, buffered
// descriptor past the written area (caching those pages); write again into the
// range already read; re-read it. A coherent mount returns the new bytes. The
// reads go through an injectable function so a test can prove the detector
// catches a stale reader.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "iobench/src/files.h"
#include "iobench/src/probe.h"
#include "iobench/kit/interrupt.h"

namespace fenec::kit {
class Results;
}

namespace fenec::iobench {

// pread(2)'s shape: bytes read or -1 with errno.
using ReadFn = std::function<ssize_t(int fd, void* buf, size_t len, off_t off)>;

struct CoherenceOptions {
  std::string dir;
  unsigned rounds = 100;
  uint64_t chunk = 4096;  // must suit the O_DIRECT alignment
  uint64_t seed = 1;
  ReadFn read;            // empty = pread
  bool (*stop)() = kit::stop_requested;
};

struct CoherenceResult {
  std::string skipped;   // why it could not run here
  std::string error;
  unsigned rounds = 0;   // rounds completed
  uint64_t reads = 0;    // buffered reads compared
  uint64_t stale = 0;    // reads that did not return the bytes last written
  uint64_t stale_zero = 0;  // ... of which returned zeros (IO-5's symptom)
  std::vector<std::string> examples;  // the first few, with offsets
  bool ok() const { return skipped.empty() && error.empty(); }
};

CoherenceResult run_coherence(const CoherenceOptions& o, const ProbeResult& probe);
void add_coherence_rows(kit::Results& r, const CoherenceOptions& o, const CoherenceResult& c,
                        const std::string& finding);

}  // namespace fenec::iobench
