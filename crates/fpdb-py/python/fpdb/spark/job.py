"""A Spark job from Parquet to Parquet, to run with ``spark-submit``:
near-duplicate pairs, clusters, or the documents that remain when each
cluster keeps one.

spark-submit wants a file to run: one line calls this module::

    echo 'from fpdb.spark.job import main; main()' > fpdb_job.py
    spark-submit [options] fpdb_job.py pairs    INPUT OUTPUT [--k 3] [...]
    spark-submit [options] fpdb_job.py clusters INPUT OUTPUT [...]
    spark-submit [options] fpdb_job.py keep     INPUT OUTPUT [...]

(``python -m fpdb.spark.job ...`` runs it without spark-submit, on the
Spark that pyspark starts by itself.)

INPUT is Parquet (a file or a directory, as Spark writes them) with one
row per document: a unique id (``--id-col``, default ``id``) and its
fingerprint (``--fp-col``, default ``fingerprint``: int64 holding the 64
bits, uint64, or 16 hex digits), or its text (``--text-col``) or page
(``--html-col``) to fingerprint in the executors. ``--confirm`` (with
``--confirm-radius``, ``--confirm-threshold``, ``--confirm-weak-bits``,
``--confirm-min-shared`` and ``--confirm-numbers-from``, as ``fpdb
dedup``'s) pairs by the match
rule of ``fpdb dedup --confirm``: texts and pages are signed in the
executors, fingerprint inputs read their signatures (the bytes
``fpdb.spark.fingerprints(confirm=True)`` makes) from
``--signature-col``. OUTPUT is a Parquet directory:

- ``pairs``: ``id_a, id_b, distance`` (``id_a < id_b``), every pair of
  documents within k once (with ``--confirm``, every pair the match
  rule keeps, and its ``similarity``);
- ``clusters``: ``id, representative`` for every document with a
  near-duplicate, the smallest id of its cluster representing it;
- ``keep``: the input's rows (all their columns) without the documents a
  cluster's representative stands for: one per cluster, and every
  document without a near-duplicate.

docs/SPARK.md shows the whole recipe, with the packed environment that
carries fpdb to the executors.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from decimal import Decimal

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from fpdb import _fpdb
from fpdb.errors import InvalidInputError
from fpdb.spark._clusters import clusters
from fpdb.spark._fingerprints import fingerprints
from fpdb.spark._pairs import near_duplicate_pairs

ACTIONS = ("pairs", "clusters", "keep")


def parser() -> argparse.ArgumentParser:
    """The job's command line."""
    p = argparse.ArgumentParser(
        prog="fpdb.spark.job",
        description="Near-duplicate pairs, clusters or one document per cluster, "
        "from Parquet to Parquet on Spark.",
    )
    p.add_argument("action", choices=ACTIONS)
    p.add_argument("input", help="Parquet file or directory of documents")
    p.add_argument("output", help="Parquet directory to write")
    p.add_argument("--k", type=int, default=3, help="largest distance of a pair (default 3)")
    p.add_argument("--id-col", default="id")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--fp-col", help="fingerprints: int64, uint64 or 16 hex digits")
    source.add_argument("--text-col", help="texts to fingerprint")
    source.add_argument("--html-col", help="HTML pages to fingerprint (binary or string)")
    p.add_argument("--content-type-col", help="the pages' HTTP Content-Types")
    p.add_argument("--tokenizer", help="as for fpdb.Db.create (texts and pages)")
    p.add_argument("--weights", help="as for fpdb.Db.create (texts and pages)")
    p.add_argument("--extract", default="main", help="main or all (pages)")
    p.add_argument(
        "--confirm",
        action="store_true",
        help="pairs by fpdb dedup --confirm's rule: signed documents within --confirm-radius "
        "that each one's weak bits reach, kept when their signatures' estimated resemblance "
        "reaches --confirm-threshold and they share --confirm-min-shared shingles",
    )
    p.add_argument(
        "--confirm-radius",
        type=int,
        help=f"with --confirm: the candidates' radius (default {_fpdb.CONFIRM_RADIUS})",
    )
    p.add_argument(
        "--confirm-threshold",
        type=float,
        help="with --confirm: the least resemblance that confirms "
        f"(default {_fpdb.CONFIRM_THRESHOLD})",
    )
    p.add_argument(
        "--confirm-weak-bits",
        type=int,
        help="with --confirm: weak bits a quarter that must reach (default "
        f"{_fpdb.CONFIRM_WEAK_BITS}; 0: every candidate within a radius of at most 7)",
    )
    p.add_argument(
        "--confirm-min-shared",
        type=int,
        help="with --confirm: the fewest shingles estimated shared "
        f"(default {_fpdb.CONFIRM_MIN_SHARED}; 0: no gate)",
    )
    p.add_argument(
        "--confirm-numbers-from",
        type=int,
        metavar="PERCENT",
        help="with --confirm: texts and pages of at least PERCENT digits are signed with "
        "their numbers (default 20; 0: never)",
    )
    p.add_argument(
        "--signature-col",
        help="with --confirm and --fp-col: the documents' signatures (binary; null: bare)",
    )
    p.add_argument("--design", help="the table design to pair by (default: fewest tables)")
    p.add_argument("--partitions", type=int, help="shuffle partitions of the pair search")
    p.add_argument(
        "--mode",
        default="errorifexists",
        choices=("errorifexists", "overwrite"),
        help="when OUTPUT exists: fail (default) or replace it",
    )
    return p


def run(spark: SparkSession, args: argparse.Namespace) -> DataFrame:
    """The job's answer for ``args`` (as :func:`parser` reads them), not
    yet written."""
    docs = spark.read.parquet(args.input)
    if args.id_col not in docs.columns:
        raise InvalidInputError(f"no column {args.id_col!r} in {docs.columns}")
    confirm_options = {
        "confirm_radius": args.confirm_radius,
        "confirm_threshold": args.confirm_threshold,
        "confirm_weak_bits": args.confirm_weak_bits,
        "confirm_min_shared": args.confirm_min_shared,
    }
    if not args.confirm and (
        any(value is not None for value in confirm_options.values())
        or args.signature_col is not None
        or args.confirm_numbers_from is not None
    ):
        raise InvalidInputError(
            "--confirm-radius, --confirm-threshold, --confirm-weak-bits, --confirm-min-shared, "
            "--confirm-numbers-from and --signature-col need --confirm"
        )
    signature_col = "_fpdb_sig"
    if args.text_col or args.html_col:
        if args.signature_col is not None:
            raise InvalidInputError("--signature-col is for --fp-col: texts and pages are signed")
        with_fp = fingerprints(
            docs,
            text_col=args.text_col,
            html_col=args.html_col,
            content_type_col=args.content_type_col,
            output_col="_fpdb_fp",
            extract=args.extract,
            tokenizer=args.tokenizer,
            weights=args.weights,
            confirm=args.confirm,
            signature_col=signature_col,
            **(
                {
                    "confirm_weak_bits": args.confirm_weak_bits,
                    "confirm_min_shared": args.confirm_min_shared,
                    "confirm_numbers_from": args.confirm_numbers_from,
                }
                if args.confirm
                else {}
            ),
        )
    else:
        fp_col = args.fp_col or "fingerprint"
        if fp_col not in docs.columns:
            raise InvalidInputError(f"no column {fp_col!r} in {docs.columns}")
        with_fp = docs.withColumn("_fpdb_fp", _as_fingerprint(docs, fp_col, args.id_col))
        if args.confirm:
            signature_col = args.signature_col or "signature"
    # Clusters and keep need no more than each copy paired with the
    # smallest id of its fingerprint: the same clusters, m - 1 pairs for m
    # copies instead of m(m - 1)/2. Confirmed pairs need every copy: their
    # signatures may differ.
    confirming = (
        {
            "confirm": True,
            "signature_col": signature_col,
            **confirm_options,
        }
        if args.confirm
        else {}
    )
    pairs = near_duplicate_pairs(
        with_fp,
        k=args.k,
        id_col=args.id_col,
        fp_col="_fpdb_fp",
        duplicates="all" if args.action == "pairs" or args.confirm else "representative",
        design=args.design,
        partitions=args.partitions,
        **confirming,
    )
    if args.action == "pairs":
        return pairs
    groups = clusters(pairs)
    if args.action == "clusters":
        return groups
    dropped = groups.where(F.col("id") != F.col("representative")).select(
        F.col("id").alias(args.id_col)
    )
    return docs.join(dropped, on=args.id_col, how="left_anti")


def _as_fingerprint(docs: DataFrame, name: str, id_col: str) -> Column:
    """Column ``name`` as LongType fingerprints: int64 as it is, uint64
    (which Spark reads as decimal(20,0)) and hex strings wrapped into
    int64's range. A string that is not 16 hex digits fails the job
    (one pass over the column), rather than leave its document out."""
    kind = docs.schema[name].dataType
    column = F.col(name)
    if isinstance(kind, T.LongType):
        return column
    if isinstance(kind, T.StringType):
        bad = docs.where(~column.rlike("^[0-9a-fA-F]{16}$")).select(id_col, name).limit(1)
        for row in bad.collect():
            raise InvalidInputError(f"document {row[0]!r}: {name} {row[1]!r} is not 16 hex digits")
        column = F.conv(column, 16, 10).cast(T.DecimalType(20, 0))
    elif not (isinstance(kind, T.DecimalType) and kind.scale == 0 and kind.precision <= 20):
        raise InvalidInputError(f"column {name!r} is {kind.simpleString()}: not a fingerprint")
    # Literals as decimals: py4j passes a Python int past 2**63 - 1 as a long.
    top_bit, wrap = (F.lit(Decimal(n)).cast(T.DecimalType(20, 0)) for n in (2**63, 2**64))
    return F.when(column >= top_bit, column - wrap).otherwise(column).cast(T.LongType())


def main(argv: Sequence[str] | None = None) -> None:
    """Runs the job: reads, computes, writes OUTPUT, says how many rows.
    Exits with 2 and a message for a bad command line or input."""
    p = parser()
    args = p.parse_args(argv)
    spark = SparkSession.builder.appName(f"fpdb {args.action}").getOrCreate()
    try:
        result = run(spark, args)
        result.write.mode(args.mode).parquet(args.output)
        written = spark.read.parquet(args.output).count()
    except InvalidInputError as error:
        p.exit(2, f"{p.prog}: error: {error}\n")
    finally:
        spark.stop()
    print(f"fpdb.spark.job {args.action}: {written} rows written to {args.output}")


if __name__ == "__main__":
    main()
