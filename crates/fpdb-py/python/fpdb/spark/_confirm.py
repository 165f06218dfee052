"""The second stage of the match rule on Spark: candidate pairs, found
within the retrieval radius, kept or dropped by fpdb's own rule
(``MatchRule::judge``, through ``fpdb._fpdb.judge_pairs``) from their
documents' signatures."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType, StructField, StructType

from fpdb import _fpdb
from fpdb.errors import InvalidInputError


@dataclass(frozen=True)
class ConfirmingRule:
    """Match within ``k`` by distance alone, or, when both documents have
    a signature, within ``radius`` and at a resemblance of at least
    ``threshold``."""

    k: int
    radius: int
    threshold: float

    @staticmethod
    def of(k: int, confirm_radius: int | None, confirm_threshold: float | None) -> ConfirmingRule:
        """The rule ``confirm_radius`` and ``confirm_threshold`` ask for (the
        recommended ones when None), checked on the driver."""
        rule = ConfirmingRule(
            k,
            _fpdb.CONFIRM_RADIUS if confirm_radius is None else confirm_radius,
            _fpdb.CONFIRM_THRESHOLD if confirm_threshold is None else confirm_threshold,
        )
        # Raises for a bad radius or threshold.
        _fpdb.judge_pairs(np.zeros(0, np.int32), [], [], k, rule.radius, rule.threshold)
        try:
            _fpdb.design_for(rule.retrieval_radius)
        except InvalidInputError as error:
            # The prefix kernels find pairs within a design's k; the
            # library's wider probe (used past it) has no Spark form yet.
            raise InvalidInputError(
                f"confirm_radius {rule.radius}: fpdb.spark finds candidates within a "
                f"table design's distance ({error}); pass a smaller confirm_radius"
            ) from None
        return rule

    @property
    def retrieval_radius(self) -> int:
        """The distance candidates are found within."""
        return max(self.k, self.radius)


def check_signature_column(df: DataFrame, name: str) -> None:
    """Fails unless ``df`` has a binary column ``name``."""
    if name not in df.columns:
        raise InvalidInputError(f"no signature column {name!r} in {df.columns}")
    kind = df.schema[name].dataType.simpleString()
    if kind != "binary":
        raise InvalidInputError(f"signature column {name!r} is {kind}, not binary")


def confirmed(
    pairs: DataFrame,
    left: tuple[str, DataFrame],
    right: tuple[str, DataFrame],
    rule: ConfirmingRule,
) -> DataFrame:
    """The ``pairs`` (``left_id, right_id, distance``) the rule keeps, with
    their ``similarity`` (null where matched by distance alone). ``left``
    and ``right`` name an id column of ``pairs`` and give its documents'
    ``(id, signature)``."""
    (left_id, left_docs), (right_id, right_docs) = left, right
    joined = (
        pairs.join(
            left_docs.select(F.col("id").alias(left_id), F.col("signature").alias("_sig_a")),
            left_id,
        )
        .join(
            right_docs.select(F.col("id").alias(right_id), F.col("signature").alias("_sig_b")),
            right_id,
        )
        .select(left_id, right_id, "distance", "_sig_a", "_sig_b")
    )

    def judge(batches):
        for batch in batches:
            distance = batch.column("distance").to_numpy(zero_copy_only=False).astype(np.int32)
            kept, similarity = _fpdb.judge_pairs(
                distance,
                batch.column("_sig_a").to_pylist(),
                batch.column("_sig_b").to_pylist(),
                rule.k,
                rule.radius,
                rule.threshold,
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
