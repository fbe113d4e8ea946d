#!/usr/bin/env python3
"""The verdict table of the quick suite's last full run, kept in the repository
(results/baseline/verdicts.md), and what moved against it.

  scripts/verdicts.py compare [RESULTS_DIR]   every finding whose verdict differs from the table's (make bench)
  scripts/verdicts.py write [RESULTS_DIR]     the table from the run's results/<scenario>/latest.json files
                                              (make verdict-table, after a full `make bench`)

A row is (scenario, finding): the nth verdict a scenario gives a finding is
"FINDING #n", as `make stability` names them. `compare` prints one line a row
whose verdict moved (and one a row only one side has), always exits 0: a moved
verdict is news for the reader, not a failed run (make ci-charts gates counts).
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "results", "baseline", "verdicts.md")
HEADER = ("# The quick suite's verdicts\n\n"
          "The verdicts of the last full `make bench` (quick mode) recorded here, one a row "
          "(`scripts/verdicts.py write`, `make verdict-table`); `make bench` prints every one that moved "
          "against it.\n")


def collect(run_dir, files=None):
    """{(scenario, finding): (verdict, ours, reason)} and {scenario: machine state} of one run's JSON files:
    run_dir/<scenario>.json (a stability run) or run_dir/<scenario>/latest.json (results/)."""
    rows, machines = {}, {}
    for name in sorted(os.listdir(run_dir)):
        if name.endswith(".json"):
            path, scenario = os.path.join(run_dir, name), name[:-len(".json")]
        elif os.path.isfile(os.path.join(run_dir, name, "latest.json")):
            path, scenario = os.path.join(run_dir, name, "latest.json"), name
        else:
            continue
        if files is not None and scenario not in files:
            continue
        try:
            doc = json.load(open(path))
        except (OSError, ValueError):
            continue
        if "verdicts" not in doc:  # micro-bench: Google Benchmark's JSON, ours under "fenec"
            doc = doc.get("fenec", {})
        machines[scenario] = doc.get("metadata", {}).get("machine_state", "unknown")
        seen = {}
        for v in doc.get("verdicts", []):
            finding = v.get("finding", "?")
            seen[finding] = seen.get(finding, 0) + 1
            key = (scenario, finding if seen[finding] == 1 else f"{finding} #{seen[finding]}")
            rows[key] = (v.get("verdict", "?"), v.get("ours", ""), v.get("reason", ""))
    return rows, machines


def bench_scenarios():
    """The scenarios make bench runs, from scenarios/scenarios.txt (scripts/scenarios.py bench): the
    others' latest.json, if a run of their own left one, is not the quick suite's."""
    import subprocess
    out = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "scenarios.py"), "bench"],
                         capture_output=True, text=True, check=True).stdout
    names = []
    for line in out.splitlines():
        name, _, why = line.partition("\t")
        if name and not why:
            names.append(name)
    return names


def read_table(path=None):
    path = path or TABLE
    rows = {}
    if not os.path.isfile(path):
        return None
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("scenario", "---") or cells[0].startswith("-"):
            continue
        rows[(cells[0], cells[1])] = cells[2]
    return rows


def write(results):
    rows, _ = collect(results, set(bench_scenarios()))
    if not rows:
        print(f"verdicts: no verdicts under {results}/*/latest.json: run make bench first", file=sys.stderr)
        return 2
    lines = [HEADER, "| scenario | finding | verdict |", "|---|---|---|"]
    for (scenario, finding), (verdict, _, _) in sorted(rows.items()):
        lines.append(f"| {scenario} | {finding} | {verdict} |")
    os.makedirs(os.path.dirname(TABLE), exist_ok=True)
    open(TABLE, "w").write("\n".join(lines) + "\n")
    print(f"verdicts: wrote {os.path.relpath(TABLE, ROOT)} ({len(rows)} rows)", file=sys.stderr)
    return 0


def compare(results):
    table = read_table()
    if table is None:
        print(f"verdicts: no {os.path.relpath(TABLE, ROOT)} to compare with (make verdict-table writes it)")
        return 0
    rows, _ = collect(results, set(bench_scenarios()))
    moved = []
    for key in sorted(set(table) | set(rows)):
        was, now = table.get(key), rows.get(key, (None,))[0]
        if was == now:
            continue
        if now is None:
            moved.append(f"  {key[0]} {key[1]}: {was} in the table, not given by this run")
        elif was is None:
            moved.append(f"  {key[0]} {key[1]}: {now} (not in the table)")
        else:
            moved.append(f"  {key[0]} {key[1]}: {was} -> {now}")
    if moved:
        print(f"verdicts: {len(moved)} moved against {os.path.relpath(TABLE, ROOT)}:")
        print("\n".join(moved))
    else:
        print(f"verdicts: every one of {len(rows)} as in {os.path.relpath(TABLE, ROOT)}")
    return 0


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("compare", "write"):
        print(__doc__)
        return 0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 2
    results = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "results")
    return compare(results) if sys.argv[1] == "compare" else write(results)


if __name__ == "__main__":
    sys.exit(main())
