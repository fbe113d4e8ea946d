#!/usr/bin/env bash
# make fuzz: builds the libFuzzer targets (fuzz/) in their clang build folder
# and runs each for SECONDS, one after the other (one process: the machine is
# shared). New inputs go to BUILD/corpus/<name> (not committed); the seeds in
# fuzz/corpus/<name> are read. A crash, leak, timeout (-timeout) or memory
# overrun (-rss_limit_mb, -malloc_limit_mb: an unbounded allocation) leaves
# its input in BUILD/artifacts/<name>/; commit it to fuzz/corpus/<name>/
# with the fix, and the corpus test of `make test` keeps it fixed.
# Ends with one line per target (executions, coverage) in BUILD/fuzz-report.txt.
#
# The request paths' bugs live at large sizes (work growing faster
# than the request, memory no limit bounds), so request, handler, parser and
# lexer take inputs up to 1 MiB (-max_len) and start from large generated
# seeds (fuzz/large_seeds.py, into BUILD/corpus/<name>: not committed).
#
#   fuzz.sh BUILD SECONDS [TARGET...]     (targets: the fuzz_<name> files' names)
set -uo pipefail
build=$1
seconds=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=($(cd "$root/fuzz" && ls fuzz_*.cc | sed 's/^fuzz_//; s/\.cc$//'))
fi

ninja -C "$build" $(printf 'fuzz/fuzz_%s ' "${targets[@]}") || exit 1

# The targets' databases live on a tmpfs: every input opens or writes one, and
# fsyncs to a disk would make the run about the disk.
scratch=$(mktemp -d /dev/shm/fenec-fuzz-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
export FENEC_TEST_DIR=$scratch
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
report="$build/fuzz-report.txt"
rc=0
max_len_of() {
  case $1 in
    request|handler|parser|lexer) echo 1048576 ;;
    *) echo 0 ;;  # libFuzzer's own choice, from the corpus
  esac
}
for t in "${targets[@]}"; do
  mkdir -p "$build/corpus/$t" "$build/artifacts/$t"
  log="$build/fuzz-$t.log"
  max_len=$(max_len_of "$t")
  len_args=()
  if [ "$max_len" -gt 0 ]; then
    len_args=(-max_len="$max_len")
    python3 "$root/fuzz/large_seeds.py" "$build/corpus/$t" "$t" || exit 1
  fi
  echo "fuzz: $t for ${seconds}s (log: $log)"
  "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    "${len_args[@]}" -print_final_stats=1 -artifact_prefix="$build/artifacts/$t/" \
    "$build/corpus/$t" "$root/fuzz/corpus/$t" >"$log" 2>&1
  status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
  line="$(date -u +%FT%TZ) $t: ${seconds}s, ${execs:-?} executions, cov ${cov:-?} edges, ft ${ft:-?} features, corpus ${corp:-?}, exit $status"
  echo "$line" | tee -a "$report"
  if [ $status -ne 0 ]; then
    rc=1
    grep -E 'ERROR|FUZZ_CHECK|SUMMARY|Test unit written' "$log" | head -5
  fi
done
exit $rc
