// The ledger RC-1 runs: accounts, and a journal of entries.
//
// fenecdb has puts and deletes but no in-place update, so an account's
// balance is not a stored field: the balance of record is the
// application's books (each client's acknowledged transfers, from each
// account's opening balance), and the database holds the entries. A
// transfer is one POST /batch of two PUTs (debit and credit), which the
// server lands as one PutBatch: one commit, both legs or neither. Each leg's
// `key` is @unique ("c<client>-<seq>-d" / "-c"), so a transfer sent again
// (a retry after a lost answer) is refused whole (409), never applied twice.
//
// Each client owns its accounts and moves money only between them, one
// transfer at a time, numbering its transfers 1, 2, 3 ... (`seq`). So any
// consistent view of the database holds exactly a prefix 1..S of each
// client's transfers, where S is the largest seq it shows for the client -
// which makes the reconciliation exact, not approximate:
//   - every account: its entries sum to its books' movement after S transfers;
//   - every client: 2*S entries (no leg without its pair, no gap, no double);
//   - all entries sum to zero.
// A reconciliation that read a torn or inconsistent view, or a transfer
// applied twice or half, breaks one of them.
#pragma once

#include <cstdint>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace fenec::scenarios::recon {

struct LedgerShape {
  int clients = 4;
  int accounts_per_client = 16;
  int64_t opening = 1000000;
  int accounts() const { return clients * accounts_per_client; }
  // Accounts are 1-based ids; client c (0-based) owns [c*per + 1, (c+1)*per].
  int first_account(int client) const { return client * accounts_per_client + 1; }
  int owner(int account) const { return (account - 1) / accounts_per_client; }
};

struct Transfer {
  uint16_t from = 0, to = 0;
  int32_t amount = 0;
};

// One client's books: every transfer it has sent, by seq (1-based). A
// transfer is recorded before it is sent, so anything the database can
// show is already here. One writer (the client) and any readers, with no
// lock: the reconciler walking a million transfers must not hold up the
// client whose latency is being measured. Entries live in fixed chunks that
// never move; the size is published with release after the entry is written.
class Books {
 public:
  static constexpr size_t kChunk = 1u << 16;
  static constexpr size_t kMaxChunks = 4096;  // 268 M transfers

  Books();
  // False when full.
  bool Append(const Transfer& t);
  uint64_t size() const { return size_.load(std::memory_order_acquire); }
  // Each account's movement after transfers 1..upto (accounts indexed by id; size = accounts + 1).
  std::vector<int64_t> Movement(uint64_t upto, int accounts) const;

 private:
  std::vector<std::unique_ptr<Transfer[]>> chunks_;  // sized kMaxChunks once; slots filled as needed
  std::atomic<uint64_t> size_{0};
};

// One row of the reconciliation's answer: AGGREGATE entries COUNT(*), SUM(amount), MAX(seq) GROUP BY account.
struct AccountTotals {
  int64_t account = 0;
  int64_t count = 0;
  int64_t sum = 0;
  int64_t max_seq = 0;  // 0 when the account has no entries
};

// Checks a reconciliation's answer against the books; returns "" or the first broken rule.
std::string CheckInvariant(const LedgerShape& shape, const std::vector<AccountTotals>& rows,
                           const std::vector<const Books*>& books);

// Parses the reconciliation's JSON answer; returns "" or why not.
std::string ParseTotals(const std::string& json, std::vector<AccountTotals>* rows);

// The statements and bodies the clients send.
extern const char* const kCreateAccounts;
extern const char* const kCreateEntries;
extern const char* const kReconcile;
std::string TransferBody(int client, uint64_t seq, const Transfer& t);
// A POST /docs/entries body of transfers [first_seq, first_seq + n) of one client (prefill).
std::string EntriesDocs(int client, uint64_t first_seq, const std::vector<Transfer>& ts);
std::string AccountsDocs(const LedgerShape& shape);

}  // namespace fenec::scenarios::recon
