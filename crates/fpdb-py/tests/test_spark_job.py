"""fpdb.spark.job, the Parquet-to-Parquet job, against brute force: its
pairs, clusters and one-per-cluster answers, from fingerprints in each
encoding it reads and from texts."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import fpdb
from conftest import brute_clusters, brute_pairs, planted

pytest.importorskip("pyspark")
from fpdb.errors import InvalidInputError  # noqa: E402
from fpdb.spark import job  # noqa: E402


def write_docs(path, fingerprints, encoding="int64"):
    """Parquet of documents d000000, d000001, … with their fingerprints
    in ``encoding`` and a payload column the job must carry through."""
    values = np.asarray(fingerprints, dtype=np.uint64)
    if encoding == "int64":
        column = pa.array(values.view(np.int64))
    elif encoding == "uint64":
        column = pa.array(values)
    else:
        column = pa.array([f"{int(v):016x}" for v in values])
    n = len(values)
    table = pa.table(
        {
            "id": [f"d{i:06d}" for i in range(n)],
            "fingerprint": column,
            "payload": [f"body of {i}" for i in range(n)],
        }
    )
    pq.write_table(table, path)


def answer(spark, *argv):
    return job.run(spark, job.parser().parse_args(list(argv)))


def kept_ids(pairs, ids):
    """The ids left when each cluster keeps its representative."""
    representative = brute_clusters(pairs)
    return {i for i in ids if representative.get(i, i) == i}


@pytest.fixture(scope="module")
def fingerprints():
    return planted(np.random.default_rng(20261126), 120, 3, 4)


@pytest.mark.parametrize("encoding", ["int64", "uint64", "hex"])
def test_pairs_equal_brute_force_in_every_encoding(spark, tmp_path, fingerprints, encoding):
    docs = tmp_path / "docs.parquet"
    write_docs(docs, fingerprints, encoding)
    expected = brute_pairs(fingerprints, 3)
    assert len(expected) > 100
    got = answer(spark, "pairs", str(docs), str(tmp_path / "out"))
    assert got.columns == ["id_a", "id_b", "distance"]
    assert {tuple(r) for r in got.collect()} == expected


def test_clusters_and_keep_equal_brute_force(spark, tmp_path, fingerprints):
    docs = tmp_path / "docs.parquet"
    write_docs(docs, fingerprints)
    out = str(tmp_path / "out")
    expected = brute_pairs(fingerprints, 3)

    got = answer(spark, "clusters", str(docs), out)
    assert dict(got.collect()) == brute_clusters(expected)

    got = answer(spark, "keep", str(docs), out)
    assert got.columns == ["id", "fingerprint", "payload"]
    ids = [f"d{i:06d}" for i in range(len(fingerprints))]
    rows = {r.id: r for r in got.collect()}
    assert set(rows) == kept_ids(expected, ids)
    assert all(rows[i].payload == f"body of {int(i[1:])}" for i in rows)


def test_k_reaches_the_job(spark, tmp_path, fingerprints):
    docs = tmp_path / "docs.parquet"
    write_docs(docs, fingerprints)
    got = answer(spark, "pairs", str(docs), str(tmp_path / "out"), "--k", "1")
    assert {tuple(r) for r in got.collect()} == brute_pairs(fingerprints, 1)


def test_texts_are_fingerprinted_with_the_given_options(spark, tmp_path, db_path):
    words = "the harbour town kept its old stone bridge while the river changed".split()
    texts = []
    for i in range(40):
        sentence = words[:]
        sentence[i % len(words)] = f"word{i // 3}"
        texts.append(" ".join(sentence) + f" and story {i // 2}")
    texts += [f"unrelated text number {i} about compilers and parsers" for i in range(20)]
    pq.write_table(
        pa.table({"url": [f"d{i:06d}" for i in range(len(texts))], "body": texts}),
        tmp_path / "texts.parquet",
    )
    with fpdb.Db.create(db_path, tokenizer="words", weights="tf") as db:
        fingerprints = db.fingerprint_many(texts)
    expected = brute_pairs(fingerprints, 3)
    assert expected, "the texts plant near pairs"
    argv = [str(tmp_path / "texts.parquet"), str(tmp_path / "out"), "--id-col", "url"]
    argv += ["--text-col", "body", "--tokenizer", "words", "--weights", "tf"]
    got = answer(spark, "keep", *argv)
    assert {r.url for r in got.collect()} == kept_ids(expected, [f"d{i:06d}" for i in range(60)])


def test_bad_columns_are_named(spark, tmp_path, fingerprints):
    docs = tmp_path / "docs.parquet"
    write_docs(docs, fingerprints)
    out = str(tmp_path / "out")
    with pytest.raises(InvalidInputError, match="'url'"):
        answer(spark, "pairs", str(docs), out, "--id-col", "url")
    with pytest.raises(InvalidInputError, match="'d000000': payload 'body of 0' is not 16 hex"):
        answer(spark, "pairs", str(docs), out, "--fp-col", "payload")
    pq.write_table(pa.table({"id": ["a"], "score": [0.5]}), tmp_path / "scores.parquet")
    with pytest.raises(InvalidInputError, match="'score' is double: not a fingerprint"):
        answer(spark, "pairs", str(tmp_path / "scores.parquet"), out, "--fp-col", "score")
