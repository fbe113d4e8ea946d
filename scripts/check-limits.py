#!/usr/bin/env python3
"""Every limit declared in code is named in engine/doc/limits.md.

Reads the declarations (fenec/limits.h's constants, query::Limits' fields,
fenec-server's --max-* and --*-timeout flags) and fails, one line each, for a
name the page does not mention: the page lists; the code declares.
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
doc = (root / "engine/doc/limits.md").read_text()
names = []
names += re.findall(r"inline constexpr \w+ (k\w+) =", (root / "engine/include/fenec/limits.h").read_text())
body = (root / "engine/src/query/request_limits.h").read_text()
struct = body[body.index("struct Limits {"):body.index("};", body.index("struct Limits {"))]
names += re.findall(r"^\s+[\w:<>]+ (\w+)\s*[={]", struct, re.M)
names += [f for f in re.findall(r'add_option\("(--[a-z-]+)"', (root / "engine/server/main.cc").read_text())
          if f.startswith("--max-") or f.endswith("-timeout")]
missing = [n for n in names if f"`{n}`" not in doc]
for n in missing:
    print(f"engine/doc/limits.md does not name `{n}`")
if len(names) < 10:
    print(f"only {len(names)} declarations found: the patterns no longer match the code")
    sys.exit(1)
print(f"{len(names)} limits declared, {len(missing)} missing from engine/doc/limits.md")
sys.exit(1 if missing else 0)
