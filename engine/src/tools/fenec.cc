// fenec: FenecQL statements against a fenecdb data folder, answered exactly as
// fenec-server's POST /query answers them; and the troubleshooting commands
// (check, branch) that open storages directly.
//
// A statement run goes through fenec::query::Service, the server's own code:
// the CLI only builds the request body {"statement": ..., "params": ...} and
// prints the answer's body, so the two cannot drift apart.
//
// Exceptions stop here (CLI11's parse errors). Bad usage is one line on
// stderr, exit 2, before the folder is opened; a statement the service
// rejects is its JSON error on stderr, exit 1; an engine error opening or
// closing the folder is one line, exit 1.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/src/db/branch.h"
#include "engine/src/db/vector_field.h"
#include "engine/src/journal/reader.h"
#include "engine/src/storage/storage.h"
#include "engine/src/query/json_out.h"
#include "engine/src/query/lexer.h"
#include "engine/src/query/service.h"
#include "fenec/database.h"
#include "engine/src/base/cli.h"
#include "engine/src/base/utf8.h"
#include "engine/src/base/version.h"

namespace {

using namespace fenec;

constexpr const char* kDescription = R"(fenec: FenecQL statements against a fenecdb data folder, answered as fenec-server answers them.

  fenec [--create] [--params JSON] DIR [STATEMENT...] [-f FILE]...
  fenec check DIR
  fenec branch DIR [--list]

The first argument picks the command: `check` or `branch` is that troubleshooting
command; anything else starts a statement run on the data folder DIR (a folder
named check or branch: write ./check).

A statement run opens DIR (data.fdb + Journals/), recovering it, runs each
statement through the code behind fenec-server's POST /query and prints each
answer on its own line of stdout: exactly the JSON the server answers, e.g.
{"created":"c"}, {"id":7,"doc":{...}}, {"rows":[...],"count":n}, {"ids":[8]},
{"deleted":7}, {"columns":[...],"rows":[[...]]}. The language is in
engine/doc/statements.md.

Statements run in the order given, STATEMENT arguments and -f files alike. An
argument or a file may hold several statements, each ended by ';' (a ';' inside
a string or a -- comment does not count; the last ';' may be left out).

The run stops at the first statement that fails: its JSON error (the body the
server would send) goes to stderr, and fenec exits 1. The statements before it
stay done: each write is durable (fsync'ed) before its answer is printed, so
the lines on stdout are exactly what ran. The folder is checkpointed on exit.

Exit status: 0 every statement ran; 1 a statement failed, or the engine could
not open or close DIR (one line on stderr); 2 bad usage (one line on stderr,
nothing run).

The engine takes no lock on its folder: do not run fenec on a folder that
fenec-server (or another program) has open.

Examples:
  fenec --create shop 'CREATE COLLECTION users (email TEXT @unique, age INT)'
  fenec shop "PUT users {email: 'ann@example.com', age: 41}"    -> {"ids":[1]}
  fenec shop 'GET users 1'         -> {"id":1,"doc":{"email":"ann@example.com","age":41}}
  fenec shop 'FIND users WHERE age > 30 LIMIT 10'
  fenec shop 'AGGREGATE users COUNT(*), MAX(age)'
  fenec shop --params '[30, 10]' 'FIND users WHERE age >= $1 LIMIT $2'
  fenec shop --params '{"id": 1}' 'DELETE users $id'
  fenec shop 'DELETE users 2; AGGREGATE users COUNT(*)'    (two answers, two lines)
  fenec shop 'FIND items NEAR emb [0.1, 0.7, 0.2] WHERE stock > 0 LIMIT 5'   (an @hnsw field's nearest)
  fenec shop -f setup.fql          (a file of ';'-ended statements; -f - reads stdin)
  fenec check shop                 (each journal: clean, torn tail or mid-log corruption; then recover, decode
                                    every document, verify the indexes; exit 0 clean, 3 torn tail, 4 corrupt)
  fenec branch shop/Indexes/c0.f0.unique --list    (one index's storage, alone)
  fenec branch shop/Indexes/c1.f1.hnsw             (an @hnsw index: its graph loaded from its folder)
)";

[[noreturn]] void Usage(std::string msg, std::string_view command = "fenec") {
  for (char& c : msg)
    if (c == '\n') c = ' ';
  fmt::print(stderr, "fenec: {} (see {} --help)\n", msg, command);
  std::exit(2);
}

// Returns the exit code if parsing ended the run (--help, or a usage error).
std::optional<int> Parse(CLI::App& app, int argc, char** argv) {
  app.set_version_flag("--version", base::VersionLine("fenec"));
  if (int rc = base::ParseFlags(app, argc, argv); rc >= 0) return rc;
  return std::nullopt;
}

std::unique_ptr<Database> OpenFolder(const std::string& dir, bool create, std::string_view hint) {
  Options o;
  o.create_if_missing = create;
  auto db = Database::Open(dir, o);
  if (!db.ok()) {
    fmt::print(stderr, "fenec: {}{}\n", db.status().ToString(), db.status().IsNotFound() ? hint : "");
    return nullptr;
  }
  return std::move(db).value();
}

// Cuts a script into statements at each ';' outside strings and comments.
// The lexer is what knows where those are: ';' is no FenecQL character, so it
// stops there with an error, and the text before it is one statement. Any
// other lexing error leaves the rest of the text as one statement, which the
// service then rejects with that error (and the run stops).
void SplitStatements(std::string_view text, std::vector<std::string>* out) {
  auto is_semi = [&](const query::Token& t) {
    return (t.kind == query::Tok::kError || t.kind == query::Tok::kPunct) && t.offset < text.size() &&
           text[t.offset] == ';';
  };
  while (!text.empty()) {
    std::vector<query::Token> toks = query::Lex(text);
    size_t end = text.size(), next = text.size();
    for (const query::Token& t : toks) {
      if (is_semi(t)) {
        end = t.offset;
        next = end + 1;
        break;
      }
    }
    // Only spaces and comments before the ';' (or the end): nothing to run.
    bool empty = toks.front().kind == query::Tok::kEnd || is_semi(toks.front());
    if (!empty) {
      // Trimmed, so an error's "statement L:C" counts from the statement's first character.
      std::string_view s = text.substr(0, end);
      size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
      out->emplace_back(s.substr(b, e - b + 1));
    }
    text.remove_prefix(next);
  }
}

// stdio, not iostreams: reading a directory (EISDIR) must be an error, not an empty script.
std::string ReadInput(const std::string& file) {
  std::FILE* f = file == "-" ? stdin : std::fopen(file.c_str(), "rb");
  if (!f) Usage(fmt::format("cannot read -f {}: {}", file, std::strerror(errno)));
  std::string text;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  int err = std::ferror(f) ? errno : 0;
  if (f != stdin) std::fclose(f);
  if (err) Usage(fmt::format("cannot read -f {}: {}", file, std::strerror(err)));
  return text;
}

int RunStatements(int argc, char** argv) {
  CLI::App app{kDescription, "fenec"};
  std::string dir, params;
  std::vector<std::string> args, files;
  bool create = false;
  app.add_option("DIR", dir, "the data folder (see --create)")->required();
  auto* stmt_opt = app.add_option("STATEMENT", args, "FenecQL statements, ';'-separated within one argument");
  auto* file_opt = app.add_option("-f,--file", files, "run the statements in FILE (- for stdin), ';'-separated; "
                                                      "repeatable")
                       ->allow_extra_args(false)
                       ->type_name("FILE");
  auto* params_opt = app.add_option("--params", params, "the run's one statement's parameters, as the server's\n"
                                                        "\"params\": [30, 10] for $1 $2, {\"id\": 7} for $id")
                         ->type_name("JSON");
  app.add_flag("--create", create, "create DIR if it holds no database (otherwise that is an error, exit 1)");
  if (auto rc = Parse(app, argc, argv)) return *rc;
  if (args.empty() && files.empty()) Usage("nothing to run: give a STATEMENT or -f FILE");

  // Arguments and files in the order they were given: CLI11 records each value as it parses it.
  std::vector<std::string> statements;
  size_t next_arg = 0, next_file = 0;
  for (const CLI::Option* o : app.parse_order()) {
    if (o == stmt_opt) SplitStatements(args.at(next_arg++), &statements);
    if (o == file_opt) SplitStatements(ReadInput(files.at(next_file++)), &statements);
  }
  std::optional<std::string> params_json;
  if (params_opt->count() > 0) {
    if (statements.size() != 1) Usage(fmt::format("--params is for one statement; this run has {}", statements.size()));
    // Checked whole here, so it cannot spill into the body around it, and its
    // errors are about the flag, not about a body the user never wrote.
    simdjson::dom::parser p;
    simdjson::dom::element ignored;
    if (auto ec = p.parse(params).get(ignored)) Usage(fmt::format("--params is not JSON: {}", simdjson::error_message(ec)));
    params_json = params;
  }

  std::unique_ptr<Database> db = OpenFolder(dir, create, create ? "" : " (--create makes a new database)");
  if (!db) return 1;
  query::Service service(db.get());
  int rc = 0;
  for (const std::string& s : statements) {
    // Wrapped in JSON, bytes that are not UTF-8 would become U+FFFD (the JSON
    // writer keeps answers valid that way) and be stored as such: a statement
    // that is not UTF-8 is refused here, as the server refuses such a body.
    if (size_t bad = base::FirstInvalidUtf8(s); bad != base::kUtf8Valid) {
      query::Error e{400, "utf8", "the statement is not valid UTF-8", "statement " + query::LineCol(s, bad),
                     static_cast<int64_t>(bad)};
      std::fflush(stdout);
      fmt::print(stderr, "{}\n", e.ToJson());
      rc = 1;
      break;
    }
    std::string body = "{\"statement\":";
    query::AppendJsonString(body, s);
    if (params_json) body += ",\"params\":" + *params_json;
    body += "}";
    query::Answer a = service.Query(body);
    if (a.http != 200) {
      std::fflush(stdout);
      fmt::print(stderr, "{}\n", a.body);
      rc = 1;
      break;
    }
    // stdio, not fmt::print, which throws when stdout fails; a lost answer stops the run below.
    a.body.push_back('\n');
    if (std::fwrite(a.body.data(), 1, a.body.size(), stdout) != a.body.size()) break;
  }
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    fmt::print(stderr, "fenec: writing the answers: {}\n", std::strerror(errno));
    rc = 1;
  }
  if (Status s = db->Close(); !s.ok()) {
    fmt::print(stderr, "fenec: closing {}: {}\n", dir, s.ToString());
    rc = 1;
  }
  return rc;
}

// Exit codes of fenec check (its --help says them).
constexpr int kCheckTornTail = 3, kCheckLost = 4;

// How one storage's journal reads (engine/doc/journal.md, "Recovery"),
// without opening the database: one line, and its state. A record of a
// newer format is no corruption: *refused says so, and check stops there.
journal::JournalState InspectJournal(const std::string& folder, Status* refused) {
  std::unique_ptr<Storage> st;
  if (Status s = Storage::Open(Env::Default(), folder, false, false, 0, &st); !s.ok()) {
    fmt::print("journal {}: {}\n", folder, s.ToString());
    return journal::JournalState::kClean;  // the open below says what is wrong
  }
  const Superblock& sb = st->superblock();
  journal::ReplayResult r;
  Status s = journal::ReplayJournals(
      Env::Default(), st->journal_dir(), sb.storage_id, sb.checkpoint_lsn,
      [](uint64_t, std::span<const uint8_t>) { return Status::OK(); }, &r, RecoveryMode::kPointInTime);
  if (!s.ok()) {
    fmt::print("journal {}: {}\n", folder, s.ToString());
    if (s.code() == StatusCode::kNotSupported) {
      if (refused->ok()) *refused = s;
      return journal::JournalState::kClean;
    }
    return journal::JournalState::kLost;
  }
  const journal::JournalState state = journal::StateOf(r);
  switch (state) {
    case journal::JournalState::kClean:
      fmt::print("journal {}: clean, {} records after the checkpoint (LSN {})\n", folder, r.records, sb.checkpoint_lsn);
      break;
    case journal::JournalState::kTornTail:
      fmt::print("journal {}: torn tail, {} bytes discarded after LSN {}, the last good record ({}); never "
                 "acknowledged\n",
                 folder, r.discarded_bytes, r.last_lsn, r.stop);
      break;
    case journal::JournalState::kLost:
      fmt::print("journal {}: mid-log corruption in {} at byte {} ({}): LSN {} was durable and cannot be read; "
                 "{} records of this storage after it ({} bytes)\n",
                 folder, r.bad_file, r.bad_offset, r.stop, r.need_lsn, r.records_after, r.bytes_after);
      break;
  }
  return state;
}

// The root's journal and every branch's, worst state first.
journal::JournalState InspectJournals(const std::string& dir, Status* refused) {
  journal::JournalState worst = InspectJournal(dir, refused);
  std::vector<std::string> names;
  if (Env::Default()->ListDir(dir + "/Indexes", &names).ok()) {
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      const std::string folder = dir + "/Indexes/" + name;
      if (!Env::Default()->Exists(folder + "/data.fdb")) continue;
      worst = std::max(worst, InspectJournal(folder, refused));
    }
  }
  return worst;
}

int CheckCommand(int argc, char** argv) {
  CLI::App app{"fenec check DIR: read every storage's journal (the root's and each index's) and say which case "
               "it is in: clean, a torn tail (bytes after the last good record, never acknowledged), or mid-log "
               "corruption (a durable record that cannot be read: the file, the byte offset, the records after "
               "it). Then, unless corrupt, recover the folder, decode every document, verify the indexes, and "
               "print each collection's count, then ok. Exit status: 0 clean and ok; 3 a torn tail, recovered, "
               "and ok; 4 mid-log corruption (the folder is not opened, nothing changes; opening it with "
               "Options::recovery = kPointInTime keeps what precedes the bad record); 1 another problem (one line "
               "on stderr); 2 bad usage.",
               "fenec check"};
  std::string dir;
  app.add_option("DIR", dir, "data folder")->required();
  if (auto rc = Parse(app, argc, argv)) return *rc;
  if (!Env::Default()->Exists(dir + "/data.fdb")) {
    fmt::print(stderr, "fenec: no database (data.fdb) in {}\n", dir);
    return 1;
  }
  Status refused;
  const journal::JournalState journals = InspectJournals(dir, &refused);
  if (!refused.ok()) {
    fmt::print(stderr, "fenec: {}: a journal holds records of a newer format; not opened\n", dir);
    return 1;
  }
  if (journals == journal::JournalState::kLost) {
    fmt::print(stderr, "fenec: {}: acknowledged commits are unreadable (mid-log corruption); not opened\n", dir);
    return kCheckLost;
  }
  auto db = OpenFolder(dir, false, "");
  if (!db) return 1;
  Stats st = db->GetStats();
  fmt::print("recovered {} journal records, {} torn tail bytes ignored\n", st.recovered_records,
             st.recovery_discarded_bytes);
  if (st.branches > 0)
    fmt::print("indexes: {} branch storages, {} loaded from their own folders, {} rebuilt from the documents; "
               "journals {}\n",
               st.branches, st.branches_recovered, st.branches_rebuilt, st.journals_shared ? "shared" : "separate");
  if (Status s = db->Check(); !s.ok()) {
    fmt::print(stderr, "fenec: {}\n", s.ToString());
    return 1;
  }
  for (const auto& name : db->ListCollections()) {
    auto c = db->FindCollection(name);
    fmt::print("{}: {} documents\n", name, *db->Count(*c));
    // The indexes the catalog declares, as CREATE COLLECTION wrote them.
    auto schema = db->GetSchema(*c);
    for (const Field& f : schema.ok() ? schema->fields : std::vector<Field>{}) {
      if (f.unique) fmt::print("  {} {} @unique\n", f.name, FieldTypeName(f.type));
      if (f.text_indexed) fmt::print("  {} text @text\n", f.name);
      if (f.hnsw) fmt::print("  {} vector({}) @hnsw({})\n", f.name, f.dim, VectorMetricName(f.metric));
    }
  }
  if (st.vector_indexes > 0)
    fmt::print("vectors: {} @hnsw indexes, {} documents in their graphs ({} nodes, {} tombstones)\n",
               st.vector_indexes, st.vector_owners, st.vector_nodes, st.vector_tombstones);
  fmt::print("ok\n");
  return journals == journal::JournalState::kTornTail ? kCheckTornTail : 0;
}

// An @hnsw branch: its graph loaded from the folder alone, the tail applied.
bool HnswSummary(const BranchState& st) {
  uint32_t dim = st.dim;
  for (const BranchOp& op : st.tail)
    if (dim == 0 && op.put) dim = static_cast<uint32_t>(op.value.size() / 4);
  size_t puts = 0;
  for (const BranchOp& op : st.tail) puts += op.put;
  fmt::print("@hnsw: dim {}, metric {}, m {}; checkpoint graph {} bytes; tail {} puts, {} erases\n", dim,
             st.graph.empty() ? "-" : VectorMetricName(static_cast<VectorMetric>(st.metric)), st.m, st.graph.size(),
             puts, st.tail.size() - puts);
  if (dim == 0) return true;  // nothing ever indexed
  HnswOptions o;
  if (st.m != 0) o.m = st.m;
  auto vf = VectorField::Create(Field::Vector("v", dim).Hnsw(static_cast<VectorMetric>(st.metric)), 0, o);
  Status s = vf.ok() ? LoadFromBranch(st, vf->get()) : vf.status();
  if (!s.ok()) {
    fmt::print(stderr, "fenec: loading the graph: {}\n", s.ToString());
    return false;
  }
  VectorFieldStats v = (*vf)->stats();
  fmt::print("graph: {} nodes, {} documents, {} tombstones, top level {}; {} vectors read to load it\n",
             v.index.nodes, v.index.owners, v.index.tombstones, v.index.max_level, v.index.vectors_read_after_load);
  return true;
}

int BranchCommand(int argc, char** argv) {
  CLI::App app{"fenec branch DIR [--list]: open one index's branch storage alone (DIR/Indexes/c<C>.f<F>.<kind>, "
               "see engine/doc/journal.md) and print what it recovers from its own folder: for troubleshooting "
               "an index.",
               "fenec branch"};
  std::string dir;
  bool list = false;
  app.add_option("DIR", dir, "branch folder")->required();
  app.add_flag("--list", list, "also print every entry: id, then the value (@unique key bytes or @text text; "
                               "an @hnsw branch: the ids only)");
  if (auto rc = Parse(app, argc, argv)) return *rc;
  BranchState st;
  if (Status s = OpenBranchAlone(Env::Default(), dir, &st); !s.ok()) {
    fmt::print(stderr, "fenec: {}\n", s.ToString());
    return 1;
  }
  fmt::print("entries {}, through root LSN {}; own checkpoint LSN {}, last LSN {}, {} journal records replayed\n",
             st.entries(), st.root_lsn, st.checkpoint_lsn, st.last_lsn, st.records);
  if (st.hnsw && !HnswSummary(st)) return 1;
  if (list && st.hnsw) {
    std::vector<uint8_t> live = st.present;  // the checkpoint's, then the tail's changes
    for (const BranchOp& op : st.tail) {
      if (live.size() <= op.id) live.resize(op.id + 1, 0);
      live[op.id] = op.put;
    }
    for (uint64_t i = 0; i < live.size(); ++i)
      if (live[i]) fmt::print("{}\n", i);
    return 0;
  }
  if (list) {
    for (uint64_t i = 0; i < st.present.size(); ++i)
      if (st.present[i]) fmt::print("{}\t{}\n", i, fmt::format("{:?}", st.values[i]));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // The first argument alone decides, so a statement or a folder can never be taken for a command.
  std::string_view first = argc > 1 ? argv[1] : "";
  if (first == "check") return CheckCommand(argc - 1, argv + 1);
  if (first == "branch") return BranchCommand(argc - 1, argv + 1);
  return RunStatements(argc, argv);
}
