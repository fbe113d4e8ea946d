// The corpus as a plain test: the normal (gcc) build links each fuzz target
// with this main instead of libFuzzer's, and `make test` feeds it every file
// of the target's committed corpus. A crash, a sanitizer report or a failed
// check in the target fails the test; so every input a fuzz run ever found
// (committed to the corpus) stays a regression test.
//
//   fuzz_<name> <file or folder>...   (folders read recursively, in name order)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    fs::path p(argv[i]);
    if (fs::is_directory(p)) {
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file()) inputs.push_back(e.path());
    } else {
      inputs.push_back(p);
    }
  }
  std::sort(inputs.begin(), inputs.end());
  // An empty corpus would pass while testing nothing: a missing folder is a failure.
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: no inputs under the paths given\n");
    return 1;
  }
  for (const fs::path& p : inputs) {
    std::ifstream in(p, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "replay: cannot read %s\n", p.c_str());
      return 1;
    }
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // A copy of exactly the file's size, as libFuzzer passes it: a read past the end is caught by ASan.
    std::vector<uint8_t> data(bytes.begin(), bytes.end());
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", p.c_str(), data.size());
    LLVMFuzzerTestOneInput(data.data(), data.size());
  }
  std::printf("replay: %zu inputs, no failure\n", inputs.size());
  return 0;
}
