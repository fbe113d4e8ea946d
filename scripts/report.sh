#!/usr/bin/env bash
# Builds results/REPORT.md from findings/CATALOGUE.md and every scenario's
# results/<name>/latest.json: one line a finding, then each scenario's
# verdicts, then the runs' metadata (scripts/report.py).
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/report.py
