"""A client of ``fpdb serve``: the crawler's calls of :class:`fpdb.Db`, over HTTP.

Many crawler processes, on many machines, share one database by talking to
the one server that owns it::

    with fpdb.Client("http://127.0.0.1:7800", token=None) as db:
        checked = db.check_and_insert("https://a.example/1", page_text)
        if checked.is_duplicate:
            ...

The methods take the same arguments, return the same kinds of results and
raise the same exceptions (:mod:`fpdb.errors`) as the ``Db`` methods of the
same names: a server's ``400`` is an :class:`~fpdb.InvalidInputError`, a
write refused by a read-only token or server a
:class:`~fpdb.ReadOnlyError`, a batch over the server's limit a
:class:`~fpdb.LimitExceededError`; a missing or unknown token is an
:class:`~fpdb.Error`. The network failing raises :class:`OSError` as
:mod:`http.client` does.

Each thread keeps one connection to the server (HTTP/1.1 keep-alive);
``query_many`` sends its fingerprints in batches, ``insert_many`` in one
request (one atomic write, as ``Db.insert_many``). Only the standard
library is used (and numpy, which the package needs anyway).
"""

from __future__ import annotations

import base64
import http.client
import json
import operator
import ssl
import threading
import urllib.parse
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from fpdb._fpdb import Match
from fpdb.errors import (
    AlreadyExistsError,
    ClosedError,
    CorruptError,
    Error,
    InvalidInputError,
    LimitExceededError,
    ReadOnlyError,
    StorageError,
)

# Queries per request of ``query_many``: far below the server's default
# batch limit, large enough that the request's overhead is shared.
QUERY_BATCH = 10_000

_ERRORS: dict[str, type[Error]] = {
    "invalid_input": InvalidInputError,
    "no_features": InvalidInputError,
    "already_exists": AlreadyExistsError,
    "read_only": ReadOnlyError,
    "limit_exceeded": LimitExceededError,
    "corrupt": CorruptError,
    "storage": StorageError,
}

_MAX_FINGERPRINT = (1 << 64) - 1

# What fpdb.Db says of the older positional spelling.
_GUESSED_TEXT = (
    "a str given by position is read as plain text; say which it is: text=... for text, "
    "html=... for an HTML page (str or bytes)"
)
_GUESSED_HTML = "bytes given by position are read as an HTML page; say so: html=... (str or bytes)"


class Checked:
    """What :meth:`Client.check_and_insert` found before storing the document
    (the attributes of :class:`fpdb.Checked`)."""

    __slots__ = ("fingerprint", "matches", "previous")

    def __init__(self, matches: list[Match], previous: int | None, fingerprint: int) -> None:
        self.matches = matches
        self.previous = previous
        self.fingerprint = fingerprint

    @property
    def is_duplicate(self) -> bool:
        """True when another document is within k."""
        return bool(self.matches)

    def __repr__(self) -> str:
        previous = "None" if self.previous is None else f"0x{self.previous:016x}"
        return (
            f"Checked(fingerprint=0x{self.fingerprint:016x}, previous={previous}, "
            f"matches={len(self.matches)})"
        )


class BatchMatches:
    """The answers of :meth:`Client.query_many` (the interface of
    :class:`fpdb.BatchMatches`): one row per (query, match)."""

    def __init__(self, found: list[list[Match]]) -> None:
        self._found = found
        self._rows = [(query, match) for query, matches in enumerate(found) for match in matches]

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def queries(self) -> int:
        """Queries in the batch."""
        return len(self._found)

    @property
    def query_index(self) -> np.ndarray:
        """The position in the query array of each row's query (uint64)."""
        return np.array([query for query, _ in self._rows], dtype=np.uint64)

    @property
    def fingerprint(self) -> np.ndarray:
        """Each row's stored fingerprint (uint64)."""
        return np.array([match.fingerprint for _, match in self._rows], dtype=np.uint64)

    @property
    def distance(self) -> np.ndarray:
        """Each row's distance (uint8)."""
        return np.array([match.distance for _, match in self._rows], dtype=np.uint8)

    def ids(self, row: int) -> list[str]:
        """The ids of one row's fingerprint."""
        if not 0 <= row < len(self._rows):
            raise IndexError(f"row {row} out of range")
        return list(self._rows[row][1].ids)

    def matches(self, query: int) -> list[Match]:
        """The matches of query ``query``."""
        if not 0 <= query < len(self._found):
            raise IndexError(f"query {query} out of range")
        return list(self._found[query])

    def __repr__(self) -> str:
        return f"BatchMatches(queries={self.queries}, rows={len(self)})"


def _fingerprint(value: Any) -> int:
    """An int in 0..2**64 (or anything with ``__index__``), as ``Db`` takes it."""
    if isinstance(value, bool):
        raise TypeError("a fingerprint is an int in 0..2**64, not a bool")
    try:
        fp = operator.index(value)
    except TypeError:
        raise TypeError(
            f"a fingerprint is an int in 0..2**64, not {type(value).__name__}"
        ) from None
    if not 0 <= fp <= _MAX_FINGERPRINT:
        raise ValueError(f"fingerprint {fp} is outside 0..2**64")
    return fp


def _hex(fp: int) -> str:
    return f"{fp:016x}"


def _document(
    positional: Any,
    fp: Any,
    text: str | None,
    html: str | bytes | None,
    content_type: str | None,
    *,
    positional_text: bool,
) -> dict[str, Any]:
    """The request fields of one document: a fingerprint, a text or an HTML
    page (bytes as received, with its Content-Type), given positionally as
    ``Db`` takes it or by keyword."""
    given = [v for v in (positional, fp, text, html) if v is not None]
    if len(given) != 1:
        raise TypeError("give exactly one document: a fingerprint, fp=, text= or html=")
    if content_type is not None and html is None and not isinstance(positional, bytes):
        raise TypeError("content_type= is for HTML documents")
    fields: dict[str, Any] = {}
    if positional is not None and positional_text and isinstance(positional, str):
        warnings.warn(_GUESSED_TEXT, DeprecationWarning, stacklevel=3)
        text = positional
    elif positional is not None and positional_text and isinstance(positional, bytes):
        warnings.warn(_GUESSED_HTML, DeprecationWarning, stacklevel=3)
        html = positional
    elif positional is not None:
        fp = positional
    if fp is not None:
        fields["fp"] = _hex(_fingerprint(fp))
    elif text is not None:
        if not isinstance(text, str):
            raise TypeError(f"text is a str, not {type(text).__name__}")
        fields["text"] = text
    elif isinstance(html, str):
        fields["html"] = html
    elif isinstance(html, (bytes, bytearray, memoryview)):
        fields["html_base64"] = base64.b64encode(bytes(html)).decode("ascii")
    else:
        raise TypeError(f"html is bytes or str, not {type(html).__name__}")
    if content_type is not None:
        fields["content_type"] = content_type
    return fields


def _matches(found: list[dict[str, Any]]) -> list[Match]:
    return [
        Match(int(m["fingerprint"], 16), m["distance"], m["ids"], m.get("similarity"))
        for m in found
    ]


def _optional_fp(value: str | None) -> int | None:
    return None if value is None else int(value, 16)


class Client:
    """A connection to ``fpdb serve`` at ``url`` (``http://host:port`` or
    ``https://host:port``), sending ``token`` as a bearer token when given.
    ``ssl_context`` verifies an HTTPS server (default: the system's trust
    store); ``timeout`` is in seconds per request."""

    def __init__(
        self,
        url: str,
        token: str | None = None,
        *,
        timeout: float = 60.0,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise InvalidInputError(f"{url!r} is not an http:// or https:// URL")
        self.url = url
        self._scheme = parsed.scheme
        self._host = parsed.hostname
        self._port = parsed.port
        self._prefix = parsed.path.rstrip("/")
        self._timeout = timeout
        self._ssl_context = ssl_context
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if token is not None:
            self._headers["Authorization"] = f"Bearer {token}"
        self._local = threading.local()
        self._connections: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()
        self._closed = False
        self._k: int | None = None

    # -- connections -------------------------------------------------------

    def _connection(self) -> http.client.HTTPConnection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            if self._scheme == "https":
                connection = http.client.HTTPSConnection(
                    self._host, self._port, timeout=self._timeout, context=self._ssl_context
                )
            else:
                connection = http.client.HTTPConnection(
                    self._host, self._port, timeout=self._timeout
                )
            self._local.connection = connection
            with self._lock:
                self._connections.append(connection)
        return connection

    def _drop_connection(self) -> None:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None

    def _request(self, method: str, path: str, body: Any = None, *, retry: bool = False) -> Any:
        if self._closed:
            raise ClosedError("the client is closed")
        payload = None if body is None else json.dumps(body).encode("utf-8")
        for attempt in (0, 1):
            connection = self._connection()
            try:
                connection.request(method, self._prefix + path, payload, self._headers)
                response = connection.getresponse()
                data = response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # A kept-alive connection the server closed (a restart):
                # reads are sent again once on a new one; a write is not,
                # since it may have been applied.
                self._drop_connection()
                if retry and attempt == 0:
                    continue
                raise
            except BaseException:
                self._drop_connection()
                raise
            if response.getheader("Connection", "").lower() == "close":
                self._drop_connection()
            return self._answer(response.status, data)
        raise AssertionError("unreachable")

    @staticmethod
    def _answer(status: int, data: bytes) -> Any:
        try:
            answer = json.loads(data) if data else None
        except ValueError:
            answer = None
        if 200 <= status < 300:
            return answer
        error = answer.get("error", {}) if isinstance(answer, dict) else {}
        message = error.get("message") or f"HTTP {status}: {data[:200]!r}"
        if error.get("field"):
            message = f"{error['field']}: {message}"
        raise _ERRORS.get(error.get("kind", ""), Error)(message)

    def close(self) -> None:
        """Closes every connection; later calls raise :class:`~fpdb.ClosedError`."""
        self._closed = True
        with self._lock:
            for connection in self._connections:
                connection.close()
            self._connections.clear()

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> bool:
        self.close()
        return False

    def __repr__(self) -> str:
        return f"Client({self.url!r}{', closed' if self._closed else ''})"

    # -- the database's calls ----------------------------------------------

    @property
    def k(self) -> int:
        """The largest distance the database answers (asked once)."""
        if self._k is None:
            self._k = int(self.stats()["k"])
        return self._k

    def stats(self) -> dict[str, object]:
        """Counts and sizes: the dict of ``Db.stats()``."""
        return self._request("GET", "/v1/stats", retry=True)

    def get(self, id: str) -> int | None:
        """The fingerprint stored for ``id``, or None."""
        return _optional_fp(self._request("POST", "/v1/get", {"id": id}, retry=True)["fingerprint"])

    def insert(
        self,
        id: str,
        fp: Any = None,
        *,
        text: str | None = None,
        html: str | bytes | None = None,
        content_type: str | None = None,
    ) -> None:
        """Stores document ``id`` (an id already stored gets the new fingerprint)."""
        body = {"id": id, **_document(fp, None, text, html, content_type, positional_text=False)}
        self._request("POST", "/v1/insert", body)

    def insert_text(self, id: str, text: str) -> int:
        """Stores ``id`` with the fingerprint of ``text``; returns the fingerprint."""
        answer = self._request("POST", "/v1/insert", {"id": id, "text": text})
        return int(answer["fingerprint"], 16)

    def insert_many(self, ids: Sequence[str], fps: Iterable[Any]) -> None:
        """Stores many documents in one atomic write."""
        ids = list(ids)
        hexes = [_hex(_fingerprint(fp)) for fp in fps]
        if len(ids) != len(hexes):
            raise InvalidInputError(f"{len(ids)} ids but {len(hexes)} fingerprints")
        documents = [{"id": id, "fp": fp} for id, fp in zip(ids, hexes)]
        self._request("POST", "/v1/insert_many", {"documents": documents})

    def remove(self, id: str) -> int | None:
        """Forgets ``id``; returns the fingerprint it had, if it was stored."""
        return _optional_fp(self._request("POST", "/v1/remove", {"id": id})["previous"])

    def remove_many(self, ids: Sequence[str]) -> int:
        """Forgets every id of ``ids`` in one atomic write; returns how many were stored."""
        return int(self._request("POST", "/v1/remove_many", {"ids": list(ids)})["removed"])

    def query(
        self,
        fp: Any = None,
        k: int | None = None,
        *,
        text: str | None = None,
        html: str | bytes | None = None,
        content_type: str | None = None,
    ) -> list[Match]:
        """Every stored fingerprint within ``k`` (default: the database's) of
        the document, nearest first."""
        body = _document(fp, None, text, html, content_type, positional_text=False)
        if k is not None:
            body["k"] = k
        return _matches(self._request("POST", "/v1/query", body, retry=True)["matches"])

    def query_text(self, text: str, k: int | None = None) -> list[Match]:
        """``query`` of the fingerprint of ``text``."""
        return self.query(text=text, k=k)

    def query_many(self, fps: Iterable[Any], k: int | None = None) -> BatchMatches:
        """``query`` for many fingerprints; answers in input order."""
        hexes = [_hex(_fingerprint(fp)) for fp in fps]
        found: list[list[Match]] = []
        for start in range(0, len(hexes), QUERY_BATCH):
            body: dict[str, Any] = {"fps": hexes[start : start + QUERY_BATCH]}
            if k is not None:
                body["k"] = k
            answer = self._request("POST", "/v1/query_many", body, retry=True)
            found.extend(_matches(matches) for matches in answer["results"])
        return BatchMatches(found)

    def backup(self, name: str) -> dict[str, object]:
        """A consistent copy of the database, made while the server keeps
        serving, in the server's ``--backup-dir`` under ``name`` (letters,
        digits, ``.``, ``_`` and ``-``): every write answered before it. The
        dict of ``Db.backup``: ``path`` (on the server's machine), ``method``
        and ``bytes``. A name that exists raises
        :class:`~fpdb.AlreadyExistsError`, a read-only token
        :class:`~fpdb.ReadOnlyError`; a server without ``--backup-dir`` an
        :class:`~fpdb.Error`."""
        return self._request("POST", "/v1/backup", {"name": name})

    def check_and_insert(
        self,
        id: str,
        fp: Any = None,
        k: int | None = None,
        *,
        text: str | None = None,
        html: str | bytes | None = None,
        content_type: str | None = None,
    ) -> Checked:
        """The document's stored near-duplicates (never ``id`` itself) and
        ``id``'s previous fingerprint; then the document is stored. Atomic
        across every client of the server. The document is ``fp`` (an int),
        ``text=`` or ``html=`` (bytes as received with ``content_type=``, or
        a str); a str or bytes given by position still works, with a
        DeprecationWarning, as with ``Db``."""
        body = {
            "id": id,
            **_document(fp, None, text, html, content_type, positional_text=True),
        }
        if k is not None:
            body["k"] = k
        answer = self._request("POST", "/v1/check_and_insert", body)
        return Checked(
            _matches(answer["matches"]),
            _optional_fp(answer["previous"]),
            int(answer["fingerprint"], 16),
        )


__all__ = ["QUERY_BATCH", "BatchMatches", "Checked", "Client"]
