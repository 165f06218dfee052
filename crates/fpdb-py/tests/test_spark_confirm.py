"""fpdb.spark under the two-stage rule: signatures made in the executors,
pairs and queries confirmed by them, against brute force (every pair:
distance within the radius and resemblance at least the threshold, by
``fpdb.similarity``), ``fpdb.dedup(confirm=True)`` and a confirming
database, on the demo corpus with planted copies."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import fpdb
from conftest import brute_clusters

pytest.importorskip("pyspark")
from pyspark.sql.types import (  # noqa: E402
    BinaryType,
    LongType,
    StringType,
    StructField,
    StructType,
)

from fpdb import spark as fps  # noqa: E402
from fpdb.spark import job  # noqa: E402

CORPUS = Path(__file__).resolve().parents[3] / "data" / "corpus.jsonl"
# The widest radius fpdb.spark retrieves candidates within (its kernels'
# designs go up to 7 bits).
# A threshold above the default, so that some candidates in the corpus
# resemble less than it and must be turned down.
K, RADIUS, THRESHOLD = 3, 7, 0.85
RULE = {"confirm": True, "confirm_radius": RADIUS, "confirm_threshold": THRESHOLD}
# Spark's columns carry signatures alone, so the database and dedup are
# asked for the same rule: no weak bits, no shared-shingle gate.
LIBRARY_RULE = {**RULE, "confirm_weak_bits": 0, "confirm_min_shared": 0}
SIGNED = StructType(
    [
        StructField("id", StringType()),
        StructField("text", StringType()),
        StructField("fingerprint", LongType()),
        StructField("signature", BinaryType()),
    ]
)


@pytest.fixture(scope="module")
def texts():
    """The demo corpus (with its crawler-edited copies), copies that keep
    only part of a page (near in fingerprint, lower in resemblance), and a
    text without features."""
    with CORPUS.open(encoding="utf-8") as lines:
        corpus = [json.loads(line)["text"] for line in lines][:240]
    halves = [a[: len(a) // 2] + b[len(b) // 2 :] for a, b in zip(corpus[:30], corpus[30:60])]
    trimmed = [text[: len(text) * 3 // 4] for text in corpus[60:90]]
    return [*corpus, *halves, *trimmed, "，。！"]


def ids(n, prefix="t"):
    return [f"{prefix}{i:04d}" for i in range(n)]


def distance(a, b):
    return bin(int(a) ^ int(b)).count("1")


def brute_force(docs, k=K, radius=RADIUS, threshold=THRESHOLD):
    """The rule on every pair of ``docs`` (id, fingerprint, signature or
    None): ``{(id_a, id_b): (distance, similarity or None)}``."""
    found = {}
    for i, (x, fx, sx) in enumerate(docs):
        for y, fy, sy in docs[i + 1 :]:
            d = distance(fx, fy)
            if sx is not None and sy is not None:
                if d <= radius and fpdb.similarity(sx, sy) >= threshold:
                    found[(min(x, y), max(x, y))] = (d, fpdb.similarity(sx, sy))
            elif d <= k:
                found[(min(x, y), max(x, y))] = (d, None)
    return found


def as_rule_answers(df, a="id_a", b="id_b"):
    return {(r[a], r[b]): (r["distance"], r["similarity"]) for r in df.collect()}


def same_answers(got, expected):
    assert set(got) == set(expected)
    for pair, (d, similarity) in expected.items():
        assert got[pair][0] == d, pair
        assert got[pair][1] == pytest.approx(similarity), pair


@pytest.mark.parametrize("weights", [None, "learned"])
def test_confirmed_pairs_equal_brute_force_and_dedup(spark, texts, weights):
    learn_from = texts if weights else None
    signer = fpdb.Signer(weights=weights, learn_from=learn_from)
    fp, signatures, present = signer.documents(texts)
    assert not present[-1], "the text without features"
    names = ids(len(texts))
    frame = spark.createDataFrame(list(zip(names, texts)), "id string, text string")
    signed = fps.fingerprints(
        frame, text_col="text", weights=weights, confirm=True, learn_from=learn_from
    )
    # Bare fingerprints beside the texts: near a text by distance alone,
    # within k or past it (but within the radius).
    bare = [("b0", None, fps.to_signed(int(fp[0]) ^ 0b11), None)]
    bare.append(("b1", None, fps.to_signed(int(fp[1]) ^ 0b11111), None))
    docs = signed.unionByName(spark.createDataFrame(bare, SIGNED))

    rows = {r.id: r for r in signed.collect()}
    for i, name in enumerate(names):
        expected_fp = fps.to_signed(int(fp[i])) if present[i] else None
        assert (rows[name].fingerprint, rows[name].signature) == (expected_fp, signatures[i])

    got = as_rule_answers(fps.near_duplicate_pairs(docs, k=K, **RULE))
    everything = [(n, int(fp[i]), signatures[i]) for i, n in enumerate(names) if present[i]]
    everything += [(n, fps.to_unsigned(f), None) for n, _, f, _ in bare]
    expected = brute_force(everything)
    same_answers(got, expected)
    assert ("b0", "t0000") in got and ("b1", "t0001") not in got
    # The rule did work here: candidates within the radius it turned down.
    turned_down = [
        (x, y)
        for i, (x, fx, sx) in enumerate(everything)
        for y, fy, sy in everything[i + 1 :]
        if sx and sy and distance(fx, fy) <= RADIUS and fpdb.similarity(sx, sy) < THRESHOLD
    ]
    assert turned_down and len(expected) > 40

    a, b, d, similarity = fpdb.dedup(texts=texts, weights=weights, **LIBRARY_RULE)
    by_dedup = {
        (names[x], names[y]): (int(dd), None if np.isnan(s) else float(s))
        for x, y, dd, s in zip(a, b, d, similarity)
    }
    texts_only = {pair: v for pair, v in got.items() if pair[0].startswith("t")}
    same_answers(texts_only, by_dedup)


def test_pages_are_signed_as_the_signer_signs_them(spark, texts):
    pages = [
        f"<html><body><article><p>{t}</p></article></body></html>".encode() for t in texts[:20]
    ]
    pages += [b"\0\1\2" * 10, None]
    frame = spark.createDataFrame(list(zip(ids(len(pages)), pages)), "id string, html binary")
    got = fps.fingerprints(frame, html_col="html", confirm=True, signature_col="sig")
    assert got.columns == ["id", "html", "fingerprint", "sig"]
    fp, signatures, readable = fpdb.Signer().page_documents(pages[:-1])
    expected = [
        (fps.to_signed(int(f)) if ok else None, s) for f, s, ok in zip(fp, signatures, readable)
    ]
    assert [(r.fingerprint, r.sig) for r in got.orderBy("id").collect()] == [
        *expected,
        (None, None),
    ]
    assert expected[0][1] is not None and expected[-1] == (None, None)


def test_a_candidate_below_the_threshold_is_not_a_pair(spark):
    signer = fpdb.Signer()
    article = (
        "近重复网页检测：同一篇文章出现在许多网址下，只有广告和日期不同，指纹数据库用来找出它们。"
    )
    copy = article.replace("许多", "很多")
    other = "The quick brown fox jumps over the lazy dog near the river bank at dawn."
    sig = {
        name: signer.signature(text) for name, text in [("a", article), ("c", copy), ("o", other)]
    }
    default = fpdb._fpdb.CONFIRM_THRESHOLD
    assert fpdb.similarity(sig["a"], sig["c"]) >= default > fpdb.similarity(sig["a"], sig["o"])
    rows = [
        ("a", None, 0, sig["a"]),
        ("copy", None, 0b1111111, sig["c"]),  # 7 bits: past k, within the radius
        ("other", None, 1, sig["o"]),  # 1 bit, but another text
        ("bare3", None, 0b111, None),  # by distance alone, within k
        ("bare5", None, 0b11111 << 20, None),  # by distance alone, past k
    ]
    docs = spark.createDataFrame(rows, SIGNED)
    got = as_rule_answers(fps.near_duplicate_pairs(docs, k=K, confirm=True, confirm_radius=RADIUS))
    assert ("a", "other") not in got
    assert set(got) == {("a", "copy"), ("a", "bare3"), ("bare3", "other")}
    assert got[("a", "bare3")] == (3, None)
    assert got[("a", "copy")][1] == pytest.approx(fpdb.similarity(sig["a"], sig["c"]))
    # By distance alone, as before: the 1-bit pair is there, nothing else changes.
    plain = fps.near_duplicate_pairs(docs, k=K)
    assert plain.columns == ["id_a", "id_b", "distance"]
    assert ("a", "other", 1) in {tuple(r) for r in plain.collect()}
    stricter = fps.near_duplicate_pairs(docs, k=K, confirm=True, confirm_radius=6)
    assert ("a", "copy") not in as_rule_answers(stricter)


def test_confirmed_queries_equal_brute_force_and_a_confirming_database(spark, texts, tmp_path):
    signer = fpdb.Signer()
    fp, signatures, present = signer.documents(texts)
    names = ids(len(texts))
    stored_rows = [i for i in range(0, len(texts), 2) if present[i]]
    query_rows = [i for i in range(1, len(texts), 2) if present[i]]
    frame = spark.createDataFrame(list(zip(names, texts)), "id string, text string")
    signed = fps.fingerprints(frame, text_col="text", confirm=True)
    stored = signed.where(signed.id.isin([names[i] for i in stored_rows]))
    queries = signed.where(signed.id.isin([names[i] for i in query_rows]))
    got = as_rule_answers(fps.query(stored, queries, k=K, **RULE), a="query_id", b="stored_id")

    expected = {}
    for q in query_rows:
        for s in stored_rows:
            found = brute_force(
                [("q", int(fp[q]), signatures[q]), ("s", int(fp[s]), signatures[s])]
            )
            for d, similarity in found.values():
                expected[(names[q], names[s])] = (d, similarity)
    same_answers(got, expected)
    assert len(expected) > 15

    with fpdb.Db.create(tmp_path / "db", k=K, **LIBRARY_RULE) as db:
        for i in stored_rows:
            db.insert_text(names[i], texts[i])
        by_db = {
            (names[q], match.ids[0]): (match.distance, match.similarity)
            for q in query_rows
            for match in db.query_text(texts[q])
        }
    same_answers(got, by_db)


def test_the_job_confirms_pairs_of_texts(spark, texts, tmp_path):
    names = ids(len(texts))
    path = tmp_path / "docs.parquet"
    pq.write_table(pa.table({"id": names, "text": texts}), path)
    argv = ["pairs", str(path), str(tmp_path / "out"), "--text-col", "text", "--confirm"]
    rule = ["--confirm-radius", str(RADIUS), "--confirm-threshold", "0.9"]
    got = as_rule_answers(job.run(spark, job.parser().parse_args([*argv, *rule])))
    fp, signatures, present = fpdb.Signer().documents(texts)
    docs = [(n, int(fp[i]), signatures[i]) for i, n in enumerate(names) if present[i]]
    expected = brute_force(docs, threshold=0.9)
    same_answers(got, expected)
    clusters = job.run(spark, job.parser().parse_args(["clusters", *argv[1:], *rule]))
    assert dict(clusters.collect()) == brute_clusters({(a, b, 0) for a, b in expected})
    with pytest.raises(fpdb.InvalidInputError, match="need --confirm"):
        job.run(spark, job.parser().parse_args([*argv[:-1], "--confirm-radius", "9"]))


def test_confirming_arguments_are_checked(spark):
    docs = spark.createDataFrame([("a", None, 1, None)], SIGNED)
    with pytest.raises(fpdb.InvalidInputError, match="radius"):
        fps.near_duplicate_pairs(docs, confirm=True, confirm_radius=17)
    with pytest.raises(fpdb.InvalidInputError, match="smaller confirm_radius"):
        fps.near_duplicate_pairs(docs, confirm=True, confirm_radius=fpdb._fpdb.CONFIRM_RADIUS)
    with pytest.raises(fpdb.InvalidInputError, match="threshold"):
        fps.near_duplicate_pairs(docs, confirm=True, confirm_radius=RADIUS, confirm_threshold=1.5)
    with pytest.raises(fpdb.InvalidInputError, match="need confirm=True"):
        fps.near_duplicate_pairs(docs, confirm_threshold=0.6)
    with pytest.raises(fpdb.InvalidInputError, match='duplicates="all"'):
        fps.near_duplicate_pairs(docs, **RULE, duplicates="representative")
    with pytest.raises(fpdb.InvalidInputError, match="not binary"):
        fps.near_duplicate_pairs(docs, **RULE, signature_col="text")
    with pytest.raises(fpdb.InvalidInputError, match="learn_from"):
        fps.fingerprints(
            docs.select("id", "text"), text_col="text", weights="learned", confirm=True
        )
