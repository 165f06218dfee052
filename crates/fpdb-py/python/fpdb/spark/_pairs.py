"""Every pair of documents within k across a whole DataFrame."""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.storagelevel import StorageLevel

from fpdb import _fpdb
from fpdb.errors import InvalidInputError
from fpdb.spark import _runs
from fpdb.spark._confirm import ConfirmingRule, check_signature_column, confirmed, reached_pairs


def near_duplicate_pairs(
    df: DataFrame,
    *,
    k: int = 3,
    id_col: str = "id",
    fp_col: str = "fingerprint",
    duplicates: str = "all",
    design: str | None = None,
    partitions: int | None = None,
    confirm: bool = False,
    signature_col: str = "signature",
    confirm_radius: int | None = None,
    confirm_threshold: float | None = None,
    confirm_weak_bits: int | None = None,
    confirm_min_shared: int | None = None,
) -> DataFrame:
    """The pairs of documents whose fingerprints are within ``k`` bits:
    ``(id_a, id_b, distance)`` with ``id_a < id_b``, each pair once, the
    same pairs as ``fpdb.dedup`` finds on one machine.

    ``df`` holds one row per document: a unique id (any orderable type)
    and a LongType fingerprint (rows with a null fingerprint are left
    out). Documents are grouped by fingerprint first, so the kernels see
    each distinct fingerprint once whatever the number of copies; the
    distinct ones are keyed once per table of the design (by default the
    one with the fewest tables, ``k + 1``: each table is a copy in the
    shuffle; ``design`` names another), packed by fpdb's kernel into one
    binary value per bucket, shuffled by bucket into ``partitions``
    partitions (default ``spark.sql.shuffle.partitions``;
    each partition's rows, 8 bytes and a table number each, are sorted
    in memory, so aim for at most a few tens of millions per partition),
    and fpdb's Rust kernel counts copies, makes the rows distinct, and
    finds the pairs in each run of equal ``(table, prefix)``, splitting
    long runs on their remaining bits. Only the documents of fingerprints in some pair are
    then gathered by fingerprint to expand the pairs to ids. The pairs of
    fingerprints and the gathered groups are cached (memory and disk) when
    first computed, so nothing runs twice.

    ``duplicates`` says how documents sharing one fingerprint are paired:
    ``"all"`` (every pair, as ``fpdb.dedup``: m copies give m(m-1)/2
    pairs, and each group's ids are gathered in one row) or
    ``"representative"`` (each copy with the copy of smallest id, which
    then stands for the group in near pairs too: m - 1 pairs per group,
    the same clusters, and nothing gathered; use it when empty pages
    abound).

    ``confirm=True`` applies the match rule of a confirming database and
    ``fpdb.dedup(confirm=True)``, with the same options and defaults: a
    pair whose documents are both signed (``signature_col``, binary, as
    :func:`fingerprints` makes it with ``confirm=True`` and the same
    ``confirm_weak_bits`` and ``confirm_min_shared``) is kept when its
    fingerprints are within ``confirm_radius`` (default 14), each
    document's weak bits reach the other (``confirm_weak_bits`` a quarter,
    default 6, at most two of them flipped), their estimated resemblance
    (``fpdb.similarity``) reaches ``confirm_threshold`` (default 0.45) and
    they are estimated to share at least ``confirm_min_shared`` shingles
    (default 7); a pair with a bare document (null signature) is kept
    within ``k``, by distance alone. Candidates are the pairs within ``k`` and, past it, those the
    weak bits reach (a join on the fingerprints' quarters, see
    docs/SPARK.md); with ``confirm_weak_bits=0``, every pair within
    ``confirm_radius`` (at most 7 here), all found by the prefix kernels.
    The rows then have a fourth column, ``similarity`` (null for a pair
    kept by distance alone). Every copy of a fingerprint is paired
    (``duplicates="all"``), since copies may differ in their signatures.
    """
    if duplicates not in ("all", "representative"):
        raise InvalidInputError(f'duplicates={duplicates!r}: expected "all" or "representative"')
    for name in (id_col, fp_col):
        if name not in df.columns:
            raise InvalidInputError(f"no column {name!r} in {df.columns}")
    confirm_options = (confirm_radius, confirm_threshold, confirm_weak_bits, confirm_min_shared)
    if not confirm:
        if any(option is not None for option in confirm_options):
            raise InvalidInputError(
                "confirm_radius, confirm_threshold, confirm_weak_bits and confirm_min_shared "
                "need confirm=True"
            )
        return _distance_pairs(df, k, id_col, fp_col, duplicates, design, partitions)
    if duplicates != "all":
        raise InvalidInputError('confirm=True pairs every copy: duplicates="all"')
    check_signature_column(df, signature_col)
    rule = ConfirmingRule.of(k, *confirm_options)
    # Read by the pair searches and by both sides of the signature join:
    # kept so that texts are not signed again for each.
    docs = (
        df.select(
            F.col(id_col).alias("id"),
            F.col(fp_col).alias("fp"),
            F.col(signature_col).alias("signature"),
        )
        .where(F.col("fp").isNotNull())
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    candidates = _distance_pairs(docs, rule.retrieval_radius, "id", "fp", "all", design, partitions)
    if rule.weak_bits:
        signed = docs.where(F.col("signature").isNotNull())
        reached = reached_pairs(signed, signed, rule, partitions, ordered=True)
        members = signed.select("id", "fp")
        past_k = (
            reached.join(members.select(F.col("fp").alias("fp_a"), F.col("id").alias("x")), "fp_a")
            .join(members.select(F.col("fp").alias("fp_b"), F.col("id").alias("y")), "fp_b")
            .select(F.least("x", "y").alias("id_a"), F.greatest("x", "y").alias("id_b"), "distance")
        )
        # Disjoint: the kernels' pairs are within k, the reached past it.
        candidates = candidates.unionByName(past_k)
    return confirmed(candidates, ("id_a", docs), ("id_b", docs), rule)


def _distance_pairs(
    df: DataFrame,
    k: int,
    id_col: str,
    fp_col: str,
    duplicates: str,
    design: str | None,
    partitions: int | None,
) -> DataFrame:
    """:func:`near_duplicate_pairs` by distance alone."""
    name, _ = _fpdb.design_for(k, design)
    docs = df.select(F.col(id_col).alias("id"), F.col(fp_col).alias("fp")).where(
        F.col("fp").isNotNull()
    )
    # Every document's fingerprint goes to the kernels, copies and all:
    # they count the copies, so no aggregation runs before the shuffle.
    rows = _runs.partitioned(docs.select("fp"), name, k, partitions)
    # Read twice below (which documents to gather, and the pairs to expand):
    # cached so that the kernel runs once. A row (fp, fp, 0) says several
    # documents share fp.
    fp_pairs = _runs.pairs(rows, name, k).persist(StorageLevel.MEMORY_AND_DISK)
    # Only documents in a pair or sharing their fingerprint are gathered.
    involved = fp_pairs.select(F.explode(F.array("fp_a", "fp_b")).alias("fp")).distinct()
    members = docs.join(involved, "fp", "left_semi")
    if duplicates == "all":
        groups = members.groupBy("fp").agg(F.collect_list("id").alias("ids"))
        same = (
            groups.where(F.size("ids") > 1)
            .select(F.explode("ids").alias("id_a"), "ids")
            .select("id_a", F.explode("ids").alias("id_b"))
            .where(F.col("id_a") < F.col("id_b"))
        )
    else:
        groups = members.groupBy("fp").agg(F.array(F.min("id")).alias("ids"))
        same = (
            members.join(groups, "fp")
            .select("id", F.col("ids")[0].alias("rep"))
            .where(F.col("id") != F.col("rep"))
            .select(F.col("rep").alias("id_a"), F.col("id").alias("id_b"))
        )
    # Read by both sides of the expansion below.
    groups = groups.persist(StorageLevel.MEMORY_AND_DISK)
    near = (
        fp_pairs.where(F.col("fp_a") != F.col("fp_b"))
        .join(groups.select(F.col("fp").alias("fp_a"), F.col("ids").alias("a")), "fp_a")
        .join(groups.select(F.col("fp").alias("fp_b"), F.col("ids").alias("b")), "fp_b")
        .select(F.explode("a").alias("x"), "b", "distance")
        .select("x", F.explode("b").alias("y"), "distance")
        .select(
            F.least("x", "y").alias("id_a"),
            F.greatest("x", "y").alias("id_b"),
            "distance",
        )
    )
    return near.unionByName(same.withColumn("distance", F.lit(0).cast("int")))
