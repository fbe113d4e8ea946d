// The readers of the benches' own files (scenarios/ci/runs.h), which CI runs
// on whatever a scenario or an earlier run left behind: a scenario's tidy
// CSV (results/<name>/latest.csv), the run and history CSV, metrics.conf and
// callgrind's output. The first byte picks the reader, the rest is the file.
// Each answers rows or one error line; none throws or crashes. iobench's
// JSON sidecars have no C++ reader (scripts/stability.py reads them).
#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/ci/runs.h"
#include "fuzz/check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace ci = fenec::scenarios::ci;
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 5) {
    case 0: {
      auto fields = ci::split_csv(text);
      FUZZ_CHECK(!fields.empty(), "a line split into no fields");
      break;
    }
    case 1: {
      std::vector<ci::ResultRow> rows;
      std::string err = ci::parse_results(text, "latest.csv", &rows);
      // An incomplete run is refused whole: no row of it may be kept.
      FUZZ_CHECK(err.empty() || rows.empty(), "%zu rows kept with the error '%s'", rows.size(), err.c_str());
      break;
    }
    case 2: {
      std::vector<ci::MetricRun> runs;
      std::string err = ci::parse_runs(text, "history.csv", &runs);
      if (err.empty()) {
        // The writer runs on whatever was read, and its output is read again (record appends
        // rows read from the history): neither may crash, whatever the fields hold.
        std::vector<ci::MetricRun> again;
        (void)ci::parse_runs(ci::runs_csv(runs), "again", &again);
      }
      break;
    }
    case 3: {
      std::vector<ci::MetricDef> defs;
      (void)ci::parse_config(text, &defs);
      break;
    }
    default: {
      std::string name;
      double instructions = 0;
      (void)ci::parse_callgrind(text, &name, &instructions);
      break;
    }
  }
  return 0;
}
