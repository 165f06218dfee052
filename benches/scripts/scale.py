"""`fpdb` at scale: the commands a user runs, at each size, with faiss in
the same run.

For each N (10M and 100M by default), in one run on this machine:
- N fingerprints: uniform random ones, and every tenth document a copy of
  one of the first N / 100 with 0-3 bits flipped (a quarter of them with
  none: exact duplicates), so there are clusters of near-duplicates and
  fingerprints with several ids; ids `doc0`, `doc1`, …;
- `fpdb create --expected N`, then `fpdb load` of the `<id>\\t<hex>`
  lines: wall and CPU time, peak memory (GNU time), the loader's phases
  and spilled runs, and the design the database chose;
- what the database takes on disk per document (tables and ids);
- `fpdb query` of 10,000 fingerprints (every other one a stored
  fingerprint with 0-3 bits flipped, the rest random) in fresh processes
  with the page cache warm (medians), and once with it dropped (root
  only); and an empty input (start and open alone);
- fpdb's answers to a sample of the queries checked against a numpy
  brute-force scan;
- faiss IndexBinaryMultiHash on the same fingerprints, in a process of
  its own (so its peak memory is its own): build, then the 10,000
  queries in one call;
then one Markdown table with a row per N and the growth of each figure
per document (or per query) from the smallest N to the largest.

    make bench-scale                                   # 10M and 100M
    make bench-scale SCALE_SIZES="1000000 10000000"    # smaller
    python benches/scripts/scale.py FPDB --sizes 1000000 --work DIR
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from cli_cold import (
    K,
    NumberedIds,
    check_answers,
    drop_page_cache,
    log,
    median_runs,
    query_mix,
    run,
    write_fps,
)

# Brute-force comparisons spent checking answers (queries x N): 1,000
# queries at 10M, 100 at 100M.
CHECK_COMPARISONS = 10**10


def planted(rng: np.random.Generator, n: int) -> np.ndarray:
    """N random fingerprints; every tenth replaced by a copy of one of the
    first N / 100 with 0-3 bits flipped (none for a quarter: duplicates)."""
    fps = rng.integers(0, 2**64, size=n, dtype=np.uint64)
    copies = np.arange(10, n, 10)
    sources = rng.integers(0, max(1, n // 100), size=len(copies))
    near = fps[sources]
    flips = rng.integers(0, 4, size=len(copies))
    for round_ in range(3):
        bits = rng.integers(0, 64, size=len(copies)).astype(np.uint64)
        near = np.where(flips > round_, near ^ (np.uint64(1) << bits), near)
    fps[copies] = near
    return fps


def uptime() -> str:
    return os.popen("uptime").read().strip()


def disk_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def faiss_child(stored_path: str, queries_path: str) -> None:
    """In its own process: faiss's build and queries, as JSON."""
    from cli_cold import bench_faiss

    stored = np.load(stored_path)
    queries = np.load(queries_path)
    print(json.dumps(bench_faiss(stored, {"q10000": queries})))


def bench_size(fpdb: str, n: int, work: Path, runs: int, design: str) -> dict:
    work.mkdir(parents=True, exist_ok=True)
    result: dict = {
        "n": n,
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    result["load_average_before"] = os.getloadavg()
    rng = np.random.default_rng(n)
    stored = planted(rng, n)
    queries = query_mix(rng, stored, 10_000)
    check = max(100, min(1000, CHECK_COMPARISONS // n))
    ids = NumberedIds("doc", n)
    write_fps(work / "fps.tsv", ids, stored)
    write_fps(work / "q10000.tsv", NumberedIds("q", len(queries)), queries)
    write_fps(work / "q0.tsv", NumberedIds("q", 0), queries[:0])
    write_fps(work / "check.tsv", NumberedIds("q", check), queries[:check])
    np.save(work / "stored.npy", stored)
    np.save(work / "queries.npy", queries)
    log(f"N = {n:,}: wrote the fingerprints and queries")

    db = work / "db"
    shutil.rmtree(db, ignore_errors=True)
    created = subprocess.run(
        [fpdb, "create", str(db), "--expected", str(n), "--design", design],
        check=True,
        capture_output=True,
        text=True,
    )
    log(created.stdout.strip())
    log(f"load: started; {uptime()}")
    result["load"] = run(
        [fpdb, "load", "--quiet", "--format", "json", str(db), str(work / "fps.tsv")],
        work / "load.json",
    )
    result["load"]["summary"] = json.loads((work / "load.json").read_text())
    result["load"]["load_average_after"] = os.getloadavg()
    log(f"load: {result['load']}; {uptime()}")
    stats = json.loads(
        subprocess.run(
            [fpdb, "stats", "--format", "json", str(db)],
            check=True,
            capture_output=True,
        ).stdout
    )
    result["design"] = stats["design"]
    result["tables"] = len(stats["tables"])
    result["fingerprints"] = stats["fingerprints"]
    result["disk_bytes"] = disk_bytes(db)
    result["table_disk_bytes"] = sum(t["disk_bytes"] for t in stats["tables"])
    result["ids_disk_bytes"] = stats["ids_disk_bytes"]

    warm = {}
    for name in ("q0", "q10000"):
        command = [fpdb, "query", str(db), str(work / f"{name}.tsv")]
        warm[name] = median_runs(command, runs, work / f"{name}.json")
        log(f"{name} warm: {warm[name]}")
    result["warm"] = warm
    if drop_page_cache():
        result["cold"] = run(
            [fpdb, "query", str(db), str(work / "q10000.tsv")], work / "cold.json"
        )
        log(f"q10000 cold: {result['cold']}")
    else:
        log("not root: the page cache cannot be dropped; no cold run")

    run([fpdb, "query", str(db), str(work / "check.tsv")], work / "check.json")
    log(f"brute force: checking fpdb's answers to {check:,} queries")
    result["checked"] = check_answers(work / "check.json", stored, ids, queries[:check])
    log(f"checked: {result['checked']}")
    del stored

    log(f"faiss: started; {uptime()}")
    faiss_run = run(
        [
            sys.executable,
            __file__,
            "--faiss-child",
            str(work / "stored.npy"),
            str(work / "queries.npy"),
        ],
        work / "faiss.json",
    )
    result["faiss"] = {**json.loads((work / "faiss.json").read_text()), **faiss_run}
    log(f"faiss: {result['faiss']}")
    result["load_average_after"] = os.getloadavg()
    result["finished"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return result


def row(r: dict) -> dict:
    """The table's figures of one size, per document or per query."""
    n = r["n"]
    load = r["load"]
    summary = load["summary"]
    return {
        "load_s": load["wall_s"],
        "load_us_per_doc": load["wall_s"] / n * 1e6,
        "load_cpu_s": load["cpu_s"],
        "load_rss_mib": load["rss_mib"],
        "phases": (
            summary["reading_seconds"],
            summary["writing_seconds"],
            summary["ingesting_seconds"],
        ),
        "spilled_runs": summary["spilled_runs"],
        "open_ms": r["warm"]["q0"]["wall_s"] * 1e3,
        "query_us": r["warm"]["q10000"]["wall_s"] / 10_000 * 1e6,
        "query_cold_us": r["cold"]["wall_s"] / 10_000 * 1e6 if "cold" in r else None,
        "disk_b_per_doc": r["disk_bytes"] / n,
        "tables_b_per_doc": r["table_disk_bytes"] / n,
        "ids_b_per_doc": r["ids_disk_bytes"] / n,
        "faiss_build_s": r["faiss"]["build_s"],
        "faiss_build_us_per_doc": r["faiss"]["build_s"] / n * 1e6,
        "faiss_query_us": r["faiss"]["q10000_s"] / 10_000 * 1e6,
        "faiss_rss_mib": r["faiss"]["rss_mib"],
    }


def report(results: list[dict], runs: int) -> None:
    rows = [row(r) for r in results]
    print(
        f"\n{runs} fresh `fpdb query` processes per input with the page cache warm "
        "(medians), one with it dropped; faiss IndexBinaryMultiHash "
        f"({K + 1} tables) in a process of its own.\n"
    )
    print(
        "| N | design | `fpdb load` | per document | CPU | peak RSS | reading / sorting "
        "and writing / ingesting | spilled runs | fresh `fpdb query`, 10,000, warm "
        "| same, page cache dropped | open alone | disk per document (tables + ids) "
        "| faiss build | faiss 10,000 queries | faiss peak RSS |"
    )
    print("|" + "---|" * 16)
    for r, f in zip(results, rows):
        cold = (
            f"{f['query_cold_us']:.1f} µs/q" if f["query_cold_us"] is not None else "-"
        )
        print(
            f"| {r['n']:,} | `{r['design']}` ({r['tables']} tables) | {f['load_s']:.1f} s "
            f"| {f['load_us_per_doc']:.2f} µs | {f['load_cpu_s']:.1f} s "
            f"| {f['load_rss_mib']:,.0f} MiB "
            f"| {' / '.join(f'{p:.1f}' for p in f['phases'])} s | {f['spilled_runs']} "
            f"| {f['query_us']:.1f} µs/q | {cold} | {f['open_ms']:.0f} ms "
            f"| {f['disk_b_per_doc']:.1f} B ({f['tables_b_per_doc']:.1f} + "
            f"{f['ids_b_per_doc']:.1f}) | {f['faiss_build_s']:.1f} s "
            f"| {f['faiss_query_us']:.0f} µs/q | {f['faiss_rss_mib']:,.0f} MiB |"
        )
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        growth = {
            key: last[key] / first[key]
            for key in (
                "load_us_per_doc",
                "query_us",
                "disk_b_per_doc",
                "faiss_build_us_per_doc",
                "faiss_query_us",
                "load_rss_mib",
            )
            if first[key]
        }
        print(
            f"\nFrom {results[0]['n']:,} to {results[-1]['n']:,}: "
            + "; ".join(f"{key} x {value:.2f}" for key, value in growth.items())
            + f". `fpdb load` at {results[-1]['n']:,} takes "
            f"{last['load_s'] / last['faiss_build_s']:.2f} x faiss's build."
        )
    for r in results:
        print(
            f"\nN = {r['n']:,}: {r['started']} to {r['finished']}, load average "
            f"{r['load_average_before'][0]:.2f} before, "
            f"{r['load']['load_average_after'][0]:.2f} after the load, "
            f"{r['load_average_after'][0]:.2f} at the end; fpdb's answers to "
            f"{r['checked']['queries']:,} queries ({r['checked']['matches']:,} ids) "
            "equal the brute-force scan's."
        )


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--faiss-child":
        faiss_child(sys.argv[2], sys.argv[3])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fpdb", help="the fpdb binary")
    parser.add_argument(
        "--sizes",
        default="10000000 100000000",
        help="numbers of documents, separated by spaces (default: 10M and 100M)",
    )
    parser.add_argument("--runs", type=int, default=5, help="fresh warm processes")
    parser.add_argument(
        "--design", default="auto", help="`fpdb create --design` (default: auto)"
    )
    parser.add_argument(
        "--work",
        default=None,
        help="scratch directory (default: scale-bench in the system's temporary "
        "directory); each size's files are removed after it unless --keep",
    )
    parser.add_argument("--keep", action="store_true", help="keep each size's files")
    args = parser.parse_args()
    if not Path("/usr/bin/time").exists():
        raise SystemExit("GNU time (/usr/bin/time) is needed: apt-get install time")
    fpdb = str(Path(args.fpdb).resolve())
    root = Path(args.work or Path(os.environ.get("TMPDIR", "/tmp")) / "scale-bench")
    sizes = [int(size) for size in args.sizes.split()]
    log(f"started; {uptime()}")
    results = []
    for n in sizes:
        work = root / f"n{n}"
        try:
            results.append(bench_size(fpdb, n, work, args.runs, args.design))
        finally:
            if not args.keep:
                shutil.rmtree(work, ignore_errors=True)
        (root / "results.json").write_text(json.dumps(results, indent=1))
    log(f"finished; {uptime()}")
    report(results, args.runs)


if __name__ == "__main__":
    main()
