// load-bench's input: a file of rows in a format users have, and reading it
// back in chunks the way a loader streams it.
//
// THE ROWS. Row i is (body TEXT, n INT, vec VECTOR(dim)), all seeded:
//   body  "item <i>: " and four words of a small vocabulary, one of them in
//         double quotes and a comma after the second, so both formats'
//         escaping is exercised (JSON's \" and CSV's "")
//   n     a whole number in [0, 2^40)
//   vec   `clusters` centers with N(0, 1) components, each row a center
//         chosen uniformly plus N(0, spread^2) noise in every dimension (as
//         vector-bench's reference data: 128-d, 100 clusters, spread 1.75,
//         so the HNSW graph's linking cost is that of realistic data, not of
//         uniform noise). Each component is written in the shortest text
//         that reads back as the same float ({} in fmt), as exporters do.
// THE FORMATS.
//   jsonl  one JSON object a line: {"body":"...","n":123,"vec":[0.5,-1.25,...]}
//   csv    a header `body,n,vec`, then one row a line, RFC 4180 quoting; the
//          vector is one quoted field holding its JSON array ("[0.5,-1.25]"),
//          as pandas and pgvector write a vector into CSV
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fenec::scenarios::load {

enum class Format { kJsonl, kCsv };
const char* format_name(Format f);  // "jsonl", "csv"

struct DataSpec {
  size_t rows = 100000;
  uint32_t dim = 128;
  size_t clusters = 100;
  float spread = 1.75f;
  uint64_t seed = 1;
};

// Writes spec.rows rows to `path` in `format`. "" or why not.
std::string write_rows(const DataSpec& spec, Format format, const std::string& path);

// Streams a file's lines in chunks, as a loader reads a file too big to hold
// at once: 4 MiB reads, no copy of a line. Every line handed out is followed
// in memory by at least kPad readable bytes, so simdjson can parse it in
// place (it reads up to 64 bytes past a document's end).
class LineReader {
 public:
  static constexpr size_t kPad = 64;

  // A CSV file's header line is skipped.
  LineReader(const std::string& path, Format format);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next up to `n` lines (no '\n'; an empty line is skipped), at most
  // `limit` over the file's life (rows past it are not read). Views stay
  // valid until the next call. false at the end or on an error (error()).
  bool Next(size_t n, std::vector<std::string_view>* lines);
  const std::string& error() const { return error_; }
  // Bytes readable from a line's first byte on (its length plus at least kPad).
  size_t capacity_from(const char* p) const { return static_cast<size_t>(buf_.data() + buf_.size() - p); }
  void set_limit(size_t limit) { limit_ = limit; }

 private:
  bool Fill();  // reads more; false at EOF or on an error

  int fd_ = -1;
  Format format_;
  std::vector<char> buf_;  // [begin_, end_) unread; kPad spare bytes kept after end_
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false, header_done_ = false;
  size_t handed_ = 0, limit_ = SIZE_MAX;
  std::string error_;
};

// The rows (lines) a data file holds, its header not counted; -1 on an error.
int64_t count_rows(const std::string& path, Format format);

}  // namespace fenec::scenarios::load
