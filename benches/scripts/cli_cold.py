"""`fpdb` as a user meets it: fresh processes against N stored fingerprints.

In one run, on this machine:
- `fpdb load` of N lines `doc<i>\\t<hex>` into a new database;
- `fpdb query` in fresh processes, page cache warm: an empty input (start
  and open only), then 1,000 and 10,000 fingerprints (every other one a
  stored fingerprint with 0-3 bits flipped, the rest random), and 10,000
  random ones; then each once more after dropping the page cache (root
  only): the cold case;
- the baselines on the same fingerprints: faiss IndexBinaryMultiHash
  (build, then the same queries in one call, in memory) and a numpy
  brute-force scan;
and checks fpdb's answers to the 1,000 queries against the scan.

    make bench-cli                                       # N = 10,000,000
    python benches/scripts/cli_cold.py FPDB --n 1000000  # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

K = 3


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def run(command: list[str], output: Path | None = None) -> dict:
    """Runs `command` to the end, its standard output to `output`: wall
    seconds, and CPU seconds and max RSS (MiB) as GNU time reports them
    (a child of this process would count this process's memory too: Linux
    keeps the highest RSS a process had, also before it exec'd)."""
    timed = ["/usr/bin/time", "-f", "%e %U %S %M", *command]
    with open(output or os.devnull, "w") as out:
        started = time.perf_counter()
        finished = subprocess.run(
            timed, stdout=out, stderr=subprocess.PIPE, check=False
        )
        wall = time.perf_counter() - started
    report = finished.stderr.decode(errors="replace").strip().splitlines()
    if finished.returncode != 0 or not report:
        raise SystemExit(f"{' '.join(command)} failed: {' '.join(report)}")
    _, user, system, rss_kib = report[-1].split()
    return {
        "wall_s": wall,
        "cpu_s": float(user) + float(system),
        "rss_mib": int(rss_kib) / 1024,
    }


def drop_page_cache() -> bool:
    """Empties the kernel's page cache; False when not allowed (not root)."""
    path = "/proc/sys/vm/drop_caches"
    if not os.access(path, os.W_OK):
        return False
    os.sync()
    Path(path).write_text("3\n")
    return True


def write_fps(path: Path, prefix: str, fps: np.ndarray) -> None:
    with path.open("w") as out:
        for start in range(0, len(fps), 1_000_000):
            chunk = fps[start : start + 1_000_000].tolist()
            out.write(
                "".join(
                    f"{prefix}{start + i}\t{fp:016x}\n" for i, fp in enumerate(chunk)
                )
            )


def query_mix(rng: np.random.Generator, stored: np.ndarray, count: int) -> np.ndarray:
    """Every other query a stored fingerprint with up to 3 random bits
    flipped, the rest uniform random."""
    queries = rng.integers(0, 2**64, size=count, dtype=np.uint64)
    near = stored[rng.integers(0, len(stored), size=(count + 1) // 2)]
    flips = rng.integers(0, 4, size=len(near))
    for round_ in range(3):
        bits = rng.integers(0, 64, size=len(near)).astype(np.uint64)
        near = np.where(flips > round_, near ^ (np.uint64(1) << bits), near)
    queries[0::2] = near
    return queries


def brute_force(stored: np.ndarray, query: int) -> np.ndarray:
    """Positions of the stored fingerprints within K bits of `query`."""
    distances = np.bitwise_count(stored ^ np.uint64(query))
    return np.nonzero(distances <= K)[0]


def check_answers(answers_path: Path, stored: np.ndarray, queries: np.ndarray) -> dict:
    """fpdb's answers against the scan, query by query; times the scan."""
    answers = [json.loads(line) for line in answers_path.read_text().splitlines()]
    if len(answers) != len(queries):
        raise SystemExit(f"fpdb answered {len(answers)} of {len(queries)} queries")
    matches = 0
    started = time.perf_counter()
    for answer, query in zip(answers, queries.tolist()):
        expected = {f"doc{i}" for i in brute_force(stored, query).tolist()}
        got = {doc for match in answer["matches"] for doc in match["ids"]}
        if got != expected:
            raise SystemExit(
                f"query {answer['query']}: fpdb {got}, brute force {expected}"
            )
        for match in answer["matches"]:
            if (int(match["fp"], 16) ^ query).bit_count() != match["distance"]:
                raise SystemExit(f"query {answer['query']}: wrong distance in {match}")
        matches += len(got)
    return {
        "queries": len(queries),
        "matches": matches,
        "scan_us_per_query": (time.perf_counter() - started) / len(queries) * 1e6,
    }


def bench_faiss(stored: np.ndarray, query_sets: dict) -> dict:
    import faiss

    def as_bytes(fps: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(fps.astype("<u8")).view(np.uint8).reshape(-1, 8)

    # K + 1 hash tables of 64 / (K + 1) bits: within K bits means equal on
    # one table's bits (pigeonhole), so a range search of radius K + 1 is
    # exact, as fpdb is.
    started = time.perf_counter()
    index = faiss.IndexBinaryMultiHash(64, K + 1, 64 // (K + 1))
    index.nflip = 0
    index.add(as_bytes(stored))
    result = {"build_s": time.perf_counter() - started}
    for name, queries in query_sets.items():
        started = time.perf_counter()
        index.range_search(as_bytes(queries), K + 1)
        result[f"{name}_s"] = time.perf_counter() - started
    return result


def median_runs(command: list[str], runs: int, output: Path) -> dict:
    results = [run(command, output) for _ in range(runs)]
    walls = sorted(r["wall_s"] for r in results)
    return {
        "wall_s": statistics.median(walls),
        "min_s": walls[0],
        "max_s": walls[-1],
        "cpu_s": statistics.median(r["cpu_s"] for r in results),
        "rss_mib": max(r["rss_mib"] for r in results),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fpdb", help="the fpdb binary")
    parser.add_argument("--n", type=int, default=10_000_000, help="fingerprints stored")
    parser.add_argument(
        "--runs", type=int, default=10, help="fresh processes per input"
    )
    parser.add_argument(
        "--work", help="directory for the files (default: a temporary one)"
    )
    args = parser.parse_args()
    work_dir = tempfile.TemporaryDirectory(dir=args.work)
    work = Path(work_dir.name)
    fpdb = str(Path(args.fpdb).resolve())
    log(f"started; {os.popen('uptime').read().strip()}")

    rng = np.random.default_rng(7)
    stored = rng.integers(0, 2**64, size=args.n, dtype=np.uint64)
    queries = query_mix(rng, stored, 10_000)
    query_sets = {
        "q0": queries[:0],
        "q1000": queries[:1000],
        "q10000": queries,
        # Random fingerprints alone: almost never a match, so the cost of
        # probing the tables without reading any ids.
        "r10000": rng.integers(0, 2**64, size=10_000, dtype=np.uint64),
    }
    write_fps(work / "fps.tsv", "doc", stored)
    for name, fps in query_sets.items():
        write_fps(work / f"{name}.tsv", "q", fps)
    log(f"wrote {args.n:,} stored and {len(queries):,} queries")

    db = str(work / "db")
    subprocess.run([fpdb, "create", db, "--expected", str(args.n)], check=True)
    if not Path("/usr/bin/time").exists():
        raise SystemExit("GNU time (/usr/bin/time) is needed: apt-get install time")
    load = run([fpdb, "load", db, str(work / "fps.tsv")])
    load["lines_per_s"] = args.n / load["wall_s"]
    log(f"load: {load}")

    warm = {}
    for name in query_sets:
        command = [fpdb, "query", db, str(work / f"{name}.tsv")]
        warm[name] = median_runs(command, args.runs, work / f"{name}.json")
        log(f"{name} warm: {warm[name]}")
    cold = {}
    for name in query_sets:
        if not drop_page_cache():
            log("not root: the page cache cannot be dropped; no cold runs")
            break
        cold[name] = run([fpdb, "query", db, str(work / f"{name}.tsv")])
        log(f"{name} cold: {cold[name]}")
    disk = sum(f.stat().st_size for f in Path(db).iterdir() if f.is_file())

    log("brute force: checking fpdb's answers to 1,000 queries")
    checked = check_answers(work / "q1000.json", stored, query_sets["q1000"])
    log(f"checked: {checked}")
    log("faiss")
    faiss_result = bench_faiss(
        stored, {"q1000": query_sets["q1000"], "q10000": queries}
    )
    log(f"faiss: {faiss_result}")
    log(f"finished; {os.popen('uptime').read().strip()}")

    open_s = warm["q0"]["wall_s"]
    print(
        f"\nN = {args.n:,}; {args.runs} fresh processes per input, medians (min-max)\n"
    )
    print("| run | wall | after open | CPU | max RSS |")
    print("|---|---|---|---|---|")
    print(
        f"| `fpdb load`, {args.n:,} lines | {load['wall_s']:.2f} s "
        f"({load['lines_per_s'] / 1e6:.2f}M lines/s) | | {load['cpu_s']:.2f} s "
        f"| {load['rss_mib']:.0f} MiB |"
    )
    labels = {
        "q0": "open only (empty input)",
        "q1000": "1,000 queries",
        "q10000": "10,000 queries",
        "r10000": "10,000 random queries (no ids read)",
    }
    for name, label in labels.items():
        r = warm[name]
        after = "" if name == "q0" else f"{(r['wall_s'] - open_s) * 1e3:.1f} ms"
        print(
            f"| `fpdb query`, {label}, warm | {r['wall_s'] * 1e3:.1f} ms "
            f"({r['min_s'] * 1e3:.1f}-{r['max_s'] * 1e3:.1f}) | {after} "
            f"| {r['cpu_s'] * 1e3:.0f} ms | {r['rss_mib']:.0f} MiB |"
        )
    for name, label in labels.items():
        if name in cold:
            r = cold[name]
            print(
                f"| `fpdb query`, {label}, page cache dropped | {r['wall_s'] * 1e3:.0f} ms "
                f"| | {r['cpu_s'] * 1e3:.0f} ms | {r['rss_mib']:.0f} MiB |"
            )
    print(
        f"| faiss IndexBinaryMultiHash build, in memory | {faiss_result['build_s']:.2f} s | | | |"
    )
    for name in ("q1000", "q10000"):
        print(
            f"| faiss, {labels[name]}, in memory | {faiss_result[name + '_s'] * 1e3:.1f} ms | | | |"
        )
    print(
        f"| numpy brute-force scan, per query | {checked['scan_us_per_query'] / 1e3:.1f} ms | | | |"
    )
    print(
        f"\nDatabase on disk: {disk / 1e6:.0f} MB. fpdb's answers to the 1,000 queries "
        f"({checked['matches']} matches) equal the brute-force scan's."
    )


if __name__ == "__main__":
    main()
