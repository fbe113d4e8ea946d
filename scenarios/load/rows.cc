// The client side of every load arm: see rows.h.
#include "scenarios/load/rows.h"

#include <charconv>

#include <fmt/format.h>

#include "engine/src/base/json.h"
#include "engine/src/query/bind.h"

namespace fenec::scenarios::load {
namespace {

namespace sj = simdjson::ondemand;

// One RFC 4180 field from the front of `rest` (consumed, with its comma).
// Quoted fields are unescaped into *scratch and viewed there.
bool CsvField(std::string_view* rest, std::string* scratch, std::string_view* out) {
  std::string_view r = *rest;
  if (r.empty() || r.front() != '"') {
    const size_t comma = r.find(',');
    *out = r.substr(0, comma);
    *rest = comma == std::string_view::npos ? std::string_view() : r.substr(comma + 1);
    return true;
  }
  scratch->clear();
  size_t i = 1;
  for (;;) {
    const size_t q = r.find('"', i);
    if (q == std::string_view::npos) return false;  // unterminated
    scratch->append(r.data() + i, q - i);
    if (q + 1 < r.size() && r[q + 1] == '"') {
      scratch->push_back('"');
      i = q + 2;
      continue;
    }
    i = q + 1;
    break;
  }
  if (i < r.size() && r[i] != ',') return false;
  *out = *scratch;
  *rest = i < r.size() ? r.substr(i + 1) : std::string_view();
  return true;
}

}  // namespace

std::string RowReader::Split(Format format, std::string_view line, size_t capacity, Fields* out) {
  if (format == Format::kCsv) {
    std::string_view rest = line, body, vec;
    if (!CsvField(&rest, &out->body, &body)) return "a CSV row cut short";
    if (body.data() != out->body.data()) out->body.assign(body);  // an unquoted body is still a view into line
    // n is a bare number: viewed in the line.
    const size_t comma = rest.find(',');
    if (comma == std::string_view::npos) return "a CSV row cut short";
    const std::string_view n = rest.substr(0, comma);
    rest.remove_prefix(comma + 1);
    // The vector's field is quoted but holds no quote: its text is viewed in the line itself.
    if (rest.size() < 2 || rest.front() != '"' || rest.back() != '"') return "the vec field is not a quoted array";
    vec = rest.substr(1, rest.size() - 2);
    out->n = n;
    out->vec = vec;
    return "";
  }
  sj::document doc;
  sj::object obj;
  std::string_view body;
  if (auto ec = parser_.iterate(line.data(), line.size(), capacity).get(doc)) return simdjson::error_message(ec);
  if (auto ec = doc.get_object().get(obj)) return simdjson::error_message(ec);
  if (auto ec = obj.find_field("body").get_string().get(body)) return fmt::format("body: {}", simdjson::error_message(ec));
  out->body.assign(body);
  sj::value n;
  if (auto ec = obj.find_field("n").get(n)) return fmt::format("n: {}", simdjson::error_message(ec));
  out->n = n.raw_json_token();
  while (!out->n.empty() && (out->n.back() == ' ' || out->n.back() == '\t')) out->n.remove_suffix(1);
  sj::array vec;
  if (auto ec = obj.find_field("vec").get_array().get(vec)) return fmt::format("vec: {}", simdjson::error_message(ec));
  if (auto ec = vec.raw_json().get(out->vec)) return fmt::format("vec: {}", simdjson::error_message(ec));
  return "";
}

std::string RowReader::ToDocument(Format format, std::string_view line, size_t capacity, const Schema& schema,
                                  Document* out) {
  if (format == Format::kJsonl) {
    sj::document doc;
    sj::value root;
    query::JsonReader reader(line.data());
    if (auto ec = parser_.iterate(line.data(), line.size(), capacity).get(doc)) return simdjson::error_message(ec);
    if (auto ec = doc.get_value().get(root)) return simdjson::error_message(ec);
    if (auto err = reader.ReadDoc(root, schema, "line", out)) return err->message;
    return "";
  }
  if (std::string err = Split(format, line, capacity, &fields_); !err.empty()) return err;
  int64_t n = 0;
  const auto r = std::from_chars(fields_.n.data(), fields_.n.data() + fields_.n.size(), n);
  if (r.ec != std::errc() || r.ptr != fields_.n.data() + fields_.n.size()) return fmt::format("n: '{}' is not an int", fields_.n);
  std::vector<float> vec;
  if (std::string err = ParseVector(fields_.vec, schema.fields[2].dim, &vec); !err.empty()) return err;
  out->clear();
  out->emplace_back(std::move(fields_.body));
  out->emplace_back(n);
  out->emplace_back(std::move(vec));
  fields_.body = std::string();
  return "";
}

std::string ParseVector(std::string_view text, uint32_t dim, std::vector<float>* out) {
  out->clear();
  out->reserve(dim);
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return "vec: not a [...] array";
  const char* p = text.data() + 1;
  const char* end = text.data() + text.size() - 1;
  while (p < end) {
    while (p < end && (*p == ' ' || *p == ',')) ++p;
    if (p == end) break;
    float f = 0;
    const auto r = std::from_chars(p, end, f);
    if (r.ec != std::errc()) return fmt::format("vec: element {} is not a number", out->size());
    out->push_back(f);
    p = r.ptr;
  }
  if (out->size() != dim) return fmt::format("vec: {} numbers, the field holds {}", out->size(), dim);
  return "";
}

void AppendJsonDoc(Format format, std::string_view line, const Fields& f, std::string* out) {
  if (format == Format::kJsonl) {
    out->append(line);
    return;
  }
  out->append("{\"body\":");
  base::AppendJsonString(*out, f.body);
  out->append(",\"n\":");
  out->append(f.n);
  out->append(",\"vec\":");
  out->append(f.vec);
  out->push_back('}');
}

void AppendCopyRow(const Fields& f, std::string* out) {
  out->push_back('"');
  for (char c : f.body) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->append("\",");
  out->append(f.n);
  out->append(",\"{");
  out->append(f.vec.substr(1, f.vec.size() - 2));
  out->append("}\"\n");
}

std::string ArrayLiteral(std::string_view vec) {
  std::string s;
  s.reserve(vec.size());
  s.push_back('{');
  s.append(vec.substr(1, vec.size() - 2));
  s.push_back('}');
  return s;
}

void BodyBuilder::Begin(std::string* body) {
  docs_ = 0;
  switch (path_) {
    case Path::kDocs: body->push_back('['); break;
    case Path::kQuery: *body += fmt::format(R"({{"statement":"PUT {} $1","params":[[)", collection_); break;
    case Path::kBatch: body->append(R"({"statements":[)"); break;
  }
}

void BodyBuilder::BeforeDoc(std::string* body) {
  if (docs_++ > 0) body->push_back(',');
  if (path_ == Path::kBatch) *body += fmt::format(R"({{"statement":"PUT {} $1","params":[)", collection_);
}

void BodyBuilder::AfterDoc(std::string* body) {
  if (path_ == Path::kBatch) body->append("]}");
}

void BodyBuilder::End(std::string* body) {
  switch (path_) {
    case Path::kDocs: body->push_back(']'); break;
    case Path::kQuery: body->append("]]}"); break;
    case Path::kBatch: body->append("]}"); break;
  }
}

std::string BodyBuilder::Target() const {
  switch (path_) {
    case Path::kDocs: return "/docs/" + collection_;
    case Path::kQuery: return "/query";
    case Path::kBatch: return "/batch";
  }
  return "";
}

}  // namespace fenec::scenarios::load
