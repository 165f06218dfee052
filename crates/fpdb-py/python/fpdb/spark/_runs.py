"""The distributed sort both pair finding and the prefix join stand on.

Each fingerprint is keyed once per table of the design by its permuted
prefix; Spark brings equal keys into one partition; fpdb's kernel sorts
each partition's rows in memory and finds the pairs in each run of equal
keys. Rows do not travel one by one: fpdb's kernel routes a batch of
fingerprints to buckets (one per partition, by key) and ships each
``(bucket, table, side)`` group as one binary value of little-endian
64-bit fingerprints, so Spark moves a few thousand values, not a row per
fingerprint and table (a row's trip through the JVM and Arrow costs
about a microsecond, which was most of a job's time).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (
    BinaryType,
    BooleanType,
    IntegerType,
    LongType,
    StructField,
    StructType,
)

from fpdb import _fpdb
from fpdb.spark._columns import arrow_fingerprints, arrow_longs

#: Fingerprints routed per kernel call: bounds an executor's memory and
#: keeps a batch's binary column under Arrow's 2 GiB offsets.
ROUTE_BATCH = 4_000_000


def partitioned(
    fps: DataFrame,
    design: str,
    k: int,
    partitions: int | None,
    route_batch: int = ROUTE_BATCH,
) -> DataFrame:
    """Packed rows ``(bucket, table[, is_query], fps)`` for a DataFrame
    of fingerprints ``fp`` (copies allowed; for a join, with their side
    ``is_query``), shuffled so that each bucket, and with it every row of
    a ``(table, prefix)`` key, lands in one of ``partitions`` partitions
    (by default ``spark.sql.shuffle.partitions``), routed ``route_batch``
    fingerprints at a time."""
    if partitions is None:
        partitions = int(fps.sparkSession.conf.get("spark.sql.shuffle.partitions"))
    targets = partition_keys(fps.sparkSession, partitions)
    with_side = "is_query" in fps.columns

    def route(fp_batches, side_batches):
        fps = np.concatenate(fp_batches) if fp_batches else np.zeros(0, np.uint64)
        sides = np.concatenate(side_batches) if with_side and side_batches else None
        bucket, table, side, offsets, packed = _fpdb.route(fps, design, k, partitions, sides)
        values = pa.BinaryArray.from_buffers(
            pa.binary(), len(table), [None, pa.py_buffer(offsets), pa.py_buffer(packed)]
        )
        columns = [pa.array(targets[bucket]), pa.array(table)]
        names = ["bucket", "table"]
        if with_side:
            columns.append(pa.array(side))
            names.append("is_query")
        names.append("fps")
        return pa.RecordBatch.from_arrays([*columns, values], names=names)

    def pack(batches):
        for held in gathered(batches, route_batch):
            fp_batches = [arrow_fingerprints(batch.column("fp")) for batch in held]
            side_batches = [
                batch.column("is_query").to_numpy(zero_copy_only=False)
                for batch in held
                if with_side
            ]
            yield route(fp_batches, side_batches)

    fields = [
        StructField("bucket", IntegerType(), False),
        StructField("table", IntegerType(), False),
    ]
    if with_side:
        fields.append(StructField("is_query", BooleanType(), False))
    fields.append(StructField("fps", BinaryType(), False))
    columns = ["fp", "is_query"] if with_side else ["fp"]
    return (
        fps.select(*columns)
        .mapInArrow(pack, StructType(fields))
        .repartition(partitions, F.col("bucket"))
    )


def gathered(batches: Iterable[pa.RecordBatch], rows: int) -> Iterator[list[pa.RecordBatch]]:
    """``batches`` in lists of at least ``rows`` rows (the last may hold
    fewer), one kernel call each: fewer calls, bounded memory."""
    held, count = [], 0
    for batch in batches:
        held.append(batch)
        count += batch.num_rows
        if count >= rows:
            yield held
            held, count = [], 0
    if held:
        yield held


def partition_keys(spark: SparkSession, partitions: int) -> np.ndarray:
    """For each partition p below ``partitions``, an int that Spark's hash
    partitioning (``pmod(hash(x), partitions)``, the same Murmur3 as SQL's
    ``hash``) sends to p, so that bucket p gets a partition of its own
    (hashing the bucket numbers themselves would leave some partitions
    empty and give others three buckets)."""
    candidates = spark.range(partitions * 64).select(F.col("id").cast("int").alias("key"))
    found = (
        candidates.groupBy(F.expr(f"pmod(hash(key), {partitions})").alias("partition"))
        .agg(F.min("key").alias("key"))
        .collect()
    )
    # A partition no candidate hashes to (about e^-64 likely) shares key 0.
    keys = np.zeros(partitions, dtype=np.int32)
    for row in found:
        keys[row["partition"]] = row["key"]
    return keys


def unpacked(values: pa.BinaryArray) -> tuple[np.ndarray, np.ndarray]:
    """A packed binary column (little-endian u64s, as fpdb's routing
    kernels pack them) as one uint64 array, without a copy, and each
    value's count of u64s."""
    offsets = np.frombuffer(values.buffers()[1], np.int32, len(values) + 1, values.offset * 4)
    first, total = int(offsets[0]), int(offsets[-1] - offsets[0]) // 8
    words = (
        np.frombuffer(values.buffers()[2], np.uint64, total, first)
        if total
        else np.zeros(0, np.uint64)
    )
    return words, np.diff(offsets) // 8


_PAIRS = StructType(
    [
        StructField("fp_a", LongType(), False),
        StructField("fp_b", LongType(), False),
        StructField("distance", IntegerType(), False),
    ]
)


def pairs(rows: DataFrame, design: str, k: int) -> DataFrame:
    """``(fp_a, fp_b, distance)``: every pair of distinct fingerprints
    within ``k``, once (the first table sharing their prefix reports it),
    and ``(fp, fp, 0)`` once for each fingerprint given more than once.
    With ``is_query`` rows, only matches across the sides instead,
    ``fp_a`` the query."""
    with_side = "is_query" in rows.columns

    def scan(batches):
        tables, fps, sides = [], [], []
        for batch in batches:
            packed, counts = unpacked(batch.column("fps"))
            fps.append(packed)
            tables.append(np.repeat(batch.column("table").to_numpy(), counts))
            if with_side:
                sides.append(
                    np.repeat(batch.column("is_query").to_numpy(zero_copy_only=False), counts)
                )
        if not fps:
            return
        a, b, distance = _fpdb.pairs_in_partition(
            np.concatenate(tables).astype(np.int32, copy=False),
            np.concatenate(fps),
            design,
            k,
            np.concatenate(sides) if with_side else None,
        )
        yield pa.RecordBatch.from_arrays(
            [arrow_longs(a), arrow_longs(b), pa.array(distance.astype(np.int32))],
            names=["fp_a", "fp_b", "distance"],
        )

    return rows.mapInArrow(scan, _PAIRS)
