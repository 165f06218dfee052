"""The paper's batch mode: a batch of query fingerprints against every
stored one."""

from __future__ import annotations

import uuid

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, LongType, StructField, StructType

from fpdb import _fpdb
from fpdb.errors import InvalidInputError
from fpdb.spark import _runs
from fpdb.spark._columns import arrow_fingerprints, arrow_longs
from fpdb.spark._confirm import ConfirmingRule, check_signature_column, confirmed, reached_pairs

#: Queries up to this many distinct fingerprints are broadcast (8 bytes
#: each, plus an in-memory index of about the same size per executor).
BROADCAST_LIMIT = 4_000_000

# Per Python worker: the index built from each broadcast batch, so the
# tasks a worker runs build it once.
_INDEXES: dict[str, _fpdb.BatchIndex] = {}


def query(
    stored: DataFrame,
    queries: DataFrame,
    *,
    k: int = 3,
    stored_id_col: str = "id",
    stored_fp_col: str = "fingerprint",
    query_id_col: str = "id",
    query_fp_col: str = "fingerprint",
    broadcast_limit: int = BROADCAST_LIMIT,
    design: str | None = None,
    partitions: int | None = None,
    confirm: bool = False,
    stored_signature_col: str = "signature",
    query_signature_col: str = "signature",
    confirm_radius: int | None = None,
    confirm_threshold: float | None = None,
    confirm_weak_bits: int | None = None,
    confirm_min_shared: int | None = None,
) -> DataFrame:
    """Every stored document within ``k`` bits of each query document:
    ``(query_id, stored_id, distance)``, the answers ``Db.query_many``
    gives for the same fingerprints.

    A batch of at most ``broadcast_limit`` distinct query fingerprints is
    sent to every executor, which permutes it into sorted in-memory tables
    (once per worker) and streams its partitions of ``stored`` past them;
    nothing of ``stored`` is shuffled. A larger batch is joined by prefix:
    both sides keyed once per table of the design, shuffled by
    ``(table, prefix)`` and matched run by run.

    ``confirm=True`` applies the match rule of a confirming database, as
    ``Db.query_text`` there does, with ``Db.create``'s options and
    defaults (see :func:`near_duplicate_pairs`): candidates within ``k``
    and, past it, the stored documents the query's weak bits reach within
    ``confirm_radius`` (a join on the fingerprints' quarters; with
    ``confirm_weak_bits=0`` every stored document within
    ``confirm_radius``, at most 7 here) are kept by the rule from both
    documents' signature columns (``stored_signature_col``,
    ``query_signature_col``, as :func:`fingerprints` makes them with
    ``confirm=True``), and the rows have a fourth column, ``similarity``
    (null for a match by distance alone).
    """
    columns = ((stored, (stored_id_col, stored_fp_col)), (queries, (query_id_col, query_fp_col)))
    for frame, names in columns:
        for name in names:
            if name not in frame.columns:
                raise InvalidInputError(f"no column {name!r} in {frame.columns}")
    confirm_options = (confirm_radius, confirm_threshold, confirm_weak_bits, confirm_min_shared)
    if not confirm:
        if any(option is not None for option in confirm_options):
            raise InvalidInputError(
                "confirm_radius, confirm_threshold, confirm_weak_bits and confirm_min_shared "
                "need confirm=True"
            )
        return _distance_matches(
            stored,
            queries,
            k,
            (stored_id_col, stored_fp_col),
            (query_id_col, query_fp_col),
            broadcast_limit,
            design,
            partitions,
        )
    check_signature_column(stored, stored_signature_col)
    check_signature_column(queries, query_signature_col)
    rule = ConfirmingRule.of(k, *confirm_options)
    candidates = _distance_matches(
        stored,
        queries,
        rule.retrieval_radius,
        (stored_id_col, stored_fp_col),
        (query_id_col, query_fp_col),
        broadcast_limit,
        design,
        partitions,
    )
    stored_docs, query_docs = (
        frame.select(
            F.col(id_col).alias("id"), F.col(fp_col).alias("fp"), F.col(sig_col).alias("signature")
        ).where(F.col("fp").isNotNull())
        for frame, id_col, fp_col, sig_col in (
            (stored, stored_id_col, stored_fp_col, stored_signature_col),
            (queries, query_id_col, query_fp_col, query_signature_col),
        )
    )
    if rule.weak_bits:
        signed_stored = stored_docs.where(F.col("signature").isNotNull())
        signed_queries = query_docs.where(F.col("signature").isNotNull())
        # The query's weak bits probe, as a database's query does.
        reached = reached_pairs(signed_queries, signed_stored, rule, partitions, ordered=False)
        past_k = (
            reached.join(
                signed_queries.select(F.col("fp").alias("fp_a"), F.col("id").alias("query_id")),
                "fp_a",
            )
            .join(
                signed_stored.select(F.col("fp").alias("fp_b"), F.col("id").alias("stored_id")),
                "fp_b",
            )
            .select("query_id", "stored_id", "distance")
        )
        # Disjoint: the kernels' matches are within k, the reached past it.
        candidates = candidates.unionByName(past_k)
    return confirmed(candidates, ("query_id", query_docs), ("stored_id", stored_docs), rule)


def _distance_matches(
    stored: DataFrame,
    queries: DataFrame,
    k: int,
    stored_columns: tuple[str, str],
    query_columns: tuple[str, str],
    broadcast_limit: int,
    design: str | None,
    partitions: int | None,
) -> DataFrame:
    """:func:`query` by distance alone."""
    (stored_id_col, stored_fp_col), (query_id_col, query_fp_col) = stored_columns, query_columns
    stored = stored.select(
        F.col(stored_id_col).alias("stored_id"), F.col(stored_fp_col).alias("fp")
    ).where(F.col("fp").isNotNull())
    queries = queries.select(
        F.col(query_id_col).alias("query_id"), F.col(query_fp_col).alias("query_fp")
    ).where(F.col("query_fp").isNotNull())
    distinct = queries.select(F.col("query_fp").alias("fp")).distinct()
    count = distinct.count()
    if count <= broadcast_limit:
        found = _broadcast_matches(stored, distinct, k)
        return found.join(queries, "query_fp").select("query_id", "stored_id", "distance")
    name, _ = _fpdb.design_for(k, design)
    sides = distinct.withColumn("is_query", F.lit(True)).unionByName(
        # Copies are made distinct by the kernel.
        stored.select("fp").withColumn("is_query", F.lit(False))
    )
    fp_matches = _runs.pairs(_runs.partitioned(sides, name, k, partitions), name, k)
    return (
        fp_matches.withColumnRenamed("fp_a", "query_fp")
        .withColumnRenamed("fp_b", "fp")
        .join(stored, "fp")
        .join(queries, "query_fp")
        .select("query_id", "stored_id", "distance")
    )


def _collect_arrow(df: DataFrame) -> pa.Table:
    """``df`` on the driver as an Arrow table: ``toArrow`` from Spark 4.0,
    the same batches through the older private call on Spark 3.5."""
    if hasattr(df, "toArrow"):
        return df.toArrow()
    from pyspark.sql.pandas.types import to_arrow_schema

    return pa.Table.from_batches(df._collect_as_arrow(), schema=to_arrow_schema(df.schema))


def _broadcast_matches(stored: DataFrame, distinct: DataFrame, k: int) -> DataFrame:
    table = _collect_arrow(distinct)
    fps = (
        arrow_fingerprints(table.column("fp").combine_chunks())
        if table.num_rows
        else np.zeros(0, dtype=np.uint64)
    )
    batch = stored.sparkSession.sparkContext.broadcast(fps)
    broadcast_id = uuid.uuid4().hex

    def probe(batches):
        index = _INDEXES.get(broadcast_id)
        if index is None:
            index = _fpdb.BatchIndex(batch.value, k)
            _INDEXES.clear()
            _INDEXES[broadcast_id] = index
        for rows in batches:
            positions, query_fps, distance = index.matches(arrow_fingerprints(rows.column("fp")))
            yield pa.RecordBatch.from_arrays(
                [
                    rows.column("stored_id").take(pa.array(positions)),
                    arrow_longs(query_fps),
                    pa.array(distance.astype(np.int32)),
                ],
                names=["stored_id", "query_fp", "distance"],
            )

    schema = StructType(
        [
            stored.schema["stored_id"],
            StructField("query_fp", LongType(), False),
            StructField("distance", IntegerType(), False),
        ]
    )
    return stored.mapInArrow(probe, schema)
