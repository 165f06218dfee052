"""The Python package's bench: fpdb from Python against fpdb from Rust (the
`python_baseline` binary, same database and inputs, same run) and against
faiss IndexBinaryMultiHash and the `simhash` package's SimhashIndex on the
same fingerprints. Prints a Markdown table for docs/BENCHMARKS.md.

    make bench-python                      # 10M stored, as in BENCHMARKS.md
    python bench/bench.py --n 1000000      # smaller, for a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import fpdb

REPO = Path(__file__).resolve().parents[3]


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def probes(rng: np.random.Generator, stored: np.ndarray, count: int) -> np.ndarray:
    """The store benches' mix: every other probe a stored fingerprint with
    0-3 bits flipped, the rest uniform random."""
    out = rng.integers(0, 2**64, size=count, dtype=np.uint64, endpoint=False)
    picks = stored[rng.integers(0, len(stored), size=count // 2 + count % 2)]
    for position, fp in enumerate(picks):
        value = int(fp)
        for bit in rng.integers(0, 64, size=int(rng.integers(0, 4))):
            value ^= 1 << int(bit)
        out[position * 2] = value
    return out


def latencies_us(call, queries) -> dict:
    """One warm pass, then each query timed once."""
    for q in queries:
        call(q)
    nanos = np.empty(len(queries), dtype=np.int64)
    for position, q in enumerate(queries):
        started = time.perf_counter_ns()
        call(q)
        nanos[position] = time.perf_counter_ns() - started
    return {
        "p50_us": float(np.percentile(nanos, 50)) / 1000,
        "p99_us": float(np.percentile(nanos, 99)) / 1000,
        "mean_us": float(nanos.mean()) / 1000,
    }


def texts_for(count: int) -> list[str]:
    """Real-looking Chinese documents from data/corpus.jsonl, repeated with
    a numbered suffix to reach `count`."""
    lines = (REPO / "data" / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    base = [json.loads(line)["text"] for line in lines if line.strip()]
    return [f"{base[i % len(base)]} {i}" for i in range(count)]


def bench_fpdb_build(args, work: Path, stored, ids) -> dict:
    """Bulk load, then reopening in a fresh process."""
    path = str(work / "fpdb")
    result = {}
    log(f"fpdb: bulk load of {len(stored):,}")
    with fpdb.Db.create(path, k=args.k, expected=len(stored)) as db:
        started = time.perf_counter()
        db.bulk_load(ids=ids, fps=stored)
        result["build_s"] = time.perf_counter() - started
        result["design"] = db.design

    # Reopening in a fresh process: open, then the first query.
    code = (
        "import time, fpdb; t = time.perf_counter(); "
        f"db = fpdb.Db.open({path!r}, read_only=True); "
        "o = time.perf_counter() - t; db.query(12345); "
        "print(o, time.perf_counter() - t)"
    )
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    result["process_s"] = time.perf_counter() - started
    result["open_s"], result["open_first_query_s"] = map(float, out.stdout.split())
    return result


def bench_fpdb_calls(args, work: Path, result: dict, probe_fps, batch_fps, texts) -> None:
    """The calls the Rust side makes too, after it (so neither is first to
    read the database from disk)."""
    with fpdb.Db.open(str(work / "fpdb"), read_only=True) as db:
        log("fpdb: single queries")
        queries = [int(q) for q in probe_fps]
        result["query"] = latencies_us(lambda q: db.query(q, args.k), queries)
        log(f"fpdb: query_many of {len(batch_fps):,}")
        # Twice, the faster counts: the first may read blocks from disk
        # (the Rust side does the same).
        result["batch_s"] = float("inf")
        for _ in range(2):
            started = time.perf_counter()
            answers = db.query_many(batch_fps, args.k)
            result["batch_s"] = min(result["batch_s"], time.perf_counter() - started)
            result["batch_rows"] = len(answers)
            del answers
    log(f"fpdb: fingerprint_many of {len(texts):,} texts")
    started = time.perf_counter()
    fpdb.fingerprint_many(texts)
    result["fingerprint_many_s"] = time.perf_counter() - started


def bench_rust(args, work: Path, probe_fps, batch_fps, texts) -> dict:
    binary = Path(os.environ.get("CARGO_TARGET_DIR", Path.home() / ".cache/fpdb-target"))
    binary = binary / "release" / "python_baseline"
    (work / "probes.u64").write_bytes(probe_fps.astype("<u8").tobytes())
    (work / "batch.u64").write_bytes(batch_fps.astype("<u8").tobytes())
    with open(work / "texts.jsonl", "w", encoding="utf-8") as out:
        for text in texts:
            out.write(json.dumps(text, ensure_ascii=False) + "\n")
    log("rust: the same calls")
    out = subprocess.run(
        [
            str(binary),
            str(work / "fpdb"),
            str(work / "probes.u64"),
            str(work / "batch.u64"),
            str(work / "texts.jsonl"),
            str(args.k),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def bench_faiss(args, stored, probe_fps, pairs_fps) -> dict:
    import faiss

    def as_bytes(fps: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(fps.astype("<u8")).view(np.uint8).reshape(-1, 8)

    def build(fps):
        # k + 1 hash tables of 64 / (k + 1) bits: a fingerprint within k
        # bits agrees with the query on one table's bits (pigeonhole), so
        # range search with radius k + 1 is exact.
        index = faiss.IndexBinaryMultiHash(64, args.k + 1, 64 // (args.k + 1))
        index.nflip = 0
        index.add(as_bytes(fps))
        return index

    result = {}
    log(f"faiss: build over {len(stored):,}")
    started = time.perf_counter()
    index = build(stored)
    result["build_s"] = time.perf_counter() - started
    queries = as_bytes(probe_fps)
    log("faiss: single queries")
    result["query"] = latencies_us(
        lambda q: index.range_search(q.reshape(1, 8), args.k + 1), list(queries)
    )
    del index
    log(f"faiss: all pairs of {len(pairs_fps):,}")
    index = build(pairs_fps)
    started = time.perf_counter()
    index.range_search(as_bytes(pairs_fps), args.k + 1)
    result["pairs_s"] = time.perf_counter() - started
    return result


def bench_simhash_package(args, n: int, stored, probe_fps, pairs_fps) -> dict:
    """SimhashIndex is pure Python: it is measured at `n` stored and all
    pairs of `len(pairs_fps)` (smaller than fpdb's by default; a smaller
    corpus is less work, so fpdb faster at 1M than it at 100k is faster
    at 1M too)."""
    import logging

    from simhash import Simhash, SimhashIndex

    logging.getLogger("simhash").setLevel(logging.ERROR)  # "big bucket" warnings
    result = {"n": n}
    log(f"simhash package: build over {n:,}")
    started = time.perf_counter()
    index = SimhashIndex(
        [(str(i), Simhash(int(fp))) for i, fp in enumerate(stored[:n])], f=64, k=args.k
    )
    result["build_s"] = time.perf_counter() - started
    log("simhash package: single queries")
    queries = [Simhash(int(q)) for q in probe_fps[: args.simhash_probes]]
    result["query"] = latencies_us(index.get_near_dups, queries)
    del index
    log(f"simhash package: all pairs of {len(pairs_fps):,}")
    started = time.perf_counter()
    objects = [(str(i), Simhash(int(fp))) for i, fp in enumerate(pairs_fps)]
    index = SimhashIndex(objects, f=64, k=args.k)
    for _, value in objects:
        index.get_near_dups(value)
    result["pairs_s"] = time.perf_counter() - started
    result["pairs_n"] = len(pairs_fps)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000_000, help="fingerprints stored")
    parser.add_argument("--probes", type=int, default=10_000, help="single queries timed")
    parser.add_argument("--batch", type=int, default=1_000_000, help="query_many batch size")
    parser.add_argument("--pairs", type=int, default=1_000_000, help="all-pairs corpus size")
    parser.add_argument("--texts", type=int, default=100_000, help="texts fingerprinted")
    parser.add_argument("--simhash-n", type=int, default=1_000_000, help="SimhashIndex size")
    parser.add_argument("--simhash-probes", type=int, default=2_000)
    parser.add_argument("--simhash-pairs", type=int, default=100_000, help="its all-pairs size")
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--skip-peers", action="store_true")
    args = parser.parse_args()

    rng = np.random.default_rng(2026)
    stored = rng.integers(0, 2**64, size=args.n, dtype=np.uint64, endpoint=False)
    ids = [f"doc{i}" for i in range(args.n)]
    probe_fps = probes(rng, stored, args.probes)
    batch_fps = probes(rng, stored, args.batch)
    pairs_fps = rng.integers(0, 2**64, size=args.pairs, dtype=np.uint64, endpoint=False)
    # Planted near-duplicates so the pairs are not empty: every 100th
    # fingerprint gets a copy with 1-3 bits flipped.
    for position in range(0, args.pairs - 1, 100):
        flips = rng.choice(64, size=int(rng.integers(1, 4)), replace=False)
        pairs_fps[position + 1] = int(pairs_fps[position]) ^ sum(1 << int(b) for b in flips)
    texts = texts_for(args.texts)

    work = Path(tempfile.mkdtemp(prefix="fpdb-pybench-"))
    try:
        report = {"n": args.n, "uptime": os.getloadavg()}
        report["fpdb"] = bench_fpdb_build(args, work, stored, ids)
        del ids
        report["rust"] = bench_rust(args, work, probe_fps, batch_fps, texts)
        bench_fpdb_calls(args, work, report["fpdb"], probe_fps, batch_fps, texts)
        log(f"fpdb: dedup (all pairs) of {args.pairs:,}")
        started = time.perf_counter()
        pairs = fpdb.dedup(pairs_fps, k=args.k)
        report["fpdb"]["pairs_s"] = time.perf_counter() - started
        report["fpdb"]["pairs"] = len(pairs[0])
        if not args.skip_peers:
            report["faiss"] = bench_faiss(args, stored, probe_fps, pairs_fps)
            report["simhash"] = bench_simhash_package(
                args,
                min(args.simhash_n, args.n),
                stored,
                probe_fps,
                pairs_fps[: args.simhash_pairs],
            )
        report["uptime_after"] = os.getloadavg()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
