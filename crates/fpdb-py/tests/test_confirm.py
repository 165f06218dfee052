"""Databases created with confirm=True match texts and pages in two stages:
each Match names one document with the similarity that confirmed it, bare
fingerprints match by distance alone, and texts without features are
refused."""

from __future__ import annotations

import pytest

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
