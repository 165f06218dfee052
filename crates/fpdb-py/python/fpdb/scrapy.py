"""A Scrapy item pipeline that drops (or tags) near-duplicate pages.

Enable it in a project's ``settings.py``::

    ITEM_PIPELINES = {"fpdb.scrapy.NearDuplicatePipeline": 300}
    FPDB_PATH = "crawl.fpdb"       # created on first use, reused by later crawls
    FPDB_TEXT_FIELD = "text"       # the item field holding the page's text, or
    FPDB_HTML_FIELD = "html"       # the field holding its HTML (bytes or str)
    FPDB_ID_FIELD = "url"          # the item field naming the document
    FPDB_ACTION = "drop"           # or "tag": keep the item, list its duplicates

Several crawls (spiders, processes, machines) share one database through
``fpdb serve``: set ``FPDB_URL`` (e.g. ``"http://127.0.0.1:7800"``) instead
of ``FPDB_PATH``, and ``FPDB_TOKEN`` when the server wants a token. The
pipeline then checks items with :class:`fpdb.Client`, atomically across
every crawl; the database's creation settings are the server's.

Each item is checked and stored in one atomic step
(:meth:`fpdb.Db.check_and_insert`), so the database remembers every page
kept or dropped. An item is a near-duplicate when another stored document
is within ``FPDB_K`` bits (default: the database's k, 3 unless created
otherwise); a page whose id was stored before with a fingerprint within k
("seen before": a re-crawl that did not change) is dropped too unless
``FPDB_DROP_SEEN = False``. A re-crawl that changed more passes on.

Counts go to Scrapy's stats: ``fpdb/unique``, ``fpdb/near_duplicate``,
``fpdb/seen_before``, ``fpdb/changed`` and ``fpdb/no_text``.
"""

from __future__ import annotations

from typing import Any

from itemadapter import ItemAdapter
from scrapy.exceptions import DropItem, NotConfigured

import fpdb


class NearDuplicatePipeline:
    """Checks every item against the pages stored so far; see the module
    docstring for its settings."""

    def __init__(
        self,
        path: str | None,
        *,
        url: str | None = None,
        token: str | None = None,
        text_field: str = "text",
        html_field: str | None = None,
        id_field: str = "url",
        action: str = "drop",
        tag_field: str = "near_duplicates",
        k: int | None = None,
        drop_seen: bool = True,
        create_options: dict[str, Any] | None = None,
        stats: Any = None,
    ) -> None:
        if action not in ("drop", "tag"):
            raise NotConfigured(f"FPDB_ACTION must be 'drop' or 'tag', not {action!r}")
        if (path is None) == (url is None):
            raise NotConfigured("set exactly one of FPDB_PATH and FPDB_URL")
        self.path = path
        self.url = url
        self.token = token
        self.text_field = text_field
        self.html_field = html_field
        self.id_field = id_field
        self.action = action
        self.tag_field = tag_field
        self.k = k
        self.drop_seen = drop_seen
        self.create_options = create_options or {}
        self.stats = stats
        self.db: fpdb.Db | fpdb.Client | None = None

    @classmethod
    def from_crawler(cls, crawler: Any) -> NearDuplicatePipeline:
        settings = crawler.settings
        path = settings.get("FPDB_PATH") or None
        url = settings.get("FPDB_URL") or None
        if not path and not url:
            raise NotConfigured(
                "set FPDB_PATH to the database directory, or FPDB_URL to an fpdb server"
            )
        create_options = {
            name: settings.get(f"FPDB_{name.upper()}")
            for name in ("expected", "design", "tokenizer", "weights", "extract")
            if settings.get(f"FPDB_{name.upper()}") is not None
        }
        k = settings.get("FPDB_K")
        return cls(
            path,
            url=url,
            token=settings.get("FPDB_TOKEN") or None,
            text_field=settings.get("FPDB_TEXT_FIELD", "text"),
            html_field=settings.get("FPDB_HTML_FIELD"),
            id_field=settings.get("FPDB_ID_FIELD", "url"),
            action=settings.get("FPDB_ACTION", "drop"),
            tag_field=settings.get("FPDB_TAG_FIELD", "near_duplicates"),
            k=None if k is None else int(k),
            drop_seen=settings.getbool("FPDB_DROP_SEEN", True),
            create_options=create_options,
            stats=crawler.stats,
        )

    def open_spider(self, spider: Any = None) -> None:
        if self.url is not None:
            self.db = fpdb.Client(self.url, self.token)
        else:
            self.db = fpdb.Db.create(self.path, exist_ok=True, **self.create_options)

    def close_spider(self, spider: Any = None) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

    def _count(self, name: str) -> None:
        if self.stats is not None:
            self.stats.inc_value(f"fpdb/{name}")

    def process_item(self, item: Any, spider: Any = None) -> Any:
        if self.db is None:
            raise RuntimeError("NearDuplicatePipeline used before open_spider")
        adapter = ItemAdapter(item)
        doc_id = adapter.get(self.id_field)
        if self.html_field is not None:
            # A page's HTML: bytes as received, or str (sent as UTF-8).
            text = adapter.get(self.html_field)
            if isinstance(text, str):
                text = text.encode("utf-8")
            has_text = isinstance(text, bytes) and bool(text.strip())
        else:
            text = adapter.get(self.text_field)
            has_text = isinstance(text, str) and bool(text.strip())
        if not has_text or not isinstance(doc_id, str):
            # Nothing to compare: pass the item on untouched.
            self._count("no_text")
            return item
        if self.html_field is not None:
            checked = self.db.check_and_insert(doc_id, html=text, k=self.k)
        else:
            checked = self.db.check_and_insert(doc_id, text=text, k=self.k)
        k = self.db.k if self.k is None else self.k
        previous = checked.previous
        if previous is not None and bin(previous ^ checked.fingerprint).count("1") <= k:
            self._count("seen_before")
            if self.drop_seen:
                raise DropItem(f"{doc_id} was seen before with the same content")
        elif previous is not None:
            self._count("changed")
        if not checked.matches:
            self._count("unique")
            return item
        self._count("near_duplicate")
        duplicates = [doc for found in checked.matches for doc in found.ids]
        if self.action == "drop":
            raise DropItem(f"{doc_id} is a near-duplicate of {', '.join(duplicates[:5])}")
        adapter[self.tag_field] = duplicates
        return item
