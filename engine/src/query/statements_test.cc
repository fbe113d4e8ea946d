// The statement registry (statements.h) against what it claims: every row
// complete, its keyword parsed into its kind in any case, each kind parsed,
// planned and run end to end with its traits doing what they say, and the
// rows the statements engine/doc/statements.md lists, in its order.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fenec/database.h"
#include "engine/src/base/testing.h"
#include "engine/src/query/request_limits.h"
#include "engine/src/query/service.h"
#include "engine/src/query/statements.h"

namespace fenec::query {
namespace statements_test {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

TEST(Statements, EveryRowIsComplete) {
  ASSERT_FALSE(Statements().empty());
  std::set<std::string> keywords, names;
  for (size_t i = 0; i < Statements().size(); ++i) {
    const StatementDef& d = Statements()[i];
    SCOPED_TRACE(d.name);
    EXPECT_EQ(static_cast<size_t>(d.kind), i) << "row i has kind i";
    EXPECT_EQ(&StatementOf(d.kind), &d);
    ASSERT_FALSE(d.keyword.empty());
    for (char c : d.keyword) EXPECT_TRUE(std::isupper(static_cast<unsigned char>(c))) << d.keyword;
    ASSERT_NE(d.name, nullptr);
    EXPECT_NE(std::string(d.name), "");
    EXPECT_EQ(StatementKindName(d.kind), std::string(d.name));
    EXPECT_NE(d.parse, nullptr);
    EXPECT_NE(d.plan, nullptr);
    EXPECT_NE(d.run, nullptr);
    EXPECT_TRUE(keywords.insert(std::string(d.keyword)).second) << "keyword given twice: " << d.keyword;
    EXPECT_TRUE(names.insert(d.name).second) << "name given twice: " << d.name;
    EXPECT_EQ(FindStatement(d.keyword), &d);
    EXPECT_EQ(FindStatement(Lower(d.keyword)), &d);
  }
  EXPECT_EQ(FindStatement("SELECT"), nullptr);
}

// The keyword alone, in any case: the parse gets past it into the row's
// production, which then wants more (never "unknown statement").
TEST(Statements, EveryKeywordParsesIntoItsProduction) {
  for (const StatementDef& d : Statements()) {
    std::string mixed = Lower(d.keyword);
    mixed[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(mixed[0])));
    for (const std::string& kw : {std::string(d.keyword), Lower(d.keyword), mixed}) {
      ParseResult r = Parse(kw);
      ASSERT_FALSE(r.ok()) << kw;
      EXPECT_EQ(r.error.code, "parse") << kw;
      EXPECT_EQ(r.error.offset, static_cast<int64_t>(kw.size())) << kw << ": " << r.error.message;
      EXPECT_EQ(r.error.message.find("unknown statement"), std::string::npos) << kw << ": " << r.error.message;
    }
  }
  ParseResult r = Parse("SELECT 1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error.message, "unknown statement 'SELECT': expected " + StatementKeywords());
}

// One statement of each kind, in the order they can run on an empty
// database. A row without one here fails the test below: add its example.
const std::vector<std::pair<std::string, std::string>>& Examples() {
  static const std::vector<std::pair<std::string, std::string>> kExamples = {
      {"create", "CREATE COLLECTION t (name TEXT, n INT)"},
      {"put", "PUT t {name: 'a', n: 1}"},
      {"get", "GET t 1"},
      {"find", "FIND t WHERE n >= 1"},
      {"aggregate", "AGGREGATE t COUNT(*)"},
      {"delete", "DELETE t 1"},
      {"drop", "DROP COLLECTION t"},
  };
  return kExamples;
}

class StatementsRun : public ::testing::Test {
 protected:
  void SetUp() override {
    Options o;
    o.durability = Durability::kBuffered;
    auto db = Database::Open(dir_.path() + "/db", o);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    svc_ = std::make_unique<Service>(db_.get());
  }
  void TearDown() override {
    if (db_) {
      EXPECT_TRUE(db_->Close().ok());
    }
  }
  static std::string Body(const std::string& text) { return "{\"statement\": \"" + text + "\"}"; }

  base::ScratchDir dir_;
  std::unique_ptr<Database> db_;
  std::unique_ptr<Service> svc_;
};

TEST_F(StatementsRun, EveryKindParsesPlansAndRuns) {
  std::map<std::string, std::string> example(Examples().begin(), Examples().end());
  for (const StatementDef& d : Statements()) {
    EXPECT_TRUE(example.count(d.name)) << "no example of '" << d.name << "' in Examples(): add one";
  }
  for (const auto& [name, text] : Examples()) {
    SCOPED_TRACE(text);
    ParseResult parsed = Parse(text);
    ASSERT_TRUE(parsed.ok()) << parsed.error.message;
    const StatementDef& d = StatementOf(parsed.statement->kind);
    EXPECT_EQ(std::string(d.name), name);

    // Its traits, each seen doing what it says.
    std::string batch = "{\"statements\": [" + Body(text) + "]}";
    Answer in_batch = svc_->Batch(batch);
    EXPECT_EQ(in_batch.http == 200, d.traits.batchable) << in_batch.body;
    if (!d.traits.batchable) {
      EXPECT_NE(in_batch.body.find("\"code\":\"batch\""), std::string::npos) << in_batch.body;
    }

    std::string body = Body(text);
    Answer a = svc_->Query(body);
    EXPECT_EQ(a.http, 200) << a.body;
    EXPECT_EQ(std::string(a.kind), name);
    if (d.traits.clears_plan_cache) {
      EXPECT_EQ(svc_->cache().size(), 0u);
    } else {
      EXPECT_GT(svc_->cache().size(), 0u);
    }
    body = Body(text);
    std::optional<Answer> inline_answer = svc_->QueryPointRead(body);
    EXPECT_EQ(inline_answer.has_value(), d.traits.point_read);
    if (inline_answer) {
      EXPECT_EQ(inline_answer->body, a.body);
    }
  }
}

// The reference's statements: the table under "## Statements" and the
// grammar's `statement = ...` rule, each alternative a rule of its own
// starting with its keyword.
TEST(Statements, RowsAreTheReferencesStatements) {
  const char* path = std::getenv("FENEC_STATEMENTS_DOC");
  ASSERT_NE(path, nullptr) << "meson gives FENEC_STATEMENTS_DOC";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();

  std::vector<std::string> keywords, names;
  for (const StatementDef& d : Statements()) {
    keywords.emplace_back(d.keyword);
    names.emplace_back(d.name);
  }

  // The table: each row's first cell starts with the statement's keyword.
  const size_t table = doc.find("\n## Statements\n");
  ASSERT_NE(table, std::string::npos);
  const size_t table_end = doc.find("\n## ", table + 1);
  std::vector<std::string> listed;
  std::istringstream lines(doc.substr(table, table_end - table));
  std::regex row(R"(^\| `([A-Z]+) )");
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    if (listed.empty() || listed.back() != m[1].str()) listed.push_back(m[1].str());
  }
  EXPECT_EQ(listed, keywords) << "the table under '## Statements' lists these statements, in this order";

  // The grammar.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(doc, m, std::regex(R"(\nstatement\s*=\s*([^;]*);)")));
  std::vector<std::string> alternatives;
  std::istringstream alts(m[1].str());
  for (std::string a; std::getline(alts, a, '|');) {
    a.erase(0, a.find_first_not_of(" \n"));
    a.erase(a.find_last_not_of(" \n") + 1);
    alternatives.push_back(a);
  }
  EXPECT_EQ(alternatives, names) << "the grammar's statement rule";
  for (const StatementDef& d : Statements()) {
    std::regex rule("\\n" + std::string(d.name) + "\\s*=\\s*\"" + std::string(d.keyword) + "\"");
    EXPECT_TRUE(std::regex_search(doc, rule)) << "no grammar rule " << d.name << " = \"" << d.keyword << "\" ...";
  }
}

}  // namespace statements_test
}  // namespace fenec::query
