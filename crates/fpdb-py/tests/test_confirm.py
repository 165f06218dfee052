"""Databases created with confirm=True match texts and pages in two stages:
each Match names one document with the similarity that confirmed it, bare
fingerprints match by distance alone, and texts without features are
refused."""

from __future__ import annotations

import json
import subprocess

import pytest
from serving import fpdb_binary, served

import fpdb

ORIGINAL = (
    "近重复网页检测：同一篇文章出现在许多网址下，只有广告和日期不同，"
    "指纹数据库用来找出它们，爬虫因此少存很多副本。"
)
COPY = (
    "近重复网页检测：同一篇文章出现在很多网址下，只有广告和日期不同，"
    "指纹数据库用来找出它们，爬虫因此少存很多副本。"
)
OTHER = "The quick brown fox jumps over the lazy dog near the river bank every morning."


@pytest.fixture
def db(tmp_path):
    with fpdb.Db.create(tmp_path / "db", confirm=True, confirm_radius=10) as db:
        yield db


def test_copies_are_confirmed_with_their_similarity(db):
    fp = db.insert_text("orig", ORIGINAL)
    checked = db.check_and_insert("copy", text=COPY)
    assert [m.ids for m in checked.matches] == [["orig"]]
    match = checked.matches[0]
    assert match.fingerprint == fp
    assert match.distance == bin(fp ^ checked.fingerprint).count("1")
    assert 0.5 <= match.similarity <= 1.0
    assert db.check_and_insert("other", text=OTHER).matches == []
    # query_text answers by the same rule as check_and_insert.
    found = db.query_text(COPY)
    assert [(m.ids, m.similarity) for m in found if m.ids != ["copy"]] == [
        (["orig"], match.similarity)
    ]


def test_pages_keep_signatures_and_bare_fingerprints_match_by_distance(db):
    page = f"<html><body><article><p>{ORIGINAL}</p></article></body></html>"
    fp = db.insert_html("page", page)
    bare = fp ^ 0b11  # two bits away, stored without a signature
    db.insert("bare", fp=bare)
    found = db.query_text(COPY)
    by_id = {m.ids[0]: m for m in found}
    assert by_id["page"].similarity is not None
    if "bare" in by_id:
        assert by_id["bare"].similarity is None
        assert by_id["bare"].distance <= db.k
    # A bare query matches by distance alone, within k.
    assert {m.distance for m in db.query(fp=bare)} <= set(range(db.k + 1))


def test_texts_without_features_are_refused_and_not_stored(db):
    with pytest.raises(fpdb.InvalidInputError, match="no features"):
        db.check_and_insert("empty", text="，。！……")
    assert db.get("empty") is None
    with pytest.raises(fpdb.InvalidInputError):
        db.insert_text("empty", "   ")


def test_confirmation_settings_are_checked(tmp_path):
    with pytest.raises(fpdb.InvalidInputError, match="confirm=True"):
        fpdb.Db.create(tmp_path / "a", confirm_radius=9)
    with pytest.raises(fpdb.InvalidInputError, match="radius"):
        fpdb.Db.create(tmp_path / "b", confirm=True, confirm_radius=17)
    assert fpdb.Match(1, 0, ["a"], similarity=0.75).similarity == 0.75
    assert fpdb.Match(1, 0, ["a"]).similarity is None


def _crawl_pages() -> list[str]:
    """Pages of one site: a shared navigation and footer around an article
    of made-up words, so that words are rare and weigh differently."""
    template = "Home News Sports Weather Contact us Copyright Example Portal"
    pages = []
    for n in range(1200):
        words = [f"w{(n * 7 + i * 13) % 2000:04d}" for i in range(40)]
        pages.append(f"{template} {' '.join(words)}. {template}")
    return pages


def test_learned_weights_are_kept_and_equal_the_clis(tmp_path):
    pages = _crawl_pages()
    with fpdb.Db.create(tmp_path / "py", weights="learned", learn_from=pages, confirm=True) as db:
        stats = db.stats()
        weights = stats["simhash"]
        assert "weights=learned:" in weights
        assert stats["learned_features"] is not None and stats["learned_features"] > 1000
        confirmation = stats["confirmation"]
        assert confirmation is not None
        assert (confirmation["radius"], confirmation["threshold"]) == (14, 0.45)
        assert (confirmation["weak_bits"], confirmation["min_shared"]) == (6, 7)
        assert confirmation["weak_flips"] == 2
        assert confirmation["numbers_from_permille"] == 200
        # The template is on every page: its words are common features.
        assert confirmation["common_features"] >= 8
        learned = db.fingerprint_many(pages[:50])
        db.insert_text("p0", pages[0])
        edited = pages[0].replace("w0000", "w1999", 1)
        found = db.query_text(edited)
        assert [m.ids for m in found] == [["p0"]]
    with fpdb.Db.create(tmp_path / "plain") as plain:
        assert list(plain.fingerprint_many(pages[:50])) != list(learned)
    # Reopened, the database fingerprints with the weights it keeps.
    with fpdb.Db.open(tmp_path / "py", read_only=True) as db:
        assert list(db.fingerprint_many(pages[:50])) == list(learned)
    # The CLI learns the same table from the same texts.
    sample = tmp_path / "sample.jsonl"
    sample.write_text(
        "".join(json.dumps({"id": str(i), "text": p}) + "\n" for i, p in enumerate(pages))
    )
    subprocess.run(
        [
            fpdb_binary(),
            "create",
            str(tmp_path / "cli"),
            "--weights",
            "learned",
            "--learn-from",
            str(sample),
            "--confirm",
        ],
        check=True,
        capture_output=True,
    )
    with fpdb.Db.open(tmp_path / "cli", read_only=True) as db:
        assert db.stats()["simhash"] == weights
        assert list(db.fingerprint_many(pages[:50])) == list(learned)


def test_learning_takes_only_the_sample_from_an_iterable(tmp_path):
    sample = 10_000  # Db.create learns from the first 10,000 texts with features
    taken = 0

    def crawl():
        nonlocal taken
        for n in range(sample):
            taken += 1
            yield f"page {n} of the crawl about topic {n % 97}"
        raise AssertionError("learn_from was read past the texts it learns from")

    with fpdb.Db.create(tmp_path / "db", weights="learned", learn_from=crawl()) as db:
        from_generator = db.stats()["simhash"]
    assert "weights=learned:" in from_generator
    assert taken == sample
    # The same texts as a list learn the same weights.
    texts = [f"page {n} of the crawl about topic {n % 97}" for n in range(sample)]
    with fpdb.Db.create(tmp_path / "list", weights="learned", learn_from=texts) as db:
        assert db.stats()["simhash"] == from_generator
    with pytest.raises(TypeError, match="not one str"):
        fpdb.Db.create(tmp_path / "str", weights="learned", learn_from="one text")
    with pytest.raises(TypeError):
        fpdb.Signer(weights="learned", learn_from=[1, 2, 3])


def test_learned_weights_need_texts(tmp_path):
    with pytest.raises(fpdb.InvalidInputError, match="learn_from"):
        fpdb.Db.create(tmp_path / "a", weights="learned")
    with pytest.raises(fpdb.InvalidInputError, match="nothing to learn"):
        fpdb.Db.create(tmp_path / "b", learn_from=["some text"])
    with pytest.raises(fpdb.InvalidInputError, match="learned weights are learned"):
        fpdb.Db.create(tmp_path / "c", weights="learned:00000000000000ab")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_bulk_loaded_texts_are_signed(tmp_path):
    with fpdb.Db.create(tmp_path / "db", confirm=True, confirm_radius=10) as db:
        summary = db.bulk_load(ids=["orig", "empty"], texts=[ORIGINAL, "，。！"])
        assert summary["featureless"] == 1
        assert db.get("empty") is None
        found = db.query_text(COPY)
        assert [m.ids for m in found] == [["orig"]]
        assert 0.5 <= found[0].similarity <= 1.0


def test_dedup_of_texts_under_the_rule_equals_the_clis(tmp_path):
    pages = _crawl_pages()[:300]
    texts = pages + [p.replace("w0", "x0", 2) for p in pages[:100]] + ["，。！"]
    a, b, distance, similarity = fpdb.dedup(texts=texts, weights="learned", confirm=True)
    got = {(int(x), int(y), int(d)) for x, y, d in zip(a, b, distance)}
    assert any(d > 3 for _, _, d in got)
    # Confirmed at the default threshold, 0.45.
    assert all(0.45 <= s <= 1.0 for s, d in zip(similarity, distance) if d > 3)
    assert all(len(texts) - 1 not in (x, y) for x, y, _ in got), "no features, no pair"
    corpus = tmp_path / "texts.jsonl"
    corpus.write_text(
        "".join(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate(texts))
    )
    printed = subprocess.run(
        [fpdb_binary(), "dedup", str(corpus), "--weights", "learned", "--confirm"]
        + ["--format", "json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    pairs = [json.loads(line) for line in printed.splitlines()]
    expected = {(int(p["a"]), int(p["b"]), p["distance"]) for p in pairs}
    assert got == {(min(x, y), max(x, y), d) for x, y, d in expected}
    clusters = fpdb.dedup(texts=texts, weights="learned", confirm=True, clusters=True)
    assert sum(len(c) for c in clusters) == len({i for x, y, _ in got for i in (x, y)})


def test_dedup_under_the_rule_takes_texts_alone():
    with pytest.raises(TypeError, match="texts= alone"):
        fpdb.dedup([1, 2, 3], confirm=True)
    with pytest.raises(fpdb.InvalidInputError, match="confirm=True"):
        fpdb.dedup(texts=["a b c"], confirm_radius=9)


def test_a_served_confirming_database_answers_as_db(tmp_path):
    texts = [ORIGINAL, OTHER, *(f"{OTHER} Item {i} of the list." for i in range(30))]
    options = {"confirm": True, "confirm_radius": 10, "weights": "learned", "learn_from": texts}
    page = f"<html><body><article><p>{ORIGINAL}</p></article></body></html>"
    calls = [
        ("orig", {"text": ORIGINAL}),
        ("copy", {"text": COPY}),
        ("page", {"html": page.encode()}),
        ("bare", {"fp": 0x0123456789ABCDEF}),
        ("other", {"text": OTHER}),
        ("copy", {"text": COPY + "爬虫"}),
    ]
    fpdb.Db.create(tmp_path / "served", **options).close()
    with (
        fpdb.Db.create(tmp_path / "local", **options) as db,
        served(str(tmp_path / "served")) as url,
        fpdb.Client(url) as client,
    ):
        for doc_id, document in calls:
            local = db.check_and_insert(doc_id, **document)
            remote = client.check_and_insert(doc_id, **document)
            assert remote.matches == local.matches, doc_id
            assert (remote.fingerprint, remote.previous) == (local.fingerprint, local.previous)
        confirmed = db.check_and_insert("again", text=ORIGINAL).matches
        assert confirmed and all(m.similarity is not None for m in confirmed)
        assert client.check_and_insert("again", text=ORIGINAL).matches == confirmed
        assert client.query_text(COPY) == db.query_text(COPY)
        assert client.insert_text("late", OTHER) == db.insert_text("late", OTHER)
        assert client.query_text(OTHER) == db.query_text(OTHER)
        for target in (db, client):
            with pytest.raises(fpdb.InvalidInputError):
                target.check_and_insert("empty", text="，。！")
            assert target.get("empty") is None


def _listing(numbers: list[str]) -> str:
    return (
        "出售本地移动靓号，全部实名登记，没有最低消费："
        "号码{}售价{}元，号码{}售价{}元，号码{}售价{}元，欢迎来电咨询。".format(*numbers)
    )


LISTINGS = [
    _listing(["13812345678", "800", "13912345678", "1200", "13712345678", "650"]),
    _listing(["15011112222", "900", "15133334444", "1500", "15255556666", "700"]),
]


def test_numbers_count_where_a_text_is_mostly_numbers(tmp_path):
    """Two listings that differ only in their numbers are different pages,
    unless confirm_numbers_from=0; every signing path agrees."""
    a, b, _, _ = fpdb.dedup(texts=LISTINGS, confirm=True)
    assert list(zip(a, b)) == []
    a, b, _, _ = fpdb.dedup(texts=LISTINGS, confirm=True, confirm_numbers_from=0)
    assert list(zip(a, b)) == [(0, 1)]
    signer = fpdb.Signer()
    _, counted, _ = signer.documents(LISTINGS)
    _, words_only, _ = signer.documents(LISTINGS, confirm_numbers_from=0)
    assert fpdb.similarity(words_only[0], words_only[1]) == 1.0
    assert fpdb.similarity(counted[0], counted[1]) < 0.45
    for numbers_from, expected in ((None, 200), (0, 0), (35, 350)):
        path = tmp_path / f"db{numbers_from}"
        with fpdb.Db.create(path, confirm=True, confirm_numbers_from=numbers_from) as db:
            assert db.stats()["confirmation"]["numbers_from_permille"] == expected
            db.insert_text("a", LISTINGS[0])
            assert bool(db.query_text(LISTINGS[1])) == (expected == 0)
    with pytest.raises(fpdb.InvalidInputError, match="percentage"):
        fpdb.Db.create(tmp_path / "bad", confirm=True, confirm_numbers_from=101)
    with pytest.raises(fpdb.InvalidInputError, match="need confirm=True"):
        fpdb.dedup(texts=LISTINGS, confirm_numbers_from=0)
