"""A real Scrapy crawl for test_scrapy.py, run in its own process (Twisted's
reactor starts once per process): crawls the site at argv[1] with
NearDuplicatePipeline on the database argv[2] (a directory, or the URL of
an fpdb server) and writes the kept items and the crawl's fpdb stats as
JSON to argv[3]."""

from __future__ import annotations

import json
import sys

import scrapy
from scrapy.crawler import CrawlerProcess


class SiteSpider(scrapy.Spider):
    name = "site"

    def __init__(self, start: str, **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [start]

    def parse(self, response):
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, self.parse_page)

    def parse_page(self, response):
        text = "\n".join(response.css("article p::text").getall())
        yield {"url": response.url, "text": text}


class Collect:
    """Keeps what reaches the end of the pipeline."""

    items: list[dict] = []

    def process_item(self, item, spider=None):
        Collect.items.append(dict(item))
        return item


def main() -> None:
    start, db_path, out_path = sys.argv[1:4]
    action = sys.argv[4] if len(sys.argv) > 4 else "drop"
    process = CrawlerProcess(
        settings={
            "ITEM_PIPELINES": {
                "fpdb.scrapy.NearDuplicatePipeline": 300,
                "crawl.Collect": 900,
            },
            ("FPDB_URL" if db_path.startswith(("http://", "https://")) else "FPDB_PATH"): db_path,
            "FPDB_ACTION": action,
            "LOG_LEVEL": "WARNING",
            "ROBOTSTXT_OBEY": False,
            "TELNETCONSOLE_ENABLED": False,
            "CONCURRENT_REQUESTS": 4,
        }
    )
    crawler = process.create_crawler(SiteSpider)
    process.crawl(crawler, start=start)
    process.start()
    # Scrapy loaded the pipeline as module `crawl`, not as this `__main__`.
    from crawl import Collect as Loaded

    stats = {
        key: value for key, value in crawler.stats.get_stats().items() if key.startswith("fpdb/")
    }
    with open(out_path, "w", encoding="utf-8") as out:
        json.dump({"items": Loaded.items, "stats": stats}, out, ensure_ascii=False)


if __name__ == "__main__":
    main()
