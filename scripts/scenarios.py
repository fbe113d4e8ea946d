#!/usr/bin/env python3
"""The one reader of scenarios/scenarios.txt, the list of scenarios.

  scenarios.py names              every scenario, in order (what the Makefile's SCENARIOS must say)
  scenarios.py bench              `make bench`'s: NAME, or NAME<TAB>why-not, a line each
  scenarios.py readme [--write]   the README's table (--write puts it between its markers)
  scenarios.py check              fails, a line each, where a wiring disagrees with the list:
                                  a folder under scenarios/ with a NAME-bench not listed (or a
                                  listed one without), scenarios/meson.build or scripts/bench-all.sh
                                  not reading the list, the Makefile's SCENARIOS, the README's table,
                                  a scenario's main.cc including CLI11
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
LIST = root / 'scenarios' / 'scenarios.txt'
BEGIN = '<!-- scenarios: written by scripts/scenarios.py readme --write from scenarios/scenarios.txt -->'
END = '<!-- end of scenarios -->'
# Folders under scenarios/ that hold no scenario: the scratch PostgreSQL
# cluster, the child processes benches start, the engine arms scenarios
# share, the CI regression detector.
NOT_SCENARIOS = {'pg', 'procs', 'engines', 'ci'}
# The shared folders a scenario may include; never another scenario's files.
SHARED = {'pg', 'procs', 'engines'}


def read():
    """[(name, why_not or None, description)], in order."""
    out = []
    for n, line in enumerate(LIST.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith('#'):
            continue
        cols = [c.strip() for c in line.split('|')]
        if len(cols) != 3 or not re.fullmatch(r'[a-z][a-z0-9_]*', cols[0]) or not cols[2]:
            sys.exit(f'{LIST}:{n}: want "name | yes or no: why | description"')
        if cols[1] == 'yes':
            why = None
        elif cols[1].startswith('no:') and cols[1][3:].strip():
            why = cols[1][3:].strip()
        else:
            sys.exit(f'{LIST}:{n}: the second column is "yes" or "no: why", not "{cols[1]}"')
        out.append((cols[0], why, cols[2]))
    return out


def readme_table(rows):
    lines = ['| scenario | in `make bench` | what it measures |', '|---|---|---|']
    for name, why, desc in rows:
        lines.append(f'| `make {name}-bench` | {"yes" if why is None else "no: " + why} | {desc} |')
    return '\n'.join(lines)


def readme_with_table(text, rows):
    if BEGIN not in text or END not in text:
        return None
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + BEGIN + '\n' + readme_table(rows) + '\n' + END + tail


def check(rows):
    problems = []
    names = [r[0] for r in rows]
    if len(set(names)) != len(names):
        problems.append('scenarios/scenarios.txt lists a scenario twice')
    for d in sorted(p for p in (root / 'scenarios').iterdir() if p.is_dir()):
        build = d / 'meson.build'
        has_bench = build.exists() and f"'{d.name}-bench'" in build.read_text()
        if d.name in NOT_SCENARIOS:
            continue
        if has_bench and d.name not in names:
            problems.append(f'scenarios/{d.name}/ builds {d.name}-bench but scenarios/scenarios.txt does not list it')
    for name in names:
        build = root / 'scenarios' / name / 'meson.build'
        if not build.exists() or f"'{name}-bench'" not in build.read_text():
            problems.append(f'scenarios/scenarios.txt lists {name}, but scenarios/{name}/meson.build builds no {name}-bench')
        # A scenario's flags go through Harness::flag: CLI11 costs seconds a file to compile.
        main = root / 'scenarios' / name / 'main.cc'
        if main.exists() and re.search(r'#include [<"](CLI/CLI\.hpp|engine/src/base/cli\.h)', main.read_text()):
            problems.append(f'scenarios/{name}/main.cc includes CLI11: declare its flags with Harness::flag')
        for src in sorted((root / 'scenarios' / name).glob('*.[ch]*')):
            for other in re.findall(r'#include "scenarios/([a-z0-9_]+)/', src.read_text()):
                if other != name and other not in SHARED:
                    problems.append(f'scenarios/{name}/{src.name} includes scenarios/{other}/: '
                                    f'move what both use to a shared folder ({", ".join(sorted(SHARED))})')
    meson = (root / 'scenarios' / 'meson.build').read_text()
    if ".read('scenarios.txt')" not in meson or re.search(r"foreach s : \[[^\]]*'io'", meson):
        problems.append('scenarios/meson.build does not take its subdirs from scenarios.txt')
    make = (root / 'Makefile').read_text()
    m = re.search(r'^SCENARIOS := (.*)$', make, re.M)
    if not m or m.group(1).split() != names:
        problems.append(f"the Makefile's SCENARIOS is not scenarios.txt's names in order: {' '.join(names)}")
    bench_all = (root / 'scripts' / 'bench-all.sh').read_text()
    if 'scenarios.py" bench' not in bench_all or re.search(r'for name in [a-z]', bench_all):
        problems.append('scripts/bench-all.sh does not take its scenarios from scripts/scenarios.py bench')
    text = (root / 'README.md').read_text()
    want = readme_with_table(text, rows)
    if want is None:
        problems.append(f'README.md has no scenario table between "{BEGIN}" and "{END}"')
    elif want != text:
        problems.append("README.md's scenario table differs from scenarios/scenarios.txt: "
                        'python3 scripts/scenarios.py readme --write')
    for p in problems:
        print(p)
    print(f'{len(rows)} scenarios listed, {len(problems)} disagreements')
    return 1 if problems else 0


def main():
    rows = read()
    what = sys.argv[1] if len(sys.argv) > 1 else ''
    if what == 'names':
        print(' '.join(r[0] for r in rows))
    elif what == 'bench':
        for name, why, _ in rows:
            print(name if why is None else f'{name}\t{why}')
    elif what == 'readme':
        if sys.argv[2:] == ['--write']:
            path = root / 'README.md'
            text = readme_with_table(path.read_text(), rows)
            if text is None:
                sys.exit(f'README.md has no "{BEGIN}" ... "{END}" markers')
            path.write_text(text)
        else:
            print(readme_table(rows))
    elif what == 'check':
        sys.exit(check(rows))
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
