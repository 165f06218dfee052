"""fpdb on Apache Spark: fingerprints, corpus-wide near-duplicate pairs,
clusters and the paper's batch queries, with fpdb's Rust kernels doing
the work inside the executors (through Arrow batches) and Spark doing the
distribution. Needs ``pyspark`` and ``pyarrow`` (``pip install
fpdb[spark]``).

Fingerprint columns are LongType holding the fingerprint's 64 bits (two's
complement): equality and XOR are the fingerprints', order is not for
fingerprints of 2**63 and above (sort by :func:`unsigned_order`). Use
:func:`to_signed` and :func:`to_unsigned` to move between Python ints and
column values.

A typical job::

    from fpdb import spark as fps

    pages = spark.read.parquet("crawl/")                  # url, html
    docs = fps.fingerprints(pages, html_col="html")       # + fingerprint
    pairs = fps.near_duplicate_pairs(docs, id_col="url")  # id_a, id_b, distance
    groups = fps.clusters(pairs)                          # id, representative

With ``confirm=True`` (``fingerprints``, ``near_duplicate_pairs``,
``query``) the documents carry what a confirming database stores for them
and pairs follow its match rule, the one ``fpdb.dedup(confirm=True)`` applies
(docs/SPARK.md).

The same from Parquet to Parquet, for ``spark-submit``: :mod:`fpdb.spark.job`.
"""

from __future__ import annotations

from fpdb.spark._clusters import clusters
from fpdb.spark._columns import hex_fingerprint, to_signed, to_unsigned, unsigned_order
from fpdb.spark._fingerprints import fingerprints
from fpdb.spark._pairs import near_duplicate_pairs
from fpdb.spark._query import BROADCAST_LIMIT, query

__all__ = [
    "BROADCAST_LIMIT",
    "clusters",
    "fingerprints",
    "hex_fingerprint",
    "near_duplicate_pairs",
    "query",
    "to_signed",
    "to_unsigned",
    "unsigned_order",
]
