"""Files are read by one reader for ``fpdb load`` and ``Db.bulk_load``:
the same file gives the same documents (ids and fingerprints) to both, in
every format, gzipped or not, and a bad line is named alike."""

from __future__ import annotations

import gzip
import json
import subprocess

import pytest
from serving import fpdb_binary

import fpdb

TEXTS = [
    "网络爬虫每天抓取大量网页，其中很多页面内容几乎相同。",
    "A web crawler fetches many pages whose content is nearly the same.",
    "近似重复检测用于搜索引擎的索引去重。",
]


def page(title: str, body: str) -> str:
    return (
        f"<html><head><title>{title}</title></head>"
        f"<body><article><p>{body}</p></article></body></html>"
    )


def warc_record(kind: str, uri: str, http: bytes) -> bytes:
    header = (
        f"WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\n"
        f"Content-Type: application/http; msgtype={kind}\r\n"
        f"Content-Length: {len(http)}\r\n\r\n"
    ).encode()
    return header + http + b"\r\n\r\n"


def response(html: str) -> bytes:
    body = html.encode()
    head = (
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


def write_inputs(tmp_path):
    """Files of every format; returns {case: (paths, format or None)}."""
    (tmp_path / "docs.tsv").write_text("a\t0123456789abcdef\nb\tffffffffffffff00\n")
    jsonl = "".join(
        json.dumps(document, ensure_ascii=False) + "\n"
        for document in [
            {"id": "t", "text": TEXTS[0]},
            {"id": "h", "html": page("x", TEXTS[1])},
            {"id": "f", "fp": "00000000000000ff"},
        ]
    )
    (tmp_path / "docs.jsonl").write_text(jsonl, encoding="utf-8")
    (tmp_path / "docs.jsonl.gz").write_bytes(gzip.compress(jsonl.encode()))
    (tmp_path / "docs.txt").write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    (tmp_path / "more.txt").write_text(TEXTS[2] + "\n", encoding="utf-8")
    (tmp_path / "one.html").write_text(page("one", TEXTS[0]), encoding="utf-8")
    (tmp_path / "two.htm").write_bytes(page("two", TEXTS[2]).encode("utf-8"))
    (tmp_path / "note").write_text(TEXTS[1], encoding="utf-8")
    records = [
        warc_record("request", "https://example.com/a", b"GET /a HTTP/1.1\r\n\r\n"),
        warc_record("response", "https://example.com/a", response(page("a", TEXTS[0]))),
        warc_record("response", "https://example.com/b", response(page("b", TEXTS[1]))),
    ]
    (tmp_path / "crawl.warc").write_bytes(b"".join(records))
    # One gzip member per record, as crawlers write .warc.gz.
    (tmp_path / "crawl.warc.gz").write_bytes(b"".join(gzip.compress(r) for r in records))
    return {
        "fps": (["docs.tsv"], None),
        "jsonl": (["docs.jsonl"], None),
        "jsonl.gz": (["docs.jsonl.gz"], None),
        "lines, two files": (["docs.txt", "more.txt"], None),
        "lines, said": (["docs.tsv"], "lines"),
        "html": (["one.html", "two.htm"], None),
        "files": (["note", "docs.txt"], "files"),
        "warc": (["crawl.warc"], None),
        "warc.gz": (["crawl.warc.gz"], None),
    }


def cli(tmp_path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [fpdb_binary(), *arguments], cwd=tmp_path, capture_output=True, text=True, check=False
    )


def loaded_by_cli(tmp_path, name: str, paths: list[str], format: str | None) -> dict[str, int]:
    db = str(tmp_path / f"cli-{name}")
    assert cli(tmp_path, "create", db).returncode == 0
    said = ["--input", format] if format else []
    loaded = cli(tmp_path, "load", db, *said, *paths)
    assert loaded.returncode == 0, loaded.stderr
    exported = cli(tmp_path, "export", db, "--format", "json")
    assert exported.returncode == 0, exported.stderr
    documents = [json.loads(line) for line in exported.stdout.splitlines()]
    return {document["id"]: int(document["fp"], 16) for document in documents}


def loaded_by_python(tmp_path, name: str, paths: list[str], format: str | None) -> dict[str, int]:
    with fpdb.Db.create(str(tmp_path / f"py-{name}")) as db:
        db.bulk_load(files=paths, format=format)
        return dict(db.export())


def test_the_cli_and_python_read_the_same_documents_from_every_format(tmp_path):
    cases = write_inputs(tmp_path)
    expected_ids = {
        "fps": {"a", "b"},
        "jsonl": {"t", "h", "f"},
        "html": {str(tmp_path / "one.html"), str(tmp_path / "two.htm")},
        "warc.gz": {"https://example.com/a", "https://example.com/b"},
    }
    for number, (case, (names, format)) in enumerate(cases.items()):
        paths = [str(tmp_path / name) for name in names]
        from_cli = loaded_by_cli(tmp_path, str(number), paths, format)
        from_python = loaded_by_python(tmp_path, str(number), paths, format)
        assert from_python == from_cli, case
        assert from_cli, case
        if case in expected_ids:
            assert set(from_cli) == expected_ids[case], case
    # Texts are fingerprinted as the database fingerprints them.
    with fpdb.Db.create(str(tmp_path / "plain")) as db:
        lines = loaded_by_python(tmp_path, "again", [str(tmp_path / "docs.txt")], None)
        assert lines == {str(i + 1): db.fingerprint(text) for i, text in enumerate(TEXTS)}


def test_a_bad_line_is_named_alike_and_loads_nothing(tmp_path):
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(gzip.compress(b'{"id": "a", "fp": "00000000000000ff"}\n{"id": "b"}\n'))
    db = str(tmp_path / "cli")
    assert cli(tmp_path, "create", db).returncode == 0
    failed = cli(tmp_path, "load", db, str(bad))
    assert failed.returncode == 2
    where = f"{bad}:2: "
    assert where in failed.stderr, failed.stderr
    with fpdb.Db.create(str(tmp_path / "py")) as py_db:
        with pytest.raises(fpdb.InvalidInputError) as raised:
            py_db.bulk_load(files=[bad])
        assert where in str(raised.value)
        assert py_db.stats()["ids"] == 0


def test_whole_file_formats_need_paths_and_unknown_formats_are_refused(tmp_path):
    with fpdb.Db.create(str(tmp_path / "db")) as db:
        with pytest.raises(fpdb.InvalidInputError, match="warc"):
            db.bulk_load(files=[tmp_path / "x"], format="csv")
        with pytest.raises(fpdb.StorageError, match="cannot open"):
            db.bulk_load(files=[tmp_path / "missing.tsv"])
