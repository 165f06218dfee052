"""fpdb.spark under the match rule: documents signed in the executors
(signature, shingle count, weak bits), pairs and queries confirmed by
them, against the library's rule (``MatchRule::judge``) applied to every
pair, ``fpdb.dedup(confirm=True)`` and a confirming database, on the demo
corpus with planted copies; under the recommended rule and the rule
without weak bits."""

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
K = 3
# The library's recommended rule (Db.create's and fpdb.dedup's defaults):
# weak bits, the shared-shingle gate, radius 14.
LIBRARY_RULE: dict[str, object] = {"confirm": True}
# The rule before weak bits, still taken: every candidate within a radius
# the prefix kernels reach (at most 7), a threshold above the default so
# that some candidates in the corpus are turned down.
WITHOUT_WEAK_BITS = {
    "confirm": True,
    "confirm_radius": 7,
    "confirm_threshold": 0.85,
    "confirm_weak_bits": 0,
    "confirm_min_shared": 0,
}
# What each rule's documents store beside their fingerprint.
STORED = {
    "library": {
        "confirm_weak_bits": fpdb._fpdb.CONFIRM_WEAK_BITS,
        "confirm_min_shared": fpdb._fpdb.CONFIRM_MIN_SHARED,
    },
    "without weak bits": {"confirm_weak_bits": 0, "confirm_min_shared": 0},
}
RULES = {"library": LIBRARY_RULE, "without weak bits": WITHOUT_WEAK_BITS}
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


def options(rule):
    """A rule's ``confirm_`` options, as ``judge_pairs`` takes them."""
    return {name: value for name, value in rule.items() if name != "confirm"}


def rule_on_every_pair(docs, rule, k=K, queries=None):
    """The library's rule (``MatchRule::judge``) on every pair of ``docs``
    (id, fingerprint, stored bytes or None), or with ``queries`` on every
    (query, stored) pair: ``{(id_a, id_b): (distance, similarity or
    None)}``, ``id_a < id_b`` (the query's first with ``queries``)."""
    if queries is None:
        pairs = [(x, y) for i, x in enumerate(docs) for y in docs[i + 1 :]]
    else:
        pairs = [(q, s) for q in queries for s in docs]
    fp_a = np.array([x[1] for x, _ in pairs], dtype=np.uint64)
    fp_b = np.array([y[1] for _, y in pairs], dtype=np.uint64)
    kept, similarity = fpdb._fpdb.judge_pairs(
        fp_a, fp_b, [x[2] for x, _ in pairs], [y[2] for _, y in pairs], k, **options(rule)
    )
    found = {}
    for (x, y), keep, s in zip(pairs, kept, similarity):
        if keep:
            key = (x[0], y[0]) if queries is not None else (min(x[0], y[0]), max(x[0], y[0]))
            found[key] = (distance(x[1], y[1]), None if np.isnan(s) else float(s))
    return found


def as_rule_answers(df, a="id_a", b="id_b"):
    return {(r[a], r[b]): (r["distance"], r["similarity"]) for r in df.collect()}


def same_answers(got, expected):
    assert set(got) == set(expected)
    for pair, (d, similarity) in expected.items():
        assert got[pair][0] == d, pair
        assert got[pair][1] == pytest.approx(similarity), pair


def test_the_join_kernels_find_what_weak_bits_reach():
    """``route_keys`` and ``reached_in_partition``, without Spark, against
    ``WeakBits::reaches`` written out: every (prober, owner) pair past k
    and within the radius where, in some quarter, the prober's weak bits
    cover every differing bit, at most the rule's few of them."""
    rng = np.random.default_rng(11)
    bases = rng.integers(0, 2**64, size=8, dtype=np.uint64)
    fp = bases[rng.integers(0, len(bases), size=300)]
    for _ in range(10):  # clusters of fingerprints a few bits apart
        fp ^= np.uint64(1) << rng.integers(0, 64, size=len(fp)).astype(np.uint64)
    signature = fpdb.Signer().signature("near duplicate pages share most of their words")
    most = 8  # weak bits a quarter
    weak = [
        sum(1 << int(b) + 16 * q for q in range(4) for b in rng.choice(16, most, replace=False))
        for _ in range(len(fp))
    ]
    stored = [signature + b"\0\x14" + w.to_bytes(8, "big") for w in weak]
    stored[0] = None  # bare: probes nothing, but is owned
    k, radius, buckets = 3, 14, 3
    default = fpdb._fpdb.CONFIRM_WEAK_BITS
    with pytest.raises(fpdb.InvalidInputError, match=f"more than {default} in a quarter"):
        fpdb._fpdb.route_keys(fp, buckets, stored)

    def unpacked(routed):
        _, offsets, packed = routed
        return packed[0::2], packed[1::2], np.diff(offsets) // 16

    probe_keys, probers, _ = unpacked(fpdb._fpdb.route_keys(fp, buckets, stored, most))
    own_keys, owners, _ = unpacked(fpdb._fpdb.route_keys(fp, buckets))
    assert len(own_keys) == 4 * len(set(fp.tolist()))
    keys = np.concatenate([probe_keys, own_keys])
    sides = np.concatenate([np.ones(len(probers), bool), np.zeros(len(owners), bool)])
    for ordered in (False, True):
        a, b, d = fpdb._fpdb.reached_in_partition(
            keys, np.concatenate([probers, owners]), sides, k, radius, ordered
        )
        got = {(int(x), int(y)): int(dd) for x, y, dd in zip(a, b, d)}
        assert len(got) == len(a), "each pair once"
        quarters = [0xFFFF << shift for shift in (48, 32, 16, 0)]
        expected = {}
        for i, x in enumerate(fp.tolist()):
            if stored[i] is None:
                continue
            for y in set(fp.tolist()):
                xor = x ^ y
                if ordered and not x < y:
                    continue
                flips = fpdb._fpdb.CONFIRM_WEAK_FLIPS
                reached = any(
                    xor & q & ~weak[i] == 0 and bin(xor & q).count("1") <= flips for q in quarters
                )
                if reached and k < bin(xor).count("1") <= radius:
                    expected[(x, y)] = bin(xor).count("1")
        assert got == expected
        assert len(expected) > 20


@pytest.mark.parametrize("rule_name", RULES)
@pytest.mark.parametrize("weights", [None, "learned"])
def test_confirmed_pairs_equal_the_rule_and_dedup(spark, texts, weights, rule_name):
    rule, stored = RULES[rule_name], STORED[rule_name]
    learn_from = texts if weights else None
    signer = fpdb.Signer(weights=weights, learn_from=learn_from)
    fp, signatures, present = signer.documents(texts, **stored)
    assert not present[-1], "the text without features"
    names = ids(len(texts))
    frame = spark.createDataFrame(list(zip(names, texts)), "id string, text string")
    signed = fps.fingerprints(
        frame, text_col="text", weights=weights, learn_from=learn_from, confirm=True, **stored
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
    width = 32 + (10 if rule is LIBRARY_RULE else 0)
    assert {len(s) for s in signatures if s is not None} == {width}

    got = as_rule_answers(fps.near_duplicate_pairs(docs, k=K, **rule))
    everything = [(n, int(fp[i]), signatures[i]) for i, n in enumerate(names) if present[i]]
    everything += [(n, fps.to_unsigned(f), None) for n, _, f, _ in bare]
    expected = rule_on_every_pair(everything, rule)
    same_answers(got, expected)
    assert ("b0", "t0000") in got and ("b1", "t0001") not in got
    # Both searches found pairs: within k, and past it.
    assert len(expected) > 40 and any(d > K for d, _ in expected.values())
    # The rule did work here: signed candidates within the radius (for the
    # library's rule, past k) that it turned down.
    radius = rule.get("confirm_radius", fpdb._fpdb.CONFIRM_RADIUS)
    turned_down = [
        (x, y)
        for i, (x, fx, sx) in enumerate(everything)
        for y, fy, sy in everything[i + 1 :]
        if sx and sy and K < distance(fx, fy) <= radius and (min(x, y), max(x, y)) not in got
    ]
    assert turned_down

    a, b, d, similarity = fpdb.dedup(texts=texts, k=K, weights=weights, **rule)
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
    fp, signatures, readable = fpdb.Signer().page_documents(pages[:-1], **STORED["library"])
    expected = [
        (fps.to_signed(int(f)) if ok else None, s) for f, s, ok in zip(fp, signatures, readable)
    ]
    assert [(r.fingerprint, r.sig) for r in got.orderBy("id").collect()] == [
        *expected,
        (None, None),
    ]
    assert expected[0][1] is not None and expected[-1] == (None, None)


def test_a_candidate_below_the_threshold_is_not_a_pair(spark):
    """Without weak bits, every candidate within the radius is judged."""
    signer = fpdb.Signer()
    article = (
        "近重复网页检测：同一篇文章出现在许多网址下，只有广告和日期不同，指纹数据库用来找出它们。"
    )
    copy = article.replace("许多", "很多")
    other = "The quick brown fox jumps over the lazy dog near the river bank at dawn."
    sig = {
        name: signer.signature(text) for name, text in [("a", article), ("c", copy), ("o", other)]
    }
    threshold = 0.5
    assert fpdb.similarity(sig["a"], sig["c"]) >= threshold > fpdb.similarity(sig["a"], sig["o"])
    rows = [
        ("a", None, 0, sig["a"]),
        ("copy", None, 0b1111111, sig["c"]),  # 7 bits: past k, within the radius
        ("other", None, 1, sig["o"]),  # 1 bit, but another text
        ("bare3", None, 0b111, None),  # by distance alone, within k
        ("bare5", None, 0b11111 << 20, None),  # by distance alone, past k
    ]
    docs = spark.createDataFrame(rows, SIGNED)
    rule = {**WITHOUT_WEAK_BITS, "confirm_threshold": threshold}
    got = as_rule_answers(fps.near_duplicate_pairs(docs, k=K, **rule))
    assert ("a", "other") not in got
    assert set(got) == {("a", "copy"), ("a", "bare3"), ("bare3", "other")}
    assert got[("a", "bare3")] == (3, None)
    assert got[("a", "copy")][1] == pytest.approx(fpdb.similarity(sig["a"], sig["c"]))
    # By distance alone, as before: the 1-bit pair is there, nothing else changes.
    plain = fps.near_duplicate_pairs(docs, k=K)
    assert plain.columns == ["id_a", "id_b", "distance"]
    assert ("a", "other", 1) in {tuple(r) for r in plain.collect()}
    stricter = fps.near_duplicate_pairs(docs, k=K, **{**rule, "confirm_radius": 6})
    assert ("a", "copy") not in as_rule_answers(stricter)


def test_weak_bits_must_reach_both_ways(spark):
    """Two copies differing in every quarter: a pair only when each one's
    weak bits cover the difference in some quarter, with at most
    ``CONFIRM_WEAK_FLIPS`` of them flipped there."""
    article = (
        "近重复网页检测：同一篇文章出现在许多网址下，只有广告和日期不同，指纹数据库用来找出它们。"
    )
    signature, count = fpdb.Signer().signature(article), (20).to_bytes(2, "big")
    assert fpdb._fpdb.CONFIRM_WEAK_FLIPS == 2

    def pairs(top, weak_b):
        apart = top | 1 << 32 | 1 << 16 | 1
        rows = [
            ("a", None, 0, signature + count + top.to_bytes(8, "big")),
            ("b", None, apart, signature + count + weak_b.to_bytes(8, "big")),
        ]
        return as_rule_answers(
            fps.near_duplicate_pairs(spark.createDataFrame(rows, SIGNED), k=K, confirm=True)
        )

    # Two bits apart in the top quarter, one in each other quarter: a's
    # weak bits cover the top quarter's difference; b's cover none.
    two = 0b11 << 48
    assert pairs(two, 0b11110) == {}
    assert pairs(two, two) == {("a", "b"): (5, 1.0)}
    # Three weak bits flipped in the top quarter are more than the rule's two.
    three = 0b111 << 48
    assert pairs(three, three) == {}


@pytest.mark.parametrize("weights", [None, "learned"])
def test_confirmed_queries_equal_the_rule_and_a_confirming_database(
    spark, texts, tmp_path, weights
):
    learn_from = texts if weights else None
    signer = fpdb.Signer(weights=weights, learn_from=learn_from)
    fp, signatures, present = signer.documents(texts, **STORED["library"])
    names = ids(len(texts))
    stored_rows = [i for i in range(0, len(texts), 2) if present[i]]
    query_rows = [i for i in range(1, len(texts), 2) if present[i]]
    frame = spark.createDataFrame(list(zip(names, texts)), "id string, text string")
    signed = fps.fingerprints(
        frame, text_col="text", confirm=True, weights=weights, learn_from=learn_from
    )
    stored = signed.where(signed.id.isin([names[i] for i in stored_rows]))
    queries = signed.where(signed.id.isin([names[i] for i in query_rows]))
    got = as_rule_answers(
        fps.query(stored, queries, k=K, **LIBRARY_RULE), a="query_id", b="stored_id"
    )

    expected = rule_on_every_pair(
        [(names[i], int(fp[i]), signatures[i]) for i in stored_rows],
        LIBRARY_RULE,
        queries=[(names[i], int(fp[i]), signatures[i]) for i in query_rows],
    )
    same_answers(got, expected)
    assert len(expected) > 15 and any(d > K for d, _ in expected.values())

    options = {"weights": weights, "learn_from": learn_from} if weights else {}
    with fpdb.Db.create(tmp_path / f"db-{weights}", k=K, **LIBRARY_RULE, **options) as db:
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
    got = as_rule_answers(job.run(spark, job.parser().parse_args(argv)))
    a, b, d, similarity = fpdb.dedup(texts=texts, k=K, confirm=True)
    expected = {
        (names[x], names[y]): (int(dd), None if np.isnan(s) else float(s))
        for x, y, dd, s in zip(a, b, d, similarity)
    }
    same_answers(got, expected)
    assert any(d > K for d, _ in expected.values())
    clusters = job.run(spark, job.parser().parse_args(["clusters", *argv[1:]]))
    assert dict(clusters.collect()) == brute_clusters({(a, b, 0) for a, b in expected})
    # The rule without weak bits, through the job's options.
    old = ["--confirm-radius", "7", "--confirm-threshold", "0.9", "--confirm-weak-bits", "0"]
    old += ["--confirm-min-shared", "0"]
    got = as_rule_answers(job.run(spark, job.parser().parse_args([*argv, *old])))
    fp, signatures, present = fpdb.Signer().documents(texts)
    docs = [(n, int(fp[i]), signatures[i]) for i, n in enumerate(names) if present[i]]
    without = {**WITHOUT_WEAK_BITS, "confirm_threshold": 0.9}
    same_answers(got, rule_on_every_pair(docs, without))
    with pytest.raises(fpdb.InvalidInputError, match="need --confirm"):
        job.run(spark, job.parser().parse_args([*argv[:-1], "--confirm-weak-bits", "3"]))


def test_signatures_made_for_another_rule_are_an_error(spark, texts):
    frame = spark.createDataFrame(list(zip(ids(20), texts[:20])), "id string, text string")
    signed = fps.fingerprints(frame, text_col="text", confirm=True)
    with pytest.raises(Exception, match="same confirm_weak_bits and confirm_min_shared"):
        fps.near_duplicate_pairs(signed, **WITHOUT_WEAK_BITS).collect()


def test_confirming_arguments_are_checked(spark):
    docs = spark.createDataFrame([("a", None, 1, None)], SIGNED)
    checks = [
        ({"confirm_radius": 17}, "radius"),
        ({"confirm_weak_bits": 0}, "smaller confirm_radius"),
        ({"confirm_weak_bits": 9}, "weak bits"),
        ({"confirm_threshold": 1.5}, "threshold"),
    ]
    for rule, message in checks:
        with pytest.raises(fpdb.InvalidInputError, match=message):
            fps.near_duplicate_pairs(docs, confirm=True, **rule)
        with pytest.raises(fpdb.InvalidInputError, match=message):
            fps.query(docs, docs, confirm=True, **rule)
    for rule in ({"confirm_threshold": 0.6}, {"confirm_min_shared": 3}):
        with pytest.raises(fpdb.InvalidInputError, match="need confirm=True"):
            fps.near_duplicate_pairs(docs, **rule)
        with pytest.raises(fpdb.InvalidInputError, match="need confirm=True"):
            fps.query(docs, docs, **rule)
    with pytest.raises(fpdb.InvalidInputError, match='duplicates="all"'):
        fps.near_duplicate_pairs(docs, confirm=True, duplicates="representative")
    with pytest.raises(fpdb.InvalidInputError, match="not binary"):
        fps.near_duplicate_pairs(docs, confirm=True, signature_col="text")
    texts = docs.select("id", "text")
    with pytest.raises(fpdb.InvalidInputError, match="learn_from"):
        fps.fingerprints(texts, text_col="text", weights="learned", confirm=True)
    with pytest.raises(fpdb.InvalidInputError, match="weak bits"):
        fps.fingerprints(texts, text_col="text", confirm=True, confirm_weak_bits=9)
    with pytest.raises(fpdb.InvalidInputError, match="need confirm=True"):
        fps.fingerprints(texts, text_col="text", confirm_min_shared=3)


def test_the_share_of_digits_reaches_the_executors(spark, tmp_path):
    """Two listings that differ only in their numbers: signed with them by
    default, as a database made with --confirm signs them, and alike with
    confirm_numbers_from=0."""
    listing = (
        "出售本地移动靓号，全部实名登记，没有最低消费："
        "号码{}售价{}元，号码{}售价{}元，号码{}售价{}元，欢迎来电咨询。"
    )
    rows = [
        ("a", listing.format("13812345678", "800", "13912345678", "1200", "13712345678", "650")),
        ("b", listing.format("15011112222", "900", "15133334444", "1500", "15255556666", "700")),
    ]
    frame = spark.createDataFrame(rows, "id string, text string")
    for numbers_from, alike in ((None, False), (0, True)):
        signed = fps.fingerprints(
            frame, text_col="text", confirm=True, confirm_numbers_from=numbers_from
        )
        a, b = (bytes(row.signature)[:32] for row in signed.orderBy("id").collect())
        assert (fpdb.similarity(a, b) == 1.0) == alike, numbers_from
    with pytest.raises(fpdb.InvalidInputError, match="need confirm=True"):
        fps.fingerprints(frame, text_col="text", confirm_numbers_from=0)
    frame.write.parquet(str(tmp_path / "docs"))
    argv = ["pairs", str(tmp_path / "docs"), str(tmp_path / "out"), "--text-col", "text"]
    with pytest.raises(fpdb.InvalidInputError, match="need --confirm"):
        job.run(spark, job.parser().parse_args([*argv, "--confirm-numbers-from", "0"]))
