"""HTML pages in: the article's text whatever the site template and the
charset, stored with the database's extraction option."""

from __future__ import annotations

import pytest

import fpdb
from fpdb.scrapy import NearDuplicatePipeline

ARTICLE = [
    "今年春天雨水充足，山区的茶农们比往年提前十天开始采摘新茶。合作社负责人介绍，"
    "新建的加工车间让鲜叶当天就能完成杀青和揉捻。",
    "茶叶的香气因此保存得更好，收购价格也随之上涨。不少在外打工的年轻人回到村里，"
    "跟着老师傅学习炒茶的手艺，希望把家乡的茶叶卖到更远的地方。",
    "县里的农业部门表示，今年将在三个乡镇推广生态种植，减少化肥和农药的使用，"
    "并为茶农提供免费的技术培训和品牌设计服务。",
    "业内人士认为，随着电商直播的普及，山区特色农产品的销售渠道正在变宽，"
    "但品质稳定和物流成本仍然是需要解决的问题。",
]
HEADLINES = [
    "新的高速铁路线路正式开通运营",
    "市博物馆推出古代海上贸易特别展览",
    "主队补时绝杀卫冕冠军",
]


def page(template: int, charset: str = "utf-8") -> bytes:
    body = "".join(f"<p>{p}</p>" for p in ARTICLE)
    links = "".join(f"<li><a href='/n/{i}'>{h}</a></li>" for i, h in enumerate(HEADLINES))
    if template == 0:
        html = (
            f"<html><head><meta charset='{charset}'><title>茶</title></head><body>"
            "<div class='header'><a href='/'>本地新闻网</a> <a href='/s'>体育</a></div>"
            f"<div class='article-content'><h1>山区茶农提前采摘新茶</h1>{body}</div>"
            f"<div class='sidebar'><h3>热门新闻</h3><ul>{links}</ul></div>"
            "<div class='footer'>版权所有 联系我们</div></body></html>"
        )
    else:
        html = (
            f"<html><head><meta charset='{charset}'></head><body>"
            "<nav><a href='/'>门户首页</a></nav>"
            f"<aside><h4>相关阅读</h4><ol>{links}</ol></aside>"
            f"<article><h2>山区茶农提前采摘新茶</h2>{body}</article>"
            "<footer>转载请注明出处 阅读次数：987</footer></body></html>"
        )
    return html.encode(charset)


def test_page_text_is_the_article_under_either_template():
    texts = [fpdb.page_text(page(t)) for t in (0, 1)]
    assert texts[0] == texts[1]
    for paragraph in ARTICLE:
        assert paragraph in texts[0]
    assert not any(headline in texts[0] for headline in HEADLINES)
    assert HEADLINES[0] in fpdb.page_text(page(0), extract="all")


def test_a_gbk_page_has_the_fingerprint_of_its_utf8_twin(db_path):
    with fpdb.Db.create(db_path) as db:
        utf8 = db.fingerprint_html(page(0))
        assert db.fingerprint_html(page(0, "gbk"), "text/html; charset=GBK") == utf8
        assert db.fingerprint_html(page(0, "gb18030")) == utf8  # by <meta charset>
        assert db.fingerprint_html(page(0)) == db.fingerprint(fpdb.page_text(page(0)))


def test_the_same_article_under_another_template_is_a_near_duplicate(db_path):
    with fpdb.Db.create(db_path) as db:
        stored = db.insert_html("https://a.example/tea", page(0))
        assert db.get("https://a.example/tea") == stored
        checked = db.check_and_insert("https://b.example/tea?from=feed", html=page(1))
        assert [m.ids for m in checked.matches] == [["https://a.example/tea"]]
        assert checked.matches[0].distance == 0
        assert db.stats()["extract"] == "main"


def test_the_extraction_option_is_stored_with_the_database(db_path):
    with fpdb.Db.create(db_path, extract="all") as db:
        fp = db.fingerprint_html(page(0))
    with fpdb.Db.open(db_path) as db:
        assert db.stats()["extract"] == "all"
        assert db.fingerprint_html(page(0)) == fp
        assert fp == db.fingerprint(fpdb.page_text(page(0), extract="all"))
    with pytest.raises(fpdb.InvalidInputError, match="main or all"):
        fpdb.Db.create(db_path + "-x", extract="article")


def test_binary_data_is_refused(db_path):
    with fpdb.Db.create(db_path) as db:
        with pytest.raises(fpdb.InvalidInputError, match="binary"):
            db.insert_html("img", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
        assert db.get("img") is None
        with pytest.raises(fpdb.InvalidInputError, match=r"html\[1\]"):
            db.bulk_load(ids=["ok", "img"], html=[page(0), b"GIF89a\0\0"])


def test_the_scrapy_pipeline_reads_html_fields(db_path):
    pipeline = NearDuplicatePipeline(db_path, html_field="body")
    pipeline.open_spider()
    try:
        first = {"url": "https://a.example/tea", "body": page(0)}
        assert pipeline.process_item(first) is first
        from scrapy.exceptions import DropItem

        with pytest.raises(DropItem, match="near-duplicate"):
            pipeline.process_item({"url": "https://b.example/tea", "body": page(1).decode()})
    finally:
        pipeline.close_spider()


def test_fingerprint_pages_agrees_with_a_database_and_flags_unreadable_pages(db_path):
    pages = [page(0), page(1, "gbk"), b"\x00\x01\x02" * 100, page(0).decode()]
    types = [None, "text/html; charset=gbk", None, None]
    fps, readable = fpdb.fingerprint_pages(pages, types)
    with fpdb.Db.create(db_path) as db:
        expected = [db.fingerprint_html(page(0)), db.fingerprint_html(page(1))]
    assert [int(fp) for fp in fps[:2]] == expected
    assert int(fps[3]) == expected[0]
    assert readable.tolist() == [True, True, False, True]
    assert int(fps[2]) == 0
    all_text, _ = fpdb.fingerprint_pages([page(0)], extract="all")
    assert int(all_text[0]) != expected[0]
    with pytest.raises(fpdb.InvalidInputError):
        fpdb.fingerprint_pages(pages, [None])
    with pytest.raises(TypeError):
        fpdb.fingerprint_pages([1])
