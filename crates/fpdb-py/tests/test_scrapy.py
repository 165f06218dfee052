"""NearDuplicatePipeline in a real Scrapy crawl of a site served on
127.0.0.1: planted near-duplicates under other URLs are dropped, every
original is kept, and a second crawl over the same database drops every
page it saw before."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from serving import served

import fpdb

ARTICLES = [
    "今年春天雨水充足，山区的茶农们比往年提前十天开始采摘新茶。合作社负责人介绍，"
    "新建的加工车间让鲜叶当天就能完成杀青和揉捻，茶叶的香气保存得更好，收购价格也随之上涨。",
    "新的高速铁路线路正式开通运营，两座城市之间的旅行时间从三个小时缩短到一个小时。"
    "铁路部门表示，开通初期每天安排四十对列车，并将根据客流情况在节假日增加班次。",
    "市博物馆推出一项关于古代海上贸易的特别展览，展出沉船中打捞出的瓷器、铜钱和香料罐。"
    "策展人说，这些文物讲述了港口城市如何通过远洋航线与外部世界交换商品和技术。",
    "昨晚的足球联赛中，主队在补时阶段打进制胜球，以二比一战胜来访的卫冕冠军。"
    "主教练赛后称赞年轻前锋的跑位和门将的几次关键扑救，球队因此升至积分榜第三位。",
    "社区图书馆完成改造后重新开放，新增了儿童阅读区、自习座位和一间小型放映室。"
    "馆长介绍，居民可以用手机预约借书，周末还会举办面向老年人的智能手机使用课程。",
    "为了缓解充电难的问题，本市今年计划在停车场和加油站新建三千个电动汽车快充桩。"
    "能源公司表示，新充电桩支持扫码支付，三十分钟可以充满一辆普通家用车的八成电量。",
]


def page(body: str, header: str, footer: str, links: str = "") -> bytes:
    return (
        "<html><head><meta charset='utf-8'></head><body>"
        f"<nav>{header}</nav><article><p>{body}</p></article>"
        f"<footer>{footer}</footer>{links}</body></html>"
    ).encode()


def build_site() -> tuple[dict[str, bytes], dict[str, str]]:
    """Pages by path, and for each planted copy the path of its original."""
    pages = {}
    copies = {}
    for number, article in enumerate(ARTICLES):
        original = f"/news/{number}.html"
        pages[original] = page(article, "本地新闻网", "版权所有")
        # Mirrors: another URL, another site template, a changed counter.
        for mirror in range(2 if number % 2 == 0 else 1):
            path = f"/mirror{mirror}/story-{number}.html?utm=feed"
            pages[path] = page(
                article, f"转载自合作网站{mirror}", f"阅读次数：{number * 37 + mirror}"
            )
            copies[path] = original
    links = "".join(f"<a href='{path}'>{path}</a>" for path in pages)
    pages["/"] = page("首页", "本地新闻网", "", links)
    return pages, copies


@pytest.fixture
def site():
    pages, copies = build_site()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the name http.server calls
            body = pages.get(self.path)
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    yield base, pages, copies
    server.shutdown()


def crawl(base: str, db_path: str, out: Path, action: str = "drop") -> dict:
    script = Path(__file__).with_name("crawl.py")
    subprocess.run(
        [sys.executable, str(script), f"{base}/", db_path, str(out), action],
        check=True,
        cwd=script.parent,
        timeout=120,
    )
    return json.loads(out.read_text(encoding="utf-8"))


def test_articles_are_far_apart_and_their_text_is_what_the_spider_extracts():
    # The test's premise: distinct articles are far beyond k = 3 apart.
    fps = [fpdb.fingerprint(article) for article in ARTICLES]
    for i, a in enumerate(fps):
        for b in fps[i + 1 :]:
            assert bin(a ^ b).count("1") > 6


def test_the_pipeline_drops_exactly_the_planted_copies(site, tmp_path):
    base, pages, copies = site
    db_path = str(tmp_path / "crawl.fpdb")
    first = crawl(base, db_path, tmp_path / "first.json")
    kept = {item["url"].removeprefix(base) for item in first["items"]}
    # Of each article and its mirrors exactly one page is kept (which one
    # depends on the order responses arrive in).
    groups = {}
    for path in pages:
        if path != "/":
            groups.setdefault(copies.get(path, path), []).append(path)
    for original, members in groups.items():
        assert len(kept & set(members)) == 1, (original, kept)
    assert len(kept) == len(ARTICLES)
    assert first["stats"]["fpdb/unique"] == len(ARTICLES)
    assert first["stats"]["fpdb/near_duplicate"] == len(copies)

    # A second crawl over the same database drops every page it saw.
    second = crawl(base, db_path, tmp_path / "second.json")
    assert second["items"] == []
    assert second["stats"]["fpdb/seen_before"] == len(pages) - 1

    with fpdb.Db.open(db_path, read_only=True) as db:
        assert db.stats()["ids"] == len(pages) - 1


def test_tag_mode_keeps_copies_and_names_their_originals(site, tmp_path):
    base, pages, copies = site
    result = crawl(base, str(tmp_path / "tag.fpdb"), tmp_path / "tag.json", action="tag")
    assert len(result["items"]) == len(pages) - 1
    tagged = [item for item in result["items"] if item.get("near_duplicates")]
    assert len(tagged) == len(copies)
    by_url = {item["url"].removeprefix(base): item for item in result["items"]}
    for item in tagged:
        named = {url.removeprefix(base) for url in item["near_duplicates"]}
        path = item["url"].removeprefix(base)
        group = {copies.get(path, path)} | {
            p for p, o in copies.items() if o == copies.get(path, path)
        }
        assert named <= group - {path}
        assert named, by_url


def test_two_crawls_at_once_through_one_server_keep_each_page_once(site, tmp_path):
    base, pages, copies = site
    db_path = str(tmp_path / "shared.fpdb")
    fpdb.Db.create(db_path, k=3).close()
    script = Path(__file__).with_name("crawl.py")
    with served(db_path) as url:
        outs = [tmp_path / f"crawl-{n}.json" for n in range(2)]
        crawls = [
            subprocess.Popen(
                [sys.executable, str(script), f"{base}/", url, str(out)], cwd=script.parent
            )
            for out in outs
        ]
        for process in crawls:
            assert process.wait(timeout=120) == 0
        results = [json.loads(out.read_text(encoding="utf-8")) for out in outs]
        with fpdb.Client(url) as client:
            assert client.stats()["ids"] == len(pages) - 1
    # Between them the two crawls kept each article once: one page of each
    # article and its mirrors, every other copy dropped by one crawl or
    # the other.
    kept = [item["url"].removeprefix(base) for result in results for item in result["items"]]
    groups = {}
    for path in pages:
        if path != "/":
            groups.setdefault(copies.get(path, path), set()).add(path)
    for original, members in groups.items():
        assert len([path for path in kept if path in members]) == 1, (original, kept)
    stats = [result["stats"] for result in results]
    assert sum(s.get("fpdb/unique", 0) for s in stats) == len(ARTICLES)
    dropped = sum(s.get("fpdb/near_duplicate", 0) + s.get("fpdb/seen_before", 0) for s in stats)
    assert dropped == 2 * (len(pages) - 1) - len(ARTICLES)
