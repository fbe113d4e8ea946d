#!/usr/bin/env bash
# Runs every test through meson and ends with one plain summary line
# ("N passed, N failed, N skipped") that CI reads.
set -uo pipefail
build=${1:-build}
log=$(mktemp)
meson test -C "$build" --print-errorlogs --num-processes 2 "${@:2}" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
ok=$(awk '/^Ok:/{print $2}' "$log"); fail=$(awk '/^Fail:/{print $2}' "$log")
skip=$(awk '/^Skipped:/{print $2}' "$log"); to=$(awk '/^Timeout:/{print $2}' "$log")
rm -f "$log"
echo "tests: ${ok:-0} passed, $(( ${fail:-0} + ${to:-0} )) failed, ${skip:-0} skipped"
exit "$rc"
