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
article); time the whole process's wall clock.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path


def read_truth(path: Path) -> tuple[dict[str, int], set[tuple[str, str]]]:
    """Each document's group and the planted pairs (ids, smaller first)."""
    groups: dict[str, int] = {}
    planted: set[tuple[str, str]] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            continue
        fields = line.split("\t")
        if fields[0] == "group":
            groups[fields[1]] = int(fields[2])
        elif fields[0] == "pair":
            planted.add(tuple(sorted((fields[1], fields[2]))))
    return groups, planted


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


def score(fpdb: str, corpus: Path, truth: Path, args: list[str]) -> dict[str, float]:
    groups, planted = read_truth(truth)
    pairs, seconds = dedup_pairs(fpdb, corpus, args)
    return scored(pairs, groups, planted, seconds)


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
    options = parser.parse_args()
    rules = [("default", [])]
    for rule in options.rule:
        name, _, args = rule.partition("=")
        rules.append((name, args.split()))
    print("| set | rule | recall | precision | pairs (false) | wall |")
    print("|---|---|---|---|---|---|")
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
                f"| {s['pairs']} ({s['false']}) | {s['seconds']:.1f} s |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
