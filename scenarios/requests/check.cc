#include "scenarios/requests/check.h"

#include <memory>

#include <fmt/format.h>

#include "scenarios/requests/targets.h"

namespace fenec::scenarios::requests {

std::string CheckLoaded(int port, const std::string& conninfo, const Dataset& d, int draws) {
  uint64_t n = 0;
  if (std::string err = CountFenec(port, kItems, &n); !err.empty()) return "counting fenec-server's rows: " + err;
  if (n != d.rows.size()) return fmt::format("fenec-server holds {} rows, not the {} loaded", n, d.rows.size());
  if (conninfo.empty()) return "";
  if (std::string err = CountPg(conninfo, kItems, &n); !err.empty()) return "counting postgres's rows: " + err;
  if (n != d.rows.size()) return fmt::format("postgres holds {} rows, not the {} loaded", n, d.rows.size());
  std::unique_ptr<Conn> fenec, pg;
  if (std::string err = ConnectFenec(port, d, &fenec); !err.empty()) return err;
  if (std::string err = ConnectPg(conninfo, d, false, &pg); !err.empty()) return err;
  for (Kind k : {Kind::kGetById, Kind::kFilter}) {
    for (int i = 0; i < draws; ++i) {
      std::vector<AnswerRow> a, b;
      const uint64_t draw = d.seed + static_cast<uint64_t>(i);
      if (std::string err = fenec->Do(k, draw, &a); !err.empty()) return "fenec-server: " + err;
      if (std::string err = pg->Do(k, draw, &b); !err.empty()) return err;
      if (a != b) {
        return fmt::format("{} draw {}: fenec-server answered {} rows (first id {}), postgres {} (first id {})",
                           KindName(k), draw, a.size(), a.empty() ? 0 : a[0].id, b.size(), b.empty() ? 0 : b[0].id);
      }
    }
  }
  return "";
}

}  // namespace fenec::scenarios::requests
