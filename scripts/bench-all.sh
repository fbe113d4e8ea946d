#!/usr/bin/env bash
# `make bench`: the quick mode of every scenario that exists, one after another,
# then results/REPORT.md. A scenario that fails is reported and the rest still run;
# the exit code is non-zero if any failed.
set -uo pipefail
build=$1
here=$(dirname "$0")
failed=()
start=$(date +%s)
# soak is left out on purpose: a robustness run (kill -9 cycles, 30 s even quick), not a
# measurement, and this loop's budget is spent; run it with `make soak-bench`.
for name in io concurrency growth recon journals commit smaps micro vector conns requests load; do
  bin="$build/scenarios/$name/$name-bench"
  [ -x "$bin" ] || continue
  echo "== $name-bench --quick  ($(( $(date +%s) - start ))s elapsed)" >&2
  "$bin" --quick || failed+=("$name")
done
bash "$here/report.sh"
echo "bench: done in $(( $(date +%s) - start ))s; report in results/REPORT.md" >&2
if [ ${#failed[@]} -gt 0 ]; then
  echo "bench: failed scenarios: ${failed[*]}" >&2
  exit 1
fi
