#include "scenarios/requests/report.h"

#include <fmt/format.h>

#include "iobench/kit/console.h"
#include "iobench/kit/plot.h"
#include "iobench/kit/stats.h"

namespace fenec::scenarios::requests {
namespace {

using Field = double Figures::*;

std::vector<double> Column(const Cells& cells, const std::string& arm, const std::string& case_, Field f) {
  std::vector<double> out;
  if (auto it = cells.find({arm, case_}); it != cells.end()) {
    for (const Figures& x : it->second) out.push_back(x.*f);
  }
  return out;
}

kit::Ratio Of(const Cells& cells, const std::string& arm, const std::string& case_, Field f) {
  return kit::of_reps(Column(cells, arm, case_, f));
}

kit::Ratio Paired(const Cells& cells, const std::string& a, const std::string& b, const std::string& case_, Field f,
                  double level = 0.95) {
  return kit::paired_ratio(Column(cells, a, case_, f), Column(cells, b, case_, f), kit::Window{0, SIZE_MAX, level});
}

// Every cell's repetitions in w.
Cells Slice(const Cells& cells, const kit::Window& w) {
  Cells out;
  for (const auto& [key, reps] : cells) {
    std::vector<Figures>& v = out[key];
    for (size_t i = w.begin; i < reps.size() && i < w.end; ++i) v.push_back(reps[i]);
  }
  return out;
}

// The durable pair's catalogue rows (their cells run in the second
// sequence). By address: every RQ-1 row has the id "RQ-1".
bool Durable(const findings::Finding& f) { return &f == &findings::rq1::kPgPuts || &f == &findings::rq1::kRounds; }

std::string Us(const kit::Ratio& r) { return r.known() ? kit::format_us(r.value) : "-"; }

struct TableRow {
  Kind kind;
  int clients;
  bool durable;
};

std::vector<TableRow> AllRows(int clients, int put_clients, int mixed_clients) {
  std::vector<TableRow> rows;
  for (int c : {1, clients}) {
    for (Kind k : kKinds) rows.push_back({k, c, false});
  }
  for (int c : {1, clients}) rows.push_back({Kind::kPut, c, true});
  if (put_clients != clients) rows.push_back({Kind::kPut, put_clients, true});
  rows.push_back({Kind::kMixed, mixed_clients, true});
  return rows;
}

// "-" for a figure not measured (negative).
std::string Num(const kit::Ratio& r, const char* spec = "{:.1f}") {
  return r.known() && r.value > 0 ? fmt::format(fmt::runtime(spec), r.value) : "-";
}

const std::string kWriteThroughPair = fmt::format("{}/{}", kFenecWriteThrough, kFenec);

// The write-through server's puts beside the buffered server's, paired by
// repetition: the ratio rows and a table of their own.
void WriteThroughTable(kit::Results& results, const Cells& cells, int clients) {
  kit::Table t({"put", "clients", "write-through p50", "p99", "req/s", "buffered p50", "p99", "req/s",
                "write-through/buffered req/s", "p50"});
  bool any = false;
  for (int c : {1, clients}) {
    const std::string case_ = CaseName(Kind::kPut, c, false);
    if (!cells.count({kFenecWriteThrough, case_})) continue;
    any = true;
    const kit::Ratio rate = Paired(cells, kFenecWriteThrough, kFenec, case_, &Figures::per_s);
    const kit::Ratio p50 = Paired(cells, kFenecWriteThrough, kFenec, case_, &Figures::p50_us);
    results.add_ratio(kFinding, kWriteThroughPair, case_, "requests_per_s_ratio", rate);
    results.add_ratio(kFinding, kWriteThroughPair, case_, "roundtrip_p50_ratio", p50);
    t.row({"put", std::to_string(c), Us(Of(cells, kFenecWriteThrough, case_, &Figures::p50_us)),
           Us(Of(cells, kFenecWriteThrough, case_, &Figures::p99_us)),
           kit::format_count(Of(cells, kFenecWriteThrough, case_, &Figures::per_s).value),
           Us(Of(cells, kFenec, case_, &Figures::p50_us)), Us(Of(cells, kFenec, case_, &Figures::p99_us)),
           kit::format_count(Of(cells, kFenec, case_, &Figures::per_s).value),
           rate.known() ? kit::format_ratio(rate) : "-", p50.known() ? kit::format_ratio(p50) : "-"});
  }
  if (any) fmt::print("\nfenec-server write-through beside buffered (the same put cells, paired by repetition)\n{}", t.str());
}

}  // namespace

const char* PgArm(Kind k) { return k == Kind::kNear ? kPostgresExact : kPostgres; }

std::string CaseName(Kind k, int clients, bool durable) {
  return fmt::format("request={};clients={}{}", KindName(k), clients, durable ? ";commit=durable" : "");
}

void AddRep(kit::Results& results, Cells& cells, const std::string& arm, const std::string& case_, int rep,
            const Figures& f) {
  const std::string c = fmt::format("{};rep={}", case_, rep);
  results.add(kFinding, arm, c, "roundtrip_p50_us", f.p50_us, "us");
  results.add(kFinding, arm, c, "roundtrip_p99_us", f.p99_us, "us");
  results.add(kFinding, arm, c, "requests_per_s", f.per_s, "requests/s");
  if (f.handle_mean_us >= 0) results.add(kFinding, arm, c, "server_handle_mean_us", f.handle_mean_us, "us");
  if (f.handle_p50_us >= 0) results.add(kFinding, arm, c, "server_handle_p50_us", f.handle_p50_us, "us");
  if (f.cpu_us_per_request >= 0) {
    results.add(kFinding, arm, c, "client_cpu_us_per_request", f.cpu_us_per_request, "us");
    results.add(kFinding, arm, c, "client_cpu_cores", f.cpu_cores, "cores");
  }
  cells[{arm, case_}].push_back(f);
}

void AddSummary(kit::Results& results, const Cells& cells, int clients, int put_clients, int mixed_clients) {
  for (const auto& [key, reps] : cells) {
    const auto& [arm, case_] = key;
    results.add_ratio(kFinding, arm, case_, "roundtrip_p50_us", Of(cells, arm, case_, &Figures::p50_us), "us");
    results.add_ratio(kFinding, arm, case_, "roundtrip_p99_us", Of(cells, arm, case_, &Figures::p99_us), "us");
    results.add_ratio(kFinding, arm, case_, "requests_per_s", Of(cells, arm, case_, &Figures::per_s), "requests/s");
    if (reps.front().handle_mean_us > 0) {
      results.add_ratio(kFinding, arm, case_, "server_handle_mean_us", Of(cells, arm, case_, &Figures::handle_mean_us), "us");
    }
    if (reps.front().server_cpu_us_per_request > 0) {
      results.add_ratio(kFinding, arm, case_, "server_cpu_us_per_request",
                        Of(cells, arm, case_, &Figures::server_cpu_us_per_request), "us");
    }
    if (reps.front().commits_per_sync > 0) {
      results.add_ratio(kFinding, arm, case_, "commits_per_sync", Of(cells, arm, case_, &Figures::commits_per_sync),
                        "commits");
    }
    if (reps.front().cpu_us_per_request > 0) {
      results.add_ratio(kFinding, arm, case_, "client_cpu_us_per_request",
                        Of(cells, arm, case_, &Figures::cpu_us_per_request), "us");
    }
  }
  kit::Table t({"request", "clients", "commit", "fenec p50", "p99", "req/s", "server handling", "postgres p50", "p99",
                "req/s", "fenec/pg p50", "fenec/pg req/s", "server CPU/req fenec", "pg", "fenec/pg CPU",
                "commits/sync fenec", "pg", "source pg p50"});
  for (const TableRow& r : AllRows(clients, put_clients, mixed_clients)) {
    const std::string c = CaseName(r.kind, r.clients, r.durable), pg = PgArm(r.kind);
    const double source = r.clients != 1 || r.durable ? 0
                          : r.kind == Kind::kEmpty    ? kSourceEmptyUs
                          : r.kind == Kind::kGetById  ? kSourceByIdUs
                          : r.kind == Kind::kNear     ? kSourceNearUs
                                                      : 0;
    const kit::Ratio p50 = Paired(cells, kFenec, pg, c, &Figures::p50_us);
    const kit::Ratio rate = Paired(cells, kFenec, pg, c, &Figures::per_s);
    results.add_ratio(kFinding, fmt::format("{}/{}", kFenec, pg), c, "roundtrip_p50_ratio", p50);
    results.add_ratio(kFinding, fmt::format("{}/{}", kFenec, pg), c, "requests_per_s_ratio", rate);
    const kit::Ratio cpu = Paired(cells, kFenec, pg, c, &Figures::server_cpu_us_per_request);
    results.add_ratio(kFinding, fmt::format("{}/{}", kFenec, pg), c, "server_cpu_ratio", cpu);
    t.row({KindName(r.kind), std::to_string(r.clients), r.durable ? "durable" : "sync 250 / off",
           Us(Of(cells, kFenec, c, &Figures::p50_us)), Us(Of(cells, kFenec, c, &Figures::p99_us)),
           kit::format_count(Of(cells, kFenec, c, &Figures::per_s).value),
           Us(Of(cells, kFenec, c, &Figures::handle_mean_us)), Us(Of(cells, pg, c, &Figures::p50_us)),
           Us(Of(cells, pg, c, &Figures::p99_us)), kit::format_count(Of(cells, pg, c, &Figures::per_s).value),
           p50.known() ? kit::format_ratio(p50) : "-", rate.known() ? kit::format_ratio(rate) : "-",
           Us(Of(cells, kFenec, c, &Figures::server_cpu_us_per_request)),
           Us(Of(cells, pg, c, &Figures::server_cpu_us_per_request)), cpu.known() ? kit::format_ratio(cpu) : "-",
           Num(Of(cells, kFenec, c, &Figures::commits_per_sync)), Num(Of(cells, pg, c, &Figures::commits_per_sync)),
           source > 0 ? kit::format_us(source) : ""});
  }
  fmt::print("\n{}", t.str());
  {
    const std::string c = CaseName(Kind::kPut, put_clients, true);
    const kit::Ratio rounds = Paired(cells, kFenec, kEmbedded, c, &Figures::commits_per_sync);
    results.add_ratio(kFinding, fmt::format("{}/{}", kFenec, kEmbedded), c, "commits_per_sync_ratio", rounds);
    if (rounds.known()) {
      fmt::print("durable puts, {} clients: fenec-server {} commits a sync round, {} puts/s; the embedded engine at {} "
                 "writers {} commits a sync round, {} puts/s: fenec-server/embedded rounds {}\n",
                 put_clients, Num(Of(cells, kFenec, c, &Figures::commits_per_sync)),
                 kit::format_count(Of(cells, kFenec, c, &Figures::per_s).value), put_clients,
                 Num(Of(cells, kEmbedded, c, &Figures::commits_per_sync)),
                 kit::format_count(Of(cells, kEmbedded, c, &Figures::per_s).value), kit::format_ratio(rounds));
    }
  }
  {
    const std::string c = CaseName(Kind::kEmpty, 1, false);
    const kit::Ratio floor_pg = Paired(cells, kFloor, kPostgres, c, &Figures::p50_us);
    const kit::Ratio fenec_floor = Paired(cells, kFenec, kFloor, c, &Figures::p50_us);
    results.add_ratio(kFinding, fmt::format("{}/{}", kFloor, kPostgres), c, "roundtrip_p50_ratio", floor_pg);
    results.add_ratio(kFinding, fmt::format("{}/{}", kFenec, kFloor), c, "roundtrip_p50_ratio", fenec_floor);
    if (fenec_floor.known()) {
      fmt::print("empty request, 1 client: the loopback floor (floor.h) p50 {}, fenec-server {} ({} the floor), "
                 "postgres {} (the floor is {} of it)\n",
                 Us(Of(cells, kFloor, c, &Figures::p50_us)), Us(Of(cells, kFenec, c, &Figures::p50_us)),
                 kit::format_ratio(fenec_floor), Us(Of(cells, kPostgres, c, &Figures::p50_us)),
                 floor_pg.known() ? kit::format_ratio(floor_pg) : "-");
    }
  }
  WriteThroughTable(results, cells, clients);
  for (int c : {1, clients}) {
    const std::string case_ = CaseName(Kind::kGetById, c, false);
    const kit::Ratio p50 = Paired(cells, kFenec, kWrk, case_, &Figures::p50_us);
    const kit::Ratio rate = Paired(cells, kFenec, kWrk, case_, &Figures::per_s);
    results.add_ratio(kFinding, fmt::format("{}/{}", kFenec, kWrk), case_, "roundtrip_p50_ratio", p50);
    results.add_ratio(kFinding, fmt::format("{}/{}", kFenec, kWrk), case_, "requests_per_s_ratio", rate);
    if (p50.known()) {
      fmt::print("get by id, {} client(s): our client p50 {} and {} req/s, wrk's {} and {} req/s: ours/wrk p50 {}, "
                 "req/s {}\n",
                 c, Us(Of(cells, kFenec, case_, &Figures::p50_us)),
                 kit::format_count(Of(cells, kFenec, case_, &Figures::per_s).value),
                 Us(Of(cells, kWrk, case_, &Figures::p50_us)),
                 kit::format_count(Of(cells, kWrk, case_, &Figures::per_s).value), kit::format_ratio(p50),
                 kit::format_ratio(rate));
    }
  }
}

std::string WritePlot(kit::Harness& h, const Cells& cells, int clients) {
  kit::Chart chart;
  chart.title = "RQ-1: round trip p50 per request on loopback (log scale)";
  chart.xlabel = "request (near: postgres scans exactly)";
  chart.ylabel = "round trip p50 (us)";
  chart.logy = true;
  chart.xtics = {{1, "empty"}, {2, "get by id"}, {3, "filter"}, {4, "near"}, {5, "put"}, {6, "put, durable"}};
  auto series = [&](const std::string& title, bool fenec, int c, Field f) {
    std::vector<std::pair<double, double>> pts;
    for (int x = 1; x <= 6; ++x) {
      const Kind k = x <= 5 ? kKinds[x - 1] : Kind::kPut;
      const kit::Ratio r = Of(cells, fenec ? kFenec : PgArm(k), CaseName(k, c, x == 6), f);
      if (r.known() && r.value > 0) pts.emplace_back(x, r.value);
    }
    // Points, not lines: the requests are categories, not a scale.
    if (!pts.empty()) chart.series.push_back(kit::Series(title, pts, "points ps 1.2"));
  };
  for (int c : {1, clients}) {
    series(fmt::format("fenec-server, {} client(s)", c), true, c, &Figures::p50_us);
    series(fmt::format("postgres, {} client(s)", c), false, c, &Figures::p50_us);
  }
  series("fenec-server's own handling (mean), 1 client", true, 1, &Figures::handle_mean_us);
  chart.series.push_back(kit::Series("source: postgres (pgvector, Docker on an M1), 1 client",
                                     {{1, kSourceEmptyUs}, {2, kSourceByIdUs}, {4, kSourceNearUs}}, "points"));
  std::string base = h.plot_path("latency");
  if (std::string err = kit::write_chart(chart, base); !err.empty()) {
    fmt::print(stderr, "requests-bench: plot: {}\n", err);
    return "";
  }
  return base + ".png";
}

namespace {

// The verdicts from cells, their ratios' intervals at `level`. Each check
// goes to *collect (with whether the durable pair's cells feed it), if
// given, and is replaced by *judged's of the same name, if given.
std::vector<kit::Verdict> Verdicts(const Cells& cells, int clients, int put_clients, const std::string& plot,
                                   const std::string& pg_skip, const std::string& wrk_skip,
                                   const std::string& wrk_unjudged, const std::string& wt_skip, double level,
                                   std::vector<std::pair<bool, kit::Check>>* collect,
                                   const std::vector<kit::Check>* judged) {
  auto Paired = [level](const Cells& c, const std::string& a, const std::string& b, const std::string& case_, Field f) {
    return requests::Paired(c, a, b, case_, f, level);
  };
  const std::string by1 = CaseName(Kind::kGetById, 1, false), byn = CaseName(Kind::kGetById, clients, false),
                    putn = CaseName(Kind::kPut, clients, true);
  auto fig = [&](const std::string& arm, const std::string& c, Field f) { return Of(cells, arm, c, f); };
  std::vector<kit::Verdict> out;
  auto verdict = [&](const findings::Finding& f, std::string ours, std::vector<kit::Check> checks,
                     const std::string& skip) {
    kit::Verdict v = findings::verdict(f);
    v.plot = plot;
    v.ours = std::move(ours);
    for (kit::Check& c : checks) {
      if (collect != nullptr) collect->push_back({Durable(f), c});
      if (judged != nullptr)
        for (const kit::Check& j : *judged)
          if (j.what == c.what) c = j;
    }
    if (!skip.empty()) {
      v.skipped(skip);
    } else {
      v.set(kit::judge(checks));
    }
    out.push_back(std::move(v));
  };

  // The finding: most of a get by id's round trip is the loopback.
  std::vector<double> share;
  for (const Figures& f : cells.count({kFenec, by1}) ? cells.at({kFenec, by1}) : std::vector<Figures>{}) {
    if (f.handle_mean_us > 0 && f.p50_us > 0) share.push_back(f.handle_mean_us / f.p50_us);
  }
  const kit::Ratio handle_share = kit::of_reps(share, kit::Window{0, SIZE_MAX, level});
  verdict(findings::rq1::kFinding,
          fmt::format("get by id, 1 client: round trip p50 {}, the server's handling {} (mean): {} of it",
                      Us(fig(kFenec, by1, &Figures::p50_us)), Us(fig(kFenec, by1, &Figures::handle_mean_us)),
                      kit::format_ratio(handle_share)),
          {{"server handling / round trip p50, get by id, 1 client", handle_share, findings::rq1::kHandling.value, false}}, "");

  const kit::Ratio p50 = Paired(cells, kFenec, kPostgres, by1, &Figures::p50_us);
  const std::string empty1 = CaseName(Kind::kEmpty, 1, false);
  const kit::Ratio floor_pg = Paired(cells, kFloor, kPostgres, empty1, &Figures::p50_us);
  verdict(findings::rq1::kPgP50,
          fmt::format("p50 fenec-server {}, postgres {} (source's postgres {}): {}; empty request {} vs {}{}",
                      Us(fig(kFenec, by1, &Figures::p50_us)), Us(fig(kPostgres, by1, &Figures::p50_us)),
                      kit::format_us(kSourceByIdUs), kit::format_ratio(p50), Us(fig(kFenec, empty1, &Figures::p50_us)),
                      Us(fig(kPostgres, empty1, &Figures::p50_us)),
                      floor_pg.known() ? fmt::format("; the loopback floor (a server that only reads and writes) {}, "
                                                     "{} postgres's empty request",
                                                     Us(fig(kFloor, empty1, &Figures::p50_us)),
                                                     kit::format_ratio(floor_pg))
                                       : ""),
          {{"fenec/postgres get-by-id p50, 1 client", p50, findings::rq1::kPgP50Line.value, false}}, pg_skip);

  const kit::Ratio rate = Paired(cells, kFenec, kPostgres, byn, &Figures::per_s);
  verdict(findings::rq1::kPgRate,
          fmt::format("{} clients: fenec-server {}/s, postgres {}/s: {}", clients,
                      kit::format_count(fig(kFenec, byn, &Figures::per_s).value),
                      kit::format_count(fig(kPostgres, byn, &Figures::per_s).value), kit::format_ratio(rate)),
          {{fmt::format("fenec/postgres get-by-id requests/s, {} clients", clients), rate,
            findings::rq1::kPgRateLine.value, true}}, pg_skip);

  const kit::Ratio puts = Paired(cells, kFenec, kPostgres, putn, &Figures::per_s);
  verdict(findings::rq1::kPgPuts,
          fmt::format("{} clients: fenec-server {}/s, postgres {}/s: {}", clients,
                      kit::format_count(fig(kFenec, putn, &Figures::per_s).value),
                      kit::format_count(fig(kPostgres, putn, &Figures::per_s).value), kit::format_ratio(puts)),
          {{fmt::format("fenec/postgres durable puts/s, {} clients", clients), puts,
            findings::rq1::kPgPutsLine.value, true}}, pg_skip);

  // The server's CPU a request, each kind at one client: PostgreSQL's is its backend's alone.
  std::vector<kit::Check> cpu_checks;
  std::string cpu_ours;
  for (Kind k : kKinds) {
    const std::string c = CaseName(k, 1, false);
    const kit::Ratio r = Paired(cells, kFenec, PgArm(k), c, &Figures::server_cpu_us_per_request);
    cpu_checks.push_back({fmt::format("fenec/postgres server CPU a request, {}, 1 client", KindName(k)), r,
                          findings::rq1::kCpuLine.value, false});
    cpu_ours += fmt::format("{}{} {} vs {}: {}", cpu_ours.empty() ? "" : "; ", KindName(k),
                            Us(fig(kFenec, c, &Figures::server_cpu_us_per_request)),
                            Us(fig(PgArm(k), c, &Figures::server_cpu_us_per_request)), kit::format_ratio(r));
  }
  const std::string putm = CaseName(Kind::kPut, put_clients, true);
  const kit::Ratio rounds = Paired(cells, kFenec, kEmbedded, putm, &Figures::commits_per_sync);
  verdict(findings::rq1::kRounds,
          fmt::format("durable puts, {} clients: fenec-server {} commits a sync round, the embedded engine at {} "
                      "writers {}: {}",
                      put_clients, Num(fig(kFenec, putm, &Figures::commits_per_sync)), put_clients,
                      Num(fig(kEmbedded, putm, &Figures::commits_per_sync)), kit::format_ratio(rounds)),
          {{fmt::format("fenec-server / embedded commits a sync round, {} clients / writers", put_clients), rounds,
            findings::rq1::kRoundsLine.value, true}},
          "");
  cpu_ours += fmt::format("; durable puts, {} clients: {} commits a sync round (postgres {})", put_clients,
                          Num(fig(kFenec, putm, &Figures::commits_per_sync)),
                          Num(fig(kPostgres, putm, &Figures::commits_per_sync)));
  verdict(findings::rq1::kCpu, cpu_ours, cpu_checks, pg_skip);

  const kit::Ratio wp50 = Paired(cells, kFenec, kWrk, by1, &Figures::p50_us);
  const kit::Ratio wrate = Paired(cells, kFenec, kWrk, byn, &Figures::per_s);
  verdict(findings::rq1::kClient,
          fmt::format("1 client p50 ours {}, wrk {}: {}; {} clients ours {}/s, wrk {}/s: {}",
                      Us(fig(kFenec, by1, &Figures::p50_us)), Us(fig(kWrk, by1, &Figures::p50_us)),
                      kit::format_ratio(wp50), clients, kit::format_count(fig(kFenec, byn, &Figures::per_s).value),
                      kit::format_count(fig(kWrk, byn, &Figures::per_s).value), kit::format_ratio(wrate)),
          {{"ours/wrk get-by-id p50, 1 client", wp50, findings::rq1::kClientP50.value, false},
           {fmt::format("ours/wrk get-by-id requests/s, {} clients", clients), wrate,
            findings::rq1::kClientRate.value, true}},
          wrk_skip);
  if (wrk_skip.empty() && !wrk_unjudged.empty()) out.back().not_applicable(wrk_unjudged + " (" + out.back().reason + ")");

  // A target the write-through mode set itself, judged here: not a finding of any source.
  const std::string put1 = CaseName(Kind::kPut, 1, false), putc = CaseName(Kind::kPut, clients, false);
  const kit::Ratio wt1 = Paired(cells, kFenecWriteThrough, kFenec, put1, &Figures::per_s);
  const kit::Ratio wtc = Paired(cells, kFenecWriteThrough, kFenec, putc, &Figures::per_s);
  const double wt_line = findings::rq1::kWriteThroughLine.value;
  verdict(findings::rq1::kWriteThrough,
          fmt::format("puts, {} clients: write-through {}/s (p50 {}), buffered {}/s (p50 {}): {}; 1 client: {}/s "
                      "vs {}/s: {}",
                      clients, kit::format_count(fig(kFenecWriteThrough, putc, &Figures::per_s).value),
                      Us(fig(kFenecWriteThrough, putc, &Figures::p50_us)),
                      kit::format_count(fig(kFenec, putc, &Figures::per_s).value), Us(fig(kFenec, putc, &Figures::p50_us)),
                      kit::format_ratio(wtc), kit::format_count(fig(kFenecWriteThrough, put1, &Figures::per_s).value),
                      kit::format_count(fig(kFenec, put1, &Figures::per_s).value), kit::format_ratio(wt1)),
          {{fmt::format("write-through / buffered puts/s, {} clients", clients), wtc, wt_line, true},
           {"write-through / buffered puts/s, 1 client", wt1, wt_line, true,
            "the target is at many clients; one client's is shown"}},
          wt_skip);
  if (wt_skip.empty()) out.back().reason += " (a target of ours for the write-through mode, not a source's finding)";
  return out;
}

}  // namespace

std::vector<kit::Check> RequestChecks(const Cells& cells, int clients, int put_clients, bool durable,
                                      bool wrk_judged, const kit::Window& w) {
  std::vector<std::pair<bool, kit::Check>> all;
  Verdicts(Slice(cells, w), clients, put_clients, "", "", "", "", "", w.level, &all, nullptr);
  std::vector<kit::Check> out;
  for (auto& [d, c] : all)
    if (d == durable && (wrk_judged || c.what.rfind("ours/wrk", 0) != 0)) out.push_back(std::move(c));
  return out;
}

std::vector<kit::Verdict> MakeVerdicts(const Cells& cells, int clients, int put_clients, const std::string& plot,
                                       const std::string& pg_skip, const std::string& wrk_skip,
                                       const std::string& wrk_unjudged, const std::string& wt_skip,
                                       const std::vector<kit::Check>* judged) {
  return Verdicts(cells, clients, put_clients, plot, pg_skip, wrk_skip, wrk_unjudged, wt_skip, 0.95, nullptr, judged);
}

}  // namespace fenec::scenarios::requests
