"""The two samples docs/BENCHMARKS.md runs `fpdb tune` on, as a user's
own texts would come: news articles as they are, and speeches cut into
pieces at sentence ends.

Usage: python3 benches/scripts/tune_samples.py CACHE OUT_DIR

CACHE is the quality report's download directory (`make quality` fills
it): `zh-inews.jsonl` and `en-sotu.jsonl`, one {"title", "text"} per
line. Writes OUT_DIR/zh-3000.jsonl (the first 3,000 articles, each cut
to 1,200 characters) and OUT_DIR/en-3000.jsonl (the State of the Union
addresses cut into pieces of about 1,000 characters at sentence ends,
the first 3,000), one {"id", "text"} per line.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

SAMPLE = 3000
ARTICLE_CHARS = 1200
PIECE_CHARS = 1000


def texts(path: Path) -> list[str]:
    return [
        json.loads(line)["text"]
        for line in path.read_text(encoding="utf-8").splitlines()
    ]


def pieces(text: str) -> list[str]:
    """`text` cut at sentence ends into pieces of at least PIECE_CHARS
    characters (the last may be shorter)."""
    out, current = [], ""
    for sentence in re.split(r"(?<=[.!?])\s+", text):
        current = f"{current} {sentence}" if current else sentence
        if len(current) >= PIECE_CHARS:
            out.append(current)
            current = ""
    if current:
        out.append(current)
    return out


def write(path: Path, sample: list[str]) -> None:
    with path.open("w", encoding="utf-8") as out:
        for i, text in enumerate(sample):
            out.write(
                json.dumps({"id": f"{path.stem}-{i}", "text": text}, ensure_ascii=False)
            )
            out.write("\n")
    print(f"{path}: {len(sample)} texts")


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cache, out_dir = Path(sys.argv[1]), Path(sys.argv[2])
    out_dir.mkdir(parents=True, exist_ok=True)
    news = [text[:ARTICLE_CHARS] for text in texts(cache / "zh-inews.jsonl")[:SAMPLE]]
    speeches = [
        piece for text in texts(cache / "en-sotu.jsonl") for piece in pieces(text)
    ]
    write(out_dir / "zh-3000.jsonl", news)
    write(out_dir / "en-3000.jsonl", speeches[:SAMPLE])


if __name__ == "__main__":
    main()
