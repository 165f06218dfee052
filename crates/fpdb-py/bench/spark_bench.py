"""fpdb.spark on Spark local[2]: corpus-wide pairs, clusters and the batch
mode, against the same permuted-band scheme written in Spark SQL (a
self-join on each band's key with a bit-count filter and a global
distinct: how Spark SimHash jobs are written without fpdb's kernels) on
the same Parquet data, in the same run. Prints a Markdown table for
docs/BENCHMARKS.md.

    make bench-spark                            # 1M and 10M, as in BENCHMARKS.md
    python bench/spark_bench.py --n 1000000     # one size, for a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import fpdb

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

from fpdb import spark as fps  # noqa: E402

EMPTY_PAGES = 1000


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def corpus(rng: np.random.Generator, n: int) -> np.ndarray:
    """n fingerprints: uniform ones, a tenth of them near copies (1-3 bits)
    of others, and EMPTY_PAGES copies of 0 (pages with no text)."""
    fps_ = rng.integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False)
    copies = n // 10
    sources = rng.integers(0, n - copies - EMPTY_PAGES, size=copies)
    masks = np.zeros(copies, dtype=np.uint64)
    for _ in range(3):
        bits = rng.integers(0, 64, size=copies).astype(np.uint64)
        flip = rng.random(copies) < 0.75
        masks ^= np.where(flip, np.uint64(1) << bits, np.uint64(0))
    masks[masks == 0] = 1
    fps_[n - copies - EMPTY_PAGES : n - EMPTY_PAGES] = fps_[sources] ^ masks
    fps_[n - EMPTY_PAGES :] = 0
    return fps_


def write_parquet(path: Path, fps_: np.ndarray, prefix: str) -> None:
    ids = pa.array([f"{prefix}{i}" for i in range(len(fps_))], type=pa.string())
    table = pa.table({"id": ids, "fingerprint": pa.array(fps_.view(np.int64))})
    pq.write_table(table, path, row_group_size=1 << 20)


class ShuffleMeter:
    """Shuffle bytes written by the stages of the jobs run since start(),
    from Spark's monitoring API on loopback."""

    def __init__(self, spark: SparkSession):
        app = spark.sparkContext.applicationId
        self.url = f"{spark.sparkContext.uiWebUrl}/api/v1/applications/{app}/stages"
        self.before: set[int] = set()

    def _stages(self) -> list[dict]:
        with urllib.request.urlopen(self.url) as response:
            return json.load(response)

    def start(self) -> None:
        self.before = {stage["stageId"] for stage in self._stages()}

    def written(self) -> int:
        return sum(
            stage.get("shuffleWriteBytes", 0)
            for stage in self._stages()
            if stage["stageId"] not in self.before and stage["status"] == "COMPLETE"
        )


def run_job(spark, name: str, action, timeout: float | None = None):
    """Runs action() in a job group; cancels it after timeout seconds.
    Returns (seconds, result) or (None, None) when cancelled."""
    context = spark.sparkContext
    context.setJobGroup(name, name, interruptOnCancel=True)
    timer = None
    cancelled = threading.Event()
    if timeout is not None:

        def cancel():
            cancelled.set()
            context.cancelJobGroup(name)

        timer = threading.Timer(timeout, cancel)
        timer.start()
    started = time.perf_counter()
    try:
        result = action()
    except Exception:
        if cancelled.is_set():
            return None, None
        raise
    finally:
        if timer is not None:
            timer.cancel()
    return time.perf_counter() - started, result


def fingerprint_sum(pairs) -> tuple[int, int]:
    """How many pairs, and an order-free checksum of them."""
    row = pairs.select(
        F.count("*").alias("pairs"),
        F.bit_xor(F.xxhash64("id_a", "id_b", "distance")).alias("sum"),
    ).first()
    return row["pairs"], row["sum"]


def written_pairs(spark, meter, name: str, make_pairs, path: Path, timeout=None):
    """Writes the pairs make_pairs() plans to Parquet at path as one timed
    job: (seconds, shuffle bytes, pairs, checksum), all None when the job
    was cancelled after timeout seconds."""
    meter.start()
    seconds, _ = run_job(spark, name, lambda: make_pairs().write.parquet(str(path)), timeout)
    if seconds is None:
        return None, None, None, None
    shuffle = meter.written()
    return (seconds, shuffle, *fingerprint_sum(spark.read.parquet(str(path))))


def sql_band_pairs(df, k: int = 3):
    """The baseline: four 16-bit bands (the design split-4 uses), a
    self-join on (band, key), a bit-count filter and a global distinct."""
    bands = df.select(
        "id", "fingerprint", F.explode(F.array(*[F.lit(b) for b in range(4)])).alias("band")
    ).withColumn(
        "key",
        F.expr("shiftrightunsigned(fingerprint, 48 - band * 16) & 65535"),
    )
    a, b = bands.alias("a"), bands.alias("b")
    joined = a.join(
        b,
        (F.col("a.band") == F.col("b.band"))
        & (F.col("a.key") == F.col("b.key"))
        & (F.col("a.id") < F.col("b.id")),
    )
    distance = F.bit_count(F.col("a.fingerprint").bitwiseXOR(F.col("b.fingerprint")))
    return (
        joined.where(distance <= k)
        .select(
            F.col("a.id").alias("id_a"),
            F.col("b.id").alias("id_b"),
            distance.cast("int").alias("distance"),
        )
        .distinct()
    )


def measure(spark, meter, work: Path, n: int, args) -> dict:
    rng = np.random.default_rng(n)
    stored = corpus(rng, n)
    path = work / f"docs-{n}.parquet"
    write_parquet(path, stored, "doc")
    df = spark.read.parquet(str(path))
    result: dict = {"n": n}

    log(f"n={n}: single-node fpdb.dedup")
    started = time.perf_counter()
    a, _, _ = fpdb.dedup(stored, k=3)
    result["single_node_s"] = time.perf_counter() - started
    result["single_node_pairs"] = len(a)
    del a

    log(f"n={n}: fpdb.spark.near_duplicate_pairs")
    pairs_path = work / f"pairs-{n}.parquet"
    measured = written_pairs(
        spark, meter, "fpdb", lambda: fps.near_duplicate_pairs(df, k=3), pairs_path
    )
    result["fpdb_s"], result["fpdb_shuffle_bytes"], result["fpdb_pairs"], result["fpdb_sum"] = (
        measured
    )
    stored_pairs = spark.read.parquet(str(pairs_path))

    log(f"n={n}: fpdb.spark.clusters")
    seconds, clusters = run_job(
        spark,
        "clusters",
        lambda: fps.clusters(stored_pairs).groupBy("representative").count().count(),
    )
    result["clusters_s"], result["clusters"] = seconds, clusters

    log(f"n={n}: fpdb.spark.query, {args.queries} queries")
    queries = stored[rng.integers(0, n, size=args.queries)] ^ (
        np.uint64(1) << rng.integers(0, 64, size=args.queries).astype(np.uint64)
    )
    queries_path = work / f"queries-{n}.parquet"
    write_parquet(queries_path, queries, "q")
    query_df = spark.read.parquet(str(queries_path))
    meter.start()
    seconds, _ = run_job(
        spark,
        "query",
        lambda: fps.query(df, query_df).write.format("noop").mode("overwrite").save(),
    )
    result["query_s"], result["query_shuffle_bytes"] = seconds, meter.written()

    if n <= args.baseline_max:
        log(f"n={n}: Spark SQL band self-join (timeout {args.timeout:.0f} s)")
        baseline_path = work / f"baseline-{n}.parquet"
        measured = written_pairs(
            spark, meter, "baseline", lambda: sql_band_pairs(df), baseline_path, args.timeout
        )
        names = ("baseline_s", "baseline_shuffle_bytes", "baseline_pairs", "baseline_sum")
        result.update(zip(names, measured))
        shutil.rmtree(baseline_path, ignore_errors=True)
    shutil.rmtree(pairs_path, ignore_errors=True)
    return result


def table(results: list[dict]) -> str:
    lines = [
        "| fingerprints | single-node `fpdb.dedup` | `near_duplicate_pairs` | per core "
        "| shuffle / fp | Spark SQL band self-join | its shuffle / fp | speed-up | same pairs "
        "| `clusters` | `query` (1M) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        n = r["n"]
        per_core = n / r["fpdb_s"] / 2
        baseline = r.get("baseline_s")
        if "baseline_s" not in r:
            baseline_cell, speedup, same, shuffle = "not run", "", "", ""
        elif baseline is None:
            baseline_cell, speedup, same, shuffle = "cancelled", "", "", ""
        else:
            baseline_cell = f"{baseline:.1f} s"
            shuffle = f"{r['baseline_shuffle_bytes'] / n:.0f} B"
            speedup = f"{baseline / r['fpdb_s']:.1f}×"
            same = (
                "yes"
                if (r["baseline_pairs"], r["baseline_sum"])
                == (
                    r["fpdb_pairs"],
                    r["fpdb_sum"],
                )
                else "**no**"
            )
        lines.append(
            f"| {n:,} | {r['single_node_s']:.2f} s | {r['fpdb_s']:.1f} s "
            f"({r['fpdb_pairs']:,} pairs) | {per_core / 1e3:,.0f}k fps/s "
            f"| {r['fpdb_shuffle_bytes'] / n:.0f} B | {baseline_cell} | {shuffle} "
            f"| {speedup} | {same} "
            f"| {r['clusters_s']:.1f} s ({r['clusters']:,}) | {r['query_s']:.1f} s |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--queries", type=int, default=1_000_000)
    parser.add_argument("--baseline-max", type=int, default=10_000_000)
    parser.add_argument("--timeout", type=float, default=1200)
    parser.add_argument("--memory", default="8g")
    args = parser.parse_args()
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("fpdb-spark-bench")
        .config("spark.driver.memory", args.memory)
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.ui.showConsoleProgress", "false")
        # As docs/SPARK.md recommends: fewer, larger Arrow batches into the kernels.
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "200000")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    meter = ShuffleMeter(spark)
    work = Path(tempfile.mkdtemp(prefix="fpdb-spark-bench-"))
    results = []
    try:
        # Start the JVM's JIT and the Python workers on both paths first, so
        # that neither pays for them in the measured runs.
        warm = work / "warm.parquet"
        write_parquet(warm, corpus(np.random.default_rng(1), 20_000), "w")
        warm_df = spark.read.parquet(str(warm))
        fps.near_duplicate_pairs(warm_df).write.format("noop").mode("overwrite").save()
        sql_band_pairs(warm_df).write.format("noop").mode("overwrite").save()
        for n in args.n:
            results.append(measure(spark, meter, work, n, args))
            log(json.dumps(results[-1]))
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"{time.strftime('%Y-%m-%d %H:%M')} UTC, local[2], {uptime}")
    print(table(results))


if __name__ == "__main__":
    main()
