// Recursive descent over the tokens as the lexer makes them: one function
// per rule of the grammar in engine/doc/statements.md, the statement's
// keyword choosing its production from the registry (statements.h). The first error stops
// the parse and names what was expected where, since a client fixes one
// thing at a time. Only the last few tokens are held (a ring), and each
// document's keys and the field list are checked for repeats by hash, so a
// parse's memory and work grow with the statement and no faster.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <cstring>

#include <fmt/format.h>

#include "engine/src/query/json_out.h"
#include "engine/src/query/lexer.h"
#include "engine/src/query/name_table.h"
#include "engine/src/query/request_limits.h"
#include "engine/src/query/number.h"
#include "engine/src/query/statement.h"
#include "engine/src/query/statements.h"

namespace fenec::query {

std::string LineCol(std::string_view text, size_t offset) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return fmt::format("{}:{}", line, col);
}

std::string Error::ToJson() const {
  std::string out = "{\"error\":{\"code\":";
  AppendJsonString(out, code);
  out += ",\"message\":";
  AppendJsonString(out, message);
  out += ",\"where\":";
  AppendJsonString(out, where);
  if (offset >= 0) fmt::format_to(std::back_inserter(out), ",\"offset\":{}", offset);
  out += "}}";
  return out;
}

const char* AggFnName(AggFn fn) {
  switch (fn) {
    case AggFn::kCount: return "count";
    case AggFn::kSum: return "sum";
    case AggFn::kMin: return "min";
    case AggFn::kMax: return "max";
  }
  return "?";
}

std::string AggNode::Label() const {
  return fmt::format("{}({})", AggFnName(fn), field.empty() ? "*" : field);
}

// Thrown only inside this file, caught by Parse: it keeps each rule a
// straight line of "expect this, then that".
struct ParseFailure {
  size_t offset;
  std::string message;
  const char* limit = nullptr;  // set: the statement is over this one of the Limits
  size_t limit_value = 0;
};

class Grammar {
 public:
  Grammar(std::string_view text, const Limits& limits) : text_(text), limits_(limits), lexer_(text) { Fill(); }

  // The statement's keyword finds its row in the registry, whose production
  // reads the rest.
  Statement Run() {
    const Token& verb = Peek();
    if (verb.kind != Tok::kIdent) Fail(verb, "expected a statement: " + StatementKeywords());
    const StatementDef* def = FindStatement(verb.text);
    if (def == nullptr) Fail(verb, fmt::format("unknown statement '{}': expected {}", verb.text, StatementKeywords()));
    Take();
    Statement st;
    st.kind = def->kind;
    def->parse(*this, st);
    if (Peek().kind != Tok::kEnd) Fail(Peek(), fmt::format("unexpected '{}' after the statement", Show(Peek())));
    return st;
  }

  // The failure to answer once the parse has failed with f: the statement
  // is judged as if lexed whole first, so a token past max_tokens, or else a
  // lexing error anywhere in it, beats what the grammar (or a document's
  // limits) found; the rest is lexed, nothing kept, to find out.
  ParseFailure Judge(ParseFailure f) {
    if (lexed_end_) return f;
    try {
      while (!lexed_end_) Lex();
    } catch (ParseFailure& later) {
      return later;
    }
    return f;
  }

 private:
  // Tokens stay in the ring for kRing - 1 Takes after theirs: a rule keeps
  // a reference to a token it took only while it reads the next one or two.
  static constexpr size_t kRing = 4;

  const Token& Peek() const { return ring_[pos_ % kRing]; }
  const Token& Take() {
    const Token& t = ring_[pos_ % kRing];
    if (t.kind != Tok::kEnd) {
      ++pos_;
      Fill();
    }
    return t;
  }
  void Fill() { ring_[pos_ % kRing] = Lex(); }
  // The next token; a lexing error or one token past max_tokens throws.
  Token Lex() {
    Token t = lexer_.Next();
    if (t.kind == Tok::kEnd) {
      lexed_end_ = true;
      return t;
    }
    if (t.kind == Tok::kError) {
      lexed_end_ = true;
      throw ParseFailure{t.offset, std::move(t.text)};
    }
    ++Work().tokens;
    if (++tokens_ > limits_.max_tokens) {
      lexed_end_ = true;
      throw ParseFailure{t.offset, fmt::format("the statement has more than {} tokens", limits_.max_tokens),
                         "max_tokens", limits_.max_tokens};
    }
    return t;
  }

  [[noreturn]] void Fail(const Token& at, std::string message) { Fail(at.offset, std::move(message)); }
  [[noreturn]] void Fail(size_t offset, std::string message) { throw ParseFailure{offset, std::move(message)}; }
  [[noreturn]] void OverLimit(size_t offset, std::string message, const char* limit, size_t value) {
    throw ParseFailure{offset, std::move(message), limit, value};
  }

  static std::string Show(const Token& t) {
    if (t.kind == Tok::kEnd) return "end of statement";
    if (t.kind == Tok::kString) return "'" + t.text + "'";
    if (t.kind == Tok::kParam) return "$" + t.text;
    return t.text;
  }
  std::string Found() const { return Peek().kind == Tok::kEnd ? "the end of the statement" : "'" + Show(Peek()) + "'"; }

  bool IsKw(const Token& t, std::string_view kw) const { return t.kind == Tok::kIdent && IEquals(t.text, kw); }
  bool AcceptKw(std::string_view kw) {
    if (!IsKw(Peek(), kw)) return false;
    Take();
    return true;
  }
  void ExpectKw(std::string_view kw) {
    if (!AcceptKw(kw)) Fail(Peek(), fmt::format("expected {}, found {}", kw, Found()));
  }
  bool AcceptPunct(char c) {
    if (Peek().kind != Tok::kPunct || Peek().text[0] != c) return false;
    Take();
    return true;
  }
  void ExpectPunct(char c, std::string_view what = {}) {
    if (!AcceptPunct(c)) {
      Fail(Peek(), fmt::format("expected '{}'{}{}, found {}", c, what.empty() ? "" : " ", what, Found()));
    }
  }
  const Token& ExpectName(std::string_view what) {
    if (Peek().kind != Tok::kIdent) Fail(Peek(), fmt::format("expected {}, found {}", what, Found()));
    return Take();
  }

  void CollectionName(Statement& st) {
    const Token& t = ExpectName("a collection name");
    st.collection = t.text;
    st.collection_offset = t.offset;
  }

 public:
  // The statements' productions, each after its keyword (statements.h names
  // them), with the rules they share.

  // CREATE COLLECTION name ( field type [@unique] [@text], ... )
  void Create(Statement& st) {
    ExpectKw("COLLECTION");
    CollectionName(st);
    ExpectPunct('(', "to open the field list");
    NameTable names;
    auto name_of = [&](int i) -> const std::string& { return st.fields[i].field.name; };
    do {
      FieldDef def;
      const Token& name = ExpectName("a field name");
      if (names.Insert(name.text, static_cast<int>(st.fields.size()), name_of) >= 0) {
        Fail(name, fmt::format("field '{}' is declared twice", name.text));
      }
      def.offset = name.offset;
      def.field.name = name.text;
      const Token& type = ExpectName("a field type (TEXT, INT, FLOAT, BOOL or VECTOR(n))");
      if (IEquals(type.text, "TEXT")) def.field.type = FieldType::kText;
      else if (IEquals(type.text, "INT")) def.field.type = FieldType::kInt;
      else if (IEquals(type.text, "FLOAT")) def.field.type = FieldType::kFloat;
      else if (IEquals(type.text, "BOOL")) def.field.type = FieldType::kBool;
      else if (IEquals(type.text, "VECTOR")) {
        def.field.type = FieldType::kVector;
        ExpectPunct('(', "after VECTOR: its dimension");
        const Token& dim = Peek();
        uint32_t n = 0;
        if (dim.kind != Tok::kInt || std::from_chars(dim.text.data(), dim.text.data() + dim.text.size(), n).ec !=
                                         std::errc{} || n == 0) {
          Fail(dim, fmt::format("expected the vector's dimension (a whole number > 0), found {}", Found()));
        }
        Take();
        def.field.dim = n;
        ExpectPunct(')', "after the vector's dimension");
      } else {
        Fail(type, fmt::format("unknown type '{}': expected TEXT, INT, FLOAT, BOOL or VECTOR(n)", type.text));
      }
      while (AcceptPunct('@')) {
        const Token& attr = ExpectName("an attribute (@unique, @text or @hnsw)");
        // Given twice, an attribute is a slip at best and, for @hnsw with
        // two metrics, a choice silently made: refused either way.
        bool* given = IEquals(attr.text, "unique") ? &def.field.unique
                      : IEquals(attr.text, "text") ? &def.field.text_indexed
                      : IEquals(attr.text, "hnsw") ? &def.field.hnsw
                                                   : nullptr;
        if (given == nullptr) {
          Fail(attr, fmt::format("unknown attribute '@{}': expected @unique, @text or @hnsw", attr.text));
        }
        if (*given) Fail(attr, fmt::format("attribute @{} given twice for field '{}'", attr.text, def.field.name));
        if (given == &def.field.hnsw) {
          Hnsw(def.field);
        } else {
          *given = true;
        }
      }
      st.fields.push_back(std::move(def));
    } while (AcceptPunct(','));
    ExpectPunct(')', "to close the field list");
  }

  // DROP COLLECTION name
  void Drop(Statement& st) {
    ExpectKw("COLLECTION");
    CollectionName(st);
  }

  // @hnsw [( l2 | cosine | ip )]
  void Hnsw(Field& f) {
    f.hnsw = true;
    if (!AcceptPunct('(')) return;
    const Token& m = ExpectName("a metric: l2, cosine or ip");
    if (IEquals(m.text, "l2")) f.metric = VectorMetric::kL2;
    else if (IEquals(m.text, "cosine")) f.metric = VectorMetric::kCosine;
    else if (IEquals(m.text, "ip")) f.metric = VectorMetric::kInnerProduct;
    else Fail(m, fmt::format("unknown metric '{}': expected l2, cosine or ip", m.text));
    ExpectPunct(')', "after the metric");
  }

  // GET name id | DELETE name id
  void ById(Statement& st) {
    CollectionName(st);
    st.id = ValueOperand("a document id (a number or a parameter)");
  }

  // FIND name [NEAR field (vector | param) [EF n]] [WHERE ...] [AFTER id] [LIMIT n]
  void Find(Statement& st) {
    CollectionName(st);
    if (AcceptKw("NEAR")) {
      const Token& f = ExpectName("the vector field to search");
      st.near_field = f.text;
      st.near_field_offset = f.offset;
      const Token& v = Peek();
      if (v.kind != Tok::kParam && !(v.kind == Tok::kPunct && v.text == "["))
        Fail(v, fmt::format("expected the vector to search near ('[...]' or a parameter), found {}", Found()));
      st.near_vector = ValueOperand("a vector");
      if (AcceptKw("EF")) {
        const Token& t = Peek();
        if (t.kind != Tok::kInt && t.kind != Tok::kParam)
          Fail(t, fmt::format("expected the search's ef (a number or a parameter), found {}", Found()));
        st.ef = ValueOperand("an ef");
      }
    }
    Where(st);
    if (AcceptKw("AFTER")) {
      const Token& t = Peek();
      if (t.kind != Tok::kInt && t.kind != Tok::kParam)
        Fail(t, fmt::format("expected the id to start after (a number or a parameter), found {}", Found()));
      st.after = ValueOperand("an id to start after");
    }
    if (AcceptKw("LIMIT")) {
      const Token& t = Peek();
      if (t.kind != Tok::kInt && t.kind != Tok::kParam) Fail(t, fmt::format("expected a limit (a number or a parameter), found {}", Found()));
      st.limit = ValueOperand("a limit");
    }
  }

  void Where(Statement& st) {
    if (!AcceptKw("WHERE")) return;
    do {
      CondNode c;
      const Token& f = ExpectName("a field name");
      c.field = f.text;
      c.field_offset = f.offset;
      const Token& op = Peek();
      if (op.kind == Tok::kOp) {
        Take();
        if (op.text == "=") c.op = CompareOp::kEq;
        else if (op.text == "!=") c.op = CompareOp::kNe;
        else if (op.text == "<") c.op = CompareOp::kLt;
        else if (op.text == "<=") c.op = CompareOp::kLe;
        else if (op.text == ">") c.op = CompareOp::kGt;
        else c.op = CompareOp::kGe;
      } else if (AcceptKw("CONTAINS")) {
        c.op = CompareOp::kContains;
      } else {
        Fail(op, fmt::format("expected a comparison (= != < <= > >= CONTAINS), found {}", Found()));
      }
      c.value = ValueOperand("a value");
      st.where.push_back(std::move(c));
    } while (AcceptKw("AND"));
  }

  // PUT name {doc} | PUT name [{doc}, ...] | PUT name $param
  void Put(Statement& st) {
    CollectionName(st);
    const Token& t = Peek();
    const size_t list_at = t.offset;
    if (t.kind == Tok::kParam) {
      st.docs_param = ValueOperand("documents");
    } else if (t.kind == Tok::kPunct && t.text == "{") {
      st.docs.push_back(Doc());
    } else if (t.kind == Tok::kPunct && t.text == "[") {
      Take();
      if (!(Peek().kind == Tok::kPunct && Peek().text == "]")) {
        do {
          if (st.docs.size() == limits_.max_docs) {
            OverLimit(Peek().offset, fmt::format("a PUT lands at most {} documents", limits_.max_docs), "max_docs",
                      limits_.max_docs);
          }
          st.docs.push_back(Doc());
        } while (AcceptPunct(','));
      }
      ExpectPunct(']', "to close the list of documents");
      if (st.docs.empty()) Fail(list_at, "a PUT needs at least one document");
    } else {
      Fail(t, fmt::format("expected a document '{{...}}', a list '[{{...}}, ...]' or a parameter, found {}", Found()));
    }
  }

  DocNode Doc() {
    DocNode d;
    d.offset = Peek().offset;
    ExpectPunct('{', "to open a document");
    if (!AcceptPunct('}')) {
      NameTable keys;
      auto key_of = [&](int i) -> const std::string& { return d.entries[i].field; };
      do {
        DocNode::Entry e;
        const Token& f = Peek();
        if (f.kind != Tok::kIdent && f.kind != Tok::kString) Fail(f, fmt::format("expected a field name, found {}", Found()));
        if (d.entries.size() == limits_.max_doc_keys) {
          OverLimit(f.offset, fmt::format("a document has at most {} keys", limits_.max_doc_keys), "max_doc_keys",
                    limits_.max_doc_keys);
        }
        Take();
        e.field = f.text;
        e.offset = f.offset;
        if (keys.Insert(e.field, static_cast<int>(d.entries.size()), key_of) >= 0) {
          Fail(f, fmt::format("field '{}' given twice in one document", e.field));
        }
        ExpectPunct(':', "after the field name");
        e.value = ValueOperand("a value");
        d.entries.push_back(std::move(e));
      } while (AcceptPunct(','));
      ExpectPunct('}', "to close the document");
    }
    return d;
  }

  // AGGREGATE name fn(field|*), ... [WHERE ...] [GROUP BY field]
  void Aggregate(Statement& st) {
    CollectionName(st);
    do {
      AggNode a;
      const Token& fn = ExpectName("an aggregate: COUNT, SUM, MIN or MAX");
      a.offset = fn.offset;
      if (IEquals(fn.text, "COUNT")) a.fn = AggFn::kCount;
      else if (IEquals(fn.text, "SUM")) a.fn = AggFn::kSum;
      else if (IEquals(fn.text, "MIN")) a.fn = AggFn::kMin;
      else if (IEquals(fn.text, "MAX")) a.fn = AggFn::kMax;
      else Fail(fn, fmt::format("unknown aggregate '{}': expected COUNT, SUM, MIN or MAX", fn.text));
      ExpectPunct('(', fmt::format("after {}", fn.text));
      if (a.fn == AggFn::kCount && AcceptPunct('*')) {
        // count of documents
      } else {
        a.field = ExpectName(a.fn == AggFn::kCount ? "a field name or '*'" : "a field name").text;
      }
      ExpectPunct(')', "to close the aggregate");
      st.aggs.push_back(std::move(a));
    } while (AcceptPunct(','));
    Where(st);
    if (AcceptKw("GROUP")) {
      ExpectKw("BY");
      const Token& g = ExpectName("a field name to group by");
      st.group_by = g.text;
      st.group_by_offset = g.offset;
    }
  }

 private:

  // A literal (number, string, true/false/null, [vector]) or a parameter.
  Operand ValueOperand(std::string_view what) {
    const Token& t = Peek();
    Operand o;
    o.offset = t.offset;
    switch (t.kind) {
      case Tok::kParam:
        o.kind = Operand::Kind::kParam;
        o.param = t.text;
        o.positional = t.text[0] >= '0' && t.text[0] <= '9';
        Take();
        return o;
      case Tok::kInt: {
        int64_t v = 0;
        if (std::from_chars(t.text.data(), t.text.data() + t.text.size(), v).ec != std::errc{}) {
          Fail(t, fmt::format("number {} does not fit in a 64-bit integer", t.text));
        }
        o.literal = Value(v);
        Take();
        return o;
      }
      case Tok::kFloat: {
        // Past a double's range it is kept as the infinity it rounds to: the
        // planner refuses it as `type` for the field it is meant for.
        double v = 0;
        if (ReadNumber(t.text, &v) == NumberRead::kSyntax) Fail(t, fmt::format("number {} is not a float", t.text));
        o.literal = Value(v);
        Take();
        return o;
      }
      case Tok::kString:
        o.literal = Value(t.text);
        Take();
        return o;
      case Tok::kIdent:
        if (IEquals(t.text, "true") || IEquals(t.text, "false")) {
          o.literal = Value(IEquals(t.text, "true"));
          Take();
          return o;
        }
        if (IEquals(t.text, "null")) {
          Take();
          return o;
        }
        break;
      case Tok::kPunct:
        if (t.text == "[") return VectorLiteral();
        break;
      default: break;
    }
    Fail(t, fmt::format("expected {}, found {}", what, Found()));
  }

  // Each number read straight into its float, in one pass over the text.
  Operand VectorLiteral() {
    Operand o;
    o.offset = Take().offset;
    std::vector<float> v;
    if (!AcceptPunct(']')) {
      do {
        const Token& n = Peek();
        if (n.kind != Tok::kInt && n.kind != Tok::kFloat) Fail(n, fmt::format("expected a number in the vector, found {}", Found()));
        float f = 0;
        // Out of a float's range: kept as what a float makes of it (an
        // infinity, or zero), so the planner answers `type` for the value
        // rather than `parse` for well-formed text.
        if (ReadNumber(n.text, &f) == NumberRead::kSyntax) Fail(n, fmt::format("number {} is not a float", n.text));
        v.push_back(f);
        Take();
      } while (AcceptPunct(','));
      ExpectPunct(']', "to close the vector");
    }
    o.literal = Value(std::move(v));
    return o;
  }

  std::string_view text_;
  const Limits& limits_;
  Lexer lexer_;
  Token ring_[kRing];
  size_t pos_ = 0;       // the token Peek gives, counted from the first
  size_t tokens_ = 0;    // tokens lexed, kEnd not counted
  bool lexed_end_ = false;  // kEnd, a lexing error or max_tokens reached: nothing more to lex
};

void ParseCreate(Grammar& g, Statement& st) { g.Create(st); }
void ParseDrop(Grammar& g, Statement& st) { g.Drop(st); }
void ParseById(Grammar& g, Statement& st) { g.ById(st); }
void ParseFind(Grammar& g, Statement& st) { g.Find(st); }
void ParsePut(Grammar& g, Statement& st) { g.Put(st); }
void ParseAggregate(Grammar& g, Statement& st) { g.Aggregate(st); }

ParseResult Parse(std::string_view text) { return Parse(text, Limits{}); }

ParseResult Parse(std::string_view text, const Limits& limits) {
  ParseResult r;
  if (text.size() > limits.max_statement_bytes) {
    r.error = TooLarge(fmt::format("the statement is {} bytes, over {}", text.size(), limits.max_statement_bytes),
                       "statement", "max_statement_bytes", limits.max_statement_bytes,
                       static_cast<int64_t>(limits.max_statement_bytes));
    return r;
  }
  std::optional<ParseFailure> failed;
  try {
    Grammar parser(text, limits);
    try {
      r.statement = parser.Run();
    } catch (ParseFailure& f) {
      failed = parser.Judge(std::move(f));
    }
  } catch (ParseFailure& f) {  // the constructor's first token
    failed = std::move(f);
  }
  if (!failed) return r;
  const std::string place = "statement " + LineCol(text, failed->offset);
  if (failed->limit != nullptr) {
    r.error = TooLarge(std::move(failed->message), place, failed->limit, failed->limit_value,
                       static_cast<int64_t>(failed->offset));
    return r;
  }
  r.error.http = 400;
  r.error.code = "parse";
  r.error.message = std::move(failed->message);
  r.error.where = place;
  r.error.offset = static_cast<int64_t>(failed->offset);
  return r;
}

}  // namespace fenec::query
