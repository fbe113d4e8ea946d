// What each loader does to a file's lines before it sends them: the client
// side of every arm, so each arm's client work is the least its way needs.
//
//   fenec over HTTP  a JSON document a row. From JSON lines the line is the
//                    document, sent as it is (no parse on the client: the
//                    server reads the text); from CSV the fields are split
//                    and written as a JSON object (the vector's text copied).
//   fenec embedded   a fenec::Document a row, read in process: JSON lines
//                    by the engine's own reader (engine/src/query/bind.h,
//                    what the server runs: one pass, each vector element's
//                    token straight into a float by from_chars), CSV fields
//                    by from_chars likewise.
//   PostgreSQL       COPY's CSV rows or INSERT's text parameters, the vector
//                    as a float4[] literal ({...}: the JSON array's brackets
//                    swapped, its numbers copied).
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fenec/schema.h"
#include "scenarios/load/data.h"

namespace fenec::scenarios::load {

// A row's three fields as text: body unescaped, n and vec as they stand in
// the file (vec with its brackets).
struct Fields {
  std::string body;
  std::string_view n, vec;
};

class RowReader {
 public:
  // Splits one line of `format`; `capacity` as LineReader::capacity_from. "" or why not.
  std::string Split(Format format, std::string_view line, size_t capacity, Fields* out);
  // Reads one line as a Document of `schema` (body, n, vec). "" or why not.
  std::string ToDocument(Format format, std::string_view line, size_t capacity, const Schema& schema, Document* out);

 private:
  simdjson::ondemand::parser parser_;
  Fields fields_;
};

// Appends the row as a JSON object: a JSON line as it is, a CSV row's fields
// written as one (the body escaped, n and vec copied).
void AppendJsonDoc(Format format, std::string_view line, const Fields& f, std::string* out);
// Appends the row as one line of PostgreSQL COPY's CSV: body quoted, n,
// and the vector quoted as a float4[] literal.
void AppendCopyRow(const Fields& f, std::string* out);
// The vector as a float4[] literal: "[1,2]" -> "{1,2}".
std::string ArrayLiteral(std::string_view vec);

// A vector's JSON array text, parsed into `dim` floats by from_chars. "" or why not.
std::string ParseVector(std::string_view text, uint32_t dim, std::vector<float>* out);

// The three request bodies of fenec-server's load paths, from JSON documents.
enum class Path { kDocs, kQuery, kBatch };
// Builds one request's body from `docs` JSON objects, appended one by one:
// Begin, Add each, End. The statement is `PUT <collection> $1`.
class BodyBuilder {
 public:
  BodyBuilder(Path path, std::string collection) : path_(path), collection_(std::move(collection)) {}
  void Begin(std::string* body);
  // Where the next document's JSON goes (append it there).
  void BeforeDoc(std::string* body);
  void AfterDoc(std::string* body);
  void End(std::string* body);
  // The URL path the body is posted to.
  std::string Target() const;

 private:
  Path path_;
  std::string collection_;
  size_t docs_ = 0;
};

}  // namespace fenec::scenarios::load
