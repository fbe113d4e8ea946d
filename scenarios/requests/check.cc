#include "scenarios/requests/check.h"

#include <algorithm>
#include <memory>
#include <set>
#include <utility>

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

std::string NearRecall(int port, const Dataset& d, double* recall) {
  std::unique_ptr<Conn> fenec;
  if (std::string err = ConnectFenec(port, d, &fenec); !err.empty()) return err;
  // The draws that ask each query vector once (DrawQuery maps a draw to its vector).
  std::vector<uint64_t> draws(d.queries.size(), 0);
  std::vector<bool> seen(d.queries.size(), false);
  size_t found = 0;
  for (uint64_t draw = 0; found < d.queries.size() && draw < 64 * d.queries.size(); ++draw) {
    const size_t q = DrawQuery(d, draw);
    if (!seen[q]) seen[q] = true, draws[q] = draw, ++found;
  }
  double sum = 0;
  size_t asked = 0;
  std::vector<std::pair<float, int64_t>> dist(d.rows.size());
  for (size_t q = 0; q < d.queries.size(); ++q) {
    if (!seen[q]) continue;
    std::vector<AnswerRow> rows;
    if (std::string err = fenec->Do(Kind::kNear, draws[q], &rows); !err.empty()) return "fenec-server near: " + err;
    for (size_t i = 0; i < d.rows.size(); ++i) {
      float s = 0;
      for (int j = 0; j < kDim; ++j) {
        const float x = d.rows[i].vec[j] - d.queries[q][j];
        s += x * x;
      }
      dist[i] = {s, static_cast<int64_t>(i + 1)};
    }
    const size_t k = std::min<size_t>(kLimit, dist.size());
    std::partial_sort(dist.begin(), dist.begin() + static_cast<std::ptrdiff_t>(k), dist.end());
    std::set<int64_t> exact;
    for (size_t i = 0; i < k; ++i) exact.insert(dist[i].second);
    size_t hit = 0;
    for (const AnswerRow& r : rows) hit += exact.count(r.id);
    sum += static_cast<double>(hit) / static_cast<double>(k);
    ++asked;
  }
  if (asked == 0) return "no query vector asked";
  *recall = sum / static_cast<double>(asked);
  return "";
}

}  // namespace fenec::scenarios::requests
