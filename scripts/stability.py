#!/usr/bin/env python3
"""`make stability RUNS=K`: the quick suite K times in a row, then one table of
every verdict in every run, marking each row whose verdict differs.

  scripts/stability.py BUILD_DIR [RUNS]
  scripts/stability.py --table     (the table again from results/stability/run-*/)

Each run is `scripts/bench-all.sh BUILD_DIR` (what `make bench` runs); its
results/<scenario>/latest.json files are kept in results/stability/run-<k>/.
The table, results/stability/STABILITY.md, has a row per (scenario, finding):
the verdict of each run, then `same` or `DIFFERS`, and under it each run's
time, machine state and count of inconclusive rows. Each run's time is kept
in run-<k>/seconds. A verdict is one of the
fixed set (reproduced, partly reproduced, not reproduced, inconclusive, not
applicable, skipped), so two runs agree or they do not: no free text compared.

Exits 1 if any row differs or a run failed, else 0.
"""
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verdicts import collect  # noqa: E402  one reader of a run's verdicts


def minutes(seconds):
    return '?' if seconds != seconds else f'{seconds / 60:.1f} min'  # nan: no seconds file


def md(s):
    return s.replace('|', '\\|').replace('\n', ' ')


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ('-h', '--help'):
        print(__doc__)
        return 0 if len(sys.argv) > 1 else 2
    if sys.argv[1] == '--table':
        os.chdir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        out = os.path.join('results', 'stability')
        if not os.path.isdir(out):
            print('stability: no results/stability/ to tabulate; run `make stability` first', file=sys.stderr)
            return 2
        return table(out, [])
    build = sys.argv[1]
    try:
        runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    except ValueError:
        print(f'stability: RUNS must be a whole number, not {sys.argv[2]!r}', file=sys.stderr)
        return 2
    if runs < 2:
        print('stability: RUNS must be at least 2 (one run cannot disagree with itself)', file=sys.stderr)
        return 2
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    out = os.path.join('results', 'stability')
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    failed = []
    for k in range(1, runs + 1):
        print(f'== stability: run {k} of {runs}', file=sys.stderr, flush=True)
        t0 = time.time()
        rc = subprocess.call(['bash', 'scripts/bench-all.sh', build])
        if rc != 0:
            failed.append(k)
        run_dir = os.path.join(out, f'run-{k}')
        os.makedirs(run_dir)
        for scenario in sorted(os.listdir('results')):
            latest = os.path.join('results', scenario, 'latest.json')
            if os.path.isfile(latest):
                shutil.copy(latest, os.path.join(run_dir, scenario + '.json'))
        open(os.path.join(run_dir, 'seconds'), 'w').write(f'{time.time() - t0:.0f}\n')
    return table(out, failed)


def table(out, failed):
    """Writes out/STABILITY.md from out/run-*/; returns the exit code."""
    run_dirs = sorted((d for d in os.listdir(out) if d.startswith('run-')), key=lambda d: int(d[4:]))
    runs = len(run_dirs)
    per_run, machines, times = [], [], []
    for d in run_dirs:
        rows, m = collect(os.path.join(out, d))
        per_run.append(rows)
        machines.append(m)
        try:
            times.append(float(open(os.path.join(out, d, 'seconds')).read()))
        except (OSError, ValueError):
            times.append(float('nan'))
    keys = sorted(set().union(*[r.keys() for r in per_run]))
    differ = 0
    lines = ['# Verdict stability', '',
             f'{runs} runs of the quick suite (`make stability RUNS={runs}`), one after another on this machine.',
             'A row is the same when every run gave the same verdict.', '',
             '| scenario | finding | ' + ' | '.join(f'run {k}' for k in range(1, runs + 1)) + ' | |',
             '|---|---|' + '---|' * runs + '---|']
    for key in keys:
        verdicts = [r.get(key, ('absent', '', ''))[0] for r in per_run]
        same = len(set(verdicts)) == 1
        differ += not same
        lines.append(f'| {key[0]} | {key[1]} | ' + ' | '.join(verdicts) + f" | {'same' if same else '**DIFFERS**'} |")
    lines += ['', '| run | time | inconclusive | busy scenarios |', '|---|---|---|---|']
    for k in range(runs):
        inconclusive = sum(1 for v in per_run[k].values() if v[0] == 'inconclusive')
        busy = [s for s, state in machines[k].items() if state.startswith('busy')]
        lines.append(f'| {k + 1} | {minutes(times[k])} | {inconclusive} | {", ".join(busy) or "none"} |')
    lines += ['', f'{len(keys)} rows; {len(keys) - differ} the same in every run, {differ} differing.']
    if failed:
        lines.append(f'Runs that failed (a scenario exited non-zero): {", ".join(map(str, failed))}.')
    lines += ['', '## Each run\'s figures', '']
    for key in keys:
        lines.append(f'- **{key[0]} {key[1]}**')
        for k in range(runs):
            v, ours, reason = per_run[k].get(key, ('absent', '', ''))
            lines.append(f'  - run {k + 1}: {v}: {md(ours)}' + (f' ({md(reason)})' if reason else ''))
    text = '\n'.join(lines) + '\n'
    open(os.path.join(out, 'STABILITY.md'), 'w').write(text)
    print(text.split('\n## ')[0])
    print(f'stability: wrote {out}/STABILITY.md', file=sys.stderr)
    return 1 if differ or failed else 0


if __name__ == '__main__':
    sys.exit(main())
