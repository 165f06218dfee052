"""Query cost against radius: fresh `fpdb query` processes at radii past
the database's k, on the tables a k = 3 database already has.

In one run, on this machine:
- `fpdb create --expected N` (k = 3) and `fpdb load` of N random
  fingerprints, ids `doc<i>`;
- 10,000 queries, every other one a stored fingerprint with 0 to 8 random
  bits flipped, the rest uniform random, answered by a fresh `fpdb query
  --k R` process for each radius R, page cache warm, the radii alternated
  round after round so that a slow spell of the machine falls on all of
  them; medians over the rounds;
- fpdb's answers to the first 300 queries at every radius checked against
  a numpy brute-force scan, which is also timed as the baseline.

    make bench-radius                                        # N = 10,000,000
    python benches/scripts/radius_curve.py FPDB --n 1000000  # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from cli_cold import NumberedIds, log, run, write_fps

RADII = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
CHECKED = 300


def near_mix(rng: np.random.Generator, stored: np.ndarray, count: int, bits: int) -> np.ndarray:
    """Every other query a stored fingerprint with 0 to `bits` random bits
    flipped, the rest uniform random."""
    queries = rng.integers(0, 2**64, size=count, dtype=np.uint64)
    near = stored[rng.integers(0, len(stored), size=(count + 1) // 2)]
    flips = rng.integers(0, bits + 1, size=len(near))
    for round_ in range(bits):
        positions = rng.integers(0, 64, size=len(near)).astype(np.uint64)
        near = np.where(flips > round_, near ^ (np.uint64(1) << positions), near)
    queries[0::2] = near
    return queries


def check(answers_path: Path, stored: np.ndarray, queries: np.ndarray, radius: int) -> tuple:
    """fpdb's answers to the first CHECKED queries against a brute-force
    scan at `radius`: (matches, scan seconds per query)."""
    answers = [json.loads(line) for line in answers_path.read_text().splitlines()]
    matches = 0
    started = time.perf_counter()
    for answer, query in zip(answers[:CHECKED], queries[:CHECKED].tolist()):
        distances = np.bitwise_count(stored ^ np.uint64(query))
        expected = {f"doc{i}" for i in np.nonzero(distances <= radius)[0].tolist()}
        got = {doc for match in answer["matches"] for doc in match["ids"]}
        if got != expected:
            raise SystemExit(f"radius {radius}, query {answer['query']}: fpdb {got}, brute force {expected}")
        matches += len(got)
    return matches, (time.perf_counter() - started) / CHECKED


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fpdb", help="the fpdb binary")
    parser.add_argument("--n", type=int, default=10_000_000, help="fingerprints stored")
    parser.add_argument("--rounds", type=int, default=5, help="fresh processes per radius")
    args = parser.parse_args()
    work_dir = tempfile.TemporaryDirectory()
    work = Path(work_dir.name)
    fpdb = str(Path(args.fpdb).resolve())
    log(f"started; {os.popen('uptime').read().strip()}")

    rng = np.random.default_rng(7)
    stored = rng.integers(0, 2**64, size=args.n, dtype=np.uint64)
    queries = near_mix(rng, stored, 10_000, 8)
    write_fps(work / "fps.tsv", NumberedIds("doc", args.n), stored)
    write_fps(work / "queries.tsv", NumberedIds("q", len(queries)), queries)
    write_fps(work / "empty.tsv", NumberedIds("q", 0), queries[:0])
    db = str(work / "db")
    subprocess.run([fpdb, "create", db, "--expected", str(args.n)], check=True)
    load = run([fpdb, "load", db, str(work / "fps.tsv")])
    log(f"load: {load}")

    opens = []
    walls: dict[int, list] = {radius: [] for radius in RADII}
    for round_ in range(args.rounds):
        opens.append(run([fpdb, "query", db, str(work / "empty.tsv")])["wall_s"])
        for radius in RADII:
            output = work / f"r{radius}.json"
            result = run([fpdb, "query", db, str(work / "queries.tsv"), "--k", str(radius)], output)
            walls[radius].append(result["wall_s"])
        log(f"round {round_ + 1}: {[round(walls[r][-1] * 1e3) for r in RADII]} ms")
    open_s = statistics.median(opens)
    log(f"finished; {os.popen('uptime').read().strip()}")

    print(f"\nN = {args.n:,}, k = 3 database; 10,000 queries; {args.rounds} fresh processes per radius, medians\n")
    print("| radius | `fpdb query` wall | after open | per query | matches in the first 300 | numpy scan per query |")
    print("|---|---|---|---|---|---|")
    for radius in RADII:
        wall = statistics.median(walls[radius])
        matches, scan_s = check(work / f"r{radius}.json", stored, queries, radius)
        print(
            f"| {radius} | {wall * 1e3:.0f} ms ({min(walls[radius]) * 1e3:.0f}-{max(walls[radius]) * 1e3:.0f}) "
            f"| {(wall - open_s) * 1e3:.0f} ms | {(wall - open_s) / len(queries) * 1e6:.1f} µs "
            f"| {matches} | {scan_s * 1e3:.1f} ms |"
        )
    print(f"\nOpening alone (empty input): {open_s * 1e3:.1f} ms. Every answer checked equals the scan's.")


if __name__ == "__main__":
    main()
