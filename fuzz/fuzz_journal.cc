// Recovery on arbitrary bytes: a database's journal and catalog as the disk
// could hand them back after a crash, a bad sector or someone's editor.
// Every input gets a fresh copy of a template database (two collections,
// @unique and @text indexes, a few documents, checkpointed) in a scratch
// folder, changed as the input's first byte says:
//   0: the rest is one journal file, placed after the checkpoint's LSN: the
//      reader's framing (torn headers, bad magic, lengths, checksums).
//   1: the rest is a list of records, [flags][length][payload]..., each made a
//      whole record with a valid checksum, so recovery's decoding and
//      replay of the payloads (DecodePayload, ApplyRecord) see them.
//      flags: 1 another storage's id, 2 a broken checksum, 4 an LSN skipped,
//      8 a new journal file starts here, 16 the record says every LSN before
//      it was synced (so one broken before it is mid-log corruption).
//   2: the rest is the catalog blob of a new checkpoint (checksummed, so
//      LoadCatalog parses it). The index branches are removed, so they are
//      rebuilt from the rows that catalog points at: a forged catalog cannot
//      agree with branches written for the real one, and no crash makes one.
// Then Database::Open: it answers a Status, or a database that passes
// Database::Check; never a crash, a hang or an unbounded allocation (the
// fuzz run's -rss_limit_mb/-malloc_limit_mb and -timeout enforce those).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fenec/database.h"
#include "engine/src/base/scratch.h"
#include "engine/src/journal/format.h"
#include "engine/src/query/service.h"
#include "engine/src/storage/storage.h"
#include "fuzz/check.h"

namespace {

namespace fs = std::filesystem;
using fenec::Status;
using fenec::StatusCode;

[[noreturn]] void Die(const std::string& why) {
  std::fprintf(stderr, "fuzz_journal setup: %s\n", why.c_str());
  std::abort();
}

fenec::Options DbOptions() {
  fenec::Options o;
  o.durability = fenec::Durability::kBuffered;  // the fuzz run writes nothing it must keep
  o.checkpoint_on_close = false;
  o.storage_id = 0x5eed;
  return o;
}

// The template database, made once per process; each input works on a copy.
struct Template {
  fenec::base::ScratchDir dir{"fuzz-journal"};
  std::string db;  // the template's folder
  fenec::Superblock sb;  // its root storage's superblock after the checkpoint

  Template() {
    if (!dir.ok()) Die(dir.error());
    db = dir.path("template");
    auto opened = fenec::Database::Open(db, DbOptions());
    if (!opened.ok()) Die(opened.status().ToString());
    fenec::query::Service svc(opened->get());
    for (std::string body : {
             std::string(R"j({"statement": "CREATE COLLECTION items (name TEXT @unique, bio TEXT @text, age INT, score FLOAT, emb VECTOR(2))"})j"),
             std::string(R"j({"statement": "CREATE COLLECTION plain (n INT, s TEXT, ok BOOL)"})j"),
             std::string(R"j({"statement": "PUT items {name: 'ann', bio: 'rust and go', age: 41, score: 1.5, emb: [1, 2]}"})j"),
             std::string(R"j({"statement": "PUT items {name: 'bob', age: 7}"})j"),
             std::string(R"j({"statement": "PUT plain {n: 1, s: 'x', ok: true}"})j"),
             std::string(R"j({"statement": "DELETE items 2"})j"),
         }) {
      fenec::query::Answer a = svc.Query(body);
      if (a.http != 200) Die(body + " -> " + a.body);
    }
    if (Status s = (*opened)->Checkpoint(); !s.ok()) Die(s.ToString());
    if (Status s = (*opened)->Close(); !s.ok()) Die(s.ToString());
    opened->reset();
    std::unique_ptr<fenec::Storage> st;
    if (Status s = fenec::Storage::Open(fenec::Env::Default(), db, false, false, 0, &st); !s.ok()) Die(s.ToString());
    sb = st->superblock();
  }
};

void WriteFile(const std::string& path, std::span<const uint8_t> bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) Die("cannot write " + path);
}

std::string JournalPath(const std::string& db, uint64_t first_lsn) {
  return db + "/Journals/" + fenec::journal::JournalFileName(first_lsn);
}

// Mode 1: the input's records made whole records of the template's storage.
void WriteRecords(const Template& t, const std::string& db, std::span<const uint8_t> in) {
  uint64_t lsn = t.sb.checkpoint_lsn + 1;
  uint64_t file_lsn = lsn;
  std::vector<uint8_t> file;
  size_t i = 0;
  while (i + 2 <= in.size()) {
    const uint8_t flags = in[i];
    size_t len = std::min<size_t>(in[i + 1], in.size() - i - 2);
    std::span<const uint8_t> payload = in.subspan(i + 2, len);
    i += 2 + len;
    if (flags & 4) ++lsn;
    if ((flags & 8) && !file.empty()) {
      WriteFile(JournalPath(db, file_lsn), file);
      file.clear();
      file_lsn = lsn;
    }
    const size_t at = file.size();
    (void)fenec::journal::AppendRecord(&file, (flags & 1) ? t.sb.storage_id + 1 : t.sb.storage_id, lsn, payload,
                                       (flags & 16) ? lsn - 1 : 0);
    if (flags & 2) file[at + fenec::journal::kHeaderSize - 8] ^= 0x40;  // the checksum's first byte
    if (!(flags & 1)) ++lsn;               // another storage's record takes none of this one's LSNs
  }
  WriteFile(JournalPath(db, file_lsn), file);
}

// Mode 2: a checkpoint whose catalog is the input (the rows stay where they are).
void WriteCatalog(const Template& t, const std::string& db, std::span<const uint8_t> catalog) {
  std::unique_ptr<fenec::Storage> st;
  if (Status s = fenec::Storage::Open(fenec::Env::Default(), db, false, false, 0, &st); !s.ok()) Die(s.ToString());
  const uint64_t at = t.sb.data_end;
  if (Status s = st->CommitCheckpoint(t.sb.checkpoint_lsn, at, catalog, at + catalog.size()); !s.ok())
    Die(s.ToString());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Template t;
  if (size == 0) return 0;
  const std::string db = t.dir.path("input");
  std::error_code ec;
  fs::remove_all(db, ec);
  fs::copy(t.db, db, fs::copy_options::recursive, ec);
  if (ec) Die("copy the template: " + ec.message());
  std::span<const uint8_t> rest(data + 1, size - 1);
  switch (data[0] % 3) {
    case 0: WriteFile(JournalPath(db, t.sb.checkpoint_lsn + 1), rest); break;
    case 1: WriteRecords(t, db, rest); break;
    default:
      WriteCatalog(t, db, rest);
      fs::remove_all(db + "/Indexes", ec);
      break;
  }
  fenec::Options o = DbOptions();
  o.create_if_missing = false;  // the input's folder is opened, never made anew
  auto opened = fenec::Database::Open(db, o);
  if (!opened.ok()) {
    // Damaged bytes are corruption, and a record of a newer format version (or type) is refused
    // as not supported; a filesystem error here would be the harness's, and an "invalid argument"
    // a decoded schema the engine then refused: both reported as what they are.
    const StatusCode c = opened.status().code();
    FUZZ_CHECK(c == StatusCode::kCorruption || c == StatusCode::kNotSupported, "open answered %s",
               opened.status().ToString().c_str());
    return 0;
  }
  Status check = (*opened)->Check();
  FUZZ_CHECK(check.ok(), "recovered a database that fails its check: %s", check.ToString().c_str());
  Status closed = (*opened)->Close();
  FUZZ_CHECK(closed.ok(), "close: %s", closed.ToString().c_str());
  return 0;
}
