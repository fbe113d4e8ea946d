#!/usr/bin/env python3
"""Reads findings/CATALOGUE.md (its format is stated at the top of that file).

As a module: parse(path) -> list of entries, each a dict with 'id', 'row'
(None for the finding itself), 'title', the keys, 'values' and 'quick_shown'.
As a script: catalogue.py CATALOGUE.md OUT.h writes the C++ header the
scenarios include (findings/catalogue.h), or exits 1 with the lines at fault.
"""
import re
import sys

KEYS = ("claim", "source", "setting", "line", "quick", "scenario", "not judged")
REQUIRED = ("claim", "source", "setting", "line", "quick", "scenario")
ID = re.compile(r"^(?:[A-Z]{2}-[0-9]+|[A-Z]{2}-[a-z]+|[A-Z]{4,})$")
NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class CatalogueError(Exception):
    pass


def parse(path):
    entries, errors = [], []
    cur = None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, raw in enumerate(lines, 1):
        line = raw.rstrip()
        where = f"{path}:{n}"
        m = re.match(r"^(##|###) (\S+)(?: (.*))?$", line)
        if m:
            head, key, title = m.group(1), m.group(2), (m.group(3) or "").strip()
            if head == "##":
                if not ID.match(key):  # a heading that groups findings, not one
                    cur = None
                    continue
                cur = {"id": key, "row": None, "title": title, "values": {}, "quick_shown": {}, "where": where}
            else:
                fid, _, row = key.partition("/")
                parent = next((e for e in reversed(entries) if e["id"] == fid and e["row"] is None), None)
                if parent is None or not NAME.match(row):
                    errors.append(f"{where}: a row is '### ID/name' under its finding's '## ID'")
                    cur = None
                    continue
                cur = {"id": fid, "row": row, "title": title or parent["title"], "values": {}, "quick_shown": {},
                       "where": where}
            entries.append(cur)
            continue
        if cur is None or not line or line.startswith(("#", "  ", "- ", "|", ">")) or ":" not in line:
            continue
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key.startswith("value "):
            name = key[len("value "):]
            try:
                number = float(value.split()[0])
            except (ValueError, IndexError):
                errors.append(f"{where}: 'value {name}: N': N is a number")
                continue
            if not NAME.match(name) or name in cur["values"]:
                errors.append(f"{where}: value name '{name}' is lower_case and once a section")
            cur["values"][name] = number
        elif key == "quick shown":
            names, _, why = value.partition(":")
            if not why.strip():
                errors.append(f"{where}: 'quick shown: name[, name]: why'")
            for name in (x.strip() for x in names.split(",")):
                cur["quick_shown"][name] = why.strip()
        elif key in KEYS:
            if key in cur:
                errors.append(f"{where}: '{key}' twice in one section")
            cur[key] = value
        # Any other 'word: text' line is prose in the section.
    by_id = {}
    for e in entries:
        if e["row"] is None:
            if e["id"] in by_id:
                errors.append(f"{e['where']}: {e['id']} defined twice")
            by_id[e["id"]] = e
    for e in entries:
        parent = by_id.get(e["id"])
        if e["row"] is not None:
            for k in KEYS:
                if k not in e and k in parent:
                    e[k] = parent[k]
            e["values"] = {**parent["values"], **e["values"]}
        missing = [k for k in REQUIRED if not e.get(k)]
        if missing:
            errors.append(f"{e['where']}: {e['id']} lacks {', '.join(missing)}")
        if e.get("scenario") == "none" and not e.get("not judged"):
            errors.append(f"{e['where']}: {e['id']} is judged by no scenario: say why in 'not judged:'")
        for name in e["quick_shown"]:
            if name not in e["values"]:
                errors.append(f"{e['where']}: 'quick shown' names '{name}', which is no 'value' of {e['id']}")
    if errors:
        raise CatalogueError("\n".join(errors))
    return entries


def scenarios_of(entry):
    s = entry.get("scenario", "none")
    return [] if s == "none" else [x.strip() for x in s.split(",")]


def ident(text):
    """'CC-1' -> 'cc1', 'VS-ref' -> 'vs_ref', 'SOAK' -> 'soak'."""
    m = re.match(r"^([A-Z]{2})-([0-9]+)$", text)
    return (m.group(1) + m.group(2)).lower() if m else re.sub(r"[^a-z0-9]+", "_", text.lower())


def camel(name):
    return "k" + "".join(p.capitalize() for p in name.split("_"))


def cxx(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def header(entries):
    out = ["// Generated from findings/CATALOGUE.md by findings/catalogue.py: edit the catalogue, not this.",
           "#pragma once", "", '#include "findings/finding.h"', "", "namespace fenec::findings {", ""]
    groups = {}
    for e in entries:
        groups.setdefault(e["id"], []).append(e)
    for fid, group in groups.items():
        out.append(f"namespace {ident(fid)} {{")
        for e in group:
            name = "kFinding" if e["row"] is None else camel(e["row"])
            fields = [fid, e["title"], e["claim"], e["source"], e["setting"], e["line"], e["quick"], e["scenario"]]
            out.append(f"inline constexpr Finding {name}{{" + ", ".join(cxx(x) for x in fields) + "};")
        values, shown = {}, {}
        for e in group:
            values.update(e["values"])
            shown.update(e["quick_shown"])
        for name, v in values.items():
            why = shown.get(name)
            out.append(f"inline constexpr Line {camel(name)}{{{v!r}, {'false' if why else 'true'}, {cxx(why or '')}}};")
        out.append(f"}}  // namespace {ident(fid)}")
        out.append("")
    out.append("// Every entry and row, in the catalogue's order.")
    out.append("inline constexpr const Finding* kAll[] = {")
    for e in entries:
        out.append(f"    &{ident(e['id'])}::{'kFinding' if e['row'] is None else camel(e['row'])},")
    out += ["};", "", "}  // namespace fenec::findings", ""]
    return "\n".join(out)


def main(argv):
    if len(argv) != 3:
        print("usage: catalogue.py CATALOGUE.md OUT.h", file=sys.stderr)
        return 2
    try:
        entries = parse(argv[1])
    except CatalogueError as e:
        print(e, file=sys.stderr)
        return 1
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(header(entries))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
