"""A document's kind is said, not guessed: fp=, text= or html= (str or
bytes, with content_type=); the older positional spellings still work with
a DeprecationWarning; batch fingerprinting on a Db uses its own options."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from test_html import HEADLINES, page

import fpdb

TEXTS = [
    "今天北京天气晴朗，适合出门散步。",
    "The quick brown fox jumps over the lazy dog near the river bank.",
    "山区茶农提前十天开始采摘新茶，合作社新建的加工车间让鲜叶当天完成杀青。",
    "Prices of fresh tea rose this spring as the harvest began ten days early.",
]


@pytest.fixture
def no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


@pytest.mark.parametrize("charset", ["utf-8", "gbk", "gb18030"])
def test_html_as_str_and_as_bytes_give_one_fingerprint(db_path, charset, no_warnings):
    raw = page(0, charset)
    decoded = raw.decode(charset)
    with fpdb.Db.create(db_path) as db:
        from_bytes = db.fingerprint(html=raw)
        # A str is already decoded: its <meta charset> no longer applies.
        assert db.fingerprint(html=decoded) == from_bytes
        assert db.fingerprint_html(decoded) == from_bytes
        assert fpdb.page_text(decoded) == fpdb.page_text(raw)
        first = db.check_and_insert("https://a.example/tea", html=raw)
        second = db.check_and_insert("https://b.example/tea", html=decoded)
        assert first.fingerprint == second.fingerprint == from_bytes
        assert [m.ids for m in second.matches] == [["https://a.example/tea"]]
        # The markup read as plain text is another document altogether.
        assert db.fingerprint(decoded) != from_bytes


def test_content_type_gives_the_charset_of_html_bytes(db_path, no_warnings):
    # No <meta>: without the header's charset GBK bytes are only guessed.
    body = "".join(f"<p>{headline}，今天发布。</p>" for headline in HEADLINES)
    html = f"<html><body><article>{body}</article></body></html>"
    with fpdb.Db.create(db_path) as db:
        from_str = db.fingerprint(html=html)
        from_bytes = db.fingerprint(html=html.encode("gbk"), content_type="text/html; charset=GBK")
        assert from_bytes == from_str
        checked = db.check_and_insert(
            "u", html=html.encode("gbk"), content_type="text/html; charset=GBK"
        )
        assert checked.fingerprint == from_str


def test_check_and_insert_takes_fp_text_or_html(db_path, no_warnings):
    with fpdb.Db.create(db_path) as db:
        assert db.check_and_insert("a", 0xF0F0).fingerprint == 0xF0F0
        assert db.check_and_insert("b", fp=0xF0F1).fingerprint == 0xF0F1
        by_text = db.check_and_insert("c", text=TEXTS[0])
        assert by_text.fingerprint == db.fingerprint(TEXTS[0])
        assert db.check_and_insert("d", text=TEXTS[0], k=0).matches[0].ids == ["c"]


def test_the_positional_str_and_bytes_still_work_with_a_warning(db_path):
    raw = page(0)
    with fpdb.Db.create(db_path) as db:
        with pytest.warns(DeprecationWarning, match="text="):
            as_text = db.check_and_insert("a", TEXTS[0])
        assert as_text.fingerprint == db.fingerprint(text=TEXTS[0])
        with pytest.warns(DeprecationWarning, match="html="):
            as_page = db.check_and_insert("b", raw)
        assert as_page.fingerprint == db.fingerprint(html=raw)
        with pytest.warns(DeprecationWarning, match="texts="):
            db2 = fpdb.dedup(TEXTS, k=3)
        said = fpdb.dedup(texts=TEXTS, k=3)
        assert [x.tolist() for x in db2] == [x.tolist() for x in said]


def test_a_document_must_be_given_once_and_of_the_right_type(db_path):
    with fpdb.Db.create(db_path) as db:
        with pytest.raises(TypeError, match="fp="):
            db.check_and_insert("a")
        with pytest.raises(TypeError, match="not several"):
            db.check_and_insert("a", 1, text="x")
        with pytest.raises(TypeError, match="not several"):
            db.check_and_insert("a", text="x", html="<p>x</p>")
        with pytest.raises(TypeError, match="content_type"):
            db.check_and_insert("a", text="x", content_type="text/html")
        with pytest.raises(TypeError, match="text must be a str"):
            db.check_and_insert("a", text=b"x")
        with pytest.raises(TypeError, match="html must be bytes or a str"):
            db.check_and_insert("a", html=3)
        with pytest.raises(TypeError, match="fingerprint"):
            db.check_and_insert("a", fp=1.5)
        with pytest.raises(TypeError):
            fpdb.dedup()
        assert db.get("a") is None


def test_batch_fingerprinting_on_a_db_uses_its_options(db_path, no_warnings):
    with fpdb.Db.create(db_path, tokenizer="words", weights="tf", extract="all") as db:
        own = db.fingerprint_many(TEXTS)
        assert own.dtype == np.uint64
        assert own.tolist() == [db.fingerprint(text) for text in TEXTS]
        assert (
            own.tolist() == fpdb.fingerprint_many(TEXTS, tokenizer="words", weights="tf").tolist()
        )
        assert own.tolist() != fpdb.fingerprint_many(TEXTS).tolist()

        pages = [page(0), page(1).decode("utf-8"), b"GIF89a\0\0"]
        fps, readable = db.fingerprint_pages(pages, ["text/html", None, "image/gif"])
        assert readable.tolist() == [True, True, False]
        assert fps[:2].tolist() == [db.fingerprint_html(p) for p in pages[:2]]
        defaults, _ = fpdb.fingerprint_pages(pages)
        assert fps[:2].tolist() != defaults[:2].tolist()


def test_bulk_load_of_pages_equals_inserting_them(tmp_path, no_warnings):
    pages = [page(0), page(1).decode("utf-8"), page(0, "gbk")]
    ids = ["a", "b", "c"]
    with fpdb.Db.create(str(tmp_path / "one")) as db:
        expected = [db.insert_html(i, p) for i, p in zip(ids, pages)]
    with fpdb.Db.create(str(tmp_path / "bulk")) as db:
        summary = db.bulk_load(ids=ids, html=pages, content_types=[None, None, None])
        assert summary["documents"] == 3
        assert [db.get(i) for i in ids] == expected
    with fpdb.Db.create(str(tmp_path / "bad")) as db:
        with pytest.raises(fpdb.InvalidInputError, match=r"html\[1\]"):
            db.bulk_load(ids=["ok", "img"], html=[page(0), b"GIF89a\0\0"])
        with pytest.raises(TypeError, match="content_types"):
            db.bulk_load(ids=ids, texts=TEXTS[:3], content_types=[None] * 3)


def test_bulk_load_documents_with_texts_warns_once(db_path):
    with fpdb.Db.create(db_path) as db:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            db.bulk_load([("a", TEXTS[0]), ("b", TEXTS[1]), ("c", 7)])
        deprecations = [w for w in caught if w.category is DeprecationWarning]
        assert len(deprecations) == 1
        assert "texts=" in str(deprecations[0].message)
        assert db.get("a") == db.fingerprint(TEXTS[0])
        assert db.get("c") == 7
