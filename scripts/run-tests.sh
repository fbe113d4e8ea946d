#!/usr/bin/env bash
# Builds and runs the tests through meson and ends with one plain summary line
# ("N passed, N failed, N skipped") that CI reads.
#
#   run-tests.sh BUILD [SUITE...]
# No suite: the whole tree is built and every test runs. Suites given: only
# their tests' executables are built (scripts/suite-targets.py), and only
# they run. SANITIZE (address,undefined or thread, as the build folder was
# configured) sets the sanitizers' options and longer timeouts; TEST_PROCESSES
# how many tests run at once (4).
set -uo pipefail
build=${1:-build}
suites=("${@:2}")
here=$(cd "$(dirname "$0")" && pwd)

# Four at once on two cores: the tests spend half their time waiting on
# fsyncs, servers and PostgreSQL, so two left the cores idle half the run.
# Tests assert counts, never times, so a busier machine changes no verdict.
args=(--print-errorlogs --num-processes "${TEST_PROCESSES:-4}")
case "${SANITIZE:-}" in
  "") ;;
  *thread*)
    # Reports fail the test; every suppression in tsan.supp says why it is there.
    export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:history_size=4:suppressions=$here/tsan.supp"
    args+=(--timeout-multiplier 6) ;;
  *)
    # Meson's own defaults, plus leak checking and the UBSan stack that says where.
    export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_summary=1:detect_leaks=1"
    export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_summary=1:print_stacktrace=1"
    args+=(--timeout-multiplier 4) ;;
esac

if [ ${#suites[@]} -eq 0 ]; then
  ninja -C "$build" || exit 1
else
  # A suite of scripts only (tree) has nothing to build: no empty target for ninja.
  list=$(python3 "$here/suite-targets.py" "$build" "${suites[@]}") || exit 2
  mapfile -t targets < <(printf '%s' "$list" | grep -v '^$')
  [ ${#targets[@]} -eq 0 ] || ninja -C "$build" "${targets[@]}" || exit 1
  for s in "${suites[@]}"; do args+=(--suite "$s"); done
fi

log=$(mktemp)
meson test -C "$build" --no-rebuild "${args[@]}" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
ok=$(awk '/^Ok:/{print $2}' "$log"); fail=$(awk '/^Fail:/{print $2}' "$log")
skip=$(awk '/^Skipped:/{print $2}' "$log"); to=$(awk '/^Timeout:/{print $2}' "$log")
rm -f "$log"
echo "tests: ${ok:-0} passed, $(( ${fail:-0} + ${to:-0} )) failed, ${skip:-0} skipped"
exit "$rc"
