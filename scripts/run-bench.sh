#!/usr/bin/env bash
# Runs one scenario's driver: scripts/run-bench.sh BUILD NAME [--quick] [driver flags...]
# The driver writes results/NAME/ and plots/NAME/; this script then refreshes REPORT.md.
set -euo pipefail
build=$1; name=$2; shift 2
bin="$build/scenarios/$name/$name-bench"
if [ ! -x "$bin" ]; then
  echo "run-bench: scenario '$name' is not built in this tree ($bin missing): skipped" >&2
  exit 1
fi
"$bin" "$@"
bash "$(dirname "$0")/report.sh" >/dev/null
