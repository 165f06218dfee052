"""fpdb.spark against fpdb on one machine and brute force, on a real Spark
in local mode (one session for the whole run)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import fpdb
from conftest import brute_pairs, near, planted, random_fps

pyspark = pytest.importorskip("pyspark")
from pyspark.sql import functions as F  # noqa: E402
from pyspark.sql.types import (  # noqa: E402
    BinaryType,
    LongType,
    StringType,
    StructField,
    StructType,
)

import fpdb.parquet  # noqa: E402
from fpdb import spark as fps  # noqa: E402

DOCS = StructType([StructField("id", StringType()), StructField("fingerprint", LongType())])


def frame(spark, fingerprints, prefix="d"):
    rows = [(f"{prefix}{i:06d}", fps.to_signed(int(fp))) for i, fp in enumerate(fingerprints)]
    return spark.createDataFrame(rows, DOCS)


def id_pairs_of_dedup(fingerprints, k, prefix="d"):
    a, b, distance = fpdb.dedup(np.asarray(fingerprints, dtype=np.uint64), k=k)
    return {
        (f"{prefix}{int(x):06d}", f"{prefix}{int(y):06d}", int(d))
        for x, y, d in zip(a, b, distance)
    }


def rows(df):
    return {tuple(row) for row in df.collect()}


def test_columns_hold_the_64_bits_and_sort_unsigned(spark):
    values = [0, 1, 2**63 - 1, 2**63, 2**64 - 1]
    assert [fps.to_unsigned(fps.to_signed(v)) for v in values] == values
    with pytest.raises(ValueError):
        fps.to_signed(2**64)
    df = frame(spark, list(reversed(values)))
    ordered = df.orderBy(fps.unsigned_order("fingerprint")).select(
        "fingerprint", fps.hex_fingerprint("fingerprint").alias("hex")
    )
    got = [(fps.to_unsigned(row.fingerprint), row.hex) for row in ordered.collect()]
    assert got == [(v, f"{v:016x}") for v in values]


def test_fingerprints_equal_the_single_node_simhasher(spark):
    texts = [
        "今天北京天气晴朗，适合出门散步。",
        "今天北京天气晴朗，适合出门散步！",
        None,
        "the quick brown fox jumps over the lazy dog",
    ]
    df = spark.createDataFrame(list(enumerate(texts)), "n int, text string")
    got = {row.n: row.fingerprint for row in fps.fingerprints(df, text_col="text").collect()}
    expected = fpdb.fingerprint_many([t for t in texts if t is not None])
    assert got[2] is None
    assert [fps.to_unsigned(got[n]) for n in (0, 1, 3)] == [int(fp) for fp in expected]

    words = fps.fingerprints(df, text_col="text", tokenizer="words", weights="tf").collect()
    assert {row.n: row.fingerprint for row in words}[3] == fps.to_signed(
        fpdb.fingerprint(texts[3], tokenizer="words", weights="tf")
    )


def test_page_fingerprints_equal_a_database_and_unreadable_pages_are_null(spark, db_path):
    article = "".join(
        f"<p>第{i}段：北京今天发布了新的城市规划，涉及交通与住房。</p>" for i in range(8)
    )
    page = f"<html><body><nav>首页 新闻</nav><article>{article}</article></body></html>"
    gbk = page.replace("<html>", '<html><meta charset="gbk">').encode("gbk")
    pages = [
        (1, page.encode(), None),
        (2, gbk, "text/html; charset=gbk"),
        (3, b"\x00\x01" * 50, None),
    ]
    schema = StructType(
        [
            StructField("n", LongType()),
            StructField("html", BinaryType()),
            StructField("content_type", StringType()),
        ]
    )
    df = spark.createDataFrame(pages, schema)
    got = fps.fingerprints(df, html_col="html", content_type_col="content_type").collect()
    got = {row.n: row.fingerprint for row in got}
    with fpdb.Db.create(db_path) as db:
        expected = db.fingerprint_html(page.encode())
    assert fps.to_unsigned(got[1]) == expected
    assert fps.to_unsigned(got[2]) == expected
    assert got[3] is None


def test_fingerprints_reject_bad_arguments_on_the_driver(spark):
    df = spark.createDataFrame([(1, "a")], "n int, text string")
    with pytest.raises(fpdb.InvalidInputError):
        fps.fingerprints(df)
    with pytest.raises(fpdb.InvalidInputError):
        fps.fingerprints(df, text_col="missing")
    with pytest.raises(fpdb.InvalidInputError):
        fps.fingerprints(df, text_col="text", tokenizer="nonsense")
    with pytest.raises(fpdb.InvalidInputError):
        fps.fingerprints(df, text_col="text", output_col="n")


@pytest.mark.parametrize("design", [None, "split-5", "split-4-4"])
def test_pairs_equal_single_node_dedup_and_brute_force(spark, rng, design):
    fingerprints = planted(rng, 120, 4, 4)
    got = rows(fps.near_duplicate_pairs(frame(spark, fingerprints), design=design))
    expected = id_pairs_of_dedup(fingerprints, 3)
    assert got == expected
    assert got == brute_pairs(fingerprints, 3)
    assert any(d == 0 for _, _, d in got) and any(d == 3 for _, _, d in got)


def test_pairs_at_other_distances(spark, rng):
    fingerprints = planted(rng, 60, 3, 6)
    for k in (0, 1, 5):
        got = rows(fps.near_duplicate_pairs(frame(spark, fingerprints), k=k))
        assert got == brute_pairs(fingerprints, k), k


def test_a_run_longer_than_the_kernel_compares_pairwise_stays_exact(spark, rng):
    # 6,000 fingerprints on one 16-bit prefix: split-4's first table holds
    # one run of all of them, which the kernel splits by an index of its own.
    bases = random_fps(rng, 1500) & np.uint64(0x0000_FFFF_FFFF_FFFF)
    fingerprints = np.unique(
        np.array([near(rng, b, 3) for b in bases for _ in range(4)], dtype=np.uint64)
    )
    got = rows(fps.near_duplicate_pairs(frame(spark, fingerprints), design="split-4"))
    assert got == id_pairs_of_dedup(fingerprints, 3)
    assert len(got) > 1000


def test_many_copies_of_one_fingerprint_do_not_blow_up(spark, rng):
    # 100,000 empty pages (fingerprint 0) among real ones.
    others = planted(rng, 200, 3, 3)
    fingerprints = np.concatenate([np.zeros(100_000, dtype=np.uint64), others])
    df = frame(spark, fingerprints)
    pairs = fps.near_duplicate_pairs(df, duplicates="representative")
    zero_copies = pairs.where(F.col("distance") == 0).where(F.col("id_a") == "d000000")
    zeros = 100_000 + int(np.count_nonzero(others == 0))
    assert zero_copies.count() == zeros - 1
    groups = fps.clusters(pairs)
    biggest = groups.groupBy("representative").count().orderBy(F.desc("count")).first()
    near_zero = sum(1 for fp in others if 0 < bin(int(fp)).count("1") <= 3)
    assert biggest["representative"] == "d000000"
    assert biggest["count"] >= zeros + near_zero


def test_copies_in_other_partitions_and_route_batches_are_counted(spark, rng):
    from fpdb.spark import _runs

    # local[2] cuts the rows into two halves: 5 has one copy in each, 8
    # two copies in the first, 1 a single one; routed 2 at a time, a copy
    # may also sit in another batch of the same partition.
    fingerprints = np.array([5, 8, 8, 1, 5, 7, 2**63, 2**63 + 3], dtype=np.uint64)
    got = rows(fps.near_duplicate_pairs(frame(spark, fingerprints)))
    assert got == brute_pairs(fingerprints, 3)
    name, _ = fpdb._fpdb.design_for(3)
    many = np.concatenate([planted(rng, 80, 3, 3), np.full(3, 5, dtype=np.uint64)])
    docs = frame(spark, many).select(F.col("fingerprint").alias("fp"))
    for route_batch in (2, 7, 1000):
        found = _runs.pairs(_runs.partitioned(docs, name, 3, 3, route_batch), name, 3).collect()
        pairs = {(fps.to_unsigned(r.fp_a), fps.to_unsigned(r.fp_b), r.distance) for r in found}
        assert len(pairs) == len(found), route_batch
        values, counts = np.unique(many, return_counts=True)
        expected = {(int(fp), int(fp), 0) for fp in values[counts > 1]}
        expected |= {
            (int(min(a, b)), int(max(a, b)), bin(int(a ^ b)).count("1"))
            for i, a in enumerate(values)
            for b in values[i + 1 :]
            if bin(int(a ^ b)).count("1") <= 3
        }
        assert pairs == expected, route_batch


def test_each_bucket_gets_a_partition_of_its_own(spark):
    from fpdb.spark import _runs

    # Correctness does not depend on it (equal keys always meet), balance
    # does: Spark's hash partitioning must send key p to partition p.
    keys = _runs.partition_keys(spark, 7)
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    try:
        placed = (
            spark.createDataFrame([(int(key), p) for p, key in enumerate(keys)], "key int, p int")
            .repartition(7, "key")
            .select("p", F.spark_partition_id().alias("partition"))
            .collect()
        )
    finally:
        spark.conf.unset("spark.sql.adaptive.enabled")
    assert sorted((row.p, row.partition) for row in placed) == [(p, p) for p in range(7)]


def test_route_rejects_bad_arguments():
    with pytest.raises(fpdb.InvalidInputError):
        fpdb._fpdb.route(np.arange(3, dtype=np.uint64), "split-4", 3, 0)
    with pytest.raises(fpdb.InvalidInputError):
        fpdb._fpdb.route(np.arange(3, dtype=np.uint64), "split-4", 3, 4, np.ones(2, dtype=bool))
    with pytest.raises(fpdb.InvalidInputError):
        fpdb._fpdb.route(np.arange(3, dtype=np.uint64), "no-such-design", 3, 4)


def test_clusters_equal_single_node_clusters(spark, rng):
    fingerprints = planted(rng, 150, 4, 5)
    pairs = fps.near_duplicate_pairs(frame(spark, fingerprints))
    got = {}
    for row in fps.clusters(pairs).collect():
        got.setdefault(row.representative, set()).add(row.id)
    expected = fpdb.dedup(fingerprints, k=3, clusters=True)
    expected = [{f"d{i:06d}" for i in members} for members in expected]
    assert sorted(map(sorted, got.values())) == sorted(map(sorted, expected))
    assert all(rep == min(members) for rep, members in got.items())
    # Representative pairs give the same clusters.
    compact = fps.clusters(
        fps.near_duplicate_pairs(frame(spark, fingerprints), duplicates="representative")
    )
    assert rows(compact) == rows(fps.clusters(pairs))


def test_clusters_of_a_long_chain(spark):
    # A path 0-1-2-…-199 given in shuffled order needs many rounds.
    order = np.random.default_rng(7).permutation(199)
    pairs = spark.createDataFrame(
        [(f"n{i + 1:04d}", f"n{i:04d}") for i in order], "id_a string, id_b string"
    )
    got = fps.clusters(pairs).collect()
    assert len(got) == 200
    assert {row.representative for row in got} == {"n0000"}


@pytest.mark.parametrize("broadcast_limit", [fps.BROADCAST_LIMIT, 0])
def test_query_equals_query_many(spark, rng, db_path, broadcast_limit):
    stored = planted(rng, 300, 3, 4)
    queries = np.concatenate(
        [
            np.array([near(rng, fp, 3) for fp in stored[::7]], dtype=np.uint64),
            random_fps(rng, 50),
            np.array([0, 2**64 - 1], dtype=np.uint64),
        ]
    )
    with fpdb.Db.create(db_path, k=3) as db:
        db.insert_many([f"d{i:06d}" for i in range(len(stored))], stored)
        batch = db.query_many(queries)
        expected = set()
        for q in range(len(queries)):
            for match in batch.matches(q):
                expected.update((f"q{q:06d}", doc, match.distance) for doc in match.ids)
    got = fps.query(
        frame(spark, stored),
        frame(spark, queries, prefix="q"),
        broadcast_limit=broadcast_limit,
    )
    got = rows(got.select("query_id", "stored_id", "distance"))
    assert got == expected
    assert len(expected) > len(queries) / 2


def test_parquet_carries_a_database_to_spark_and_back(spark, rng, tmp_path):
    fingerprints = planted(rng, 80, 3, 3)
    ids = [f"d{i:06d}" for i in range(len(fingerprints))]
    with fpdb.Db.create(str(tmp_path / "crawler.fpdb")) as db:
        db.bulk_load(ids=ids, fps=fingerprints)
        assert fpdb.parquet.export(db, tmp_path / "docs.parquet") == len(ids)
    df = spark.read.parquet(str(tmp_path / "docs.parquet"))
    assert rows(fps.near_duplicate_pairs(df)) == id_pairs_of_dedup(fingerprints, 3)

    df.write.parquet(str(tmp_path / "from-spark"))
    with fpdb.Db.create(str(tmp_path / "copy.fpdb")) as copy:
        fpdb.parquet.load(copy, tmp_path / "from-spark")
        assert {i: copy.get(i) for i in ids} == dict(zip(ids, map(int, fingerprints)))


def test_pair_arguments_are_checked(spark):
    df = frame(spark, [1, 2])
    with pytest.raises(fpdb.InvalidInputError):
        fps.near_duplicate_pairs(df, duplicates="some")
    with pytest.raises(fpdb.InvalidInputError):
        fps.near_duplicate_pairs(df, id_col="url")
    with pytest.raises(fpdb.InvalidInputError):
        fps.near_duplicate_pairs(df, design="no-such-design")


def test_the_readme_example_runs_and_keeps_one_of_each_group(spark, capsys):
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    section = readme.split("## At scale: Spark", 1)[1]
    code = section.split("```python", 1)[1].split("```", 1)[0]
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip() == "['https://a.example/1', 'https://c.example/9']"
