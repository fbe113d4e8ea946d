#!/usr/bin/env python3
"""The layer check `make test` runs: every #include of the project's own headers
points down, never up, and no leftover build guard hides a missing part.

Layers, bottom first (README.md, "Layers"):
  engine/src/base        the base: depends on no other part of the project
  engine/src/index, ring libraries libfenec links; the base only, and the
                         engine's Status (fenec/status.h) they return
  engine/include/fenec   the public API
  engine/src/{io,journal,storage,db}   libfenec
  engine/src/query       FenecQL, on the public API
  engine/server          fenec-server, on the statement language
  engine/src/tools       the fenec CLI (may open storages directly)
  iobench/kit            the bench harness: results, plots, CLI; the base only
  iobench/src            the iobench tool
  findings               the findings catalogue's declarations; on iobench/kit's verdicts
  scenarios/pg           the scratch PostgreSQL cluster the benches start; the base only
  scenarios/procs        the child processes the benches start (fenec-server, conns-holder); the base, and
                         the public API and the kit for the engine's counters as result rows
  scenarios/engines      the engine arms and workloads the benches share; the base, the public API, the kit,
                         scenarios/pg, and engine/src/io (JR-1's workload counts syscalls through a PosixEnv)
  scenarios/<name>       the benches: anything below, findings, scenarios/pg, scenarios/engines, and their own folder
  fuzz                   the fuzz targets: anything

Prints each violation as `file:line: what` and exits 1 if there is any.
"""
import os
import re
import subprocess
import sys

ENGINE_CORE = ['engine/src/io/', 'engine/src/journal/', 'engine/src/storage/', 'engine/src/db/']
BASE = ['engine/src/base/']
PUBLIC = ['fenec/']

# (folder prefix, the prefixes its files may include besides their own folder)
RULES = [
    ('engine/src/base/', []),
    ('engine/src/index/', BASE + PUBLIC),
    ('engine/src/ring/', BASE + PUBLIC),
    ('engine/include/fenec/', PUBLIC),
    ('engine/src/query/', BASE + PUBLIC),
    ('engine/server/', BASE + PUBLIC + ['engine/src/query/']),
    ('engine/src/tools/', BASE + PUBLIC + ENGINE_CORE + ['engine/src/index/', 'engine/src/ring/', 'engine/src/query/']),
]
for core in ENGINE_CORE:
    RULES.append((core, BASE + PUBLIC + ENGINE_CORE + ['engine/src/index/', 'engine/src/ring/']))
RULES += [
    ('iobench/kit/', BASE),
    ('iobench/src/', BASE + ['iobench/kit/']),
    ('findings/', BASE + ['iobench/kit/']),
    # A scenario may use every layer below it, but not another scenario's
    # files; scenarios/pg/ (the scratch PostgreSQL cluster, not a scenario)
    # is there for every scenario that starts one, scenarios/procs/ (the
    # child processes: fenec-server, conns-holder) for those that start those.
    ('scenarios/pg/', BASE),
    ('scenarios/procs/', BASE + PUBLIC + ['iobench/kit/']),
    # scenarios/engines/: the engine arms every scenario that runs engines
    # shares, and JR-1's workload (its PosixEnv counts the cell's syscalls).
    ('scenarios/engines/', BASE + PUBLIC + ['iobench/kit/', 'scenarios/pg/', 'engine/src/io/']),
    ('scenarios/', BASE + PUBLIC + ['engine/', 'iobench/', 'findings/', 'scenarios/pg/', 'scenarios/procs/',
                    'scenarios/engines/']),
    # The fuzz targets feed every input path, so they reach into every layer.
    ('fuzz/', BASE + PUBLIC + ['engine/', 'iobench/', 'findings/', 'scenarios/']),
]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
LEFTOVERS = [(re.compile(r'fs\.is_file|is_variable\('), 'a build guard: every part of the tree is always built'),
             (re.compile(r'FENEC_HAVE_'), 'a FENEC_HAVE_ macro: every part of the tree is always built')]


def own_folder(path):
    if path.startswith('scenarios/'):
        return '/'.join(path.split('/')[:2]) + '/'
    return os.path.dirname(path) + '/'


def rule_for(path):
    best = None
    for prefix, allowed in RULES:
        if path.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, allowed)
    return best


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    files = subprocess.run(['git', 'ls-files', '-co', '--exclude-standard'], capture_output=True, text=True,
                           check=True).stdout.split()
    bad = []
    checked = 0
    for path in files:
        if not os.path.isfile(path):
            continue
        is_cpp = path.endswith(('.cc', '.h'))
        if is_cpp or os.path.basename(path) == 'meson.build':
            text = open(path, encoding='utf-8', errors='replace').read()
            for pattern, why in LEFTOVERS:
                for m in pattern.finditer(text):
                    bad.append(f'{path}:{text.count(chr(10), 0, m.start()) + 1}: {why}')
        if not is_cpp:
            continue
        rule = rule_for(path)
        if rule is None:
            continue
        checked += 1
        allowed = rule[1] + [own_folder(path)]
        for lineno, line in enumerate(open(path, encoding='utf-8', errors='replace'), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(1)
            if not any(target.startswith(p) for p in allowed):
                bad.append(f'{path}:{lineno}: includes "{target}", above or beside its layer ({rule[0]})')
    for b in bad:
        print(b)
    print(f'check-layers: {checked} files checked, {len(bad)} violations')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
