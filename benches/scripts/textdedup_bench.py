"""`fpdb dedup` against text-dedup's SimHash and MinHash on the same text:
whole-process wall and CPU time, and what each finds.

Usage: python3 benches/scripts/textdedup_bench.py FPDB TEXTDEDUP_PYTHON
           [--corpus FILE.jsonl] [--truth FILE.tsv] [--runs N]

FPDB is the `fpdb` binary; TEXTDEDUP_PYTHON a Python with text-dedup
installed (`make bench-textdedup` makes one). The corpus is JSON Lines of
{"id", "text"} (default data/corpus.jsonl); the truth a TSV of planted
near-duplicate pairs, id_a, id_b and the edit between them (default
data/corpus-truth.tsv).

Every tool runs as its own process, as a user runs it, with its default
settings, and every run's order is rotated so no tool always goes first
or last. text-dedup runs with a fresh Hugging Face cache each time (it
caches every map it computes, which a later run would otherwise reuse),
offline, on every core (`--num_proc`, its default), and writes its
union-find (`--debug`) so its clusters can be read back after the clock
stops. Each tool's clusters count a planted pair found when both copies
are in one cluster. A real corpus has near-duplicates of its own besides
the planted ones, so a pair inside a cluster that was not planted is
judged by the texts themselves: it counts as a near-duplicate when the two
share at least half of their 5-character shingles (Jaccard, whitespace
ignored). Precision is planted pairs plus such pairs over all pairs
inside clusters.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Reads the union-find text-dedup dumps (a pickle of its own class, made
# by the run just timed) and prints its clusters of two or more ids.
READ_CLUSTERS = """
import collections, json, pickle, sys
with open(sys.argv[1], "rb") as f:
    uf = pickle.load(f)
groups = collections.defaultdict(list)
for x in list(uf.parent):
    groups[uf.find(x)].append(x)
print(json.dumps([ids for ids in groups.values() if len(ids) > 1]))
"""


def run_timed(argv: list[str], env: dict[str, str] | None, cwd: str):
    """Wall seconds, CPU seconds (user + system, with the children it
    waited for), peak resident MiB (of the process or its largest child)
    and standard output of one whole process."""
    out_path, err_path = os.path.join(cwd, "stdout"), os.path.join(cwd, "stderr")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        tail = Path(err_path).read_text(errors="replace")[-4000:]
        sys.exit(f"failed ({proc.returncode}): {' '.join(argv)}\n{tail}")
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024, Path(out_path).read_text()


class Tool:
    def __init__(self, name: str, argv) -> None:
        self.name = name
        self.argv = argv  # scratch dir -> (argv, env, clusters reader)
        self.walls: list[float] = []
        self.cpus: list[float] = []
        self.rss: list[float] = []
        self.clusters: list[list[str]] | None = None


def fpdb_tool(name: str, fpdb: str, corpus: Path, extra: list[str]) -> Tool:
    def argv(scratch: str):
        cmd = [fpdb, "dedup", "--quiet", "--clusters", *extra, str(corpus)]

        def clusters(out: str) -> list[list[str]]:
            return [
                json.loads(line)["ids"] for line in out.splitlines() if line.strip()
            ]

        return cmd, None, clusters

    return Tool(name, argv)


def textdedup_tool(
    name: str, python: str, module: str, corpus: Path, extra: list[str]
) -> Tool:
    def argv(scratch: str):
        output = os.path.join(scratch, "out")
        env = dict(os.environ)
        env.update(
            HF_HOME=os.path.join(scratch, "hf"),
            HF_DATASETS_OFFLINE="1",
            HF_HUB_OFFLINE="1",
            TQDM_DISABLE="1",
        )
        cmd = [
            python,
            "-m",
            module,
            "--path",
            "json",
            "--data_files",
            str(corpus),
            "--split",
            "train",
            "--cache_dir",
            os.path.join(scratch, "cache"),
            "--column",
            "text",
            "--idx_column",
            "id",
            "--output",
            output,
            "--debug",
            *extra,
        ]

        def clusters(out: str) -> list[list[str]]:
            done = subprocess.run(
                [python, "-c", READ_CLUSTERS, os.path.join(output, "uf.pkl")],
                check=True,
                capture_output=True,
                text=True,
            )
            return json.loads(done.stdout)

        return cmd, env, clusters

    return Tool(name, argv)


SHINGLE = 5
RESEMBLANCE = 0.5


def shingles(text: str) -> set[str]:
    chars = "".join(text.split())
    return {chars[i : i + SHINGLE] for i in range(max(1, len(chars) - SHINGLE + 1))}


def resemblance(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def pairs_of(clusters: list[list[str]]) -> set[frozenset[str]]:
    return {frozenset(p) for ids in clusters for p in itertools.combinations(ids, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fpdb")
    parser.add_argument("textdedup_python")
    parser.add_argument("--corpus", type=Path, default=REPO / "data" / "corpus.jsonl")
    parser.add_argument(
        "--truth", type=Path, default=REPO / "data" / "corpus-truth.tsv"
    )
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    # Absolute (not resolved: a venv's python must keep its own path), as
    # every tool runs in its own scratch directory.
    args.fpdb = os.path.abspath(args.fpdb)
    args.textdedup_python = os.path.abspath(args.textdedup_python)

    corpus = args.corpus.resolve()
    texts = {}
    for line in corpus.open(encoding="utf-8"):
        if line.strip():
            doc = json.loads(line)
            texts[doc["id"]] = doc["text"]
    docs = len(texts)
    shingled: dict[str, set[str]] = {}

    def similar(pair: frozenset[str]) -> bool:
        a, b = (shingled.setdefault(i, shingles(texts[i])) for i in sorted(pair))
        return resemblance(a, b) >= RESEMBLANCE

    truth: set[frozenset[str]] = set()
    edits: dict[str, set[frozenset[str]]] = {}
    if args.truth and args.truth.exists():
        for line in args.truth.open(encoding="utf-8"):
            if line.startswith("#") or not line.strip():
                continue
            a, b, *edit = line.rstrip("\n").split("\t")
            truth.add(frozenset((a, b)))
            edits.setdefault(edit[0] if edit else "?", set()).add(frozenset((a, b)))

    version = subprocess.run(
        [
            args.textdedup_python,
            "-c",
            "import importlib.metadata as m; print(m.version('text-dedup'))",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    tools = [
        fpdb_tool("fpdb dedup", args.fpdb, corpus, []),
        fpdb_tool(
            "fpdb dedup --weights tfidf:8",
            args.fpdb,
            corpus,
            ["--weights", "tfidf:8"],
        ),
        fpdb_tool(
            "fpdb dedup --no-confirm --weights tfidf:8",
            args.fpdb,
            corpus,
            ["--no-confirm", "--weights", "tfidf:8"],
        ),
        textdedup_tool(
            f"text-dedup {version} simhash",
            args.textdedup_python,
            "text_dedup.simhash",
            corpus,
            [],
        ),
        textdedup_tool(
            f"text-dedup {version} minhash",
            args.textdedup_python,
            "text_dedup.minhash",
            corpus,
            [],
        ),
    ]

    print(
        f"corpus: {corpus.relative_to(REPO) if corpus.is_relative_to(REPO) else corpus}"
    )
    print(f"  {docs} documents, {len(truth)} planted pairs")
    print(
        f"started {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load {os.getloadavg()}"
    )
    for run in range(args.runs):
        order = tools[run % len(tools) :] + tools[: run % len(tools)]
        for tool in order:
            with tempfile.TemporaryDirectory(prefix="textdedup-bench-") as scratch:
                argv, env, read_clusters = tool.argv(scratch)
                wall, cpu, rss, out = run_timed(argv, env, scratch)
                tool.walls.append(wall)
                tool.cpus.append(cpu)
                tool.rss.append(rss)
                clusters = sorted(sorted(ids) for ids in read_clusters(out))
                if tool.clusters is not None and clusters != tool.clusters:
                    print(
                        f"  note: {tool.name} found different clusters in run {run + 1}"
                    )
                tool.clusters = clusters
                print(f"  run {run + 1}: {tool.name}: {wall:.2f} s", flush=True)
    print(
        f"finished {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load {os.getloadavg()}"
    )
    print()
    print(
        "| tool | wall, runs | wall, median | CPU, median | peak RSS | clusters | removed "
        "| pairs in clusters | planted pairs found | other pairs: similar / not "
        "| precision |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for tool in tools:
        clusters = tool.clusters or []
        pairs = pairs_of(clusters)
        removed = sum(len(ids) - 1 for ids in clusters)
        found = len(pairs & truth)
        recall = (
            f"{found} / {len(truth)} ({found / len(truth):.0%})" if truth else "n/a"
        )
        others = pairs - truth
        alike = sum(1 for pair in others if similar(pair))
        precision = f"{(found + alike) / len(pairs):.1%}" if pairs else "n/a"
        walls = " / ".join(f"{w:.2f}" for w in tool.walls)
        print(
            f"| {tool.name} | {walls} s | {statistics.median(tool.walls):.2f} s "
            f"| {statistics.median(tool.cpus):.2f} s | {max(tool.rss):.0f} MiB "
            f"| {len(clusters)} | {removed} "
            f"| {len(pairs)} | {recall} | {alike} / {len(others) - alike} | {precision} |"
        )

    if edits:
        print()
        print("planted pairs found, by the edit between the two copies:")
        print()
        print(
            "| tool | " + " | ".join(f"{e} ({len(p)})" for e, p in edits.items()) + " |"
        )
        print("|---|" + "---|" * len(edits))
        for tool in tools:
            pairs = pairs_of(tool.clusters or [])
            cells = [f"{len(p & pairs) / len(p):.0%}" for p in edits.values()]
            print(f"| {tool.name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
