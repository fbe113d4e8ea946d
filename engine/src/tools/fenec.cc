// fenec: open a fenecdb data folder and put, get, count, scan, aggregate and check it.
//
// Exceptions stop here (CLI11's parse errors); the engine's errors come back
// as Status and are printed as one line, exit 1. A bad flag is one line, exit 2.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <optional>

#include "engine/src/db/branch.h"
#include "fenec/database.h"

namespace {

using namespace fenec;

[[noreturn]] void Fail(const Status& s) {
  fmt::print(stderr, "fenec: {}\n", s.ToString());
  std::exit(1);
}

[[noreturn]] void Usage(const std::string& msg) {
  fmt::print(stderr, "fenec: {} (see fenec --help)\n", msg);
  std::exit(2);
}

// "name:type[:dim][:unique][:text]", e.g. email:text:unique, emb:vector:128.
Field ParseField(const std::string& spec) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= spec.size(); ++i)
    if (i == spec.size() || spec[i] == ':') {
      parts.push_back(spec.substr(start, i - start));
      start = i + 1;
    }
  if (parts.size() < 2) Usage("field '" + spec + "' needs name:type");
  Field f;
  f.name = parts[0];
  const std::string& t = parts[1];
  size_t next = 2;
  if (t == "text") f.type = FieldType::kText;
  else if (t == "int") f.type = FieldType::kInt;
  else if (t == "float") f.type = FieldType::kFloat;
  else if (t == "bool") f.type = FieldType::kBool;
  else if (t == "vector") {
    f.type = FieldType::kVector;
    if (parts.size() < 3) Usage("vector field '" + f.name + "' needs a dim: name:vector:128");
    char* end = nullptr;
    f.dim = static_cast<uint32_t>(std::strtoul(parts[2].c_str(), &end, 10));
    if (*end != '\0' || f.dim == 0) Usage("bad vector dim '" + parts[2] + "'");
    next = 3;
  } else {
    Usage("unknown type '" + t + "' (text, int, float, bool, vector)");
  }
  for (; next < parts.size(); ++next) {
    if (parts[next] == "unique") f.unique = true;
    else if (parts[next] == "text") f.text_indexed = true;
    else Usage("unknown field flag '" + parts[next] + "' (unique, text)");
  }
  return f;
}

Value ParseValue(const Field& f, const std::string& s) {
  if (s == "null") return Value();
  char* end = nullptr;
  switch (f.type) {
    case FieldType::kText: return Value(s);
    case FieldType::kInt: {
      long long v = std::strtoll(s.c_str(), &end, 10);
      if (s.empty() || *end != '\0') Usage(fmt::format("field '{}' wants an int, got '{}'", f.name, s));
      return Value(int64_t{v});
    }
    case FieldType::kFloat: {
      double v = std::strtod(s.c_str(), &end);
      if (s.empty() || *end != '\0') Usage(fmt::format("field '{}' wants a float, got '{}'", f.name, s));
      return Value(v);
    }
    case FieldType::kBool:
      if (s == "true") return Value(true);
      if (s == "false") return Value(false);
      Usage(fmt::format("field '{}' wants true or false, got '{}'", f.name, s));
    case FieldType::kVector: {
      std::vector<float> v;
      const char* p = s.c_str();
      while (*p) {
        v.push_back(std::strtof(p, &end));
        if (end == p) Usage(fmt::format("field '{}' wants comma-separated floats, got '{}'", f.name, s));
        p = *end == ',' ? end + 1 : end;
      }
      return Value(std::move(v));
    }
  }
  return Value();
}

std::string DocJson(const Schema& schema, DocId id, const Document& doc) {
  std::string out = fmt::format("{{\"_id\": {}", id);
  for (size_t i = 0; i < doc.size(); ++i) out += fmt::format(", \"{}\": {}", schema.fields[i].name, doc[i].ToString());
  return out + "}";
}

// "field op value" with op one of = != < <= > >= ~ (contains).
Condition ParseCondition(const Schema& schema, const std::string& s) {
  static const std::pair<const char*, CompareOp> kOps[] = {{"!=", CompareOp::kNe}, {"<=", CompareOp::kLe},
                                                            {">=", CompareOp::kGe}, {"=", CompareOp::kEq},
                                                            {"<", CompareOp::kLt},  {">", CompareOp::kGt},
                                                            {"~", CompareOp::kContains}};
  for (auto [tok, op] : kOps) {
    size_t at = s.find(tok);
    if (at == std::string::npos) continue;
    std::string field = s.substr(0, at), value = s.substr(at + std::strlen(tok));
    auto trim = [](std::string& x) {
      while (!x.empty() && x.front() == ' ') x.erase(x.begin());
      while (!x.empty() && x.back() == ' ') x.pop_back();
    };
    trim(field);
    trim(value);
    int idx = schema.FieldIndex(field);
    if (idx < 0) Usage("no field '" + field + "'");
    Field as = schema.fields[idx];
    if (op == CompareOp::kContains) as.type = FieldType::kText;
    return {field, op, ParseValue(as, value)};
  }
  Usage("condition '" + s + "' needs one of = != < <= > >= ~");
}

struct Opened {
  std::unique_ptr<Database> db;
  CollectionId coll;
  Schema schema;
};

std::unique_ptr<Database> OpenFolder(const std::string& dir, bool create) {
  Options o;
  o.create_if_missing = create;
  auto db = Database::Open(dir, o);
  if (!db.ok()) Fail(db.status());
  return std::move(db).value();
}

Opened OpenCollection(const std::string& dir, const std::string& name) {
  Opened o;
  o.db = OpenFolder(dir, false);
  auto c = o.db->FindCollection(name);
  if (!c.ok()) Fail(c.status());
  o.coll = *c;
  o.schema = *o.db->GetSchema(*c);
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fenec: open a fenecdb data folder (data.fdb + Journals/) and read or write it.\n"
               "Writes are durable when the command returns (journal fsync'ed); every command recovers the\n"
               "folder first and checkpoints it on exit."};
  app.require_subcommand(1);
  std::string dir, coll, field;
  std::vector<std::string> specs, values, where;
  uint64_t id = 0, limit = 0;

  auto* create = app.add_subcommand("create", "create a collection: fenec create DIR NAME FIELD... "
                                              "(FIELD = name:type[:dim][:unique][:text]; types text int float bool vector, "
                                              "e.g. email:text:unique body:text:text emb:vector:128)");
  create->add_option("dir", dir, "data folder (created if missing)")->required();
  create->add_option("collection", coll, "collection name")->required();
  create->add_option("fields", specs, "fields, in order")->required();

  auto* put = app.add_subcommand("put", "put one document, values in schema order (null for none, "
                                        "vectors as 1,2,3); prints its id");
  put->add_option("dir", dir, "data folder")->required();
  put->add_option("collection", coll, "collection")->required();
  put->add_option("values", values, "one value per field")->required();

  auto* get = app.add_subcommand("get", "print a document as JSON");
  get->add_option("dir", dir, "data folder")->required();
  get->add_option("collection", coll, "collection")->required();
  get->add_option("id", id, "document id")->required();

  auto* del = app.add_subcommand("delete", "delete a document");
  del->add_option("dir", dir, "data folder")->required();
  del->add_option("collection", coll, "collection")->required();
  del->add_option("id", id, "document id")->required();

  auto* count = app.add_subcommand("count", "print how many documents a collection holds");
  count->add_option("dir", dir, "data folder")->required();
  count->add_option("collection", coll, "collection")->required();

  auto* scan = app.add_subcommand("scan", "print matching documents, one JSON object a line, in id order");
  scan->add_option("dir", dir, "data folder")->required();
  scan->add_option("collection", coll, "collection")->required();
  scan->add_option("-w,--where", where, "condition 'field op value', op: = != < <= > >= ~ (contains); repeatable");
  scan->add_option("-l,--limit", limit, "at most this many (0: all)");

  auto* agg = app.add_subcommand("aggregate", "count, sum, min and max of a field over matching documents");
  agg->add_option("dir", dir, "data folder")->required();
  agg->add_option("collection", coll, "collection")->required();
  agg->add_option("field", field, "field (int, float, text or bool)")->required();
  agg->add_option("-w,--where", where, "condition, as for scan; repeatable");

  auto* check = app.add_subcommand("check", "recover the folder, decode every document, verify the indexes; "
                                            "print each collection's count");
  check->add_option("dir", dir, "data folder")->required();

  bool list = false;
  auto* branch = app.add_subcommand("branch", "open one index's branch storage alone (DIR/Indexes/c<C>.f<F>.<kind>, "
                                              "see engine/doc/journal.md) and print what it recovers from its own "
                                              "folder: for troubleshooting an index");
  branch->add_option("dir", dir, "branch folder")->required();
  branch->add_flag("--list", list, "also print every entry: id, then the value (@unique key bytes or @text text)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    Usage(e.what());
  }

  if (create->parsed()) {
    Schema schema;
    for (const auto& s : specs) schema.fields.push_back(ParseField(s));
    auto db = OpenFolder(dir, true);
    auto c = db->CreateCollection(coll, schema);
    if (!c.ok()) Fail(c.status());
  } else if (put->parsed()) {
    Opened o = OpenCollection(dir, coll);
    if (values.size() != o.schema.fields.size())
      Usage(fmt::format("'{}' has {} fields, got {} values", coll, o.schema.fields.size(), values.size()));
    Document doc;
    for (size_t i = 0; i < values.size(); ++i) doc.push_back(ParseValue(o.schema.fields[i], values[i]));
    auto r = o.db->Put(o.coll, std::move(doc));
    if (!r.ok()) Fail(r.status());
    fmt::print("{}\n", *r);
  } else if (get->parsed()) {
    Opened o = OpenCollection(dir, coll);
    auto r = o.db->Get(o.coll, id);
    if (!r.ok()) Fail(r.status());
    fmt::print("{}\n", DocJson(o.schema, id, *r));
  } else if (del->parsed()) {
    Opened o = OpenCollection(dir, coll);
    if (Status s = o.db->Delete(o.coll, id); !s.ok()) Fail(s);
  } else if (count->parsed()) {
    Opened o = OpenCollection(dir, coll);
    fmt::print("{}\n", *o.db->Count(o.coll));
  } else if (scan->parsed() || agg->parsed()) {
    Opened o = OpenCollection(dir, coll);
    Filter f;
    for (const auto& w : where) f.all.push_back(ParseCondition(o.schema, w));
    if (scan->parsed()) {
      auto rows = o.db->Scan(o.coll, f, limit);
      if (!rows.ok()) Fail(rows.status());
      for (const Row& r : *rows) fmt::print("{}\n", DocJson(o.schema, r.id, r.doc));
    } else {
      auto a = o.db->Aggregate(o.coll, field, f);
      if (!a.ok()) Fail(a.status());
      fmt::print("count={} sum={} min={} max={}\n", a->count, a->sum, a->min.ToString(), a->max.ToString());
    }
  } else if (check->parsed()) {
    auto db = OpenFolder(dir, false);
    Stats st = db->GetStats();
    fmt::print("recovered {} journal records, {} torn/corrupt tail bytes ignored\n", st.recovered_records,
               st.recovery_discarded_bytes);
    if (st.branches > 0)
      fmt::print("indexes: {} branch storages, {} loaded from their own folders, {} rebuilt from the documents; "
                 "journals {}\n",
                 st.branches, st.branches_recovered, st.branches_rebuilt, st.journals_shared ? "shared" : "separate");
    if (Status s = db->Check(); !s.ok()) Fail(s);
    for (const auto& name : db->ListCollections()) {
      auto c = db->FindCollection(name);
      fmt::print("{}: {} documents\n", name, *db->Count(*c));
    }
    fmt::print("ok\n");
  } else if (branch->parsed()) {
    BranchState st;
    if (Status s = OpenBranchAlone(Env::Default(), dir, &st); !s.ok()) Fail(s);
    fmt::print("entries {}, through root LSN {}; own checkpoint LSN {}, last LSN {}, {} journal records replayed\n",
               st.entries(), st.root_lsn, st.checkpoint_lsn, st.last_lsn, st.records);
    if (list) {
      for (uint64_t i = 0; i < st.present.size(); ++i)
        if (st.present[i]) fmt::print("{}\t{}\n", i, fmt::format("{:?}", st.values[i]));
    }
  }
  return 0;
}
