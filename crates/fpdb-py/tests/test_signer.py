"""fpdb.Signer makes texts into what a confirming database compares, and
travels (pickled, as to Spark's executors) with what it learned."""

from __future__ import annotations

import pickle

import pytest

import fpdb

ARTICLE = "近重复网页检测：同一篇文章出现在许多网址下，只有广告和日期不同，指纹数据库用来找出它们。"
COPY = ARTICLE.replace("许多", "很多")
TEMPLATE = "Home News Sports Weather Contact us Copyright Example Portal"


def crawl_pages(n=1200):
    """Pages of one site: a shared template around made-up words."""
    return [
        f"{TEMPLATE} {' '.join(f'w{(i * 7 + j * 13) % 2000:04d}' for j in range(40))}"
        for i in range(n)
    ]


def test_a_signer_agrees_with_a_confirming_database(tmp_path):
    pages = crawl_pages()
    signer = fpdb.Signer(weights="learned", learn_from=pages)
    options = {"weights": "learned", "learn_from": pages, "confirm": True}
    with fpdb.Db.create(tmp_path / "db", **options) as db:
        db.insert_text("a", pages[0])
        assert signer.fingerprint(pages[0]) == db.fingerprint(pages[0])
        (match,) = db.query_text(pages[0])
    assert match.similarity == 1.0
    # The template is common to every page: left out of the signature.
    assert signer.signature(TEMPLATE) is None
    assert fpdb.Signer().signature(TEMPLATE) is not None


def test_signers_pickle_with_what_they_learned():
    pages = crawl_pages()
    for signer in (fpdb.Signer(), fpdb.Signer(weights="learned", learn_from=pages)):
        back = pickle.loads(pickle.dumps(signer))
        assert bytes(back) == bytes(signer)
        assert back.fingerprint(pages[3]) == signer.fingerprint(pages[3])
        assert back.signature(pages[3]) == signer.signature(pages[3])


def test_a_bad_state_is_an_error_not_a_crash():
    state = bytes(fpdb.Signer(weights="learned", learn_from=crawl_pages()))
    for cut in range(0, len(state), 7):
        with pytest.raises(fpdb.InvalidInputError, match="Signer state"):
            fpdb.Signer.from_state(state[:cut])
    with pytest.raises(fpdb.InvalidInputError, match="past the end"):
        fpdb.Signer.from_state(state + b"\0")
    with pytest.raises(fpdb.InvalidInputError):
        fpdb.Signer.from_state(b"fpdbsgn1\xff\xff\xff\xff")


def test_documents_and_similarity():
    signer = fpdb.Signer()
    fps, signatures, present = signer.documents([ARTICLE, COPY, "，。！"])
    assert list(present) == [True, True, False]
    assert signatures[2] is None and int(fps[0]) == fpdb.fingerprint(ARTICLE)
    assert signatures[0] == signer.signature(ARTICLE)
    assert 0.5 <= fpdb.similarity(signatures[0], signatures[1]) < 1.0
    with pytest.raises(fpdb.InvalidInputError, match="32 bytes"):
        fpdb.similarity(signatures[0], b"short")
    page = f"<html><body><p>{ARTICLE}</p></body></html>".encode()
    _, page_signatures, readable = signer.page_documents([page, b"\0\1\2" * 10])
    assert page_signatures[0] == signatures[0] and list(readable) == [True, False]
    with pytest.raises(fpdb.InvalidInputError, match="learn_from"):
        fpdb.Signer(weights="learned")
