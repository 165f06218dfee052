"""Every pair of documents within k across a whole DataFrame."""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from fpdb import _fpdb
from fpdb.errors import InvalidInputError
from fpdb.spark import _runs


def _zero():
    return F.lit(0).cast("int").alias("distance")


def near_duplicate_pairs(
    df: DataFrame,
    *,
    k: int = 3,
    id_col: str = "id",
    fp_col: str = "fingerprint",
    duplicates: str = "all",
    design: str = "auto",
    partitions: int | None = None,
) -> DataFrame:
    """The pairs of documents whose fingerprints are within ``k`` bits:
    ``(id_a, id_b, distance)`` with ``id_a < id_b``, each pair once, the
    same pairs as ``fpdb.dedup`` finds on one machine.

    ``df`` holds one row per document: a unique id (any orderable type)
    and a LongType fingerprint (rows with a null fingerprint are left
    out). Identical fingerprints are grouped first, so the kernels see
    each distinct fingerprint once whatever the number of copies; the
    distinct ones are keyed once per table of fpdb's design for their
    number (``design`` names another), shuffled by ``(table, prefix)``,
    sorted, and fpdb's Rust kernel finds the pairs in each run (a run too
    long to compare pair by pair is split by an index of its own).

    ``duplicates`` says how documents sharing one fingerprint are paired:
    ``"all"`` (every pair, as ``fpdb.dedup``: m copies give m(m-1)/2
    pairs) or ``"representative"`` (each copy with the copy of smallest
    id, which then stands for the group in near pairs too: m - 1 pairs
    per group and the same clusters; use it when empty pages abound).
    """
    if duplicates not in ("all", "representative"):
        raise InvalidInputError(f'duplicates={duplicates!r}: expected "all" or "representative"')
    for name in (id_col, fp_col):
        if name not in df.columns:
            raise InvalidInputError(f"no column {name!r} in {df.columns}")
    docs = df.select(F.col(id_col).alias("id"), F.col(fp_col).alias("fp")).where(
        F.col("fp").isNotNull()
    )
    distinct = docs.select("fp").distinct()
    name, _ = _fpdb.design_for(k, distinct.count(), design)
    fp_pairs = _runs.pairs(_runs.sorted_runs(_runs.keyed(distinct, name, k), partitions), name, k)

    if duplicates == "representative":
        docs = docs.groupBy("fp").agg(F.min("id").alias("rep"))
        same = (
            df.select(F.col(id_col).alias("id"), F.col(fp_col).alias("fp"))
            .join(docs, "fp")
            .where(F.col("id") != F.col("rep"))
            .select(F.col("rep").alias("id_a"), F.col("id").alias("id_b"), _zero())
        )
        docs = docs.select(F.col("rep").alias("id"), "fp")
    else:
        left, right = docs.alias("left"), docs.alias("right")
        same = left.join(
            right, (F.col("left.fp") == F.col("right.fp")) & (F.col("left.id") < F.col("right.id"))
        ).select(F.col("left.id").alias("id_a"), F.col("right.id").alias("id_b"), _zero())

    near = (
        fp_pairs.join(docs.select(F.col("id").alias("x"), F.col("fp").alias("fp_a")), "fp_a")
        .join(docs.select(F.col("id").alias("y"), F.col("fp").alias("fp_b")), "fp_b")
        .select(
            F.least("x", "y").alias("id_a"),
            F.greatest("x", "y").alias("id_b"),
            "distance",
        )
    )
    return near.unionByName(same)
