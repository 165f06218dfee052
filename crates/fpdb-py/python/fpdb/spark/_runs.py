"""The distributed sort both pair finding and the prefix join stand on:
each distinct fingerprint becomes one row per table keyed by its permuted
prefix; Spark brings equal keys into one partition and sorts them; fpdb's
kernels find the pairs in each run of equal keys as the sorted rows
stream past, carrying an unfinished run over to the next Arrow batch.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql.types import (
    BooleanType,
    IntegerType,
    LongType,
    StructField,
    StructType,
)

from fpdb import _fpdb
from fpdb.spark._columns import arrow_fingerprints, arrow_longs, unsigned_order

_KEYED = [
    StructField("table", IntegerType(), False),
    StructField("prefix", LongType(), False),
    StructField("fp", LongType(), False),
]
_SIDE = StructField("is_query", BooleanType(), False)


def keyed(fps: DataFrame, design: str, k: int) -> DataFrame:
    """Rows ``(table, prefix, fp[, is_query])`` for a DataFrame of distinct
    fingerprints ``fp`` (and, for a join, their side ``is_query``)."""
    with_side = "is_query" in fps.columns

    def key(batches):
        for batch in batches:
            tables, prefixes, repeated = _fpdb.prefix_keys(
                arrow_fingerprints(batch.column("fp")), design, k
            )
            columns = [pa.array(tables), arrow_longs(prefixes), arrow_longs(repeated)]
            if with_side:
                side = batch.column("is_query").to_numpy(zero_copy_only=False)
                columns.append(pa.array(np.tile(side, len(tables) // max(len(side), 1))))
            names = ["table", "prefix", "fp", "is_query"][: len(columns)]
            yield pa.RecordBatch.from_arrays(columns, names=names)

    schema = StructType(_KEYED + ([_SIDE] if with_side else []))
    return fps.mapInArrow(key, schema)


def sorted_runs(keyed_rows: DataFrame, partitions: int | None) -> DataFrame:
    """Equal ``(table, prefix)`` keys brought together and sorted (a
    prefix may be all 64 bits, so it sorts unsigned, as the kernel reads
    it)."""
    if partitions is None:
        partitions = keyed_rows.sparkSession.sparkContext.defaultParallelism * 4
    return keyed_rows.repartition(partitions, "table", "prefix").sortWithinPartitions(
        "table", unsigned_order("prefix")
    )


_PAIRS = StructType(
    [
        StructField("fp_a", LongType(), False),
        StructField("fp_b", LongType(), False),
        StructField("distance", IntegerType(), False),
    ]
)


def pairs(runs: DataFrame, design: str, k: int) -> DataFrame:
    """``(fp_a, fp_b, distance)``: every pair of distinct fingerprints
    within ``k``, once (the first table sharing their prefix reports it).
    With ``is_query`` rows, only pairs across the sides, ``fp_a`` the
    query."""
    with_side = "is_query" in runs.columns

    def scan(batches):
        carry = None
        for batch in batches:
            rows = batch if carry is None else pa.concat_batches([carry, batch])
            consumed, found = _kernel(rows, with_side, design, k, more_follow=True)
            carry = rows.slice(consumed)
            yield _pair_batch(found)
        if carry is not None and carry.num_rows:
            _, found = _kernel(carry, with_side, design, k, more_follow=False)
            yield _pair_batch(found)

    return runs.mapInArrow(scan, _PAIRS)


def _kernel(rows, with_side, design, k, *, more_follow):
    tables = rows.column("table").to_numpy(zero_copy_only=False).astype(np.int32, copy=False)
    fps = arrow_fingerprints(rows.column("fp"))
    if with_side:
        sides = rows.column("is_query").to_numpy(zero_copy_only=False).astype(bool, copy=False)
        return _fpdb.pairs_in_sorted(tables, fps, design, k, more_follow, sides)
    return _fpdb.pairs_in_sorted(tables, fps, design, k, more_follow)


def _pair_batch(found) -> pa.RecordBatch:
    a, b, distance = found
    return pa.RecordBatch.from_arrays(
        [arrow_longs(a), arrow_longs(b), pa.array(distance.astype(np.int32))],
        names=["fp_a", "fp_b", "distance"],
    )
