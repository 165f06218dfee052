"""The distributed sort both pair finding and the prefix join stand on:
each distinct fingerprint becomes one row per table keyed by its permuted
prefix; Spark brings equal keys into one partition; fpdb's kernel sorts
each partition's rows (12 bytes each, in memory) and finds the pairs in
each run of equal keys. Sorting in Rust rather than with Spark's sort
spares a second pass over the rows and their trip through the JVM's row
format (it was most of the job's time).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, LongType, StructField, StructType

from fpdb import _fpdb
from fpdb.spark._columns import arrow_fingerprints, arrow_longs


def partitioned(fps: DataFrame, design: str, k: int, partitions: int | None) -> DataFrame:
    """Rows ``(table, fp[, is_query])`` for a DataFrame of distinct
    fingerprints ``fp`` (and, for a join, their side ``is_query``): one
    per table, shuffled so that equal ``(table, prefix)`` keys meet in one
    of ``partitions`` partitions (by default
    ``spark.sql.shuffle.partitions``). The prefix is computed in Spark SQL
    from the bit ranges the design moves to the top and only steers the
    shuffle (it is not stored in the rows; the kernel computes its own to
    sort by)."""
    if partitions is None:
        partitions = int(fps.sparkSession.conf.get("spark.sql.shuffle.partitions"))
    ranges = _fpdb.prefix_ranges(design, k)
    fp = F.col("fp")
    prefix = None
    for table, table_ranges in enumerate(ranges):
        value = F.lit(0).cast("long")
        for start, length in table_ranges:
            bits = F.shiftrightunsigned(fp, 64 - start - length).bitwiseAND(
                F.lit(-1 if length == 64 else (1 << length) - 1).cast("long")
            )
            value = F.shiftleft(value, length).bitwiseOR(bits)
        prefix = (
            F.when(F.col("table") == table, value)
            if prefix is None
            else prefix.when(F.col("table") == table, value)
        )
    tables = F.explode(F.array(*[F.lit(table).cast("int") for table in range(len(ranges))]))
    columns = [tables.alias("table"), fp]
    if "is_query" in fps.columns:
        columns.append(F.col("is_query"))
    return fps.select(*columns).repartition(partitions, F.col("table"), prefix)


_PAIRS = StructType(
    [
        StructField("fp_a", LongType(), False),
        StructField("fp_b", LongType(), False),
        StructField("distance", IntegerType(), False),
    ]
)


def pairs(rows: DataFrame, design: str, k: int) -> DataFrame:
    """``(fp_a, fp_b, distance)``: every pair of distinct fingerprints
    within ``k``, once (the first table sharing their prefix reports it).
    With ``is_query`` rows, only pairs across the sides, ``fp_a`` the
    query."""
    with_side = "is_query" in rows.columns

    def scan(batches):
        batches = list(batches)
        if not batches:
            return
        whole = pa.Table.from_batches(batches).combine_chunks()
        tables = whole.column("table").to_numpy().astype(np.int32, copy=False)
        fps = arrow_fingerprints(whole.column("fp"))
        sides = whole.column("is_query").to_numpy() if with_side else None
        del batches, whole
        a, b, distance = _fpdb.pairs_in_partition(tables, fps, design, k, sides)
        yield pa.RecordBatch.from_arrays(
            [arrow_longs(a), arrow_longs(b), pa.array(distance.astype(np.int32))],
            names=["fp_a", "fp_b", "distance"],
        )

    return rows.mapInArrow(scan, _PAIRS)
