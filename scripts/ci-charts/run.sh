#!/usr/bin/env bash
# CI regression charts: scripts/ci-charts/run.sh BUILD_DIR [--record] [--update-baseline]
#
# Runs the cheap parts of the quick suite into results/ci/runs/ (micro-bench
# with repetitions, micro-icount under callgrind, smaps-bench's sampler arms,
# then the quick mode of each other scenario a metric in metrics.conf reads,
# within the time left), and hands them to fenec-ci, which compares them with
# results/baseline/ci.csv, adds the run to the history and writes
# results/ci/{report.txt,index.html,charts/,run.csv,bencher.json,
# github-action-benchmark-*.json}.
#
#   (default)          `make ci-charts`: exit 1 on a regression (stable metric, or a
#                      noisy one confirmed by factor + Mann-Whitney U), else 0; the
#                      run joins a copy of the history (results/ci/history.csv), so
#                      the checkout stays clean
#   --record           `make record`: the run is tagged "record" (a reference for
#                      later checks), appended to results/history.csv, and never
#                      fails the build
#   --update-baseline  also rewrite results/baseline/ci.csv from this run
#
# Environment: CI_BUDGET_S (default 420: the whole step stays under 8 minutes),
# CI_SCENARIO_TIMEOUT_S (default 150, per other scenario), CI_SKIP_SCENARIOS=1
# (only micro and smaps), CI_HISTORY / CI_BASELINE / CI_OUT (other files, for trying it out).
set -uo pipefail
usage() { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; }

build=""
tag=ci
flags=()
for a in "$@"; do
  case "$a" in
    -h|--help) usage; exit 0 ;;
    --record) tag=record; flags+=(--no-gate) ;;
    --update-baseline) flags+=(--write-baseline) ;;
    -*) echo "run.sh: unknown flag '$a' (see --help)" >&2; exit 2 ;;
    *) [ -z "$build" ] || { echo "run.sh: one BUILD_DIR only (see --help)" >&2; exit 2; }; build=$a ;;
  esac
done
[ -n "$build" ] || { echo "run.sh: missing BUILD_DIR (see --help)" >&2; exit 2; }
cd "$(dirname "$0")/../.." || exit 3
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac

budget=${CI_BUDGET_S:-420}
per_scenario=${CI_SCENARIO_TIMEOUT_S:-150}
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
out=${CI_OUT:-results/ci}
history=${CI_HISTORY:-results/history.csv}
baseline=${CI_BASELINE:-results/baseline/ci.csv}
runs=$out/runs
cg=$out/callgrind
rm -rf "$runs" "$cg" "$out/charts"
mkdir -p "$runs" "$cg"
# Only `make record` writes the tracked history; a check charts its run on a copy.
if [ "$tag" = ci ] && [ -z "${CI_HISTORY:-}" ]; then
  cp "$history" "$out/history.csv" 2>/dev/null || : > "$out/history.csv"
  history=$out/history.csv
fi
log() { echo "ci-charts: [$(elapsed)s] $*" >&2; }

commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] && commit="$commit-dirty"
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
# A fixed seed: the same graph, lines and file every run, one noise source fewer.
common=(--quick --seed 1 --results "$runs" --plots "$out/plots")

bin="$build/scenarios/micro/micro-bench"
if [ -x "$bin" ]; then
  log "micro-bench, 5 repetitions"
  "$bin" "${common[@]}" --reps 5 --min-time 0.05 > "$out/micro.log" 2>&1 \
    || log "micro-bench failed (see $out/micro.log)"
else
  log "micro-bench not built: skipped"
fi

# Instruction counts are stable metrics: the same source must give the same
# counts in any build dir, clone path, environment or load. micro-icount (the
# MM kernels) and micro-icount-engine (ENG/*) run each kernel warmed up, in its
# own process and thread (a fresh malloc arena) at a fixed stack offset, and
# count that thread alone (see scenarios/micro/icount.cc). Here: a cleared
# environment (no GLIBC_TUNABLES, LD_BIND_NOW, MALLOC_*, VALGRIND_OPTS or
# ~/.valgrindrc from the caller) and callgrind's options spelled out (the
# kernels need --collect-atstart=yes and one dump for all threads).
if command -v valgrind > /dev/null; then
  for name in micro-icount micro-icount-engine; do
    bin="$build/scenarios/micro/$name"
    if [ ! -x "$bin" ]; then
      log "$name not built: its instruction counts skipped"
      continue
    fi
    log "$name under callgrind"
    env -i PATH="$PATH" valgrind --tool=callgrind --collect-atstart=yes --separate-threads=no \
      --callgrind-out-file="$cg/callgrind.%p" "$bin" > "$out/$name.log" 2>&1 \
      || log "$name failed (see $out/$name.log)"
  done
else
  log "valgrind missing: instruction counts skipped"
fi

bin="$build/scenarios/smaps/smaps-bench"
if [ -x "$bin" ]; then
  log "smaps-bench, sampler vs none, 5 repetitions"
  "$bin" "${common[@]}" --no-read-cost --arms none,sampler --hz 100 --threads 4 --reps 5 \
    --seconds 1 > "$out/smaps.log" 2>&1 || log "smaps-bench failed (see $out/smaps.log)"
else
  log "smaps-bench not built: skipped"
fi

# Only the scenarios a metric reads (metrics.conf's third column): the others'
# quick runs fed no metric and took ~5 of CI's minutes (io, concurrency, recon,
# commit); `make bench` is where they run.
read -r -a needed <<< "$(awk '!/^[[:space:]]*(#|$)/ && $1 != "icount" && $1 != "run" && $3 != "micro" && $3 != "smaps" {print $3}' \
  scripts/ci-charts/metrics.conf | sort -u | tr '\n' ' ')"
# A scenario's own flags for its quick run, from metrics.conf's `run SCENARIO FLAGS...` lines.
flags_of() { awk -v s="$1" '$1 == "run" && $2 == s {for (i = 3; i <= NF && $i !~ /^#/; i++) printf "%s ", $i}' \
  scripts/ci-charts/metrics.conf; }
if [ "${CI_SKIP_SCENARIOS:-0}" != 1 ]; then
  for name in "${needed[@]}"; do
    bin="$build/scenarios/$name/$name-bench"
    [ -x "$bin" ] || continue
    left=$(( budget - $(elapsed) ))
    if [ "$left" -lt 30 ]; then
      log "$name-bench: skipped, the CI budget (${budget}s) is spent"
      continue
    fi
    t=$(( left < per_scenario ? left : per_scenario ))
    read -r -a own <<< "$(flags_of "$name")"
    log "$name-bench --quick ${own[*]} (at most ${t}s)"
    timeout --signal=INT --kill-after=10 "$t" "$bin" "${common[@]}" "${own[@]}" > "$out/$name.log" 2>&1 \
      || log "$name-bench failed or timed out (see $out/$name.log)"
  done
fi

fenec_ci="$build/scenarios/ci/fenec-ci"
if [ ! -x "$fenec_ci" ]; then
  echo "ci-charts: $fenec_ci is not built" >&2
  exit 3
fi
log "comparing with $baseline"
"$fenec_ci" --config scripts/ci-charts/metrics.conf --results "$runs" --callgrind "$cg" \
  --baseline "$baseline" --history "$history" --out "$out" \
  --commit "$commit" --date "$date" --tag "$tag" --append "${flags[@]}"
rc=$?
log "done: $out/index.html, $out/report.txt (exit $rc)"
exit $rc
