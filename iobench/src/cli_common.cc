#include <filesystem>
#include <fmt/format.h>
#include <random>
#include <sys/stat.h>

#include "iobench/src/cli.h"

namespace fenec::iobench {

void add_common_flags(CLI::App* sub, CommonOpts* o, bool with_seed) {
  sub->add_option("--dir", o->dir, "Directory on the filesystem to test; scratch files go here and are removed")
      ->capture_default_str();
  sub->add_option("--csv", o->csv, "Also write tidy CSV rows here ('-' = stdout)");
  sub->add_option("--json", o->json, "Also write JSON (rows, metadata, details) here ('-' = stdout)");
  if (with_seed) sub->add_option("--seed", o->seed, "Seed for the random data and offsets (default: random, logged)");
}

uint64_t resolve_seed(const CommonOpts& o) {
  uint64_t seed;
  if (!o.seed.empty()) {
    try {
      size_t used = 0;
      seed = std::stoull(o.seed, &used);
      if (used != o.seed.size()) throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
      throw UsageError(fmt::format("--seed '{}' is not an unsigned integer", o.seed));
    }
  } else {
    seed = std::random_device{}();
  }
  fmt::print(stderr, "seed={}\n", seed);
  return seed;
}

void begin_run(const CommonOpts& o) {
  struct stat st {};
  if (::stat(o.dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw UsageError(fmt::format("--dir '{}' is not an existing directory", o.dir));
  if (std::string err = kit::hold_stdout_for_data(o.csv, o.json); !err.empty()) throw UsageError(err);
}

std::unique_ptr<kit::Results> make_results(const CommonOpts& o, const std::string& command) {
  kit::Metadata meta = kit::Metadata::collect(o.dir, false);
  meta.set("tool", "iobench " + command);
  meta.set("dir", o.dir);
  return std::make_unique<kit::Results>("io", meta);
}

int emit(const kit::Results& r, const CommonOpts& o) {
  int rc = 0;
  if (!o.csv.empty())
    if (std::string e = r.write_csv(o.csv); !e.empty()) {
      fmt::print(stderr, "iobench: cannot write CSV {}: {}\n", o.csv, e);
      rc = 1;
    }
  if (!o.json.empty())
    if (std::string e = r.write_json(o.json); !e.empty()) {
      fmt::print(stderr, "iobench: cannot write JSON {}: {}\n", o.json, e);
      rc = 1;
    }
  return rc;
}

}  // namespace fenec::iobench
