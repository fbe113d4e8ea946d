#!/usr/bin/env bash
# `make bench`: the quick mode of every scenario scenarios/scenarios.txt puts in it, in its
# order, then results/REPORT.md. A scenario that fails or was not built is reported and the
# rest still run; the exit code is non-zero if any failed or was missing. One the list
# leaves out is named with its reason (run it with `make NAME-bench`).
set -uo pipefail
build=$1
here=$(dirname "$0")
failed=()
start=$(date +%s)
list=$(python3 "$here/scenarios.py" bench) || { echo "bench: cannot read scenarios/scenarios.txt" >&2; exit 1; }
mapfile -t lines <<< "$list"
for line in "${lines[@]}"; do
  IFS=$'\t' read -r name why <<< "$line"
  if [ -n "$why" ]; then
    echo "== $name-bench not in make bench: $why (make $name-bench runs it)" >&2
    continue
  fi
  bin="$build/scenarios/$name/$name-bench"
  if [ ! -x "$bin" ]; then
    echo "== $name-bench FAILED: not built ($bin missing)" >&2
    failed+=("$name (not built)")
    continue
  fi
  echo "== $name-bench --quick  ($(( $(date +%s) - start ))s elapsed)" >&2
  "$bin" --quick || failed+=("$name")
done
bash "$here/report.sh"
# Every finding whose verdict moved against the table of the last full run
# kept in the repository (results/baseline/verdicts.md; make verdict-table).
python3 "$here/verdicts.py" compare
echo "bench: done in $(( $(date +%s) - start ))s; report in results/REPORT.md" >&2
if [ ${#failed[@]} -gt 0 ]; then
  echo "bench: failed scenarios: ${failed[*]}" >&2
  exit 1
fi
