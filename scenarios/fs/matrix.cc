#include "scenarios/fs/matrix.h"

#include <fmt/format.h>

#include <cmath>
#include <exception>

#include "iobench/kit/harness.h"

namespace fenec::scenarios::fs {

const std::vector<FsSpec>& known_fs() {
  static const std::vector<FsSpec> specs = {
      {"disk", "", {}, "", false, "the scratch disk's own file system as it is: the reference"},
      {"ext4", "ext4", {}, "", false, "ext4, data=ordered (its default)"},
      {"xfs", "xfs", {}, "", false, "xfs, its defaults"},
      {"btrfs", "btrfs", {}, "", false, "btrfs, its defaults (copy-on-write, checksums)"},
      {"ext4-journal", "ext4", {}, "data=journal", false, "ext4 with data=journal: data through the journal too"},
      {"btrfs-nocow", "btrfs", {}, "", true,
       "btrfs with chattr +C on the data folders: copy-on-write (and checksums) off for their files"},
  };
  return specs;
}

std::vector<std::string> known_fs_names() {
  std::vector<std::string> out;
  for (const FsSpec& s : known_fs()) out.push_back(s.name);
  return out;
}

const FsSpec* find_fs(const std::string& name) {
  for (const FsSpec& s : known_fs())
    if (s.name == name) return &s;
  return nullptr;
}

double CellOut::get(const std::string& m) const {
  auto it = metrics.find(m);
  return it == metrics.end() ? NAN : it->second.first;
}

namespace {
bool in(const kit::Window& w, int rep) {
  return static_cast<size_t>(rep) >= w.begin && static_cast<size_t>(rep) < w.end;
}
}  // namespace

std::vector<double> Measured::values(const std::string& fs_name, const std::string& key, const std::string& metric,
                                     const kit::Window& w) const {
  std::vector<double> out;
  auto f = runs.find(fs_name);
  if (f == runs.end()) return out;
  auto c = f->second.find(key);
  if (c == f->second.end()) return out;
  for (const auto& [rep, o] : c->second)
    if (double v = o.get(metric); std::isfinite(v) && in(w, rep)) out.push_back(v);
  return out;
}

void Measured::paired(const std::string& fs_a, const std::string& key_a, const std::string& metric_a,
                      const std::string& fs_b, const std::string& key_b, const std::string& metric_b,
                      std::vector<double>* a, std::vector<double>* b, const kit::Window& w) const {
  a->clear();
  b->clear();
  auto find = [&](const std::string& f, const std::string& k) -> const std::map<int, CellOut>* {
    auto fi = runs.find(f);
    if (fi == runs.end()) return nullptr;
    auto ci = fi->second.find(k);
    return ci == fi->second.end() ? nullptr : &ci->second;
  };
  const auto* ra = find(fs_a, key_a);
  const auto* rb = find(fs_b, key_b);
  if (!ra || !rb) return;
  for (const auto& [rep, oa] : *ra) {
    if (!in(w, rep)) continue;
    auto ob = rb->find(rep);
    if (ob == rb->end()) continue;
    const double va = oa.get(metric_a), vb = ob->second.get(metric_b);
    if (!std::isfinite(va) || !std::isfinite(vb)) continue;
    a->push_back(va);
    b->push_back(vb);
  }
}

std::string row_case(const std::string& fs_name, const Cell& c) {
  return "fs=" + fs_name + (c.case_.empty() ? "" : ";" + c.case_);
}

Measured run_matrix(const MatrixOptions& o, Runner& runner, kit::Results& results,
                    std::vector<std::string>* teardown_errors) {
  Measured m;
  m.cells = o.cells;
  struct Open {
    const FsSpec* spec;
    std::unique_ptr<Site> site;
  };
  std::vector<Open> open;
  auto teardown_all = [&] {
    for (Open& s : open) {
      if (!s.site) continue;
      if (std::string e = s.site->teardown(); !e.empty()) teardown_errors->push_back(s.spec->name + ": " + e);
      s.site.reset();
    }
  };
  for (const std::string& name : o.fs) {
    const FsSpec* spec = find_fs(name);
    if (!spec) {
      m.fs_skipped[name] = "unknown file system";
      continue;
    }
    std::string why;
    std::unique_ptr<Site> site = runner.open(*spec, &why);
    if (!site) {
      m.fs_skipped[name] = why.empty() ? "could not be built" : why;
      continue;
    }
    m.site_meta[name] = site->describe();
    m.fs.push_back(name);
    open.push_back({spec, std::move(site)});
  }

  try {
    // Parts in the order their first cell appears; inside a part every cell
    // on every file system once a repetition.
    std::vector<std::string> parts;
    for (const Cell& c : o.cells)
      if (std::find(parts.begin(), parts.end(), c.part) == parts.end()) parts.push_back(c.part);
    for (const std::string& part : parts) {
      std::vector<const Cell*> cells;
      for (const Cell& c : o.cells)
        if (c.part == part) cells.push_back(&c);
      // A probe answers what the file system can do: once is the answer.
      const int reps = part == "probe" ? 1 : o.reps;
      const size_t n = cells.size() * open.size();
      if (n == 0) continue;
      auto cell = [&](size_t k, int rep) {
        if (o.stop && o.stop()) return;
        // k runs cell-major, so the file systems of one cell run back to back
        // (the rotation moves which of them is first).
        const Cell& c = *cells[k / open.size()];
        Open& s = open[k % open.size()];
        const std::string& fsn = s.spec->name;
        if (m.cell_skipped[fsn].count(c.key())) return;  // it failed before: the reason is recorded
        if (o.progress) o.progress(fmt::format("{} {} {} {} rep {}", fsn, c.part, c.arm, c.case_, rep + 1),
                                   o.progress_ctx);
        CellOut out;
        const std::string why = runner.run(c, *s.spec, *s.site, rep, &out);
        if (!why.empty()) {
          m.cell_skipped[fsn][c.key()] = why;
          m.runs[fsn].erase(c.key());  // an arm with a failed repetition has no figures to pair
          return;
        }
        const std::string cs = row_case(fsn, c) + fmt::format(";rep={}", rep);
        for (const auto& [metric, v] : out.metrics) results.add("", c.arm, cs, metric, v.first, v.second);
        m.runs[fsn][c.key()][rep] = std::move(out);
      };
      kit::Sequence* seq = part != "probe" && o.sequence ? o.sequence(part) : nullptr;
      if (seq != nullptr && o.judge)
        seq->run(n, cell, [&](const kit::Window& w) { return o.judge(m, part, w); }, kit::Order{true, 0});
      else
        kit::run_interleaved(reps, n, cell, kit::Order{true, 0});
    }
  } catch (...) {
    teardown_all();
    throw;
  }
  teardown_all();

  for (const auto& [name, why] : m.fs_skipped) results.skip("all", "fs=" + name, why);
  for (const std::string& fsn : m.fs)
    for (const Cell& c : o.cells) {
      auto& sk = m.cell_skipped[fsn];
      if (auto it = sk.find(c.key()); it != sk.end()) {
        results.skip(c.arm, row_case(fsn, c), it->second);
      } else if (!m.runs[fsn].count(c.key())) {
        sk[c.key()] = "interrupted before it ran";
        results.skip(c.arm, row_case(fsn, c), sk[c.key()]);
      }
    }
  return m;
}

}  // namespace fenec::scenarios::fs
