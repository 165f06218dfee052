"""Detection quality as a user meets it: whole `fpdb dedup` processes on
the quality report's planted sets, scored against the planted truth.

Usage: python3 benches/scripts/dedup_quality.py FPDB DIR [--rule NAME=ARGS ...]
       python3 benches/scripts/dedup_quality.py FPDB --warc FILE [--rule NAME=ARGS ...]

DIR holds what `quality --export DIR` wrote: per set, `<set>.jsonl`
({"id", "text"} per document) and `<set>-truth.tsv` (each document's
group, then the planted pairs). FILE is what `quality --warc FILE`
wrote: every article as a page of two sites, `https://siteS.example/
LANG/I.html`, the pair of one article being the planted pair. Each rule
is `fpdb dedup`'s arguments (default: none, its default rule). Recall is
the share of planted pairs reported; precision the share of reported
pairs whose two documents are copies of one original (pages: of one
article); time the whole process's wall clock. `--by-edit` adds the
recall of each kind of planted edit (text sets only).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

# The planted edits, in the order of the truth files' edit column
# (fpdb_tune::EditKind::ALL).
EDITS = ("1% typos", "header+footer", "dates+counters", "drop sentence", "mirror")


def read_truth(
    path: Path,
) -> tuple[dict[str, int], set[tuple[str, str]], dict[tuple[str, str], int]]:
    """Each document's group, the planted pairs (ids, smaller first) and
    each planted pair's edit."""
    groups: dict[str, int] = {}
    planted: set[tuple[str, str]] = set()
    edits: dict[tuple[str, str], int] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        fields = line.split("\t")
        if fields[0] == "group":
            groups[fields[1]] = int(fields[2])
        elif fields[0] == "pair":
            pair = tuple(sorted((fields[1], fields[2])))
            planted.add(pair)
            if len(fields) > 3:
                edits[pair] = int(fields[3])
    return groups, planted, edits


def dedup_pairs(fpdb: str, corpus: Path, args: list[str]) -> tuple[set, float]:
    """The pairs one `fpdb dedup` process reports, and its wall time."""
    started = time.monotonic()
    out = subprocess.run(
        [fpdb, "dedup", "--quiet", *args, str(corpus)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    seconds = time.monotonic() - started
    pairs = set()
    for line in out.splitlines():
        pair = json.loads(line)
        pairs.add(tuple(sorted((pair["a"], pair["b"]))))
    return pairs, seconds


def score(fpdb: str, corpus: Path, truth: Path, args: list[str]) -> dict:
    groups, planted, edits = read_truth(truth)
    pairs, seconds = dedup_pairs(fpdb, corpus, args)
    result = scored(pairs, groups, planted, seconds)
    result["by_edit"] = by_edit(pairs, edits)
    return result


def by_edit(pairs: set, edits: dict[tuple[str, str], int]) -> str:
    """Recall of each kind of planted edit, "name recall" joined by commas."""
    cells = []
    for kind, name in enumerate(EDITS):
        mine = [pair for pair, edit in edits.items() if edit == kind]
        if mine:
            found = sum(1 for pair in mine if pair in pairs)
            cells.append(f"{name} {found / len(mine):.1%}")
    return ", ".join(cells)


def scored(pairs: set, groups: dict, planted: set, seconds: float) -> dict[str, float]:
    """Recall, precision and counts of `pairs` against the truth."""
    true = sum(1 for a, b in pairs if groups[a] == groups[b])
    return {
        "recall": len(planted & pairs) / len(planted),
        "precision": true / len(pairs) if pairs else 1.0,
        "pairs": len(pairs),
        "false": len(pairs) - true,
        "seconds": seconds,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fpdb")
    parser.add_argument("dir", type=Path, nargs="?")
    parser.add_argument("--warc", type=Path)
    parser.add_argument(
        "--articles", type=int, default=2000, help="articles per language"
    )
    parser.add_argument("--rule", action="append", default=[], help="NAME=ARGS")
    parser.add_argument(
        "--by-edit", action="store_true", help="recall of each kind of planted edit"
    )
    options = parser.parse_args()
    rules = [("default", [])]
    for rule in options.rule:
        name, _, args = rule.partition("=")
        rules.append((name, args.split()))
    by_edit_column = options.by_edit and not options.warc
    print(
        "| set | rule | recall | precision | pairs (false) | wall |"
        + (" recall by edit |" if by_edit_column else "")
    )
    print("|---|---|---|---|---|---|" + ("---|" if by_edit_column else ""))
    if options.warc:
        for name, args in rules:
            pairs, seconds = dedup_pairs(options.fpdb, options.warc, args)
            for lang in ("Chinese", "English"):
                mine = {p for p in pairs if f"/{lang}/" in p[0] and f"/{lang}/" in p[1]}
                articles = [
                    (
                        f"https://site0.example/{lang}/{i}.html",
                        f"https://site1.example/{lang}/{i}.html",
                    )
                    for i in range(options.articles)
                ]
                groups = {
                    url: url.split("/", 3)[3]
                    for pair in [*mine, *articles]
                    for url in pair
                }
                s = scored(mine, groups, set(articles), seconds)
                print(
                    f"| {lang} pages | {name} | {s['recall']:.1%} | {s['precision']:.2%} "
                    f"| {s['pairs']} ({s['false']}) | {s['seconds']:.1f} s |",
                    flush=True,
                )
        return 0
    for corpus in sorted(options.dir.glob("*.jsonl")):
        truth = corpus.with_name(corpus.stem + "-truth.tsv")
        for name, args in rules:
            s = score(options.fpdb, corpus, truth, args)
            print(
                f"| {corpus.stem} | {name} | {s['recall']:.1%} | {s['precision']:.2%} "
                f"| {s['pairs']} ({s['false']}) | {s['seconds']:.1f} s |"
                + (f" {s['by_edit']} |" if by_edit_column else ""),
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
