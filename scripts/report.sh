#!/usr/bin/env bash
# Builds results/REPORT.md from every scenario's results/<name>/verdicts.md:
# per finding, the source's figure, ours, the verdict and the plot.
set -euo pipefail
cd "$(dirname "$0")/.."
out=results/REPORT.md
mkdir -p results
{
  echo "# fenec report"
  echo
  echo "Generated $(date -u +%Y-%m-%dT%H:%M:%SZ) from results/*/verdicts.md."
  echo "Figures are this machine's; the source's figures come from FINDINGS.md and were"
  echo "measured on other hardware, so the verdict judges the shape (who wins, by what ratio)."
  echo
  found=0
  for f in results/*/verdicts.md; do
    [ -f "$f" ] || continue
    found=1
    name=$(basename "$(dirname "$f")")
    echo "## $name"
    echo
    meta=$(dirname "$f")/latest.csv
    if [ -f "$meta" ]; then
      echo '```'
      grep '^# ' "$meta" | sed 's/^# //' | head -n 20
      echo '```'
      echo
    fi
    cat "$f"
    echo
  done
  [ $found -eq 1 ] || echo "No scenario has been run yet: \`make bench\` runs them all."
} > "$out"
echo "report: wrote $out"
