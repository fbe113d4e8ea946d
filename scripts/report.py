#!/usr/bin/env python3
"""Builds results/REPORT.md, top-down: one line a finding, then each scenario's
verdicts in full, then each run's metadata folded away.

Reads findings/CATALOGUE.md (what each finding claims, the source's figure,
its lines) and every results/<scenario>/latest.json a run left (its verdicts,
skips and metadata; results/README.md describes the files). A finding no run
judged says which bench would, or why none does.
"""
import datetime
import json
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(root / "findings"))
import catalogue  # noqa: E402

CELL = 200  # the longest cell of the summary table, in characters


def short(text, limit):
    """text cut at a word boundary to at most `limit` characters."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


RATIO = r"(\d[\d.]*x \[[^\]]*\])"
CHECK = re.compile(RATIO + r" (>=|<) ([\d.e+]+): (cleared|missed|straddles the line)|" + RATIO + r": shown")


def headline(v):
    """What the summary shows of a verdict: each check's ratio against its
    line, from the reason (kit::describe's form); else the figures' first clause."""
    parts = []
    for ratio, op, line, word, shown_ratio, in CHECK.findall(v.get("reason") or ""):
        parts.append(f"{shown_ratio} (shown)" if shown_ratio else f"{ratio} {op} {line}: {word}")
    if parts:
        return short("; ".join(parts), 160)
    first = re.split(r";\s|\.\s(?=[A-Z])", v.get("ours") or "", maxsplit=1)[0]
    return short(first, 120)


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def plot_link(plot, label="plot"):
    return f"[{label}](../{plot})" if plot else ""


def load_runs():
    runs = {}
    for path in sorted((root / "results").glob("*/latest.json")):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as err:
            print(f"report: {path.relative_to(root)} unreadable ({err}): left out", file=sys.stderr)
            continue
        md = path.parent / "verdicts.md"
        note = ""
        if md.is_file():
            head = md.read_text().split("\n\n", 1)[0]
            note = head if head.startswith("Machine:") else ""
        runs[path.parent.name] = {**data, "note": note}
    return runs


def outcome_of(rows):
    counts = {}
    for v in rows:
        counts[v["verdict"]] = counts.get(v["verdict"], 0) + 1
    if len(counts) == 1:
        word = next(iter(counts))
        return word if len(rows) == 1 else f"{word} ({len(rows)} rows)"
    return ", ".join(f"{n} {w}" for w, n in counts.items())


def summary(entries, runs):
    by_id = {}
    for name, run in runs.items():
        for v in run.get("verdicts", []):
            by_id.setdefault(v["finding"], []).append((name, v))
    out = ["| ID | finding | ours | source | verdict | plot |", "|---|---|---|---|---|---|"]
    for e in entries:
        if e["row"] is not None:
            continue
        rows = by_id.get(e["id"], [])
        if rows:
            # The finding's first scenario speaks for it; fs-bench's verdicts (one a file system) come after.
            first = (catalogue.scenarios_of(e) or [""])[0]
            main = next((v for n, v in rows if v["claim"] == e["claim"] and n == first),
                        next((v for _, v in rows if v["claim"] == e["claim"]), rows[0][1]))
            ours, verdict = headline(main), outcome_of([v for _, v in rows])
            plot = plot_link(next((v["plot"] for _, v in rows if v["plot"]), ""))
            if all(n == rows[0][0] for n, _ in rows):
                verdict += f" ([{rows[0][0]}](#{rows[0][0]}))"
        elif catalogue.scenarios_of(e):
            ours, plot = "-", ""
            verdict = "not run: " + ", ".join(f"`make {s}-bench`" for s in catalogue.scenarios_of(e))
        else:
            why = e.get("not judged", "")
            ours, plot, verdict = "-", "", why if why.startswith("not judged") else "not judged: " + why
        fields = [e["id"], e["title"], ours or "-", e["source"], verdict, plot]
        out.append("| " + " | ".join(cell(short(f, CELL)) if i != 5 else f for i, f in enumerate(fields)) + " |")
    unknown = sorted(set(by_id) - {e["id"] for e in entries})
    if unknown:
        out.append("")
        out.append("Verdicts for IDs the catalogue does not define: " + ", ".join(unknown))
    return out


def details(name, run, entries):
    quick = run.get("metadata", {}).get("quick") in ("1", "true", "yes")
    out = [f"## {name}", ""]
    if run["note"]:
        out += [run["note"], ""]
    out.append(f"{'Quick' if quick else 'Full'} run of {run.get('metadata', {}).get('date', 'an unknown date')}.")
    out.append("")
    # A run's own markdown for its section (a JSON string under a key ending
    # in _markdown, e.g. fs-bench's table finding x file system), its
    # headings moved under this section's.
    for key, text in run.items():
        if key.endswith("_markdown") and isinstance(text, str):
            out += [("##" + line) if line.startswith("#") else line for line in text.rstrip("\n").split("\n")]
            out.append("")
    for v in run.get("verdicts", []):
        e = next((x for x in entries if x["id"] == v["finding"] and x["claim"] == v["claim"]), None)
        e = e or next((x for x in entries if x["id"] == v["finding"] and x["row"] is None), None)
        title = e["title"] if e else v["claim"]
        out.append(f"### {v['finding']} {title}: {v['verdict']}")
        out.append("")
        out.append(f"- claim: {v['claim']}")
        out.append(f"- source: {v['source']}")
        if e:
            out.append(f"- judged against: {e['line']}" + (f"; quick: {e['quick']}" if quick else ""))
        out.append(f"- ours: {v['ours']}")
        if v.get("reason"):
            out.append(f"- why: {v['reason']}")
        if v.get("plot"):
            out.append(f"- plot: {plot_link(v['plot'], v['plot'])}")
        out.append("")
    if not run.get("verdicts"):
        out += ["_No finding judged in this run._", ""]
    for s in run.get("skips", []):
        out.append(f"Skipped: arm `{s.get('arm', '')}` case `{s.get('case', '')}`: {s.get('reason', '')}")
    if run.get("skips"):
        out.append("")
    return out


def metadata(name, run):
    meta = run.get("metadata", {})
    body = "\n".join(f"{k}={v}" for k, v in sorted(meta.items()))
    return [f"<details><summary>{name}: the run's metadata</summary>", "", "```", body, "```", "", "</details>", ""]


def main():
    entries = catalogue.parse(root / "findings/CATALOGUE.md")
    runs = load_runs()
    order = []
    for e in entries:  # scenarios in the order the catalogue first names them
        for s in catalogue.scenarios_of(e):
            if s in runs and s not in order:
                order.append(s)
    order += [s for s in sorted(runs) if s not in order]
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    out = ["# fenec report", "",
           f"Generated {now} from results/*/latest.json and findings/CATALOGUE.md. Figures are this machine's;",
           "the source's were measured on other hardware (the catalogue says where), so a verdict judges the",
           "shape of a finding (who wins, by what ratio), not its numbers.", "", "## Findings", ""]
    out += summary(entries, runs)
    out.append("")
    if not runs:
        out += ["No scenario has been run yet: `make bench` runs them all.", ""]
    for name in order:
        out += details(name, runs[name], entries)
    if runs:
        out += ["## Run metadata", ""]
        for name in order:
            out += metadata(name, runs[name])
    path = root / "results/REPORT.md"
    path.parent.mkdir(exist_ok=True)
    path.write_text("\n".join(out))
    print(f"report: wrote {path.relative_to(root)} ({len(runs)} scenarios)")


if __name__ == "__main__":
    main()
