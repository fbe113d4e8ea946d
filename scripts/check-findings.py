#!/usr/bin/env python3
"""The findings catalogue (findings/CATALOGUE.md) against the tree.

Fails, one line each, when:
- the catalogue does not parse (findings/catalogue.py says where);
- a finding ID written anywhere under engine/, iobench/ or scenarios/
  (comments, CSV rows, tests) is not in the catalogue;
- a scenario names a catalogue declaration (findings::<id>::kName) that
  does not exist, or builds a verdict's claim or source from a literal;
- a catalogue entry is judged by no scenario folder that exists, by one
  whose code never names it, or by none without saying why;
- a quick line shows a check without saying so in its quick key;
- a verdict in a results/<scenario>/latest.json names an ID not catalogued.
"""
import json
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(root / "findings"))
import catalogue  # noqa: E402

problems = []
try:
    entries = catalogue.parse(root / "findings/CATALOGUE.md")
except catalogue.CatalogueError as e:
    print(e)
    sys.exit(1)

ids = {e["id"] for e in entries}
# namespace -> names declared in it (entries, rows, values)
declared = {}
for e in entries:
    names = declared.setdefault(catalogue.ident(e["id"]), set())
    names.add("kFinding" if e["row"] is None else catalogue.camel(e["row"]))
    names.update(catalogue.camel(v) for v in e["values"])

SOURCE_EXT = {".cc", ".h", ".py", ".md", ".build", ".txt", ".sh"}
finding_id = re.compile(r"\b[A-Z]{2}-[0-9]+\b")
reference = re.compile(r"\bfindings::(\w+)::(k\w+)")
literal = re.compile(r"\.(claim|source)\s*=\s*(\"|fmt::format)|kit::Verdict\s+\w*\s*\{\s*\"")
uses = {}  # scenario folder -> set of (namespace, name) it names
for top in ("engine", "iobench", "scenarios"):
    for path in sorted((root / top).rglob("*")):
        if not path.is_file() or (path.suffix not in SOURCE_EXT and path.name != "meson.build"):
            continue
        rel = path.relative_to(root)
        text = path.read_text(errors="replace")
        for n, line in enumerate(text.split("\n"), 1):
            for fid in finding_id.findall(line):
                if fid not in ids:
                    problems.append(f"{rel}:{n}: {fid} is not in findings/CATALOGUE.md")
            for ns, name in reference.findall(line):
                if name not in declared.get(ns, ()):
                    problems.append(f"{rel}:{n}: findings::{ns}::{name} is not declared by the catalogue")
                if top == "scenarios":
                    uses.setdefault(rel.parts[1], set()).add((ns, name))
            if top == "scenarios" and not path.stem.endswith("_test") and literal.search(line):
                problems.append(f"{rel}:{n}: a verdict's claim or source from a literal: take it from the catalogue")

for e in entries:
    name = "kFinding" if e["row"] is None else catalogue.camel(e["row"])
    ns = catalogue.ident(e["id"])
    label = e["id"] + ("" if e["row"] is None else "/" + e["row"])
    scenarios = catalogue.scenarios_of(e)
    if not scenarios:
        if not e.get("not judged"):
            problems.append(f"{label}: judged by no scenario and says no reason ('not judged:')")
        continue
    for s in scenarios:
        if not (root / "scenarios" / s).is_dir():
            problems.append(f"{label}: judged by scenarios/{s}, which does not exist")
        elif not any(u[0] == ns for u in uses.get(s, ())):
            problems.append(f"{label}: scenarios/{s} never names findings::{ns}")
    if not any((ns, name) in uses.get(s, ()) for s in scenarios):
        problems.append(f"{label}: no scenario of '{e['scenario']}' builds a verdict from findings::{ns}::{name}")
    if e["quick_shown"] and "shown" not in e["quick"]:
        problems.append(f"{label}: 'quick shown' lines, but its quick key does not say what is shown")

for latest in sorted((root / "results").glob("*/latest.json")):
    try:
        verdicts = json.loads(latest.read_text()).get("verdicts", [])
    except (ValueError, OSError) as err:
        problems.append(f"{latest.relative_to(root)}: unreadable ({err})")
        continue
    for v in verdicts:
        if v.get("finding") not in ids:
            problems.append(f"{latest.relative_to(root)}: a verdict for {v.get('finding')!r}, not in the catalogue")

for p in problems:
    print(p)
judged = sum(1 for e in entries if catalogue.scenarios_of(e))
print(f"{len(ids)} findings, {len(entries)} entries ({judged} judged by a scenario); {len(problems)} problems")
sys.exit(1 if problems else 0)
