#!/usr/bin/env python3
"""Prints the ninja targets the tests of the given suites need: each test's
executable and what it `depends` on (a server binary, a CLI). run-tests.sh
builds just these when `make test SUITES=...` picks suites, so a sanitized
build compiles what it runs and not the whole tree.

  suite-targets.py BUILD SUITE...
"""
import json
import os
import subprocess
import sys


def introspect(build, what):
    out = subprocess.run(['meson', 'introspect', build, what], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main():
    build, suites = os.path.abspath(sys.argv[1]), set(sys.argv[2:])
    by_id = {t['id']: t for t in introspect(build, '--targets')}
    wanted, known = set(), set()
    for test in introspect(build, '--tests'):
        # Suites are listed as "suite" or "project:suite".
        names = {s.split(':')[-1] for s in test['suite']}
        known |= names
        if not names & suites:
            continue
        paths = [test['cmd'][0]]
        for dep in test.get('depends', []):
            paths += by_id[dep]['filename'] if dep in by_id else []
        for p in paths:
            if p.startswith(build + '/'):
                wanted.add(os.path.relpath(p, build))
    unknown = sorted(suites - known)
    if unknown:
        print(f"suite-targets: no suite named {', '.join(unknown)}; the suites are: {' '.join(sorted(known))}",
              file=sys.stderr)
        return 2
    if wanted:
        print('\n'.join(sorted(wanted)))


if __name__ == '__main__':
    sys.exit(main())
