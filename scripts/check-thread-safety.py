#!/usr/bin/env python3
"""The lock-rule check `make test` runs: clang's thread-safety analysis over the engine.

The engine's locked state is annotated (engine/src/base/thread_annotations.h:
FENEC_GUARDED_BY, FENEC_REQUIRES, ...). GCC ignores the annotations; clang's
-Wthread-safety checks them. This runs clang++-14 -fsyntax-only (the analysis
runs in the front end: nothing is generated, a fraction of a build's cost)
over every engine translation unit that is not a test, with each file's
include paths and defines from the build's compile_commands.json, on all
cores. The standard, {fmt} and simdjson headers most files include are
parsed once, into a precompiled header per set of language flags.

  check-thread-safety.py BUILD_DIR
      Fails (exit 1, clang's diagnostics printed) on any thread-safety
      warning and on any file clang cannot compile.
  check-thread-safety.py BUILD_DIR --probe PROBE.cc
      The must-not-compile test: PROBE.cc, compiled with the same flags, must
      fail with a -Wthread-safety error about `balance_` (a guarded field read
      without its lock), and must compile cleanly with -DFENEC_PROBE_LOCKED
      (the same read with the lock held). Proves the check above is really
      on: a missing clang or a lost flag fails here.
  --no-pch: every file parses its headers itself (slower; to rule the
      precompiled header out when something looks odd).
A file checked clean is not checked again until its command or a file it
read changes (BUILD_DIR/thread-safety-cache.json, from clang's depfiles),
and a file whose headers, by the build's own depfiles, never include
thread_annotations.h is not checked at all: no lock rule is visible to it.
--all checks every file regardless.

A missing clang++-14 is a failure, never a skip: scripts/setup.sh installs it.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

CLANG = 'clang++-14'
# -Wthread-safety: the analysis (GUARDED_BY, REQUIRES, ...) and the checks of
# the annotations themselves; -beta adds the analysis's newer checks (clean
# here, so on). Both are errors: a warning fails the test.
ANALYSIS = ['-Wthread-safety', '-Wthread-safety-beta', '-Werror=thread-safety', '-Werror=thread-safety-beta']
# The engine's translation units: every .cc under engine/ but the tests.
ENGINE = re.compile(r'^engine/.*\.cc$')
TEST = re.compile(r'_test\.cc$')
# System headers most engine files include: parsed once per flag set (PCH).
PCH_HEADERS = ['algorithm', 'atomic', 'chrono', 'condition_variable', 'cstdint', 'cstring', 'deque', 'functional',
               'future', 'list', 'map', 'memory', 'mutex', 'optional', 'random', 'set', 'shared_mutex', 'span',
               'string', 'string_view', 'thread', 'unordered_map', 'variant', 'vector', 'fmt/format.h']
# ... and those of the files whose flags include this pattern: simdjson.h is
# half of a statement-language file's time, and it needs their -m flags.
PCH_FOR_FLAGS = [('-DSIMDJSON_', 'simdjson.h')]
PATH_FLAGS = ('-I', '-isystem', '-iquote', '-idirafter')


def clang_flags(command):
    """From a GCC command line, what clang needs to parse the file the same
    way: (include paths, the rest: defines, the language standard, target
    flags). GCC's warnings, -O, -g, dependency files and the output are
    dropped: they change nothing the front end sees, and some are GCC's own."""
    args = shlex.split(command)[1:]
    paths, rest = [], []
    i = 0
    while i < len(args):
        a = args[i]
        if a in PATH_FLAGS:
            paths += [a, args[i + 1]]
            i += 2
            continue
        if a in ('-D', '-U', '-include'):
            rest += [a, args[i + 1]]
            i += 2
            continue
        if a.startswith(PATH_FLAGS):
            paths.append(a)
        elif a.startswith(('-D', '-U', '-std=')) or a == '-pthread':
            rest.append(a)
        elif re.match(r'^-m(sse|avx|pclmul|popcnt|bmi|lzcnt|arch=|tune=)', a):
            rest.append(a)
        i += 1
    return paths, rest


def load_units(build, root):
    path = os.path.join(build, 'compile_commands.json')
    try:
        with open(path) as f:
            entries = json.load(f)
    except OSError as e:
        sys.exit(f'check-thread-safety: cannot read {path} ({e}): configure the build with meson first')
    units, objects = {}, {}
    for e in entries:
        for f in unity_sources(e['directory'], e['file']):
            src = os.path.relpath(os.path.normpath(os.path.join(e['directory'], f)), root)
            if ENGINE.match(src) and not TEST.search(src) and src not in units:
                paths, rest = clang_flags(e.get('command') or shlex.join(e['arguments']))
                units[src] = (e['directory'], f, paths, rest)
                objects[src] = os.path.normpath(os.path.join(e['directory'], e['output']))
    return units, objects


UNITY_INCLUDE = re.compile(r'^#include\s*[<"]([^>"]+)[>"]')


def unity_sources(directory, file):
    """The sources a compile entry stands for: a unity build's generated
    file (meson's <target>-unityN.cpp, one #include a source) stands for the
    files it includes, each checked as its own translation unit."""
    if not re.search(r'-unity\d+\.c(pp|c)?$', file):
        return [file]
    try:
        with open(os.path.join(directory, file)) as f:
            return [m.group(1) for m in map(UNITY_INCLUDE.match, f) if m]
    except OSError:
        return [file]


def run(cmd, cwd=None):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def syntax_cmd(clang, source, paths, rest, extra=()):
    return [clang, '-fsyntax-only', '-fno-color-diagnostics', *paths, *rest, *ANALYSIS, *extra, source]


def find_clang():
    clang = shutil.which(CLANG)
    if clang is None:
        print(f'check-thread-safety: FAILED: {CLANG} not found. The lock rules are checked by clang; install '
              f'the Debian package clang-14 (scripts/setup.sh lists it: run `make setup` as root).')
        sys.exit(1)
    return clang


def build_pchs(clang, pool, units, tmp):
    """One precompiled header of PCH_HEADERS per set of language flags (clang
    refuses a PCH built with other defines or target features). Returns
    ({flags: [-include-pch, file]}, None), or (None, an error message)."""
    keys = sorted({tuple(rest) for _, _, _, rest in units.values()})
    jobs = {}
    for n, key in enumerate(keys):
        headers = PCH_HEADERS + [h for pattern, h in PCH_FOR_FLAGS if any(a.startswith(pattern) for a in key)]
        header = os.path.join(tmp, f'common{n}.h')
        with open(header, 'w') as f:
            f.write(''.join(f'#if __has_include(<{h}>)\n#include <{h}>\n#endif\n' for h in headers))
        pch = header + '.pch'
        jobs[key] = (pch, pool.submit(run, [clang, '-x', 'c++-header', *key, header, '-o', pch]))
    out = {}
    for key, (pch, fut) in jobs.items():
        rc, output = fut.result()
        if rc != 0:
            return None, f'precompiling the standard headers with {shlex.join(key)} failed:\n{output}'
        out[key] = ['-include-pch', pch]
    return out, None


CACHE = 'thread-safety-cache.json'  # in the build folder
# The one header that declares the annotations (FENEC_GUARDED_BY, ...).
ANNOTATIONS = 'engine/src/base/thread_annotations.h'


def blind_units(build, root, units, objects):
    """The files no lock rule is visible to: by the build's own record of
    what each object read (ninja -t deps, GCC's depfiles), none of their
    headers is ANNOTATIONS, and libstdc++'s mutexes carry no annotations, so
    clang's analysis has nothing to warn about there. A file the record does
    not cover, or covers as stale, is not blind: it is checked. objects:
    each unit's object file (a unity chunk's, for its sources)."""
    p = subprocess.run(['ninja', '-C', build, '-t', 'deps'], capture_output=True, text=True)
    if p.returncode != 0:
        return set()
    sees, valid, obj = set(), set(), None
    for line in p.stdout.splitlines():
        if line and not line[0].isspace():
            obj = os.path.normpath(os.path.join(build, line.split(': #deps')[0]))
            if line.rstrip().endswith('(VALID)'):
                valid.add(obj)
        elif obj and os.path.relpath(os.path.normpath(os.path.join(build, line.strip())), root) == ANNOTATIONS:
            sees.add(obj)
    return {src for src in units if objects[src] in valid and objects[src] not in sees}


def dep_stamp(path):
    try:
        st = os.stat(path)
        return [st.st_mtime_ns, st.st_size]
    except OSError:
        return None


def read_deps(depfile, tmp):
    """The files a make-style depfile names, less the per-run PCH in tmp."""
    try:
        with open(depfile) as f:
            text = f.read().replace('\\\n', ' ')
    except OSError:
        return None
    names = text.split(':', 1)[1].split() if ':' in text else []
    return {os.path.abspath(n): dep_stamp(n) for n in names if not os.path.abspath(n).startswith(tmp)}


def load_cache(build, clang_id):
    try:
        with open(os.path.join(build, CACHE)) as f:
            cache = json.load(f)
    except (OSError, ValueError):
        return {}
    return cache.get('units', {}) if cache.get('clang') == clang_id else {}


def still_clean(entry, key):
    """A file checked clean before, with the same command and every file it
    read unchanged since, needs no second look."""
    return (entry and entry.get('key') == key and entry.get('deps')
            and all(dep_stamp(p) == s for p, s in entry['deps'].items()))


def check(build, root, use_pch, blind_ok=True):
    clang = find_clang()
    units, objects = load_units(build, root)
    if not units:
        print('check-thread-safety: FAILED: no engine translation unit in compile_commands.json')
        return 1
    t0 = time.monotonic()
    bad = []
    jobs = os.cpu_count() or 2
    # The analysis is a compile's work: like ninja, redo only the files whose
    # command or any file they read changed (a repeated suite checks nothing twice).
    clang_id = run([clang, '--version'])[1].splitlines()[0]
    cache = load_cache(build, clang_id)
    keys = {src: shlex.join(syntax_cmd(clang, f, paths, rest)) for src, (d, f, paths, rest) in units.items()}
    blind = blind_units(build, root, units, objects) if blind_ok else set()
    todo = {src: u for src, u in units.items() if src not in blind and not still_clean(cache.get(src), keys[src])}
    kept = {src: cache[src] for src in units if src not in todo and src not in blind}
    with tempfile.TemporaryDirectory(prefix='fenec-tsa-') as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        pchs = {}
        if use_pch and todo:
            pchs, error = build_pchs(clang, pool, todo, tmp)
            if error:
                print(f'check-thread-safety: FAILED: {error}')
                return 1
        futures = {}
        for n, (src, (d, f, paths, rest)) in enumerate(sorted(todo.items())):
            depfile = os.path.join(tmp, f'unit{n}.d')
            cmd = syntax_cmd(clang, f, paths, rest, pchs.get(tuple(rest), []) + ['-MD', '-MF', depfile])
            # What to run to see it again: the same, less the PCH (gone by then).
            futures[pool.submit(run, cmd, d)] = (src, d, syntax_cmd(clang, f, paths, rest), depfile)
        for fut in concurrent.futures.as_completed(futures):
            rc, output = fut.result()
            src, d, again, depfile = futures[fut]
            if rc != 0 or 'thread-safety' in output:
                bad.append((src, d, again, rc, output))
            else:
                kept[src] = {'key': keys[src], 'deps': read_deps(depfile, tmp)}
    try:
        with open(os.path.join(build, CACHE), 'w') as f:
            json.dump({'clang': clang_id, 'units': kept}, f)
    except OSError:
        pass  # a read-only build folder: every run checks every file
    elapsed = time.monotonic() - t0
    for src, d, cmd, rc, output in sorted(bad):
        print(f'--- {src}: clang exit {rc}\n$ (cd {shlex.quote(d)} && {shlex.join(cmd)})\n{output}')
    print(f'check-thread-safety: {len(units)} engine files, {len(blind)} that see no annotation skipped, '
          f'{len(todo)} checked ({len(units) - len(blind) - len(todo)} unchanged since a clean check), '
          f'{len(bad)} failed, {elapsed:.1f} s '
          f'({jobs} jobs, {CLANG}{", precompiled std headers" if use_pch else ""})')
    return 1 if bad else 0


def probe(build, root, probe_src):
    clang = find_clang()
    units, _ = load_units(build, root)
    base = 'engine/src/base/smaps.cc'  # any base file: the include root and the language flags
    if base not in units:
        print(f'check-thread-safety: FAILED: {base} not in compile_commands.json')
        return 1
    directory, _, paths, rest = units[base]
    source = os.path.abspath(probe_src)
    ok = True
    cmd = syntax_cmd(clang, source, paths, rest)
    rc, output = run(cmd, directory)
    if rc == 0 or not re.search(r"'balance_'.*\[-Werror,-Wthread-safety[\w-]*\]", output):
        print(f'check-thread-safety probe: FAILED: reading a FENEC_GUARDED_BY field without its lock must not '
              f'compile, but clang exited {rc} without the expected -Wthread-safety error about balance_:\n'
              f'$ (cd {shlex.quote(directory)} && {shlex.join(cmd)})\n{output}')
        ok = False
    else:
        print(f'probe, unlocked read: rejected as it must be:\n{output}')
    cmd = syntax_cmd(clang, source, paths, rest, ['-DFENEC_PROBE_LOCKED'])
    rc, output = run(cmd, directory)
    if rc != 0 or output.strip():
        print(f'check-thread-safety probe: FAILED: the locked variant must compile cleanly (clang exit {rc}):\n'
              f'$ (cd {shlex.quote(directory)} && {shlex.join(cmd)})\n{output}')
        ok = False
    else:
        print('probe, locked read: compiles cleanly')
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('build', help='the meson build folder (its compile_commands.json)')
    parser.add_argument('--probe', metavar='PROBE.cc', help='run the must-not-compile probe instead')
    parser.add_argument('--no-pch', action='store_true', help='no precompiled header')
    parser.add_argument('--all', action='store_true',
                        help='check every file, even those unchanged since a clean check or that see no annotation')
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if args.probe:
        return probe(build, root, args.probe)
    if args.all:
        try:
            os.remove(os.path.join(build, CACHE))
        except OSError:
            pass
    return check(build, root, not args.no_pch, blind_ok=not args.all)


if __name__ == '__main__':
    sys.exit(main())
