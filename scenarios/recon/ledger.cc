#include "scenarios/recon/ledger.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>

namespace fenec::scenarios::recon {

const char* const kCreateAccounts =
    R"j({"statement": "CREATE COLLECTION accounts (name TEXT @unique, owner INT, opening INT)"})j";
const char* const kCreateEntries =
    R"j({"statement": "CREATE COLLECTION entries (key TEXT @unique, transfer INT, account INT, amount INT, seq INT, client INT)"})j";
const char* const kReconcile =
    R"j({"statement": "AGGREGATE entries COUNT(*), SUM(amount), MAX(seq) GROUP BY account"})j";

namespace {

constexpr const char* kPut =
    "PUT entries {key: $1, transfer: $2, account: $3, amount: $4, seq: $5, client: $6}";

uint64_t TransferId(int client, uint64_t seq) { return static_cast<uint64_t>(client + 1) * 1000000000000ull + seq; }

}  // namespace

Books::Books() : chunks_(kMaxChunks) {}

bool Books::Append(const Transfer& t) {
  const uint64_t n = size_.load(std::memory_order_relaxed);
  const size_t chunk = n / kChunk;
  if (chunk >= kMaxChunks) return false;
  if (!chunks_[chunk]) chunks_[chunk] = std::make_unique<Transfer[]>(kChunk);
  chunks_[chunk][n % kChunk] = t;
  size_.store(n + 1, std::memory_order_release);
  return true;
}

std::vector<int64_t> Books::Movement(uint64_t upto, int accounts) const {
  std::vector<int64_t> m(static_cast<size_t>(accounts) + 1, 0);
  upto = std::min<uint64_t>(upto, size());
  for (uint64_t i = 0; i < upto; ++i) {
    const Transfer& t = chunks_[i / kChunk][i % kChunk];
    m[t.from] -= t.amount;
    m[t.to] += t.amount;
  }
  return m;
}

std::string CheckInvariant(const LedgerShape& shape, const std::vector<AccountTotals>& rows,
                           const std::vector<const Books*>& books) {
  const int n = shape.accounts();
  std::vector<AccountTotals> by_account(static_cast<size_t>(n) + 1);
  int64_t total = 0;
  for (const auto& r : rows) {
    if (r.account < 1 || r.account > n) return fmt::format("entries for unknown account {}", r.account);
    by_account[r.account] = r;
    total += r.sum;
  }
  if (total != 0) return fmt::format("all entries sum to {}, not 0", total);
  for (int c = 0; c < shape.clients; ++c) {
    int64_t s = 0, count = 0;
    for (int a = shape.first_account(c); a < shape.first_account(c) + shape.accounts_per_client; ++a) {
      s = std::max(s, by_account[a].max_seq);
      count += by_account[a].count;
    }
    if (static_cast<uint64_t>(s) > books[c]->size()) {
      return fmt::format("client {}: the database shows transfer {} but only {} were sent", c, s, books[c]->size());
    }
    if (count != 2 * s) {
      return fmt::format("client {}: {} entries for transfers 1..{} (want {}): a leg without its pair, a gap or a double",
                         c, count, s, 2 * s);
    }
    std::vector<int64_t> want = books[c]->Movement(static_cast<uint64_t>(s), n);
    for (int a = shape.first_account(c); a < shape.first_account(c) + shape.accounts_per_client; ++a) {
      if (by_account[a].sum != want[a]) {
        return fmt::format("account {}: entries sum to {}, the books say {} after client {}'s transfer {}", a,
                           by_account[a].sum, want[a], c, s);
      }
    }
  }
  return "";
}

std::string ParseTotals(const std::string& json, std::vector<AccountTotals>* rows) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto ec = parser.parse(json).get(doc)) return fmt::format("reconciliation answer: {}", simdjson::error_message(ec));
  simdjson::dom::array list;
  if (doc["rows"].get_array().get(list)) return "reconciliation answer has no rows: " + json.substr(0, 200);
  rows->clear();
  for (simdjson::dom::element row : list) {
    simdjson::dom::array cells;
    if (row.get_array().get(cells) || cells.size() != 4) return "reconciliation row is not [account,count,sum,max]";
    AccountTotals t;
    if (cells.at(0).get_int64().get(t.account) || cells.at(1).get_int64().get(t.count) ||
        cells.at(2).get_int64().get(t.sum)) {
      return "reconciliation row holds a non-integer";
    }
    if (!cells.at(3).is_null() && cells.at(3).get_int64().get(t.max_seq)) return "reconciliation max(seq) is not an int";
    rows->push_back(t);
  }
  return "";
}

std::string TransferBody(int client, uint64_t seq, const Transfer& t) {
  const uint64_t id = TransferId(client, seq);
  return fmt::format(
      R"j({{"statements": [{{"statement": "{0}", "params": ["c{1}-{2}-d", {3}, {4}, {5}, {2}, {1}]}},)j"
      R"j({{"statement": "{0}", "params": ["c{1}-{2}-c", {3}, {6}, {7}, {2}, {1}]}}]}})j",
      kPut, client, seq, id, t.from, -static_cast<int64_t>(t.amount), t.to, t.amount);
}

std::string EntriesDocs(int client, uint64_t first_seq, const std::vector<Transfer>& ts) {
  std::string out = "[";
  for (size_t i = 0; i < ts.size(); ++i) {
    const uint64_t seq = first_seq + i;
    const uint64_t id = TransferId(client, seq);
    fmt::format_to(std::back_inserter(out),
                   R"j({}{{"key":"c{}-{}-d","transfer":{},"account":{},"amount":{},"seq":{},"client":{}}},)j"
                   R"j({{"key":"c{}-{}-c","transfer":{},"account":{},"amount":{},"seq":{},"client":{}}})j",
                   i ? "," : "", client, seq, id, ts[i].from, -static_cast<int64_t>(ts[i].amount), seq, client, client,
                   seq, id, ts[i].to, ts[i].amount, seq, client);
  }
  out += "]";
  return out;
}

std::string AccountsDocs(const LedgerShape& shape) {
  std::string out = "[";
  for (int a = 1; a <= shape.accounts(); ++a) {
    fmt::format_to(std::back_inserter(out), R"j({}{{"name":"acct-{}","owner":{},"opening":{}}})j", a > 1 ? "," : "", a,
                   shape.owner(a), shape.opening);
  }
  out += "]";
  return out;
}

}  // namespace fenec::scenarios::recon
