"""The match rule of a confirming database on Spark.

Candidate pairs come from two searches, as ``MatchRule::corpus_pairs``
finds them: every pair within ``k`` (the prefix kernels, which also pair
bare documents), and, when the rule keeps weak bits, the pairs of signed
documents past ``k`` and within the radius that a document's weak bits
reach (:func:`reached_pairs`, a join on quarter keys). Each candidate is
then kept or dropped by fpdb's own rule (``MatchRule::judge``, through
``fpdb._fpdb.judge_pairs``) from the two documents' fingerprints and
stored bytes. A rule without weak bits (``confirm_weak_bits=0``) takes
every candidate within its radius from the prefix kernels instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import (
    BinaryType,
    BooleanType,
    DoubleType,
    IntegerType,
    LongType,
    StructField,
    StructType,
)

from fpdb import _fpdb
from fpdb.errors import InvalidInputError
from fpdb.spark import _runs
from fpdb.spark._columns import arrow_fingerprints, arrow_longs


@dataclass(frozen=True)
class ConfirmingRule:
    """Match within ``k`` by distance alone, or, when both documents are
    signed, within ``radius``, reached by both documents' ``weak_bits``
    (per quarter; 0: every candidate), at a resemblance of at least
    ``threshold`` and with at least ``min_shared`` shingles estimated
    shared: the rule of ``Db.create(..., confirm=True)`` with the same
    options."""

    k: int
    radius: int
    threshold: float
    weak_bits: int
    min_shared: int

    @staticmethod
    def of(
        k: int,
        confirm_radius: int | None = None,
        confirm_threshold: float | None = None,
        confirm_weak_bits: int | None = None,
        confirm_min_shared: int | None = None,
    ) -> ConfirmingRule:
        """The rule the options ask for (the recommended ones where None,
        as ``Db.create`` fills them in), checked on the driver."""

        def given(value, default):
            return default if value is None else value

        rule = ConfirmingRule(
            k,
            given(confirm_radius, _fpdb.CONFIRM_RADIUS),
            given(confirm_threshold, _fpdb.CONFIRM_THRESHOLD),
            given(confirm_weak_bits, _fpdb.CONFIRM_WEAK_BITS),
            given(confirm_min_shared, _fpdb.CONFIRM_MIN_SHARED),
        )
        # Raises for a bad radius, threshold, weak bits or gate.
        empty = np.zeros(0, np.uint64)
        _fpdb.judge_pairs(empty, empty, [], [], k, *rule.options)
        _fpdb.design_for(k)
        if rule.weak_bits == 0:
            try:
                _fpdb.design_for(rule.retrieval_radius)
            except InvalidInputError as error:
                # Without weak bits the prefix kernels find every
                # candidate, and they find pairs within a design's k.
                raise InvalidInputError(
                    f"confirm_radius {rule.radius} with confirm_weak_bits=0: fpdb.spark finds "
                    f"candidates within a table design's distance ({error}); pass a smaller "
                    "confirm_radius"
                ) from None
        return rule

    @property
    def options(self) -> tuple[int, float, int, int]:
        """``confirm_radius, confirm_threshold, confirm_weak_bits,
        confirm_min_shared``, in the kernels' order."""
        return (self.radius, self.threshold, self.weak_bits, self.min_shared)

    @property
    def retrieval_radius(self) -> int:
        """The distance the prefix kernels find candidates within: ``k``
        when weak bits find the rest."""
        return self.k if self.weak_bits else max(self.k, self.radius)


def check_signature_column(df: DataFrame, name: str) -> None:
    """Fails unless ``df`` has a binary column ``name``."""
    if name not in df.columns:
        raise InvalidInputError(f"no signature column {name!r} in {df.columns}")
    kind = df.schema[name].dataType.simpleString()
    if kind != "binary":
        raise InvalidInputError(f"signature column {name!r} is {kind}, not binary")


_PACKED = StructType(
    [
        StructField("bucket", IntegerType(), False),
        StructField("is_probe", BooleanType(), False),
        StructField("keys", BinaryType(), False),
    ]
)

_REACHED = StructType(
    [
        StructField("fp_a", LongType(), False),
        StructField("fp_b", LongType(), False),
        StructField("distance", IntegerType(), False),
    ]
)

#: Documents keyed per kernel call: up to 92 keys (16 bytes each) a
#: document with 6 weak bits a quarter, at most two of them flipped (22
#: probes a quarter and 4 own keys), so about 75 MB of keys a call.
KEY_BATCH = 50_000


def reached_pairs(
    probers: DataFrame,
    owners: DataFrame,
    rule: ConfirmingRule,
    partitions: int | None,
    *,
    ordered: bool,
) -> DataFrame:
    """``(fp_a, fp_b, distance)``: the fingerprints of ``owners`` (``fp``)
    that the weak bits of a signed document of ``probers`` (``fp``,
    ``signature``) reach, past ``k`` and within the radius, each pair
    once, ``fp_a`` the prober's; with ``ordered``, only where ``fp_a`` is
    the smaller (for a self-join: a pair the rule keeps is reached from
    both sides).

    Each distinct document sends, per quarter, its quarter with every
    subset of its weak bits flipped as keys (2^weak_bits each); each
    distinct owned fingerprint sends its four quarters. fpdb's kernel
    packs a batch's keys into one binary value per bucket and side (as
    the prefix kernels' routing does, so that keys do not travel as rows),
    Spark brings each bucket into a partition of its own (``partitions``,
    by default ``spark.sql.shuffle.partitions``), and there fpdb's kernel
    compares every prober of a key with every owner: the rows of a key
    as the library's tables read them (a quarter shared by many distinct
    fingerprints makes a long run, compared in Rust).
    """
    spark = probers.sparkSession
    if partitions is None:
        partitions = int(spark.conf.get("spark.sql.shuffle.partitions"))
    targets = _runs.partition_keys(spark, partitions)
    _, _, weak_bits, min_shared = rule.options

    def router(probing: bool):
        def route(held: list[pa.RecordBatch]) -> pa.RecordBatch:
            fps = np.concatenate([arrow_fingerprints(batch.column("fp")) for batch in held])
            stored = (
                [s for batch in held for s in batch.column("signature").to_pylist()]
                if probing
                else None
            )
            bucket, offsets, packed = _fpdb.route_keys(
                fps, partitions, stored, weak_bits, min_shared
            )
            keys = pa.BinaryArray.from_buffers(
                pa.binary(), len(bucket), [None, pa.py_buffer(offsets), pa.py_buffer(packed)]
            )
            sides = pa.array(np.full(len(bucket), probing))
            return pa.RecordBatch.from_arrays(
                [pa.array(targets[bucket]), sides, keys], names=["bucket", "is_probe", "keys"]
            )

        def pack(batches):
            for held in _runs.gathered(batches, KEY_BATCH):
                yield route(held)

        return pack

    # Copies of a document probe once, and copies of a fingerprint own
    # its keys once, so many copies make no long run.
    probes = probers.select("fp", "signature").distinct().mapInArrow(router(True), _PACKED)
    owned = owners.select("fp").distinct().mapInArrow(router(False), _PACKED)
    k, radius = rule.k, rule.radius

    def scan(batches):
        keys, fps, sides = [], [], []
        for batch in batches:
            words, counts = _runs.unpacked(batch.column("keys"))
            keys.append(words[0::2])
            fps.append(words[1::2])
            sides.append(
                np.repeat(batch.column("is_probe").to_numpy(zero_copy_only=False), counts // 2)
            )
        if not fps:
            return
        a, b, distance = _fpdb.reached_in_partition(
            np.concatenate(keys), np.concatenate(fps), np.concatenate(sides), k, radius, ordered
        )
        yield pa.RecordBatch.from_arrays(
            [arrow_longs(a), arrow_longs(b), pa.array(distance.astype(np.int32))],
            names=["fp_a", "fp_b", "distance"],
        )

    return (
        probes.unionByName(owned)
        .repartition(partitions, "bucket")
        .mapInArrow(scan, _REACHED)
        # A pair reached in quarters keyed into two partitions.
        .distinct()
    )


def confirmed(
    pairs: DataFrame,
    left: tuple[str, DataFrame],
    right: tuple[str, DataFrame],
    rule: ConfirmingRule,
) -> DataFrame:
    """The ``pairs`` (``left_id, right_id, distance``) the rule keeps, with
    their ``similarity`` (null where matched by distance alone). ``left``
    and ``right`` name an id column of ``pairs`` and give its documents'
    ``(id, fp, signature)``."""
    (left_id, left_docs), (right_id, right_docs) = left, right
    joined = (
        pairs.join(
            left_docs.select(
                F.col("id").alias(left_id),
                F.col("fp").alias("_fp_a"),
                F.col("signature").alias("_sig_a"),
            ),
            left_id,
        )
        .join(
            right_docs.select(
                F.col("id").alias(right_id),
                F.col("fp").alias("_fp_b"),
                F.col("signature").alias("_sig_b"),
            ),
            right_id,
        )
        .select(left_id, right_id, "distance", "_fp_a", "_fp_b", "_sig_a", "_sig_b")
    )
    k, options = rule.k, rule.options

    def judge(batches):
        for batch in batches:
            kept, similarity = _fpdb.judge_pairs(
                arrow_fingerprints(batch.column("_fp_a")),
                arrow_fingerprints(batch.column("_fp_b")),
                batch.column("_sig_a").to_pylist(),
                batch.column("_sig_b").to_pylist(),
                k,
                *options,
            )
            rows = pa.array(kept)
            similarity = similarity[kept]
            yield pa.RecordBatch.from_arrays(
                [
                    batch.column(left_id).filter(rows),
                    batch.column(right_id).filter(rows),
                    batch.column("distance").filter(rows),
                    pa.array(similarity, mask=np.isnan(similarity), type=pa.float64()),
                ],
                names=[left_id, right_id, "distance", "similarity"],
            )

    schema = StructType(
        [
            joined.schema[left_id],
            joined.schema[right_id],
            joined.schema["distance"],
            StructField("similarity", DoubleType(), True),
        ]
    )
    return joined.mapInArrow(judge, schema)
