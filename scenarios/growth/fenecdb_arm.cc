// growth-bench through fenecdb: see fenecdb_arm.h.
#include "scenarios/growth/fenecdb_arm.h"
#include "iobench/kit/interrupt.h"

#include <fmt/format.h>

#include <chrono>

#include <fenec/database.h>


namespace fenec::scenarios::growth {


namespace {

using Clock = std::chrono::steady_clock;

Result<CollectionId> open_users(Database& db, bool create) {
  if (!create) return db.FindCollection("users");
  Schema schema;
  schema.fields.push_back(Field::Text("email").Unique());
  schema.fields.push_back(Field::Int("n"));
  return db.CreateCollection("users", schema);
}

}  // namespace


DbRun run_fenecdb(uint64_t n, KeyStyle style, const std::string& dir, size_t plot_points) {
  DbRun r(n, plot_points);
  Options opt;
  opt.durability = Durability::kBuffered;
  opt.checkpoint_on_close = false;  // the reopen then replays the journal: the worst open
  auto db = Database::Open(dir, opt);
  if (!db.ok()) {
    r.error = "open: " + db.status().ToString();
    return r;
  }
  auto users = open_users(**db, true);
  if (!users.ok()) {
    r.error = "create collection: " + users.status().ToString();
    return r;
  }
  char buf[64];
  Clock::time_point start = Clock::now();
  for (uint64_t i = 0; i < n; ++i) {
    if ((i & 0xFFFF) == 0 && kit::stop_requested()) {
      r.run.interrupted = true;
      break;
    }
    Document doc{Value(std::string_view(buf, make_key(style, i, buf))), Value(static_cast<int64_t>(i))};
    Clock::time_point t0 = Clock::now();
    auto id = (*db)->Put(*users, std::move(doc));
    Clock::time_point t1 = Clock::now();
    if (!id.ok()) {
      r.error = fmt::format("put #{}: {}", i, id.status().ToString());
      return r;
    }
    r.run.rec.record(i, static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count()),
                     false);
  }
  r.run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.stats = (*db)->GetStats();
  uint64_t stored = r.run.rec.histogram().count();
  auto dup = (*db)->Put(*users, Document{Value(std::string_view(buf, make_key(style, 0, buf))), Value(int64_t{-1})});
  r.duplicate_rejected = !dup.ok() && dup.status().IsConstraint();
  if (Status s = (*db)->Close(); !s.ok()) {
    r.error = "close: " + s.ToString();
    return r;
  }
  db->reset();  // release before reopening
  Clock::time_point t0 = Clock::now();
  auto again = Database::Open(dir, opt);
  r.open_s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!again.ok()) {
    r.error = "reopen: " + again.status().ToString();
    return r;
  }
  auto users2 = open_users(**again, false);
  if (users2.ok()) {
    auto c = (*again)->Count(*users2);
    r.count_after_open = c.ok() ? *c : 0;
    uint64_t last = stored == 0 ? 0 : stored - 1;
    auto clash = (*again)->Put(*users2, Document{Value(std::string_view(buf, make_key(style, last, buf))),
                                                 Value(int64_t{-1})});
    r.found_after_open = !clash.ok() && clash.status().IsConstraint();
  }
  (void)(*again)->Close();
  r.ok = r.count_after_open == stored;
  if (!r.ok && r.error.empty())
    r.error = fmt::format("reopened with {} documents, {} were put", r.count_after_open, stored);
  return r;
}


}  // namespace fenec::scenarios::growth
