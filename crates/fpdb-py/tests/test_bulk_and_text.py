"""Bulk loads from arrays, pairs and texts; fingerprinting in bulk agrees
with one at a time; reopening in another process through the config."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest

import fpdb
from conftest import random_fps

TEXTS = [
    "城市的夜晚灯火通明，街道上行人来来往往，小吃摊前排起了长队。",
    "今年春天雨水充足，山区的茶农们提前开始采摘新茶。",
    "新的高铁线路开通后，两座城市之间的旅行时间缩短到一个小时。",
    "博物馆推出了一项关于古代丝绸之路的特别展览，吸引了大量游客。",
    "The quick brown fox jumps over the lazy dog near the river bank.",
]


def test_fingerprint_many_equals_one_at_a_time():
    texts = TEXTS * 50 + [t + str(i) for i, t in enumerate(TEXTS * 20)]
    for options in [{}, {"tokenizer": "chars:3", "weights": "tf"}, {"tokenizer": "words"}]:
        many = fpdb.fingerprint_many(texts, **options)
        assert many.dtype == np.uint64 and len(many) == len(texts)
        assert many.tolist() == [fpdb.fingerprint(t, **options) for t in texts]


def test_dedup_of_texts_finds_the_copy():
    # Punctuation is not a feature: the copy with another full stop has
    # the same fingerprint.
    texts = [*TEXTS, TEXTS[1].replace("。", "！")]
    a, b, _ = fpdb.dedup(texts=texts, k=3)
    assert (1, len(TEXTS)) in set(zip(a.tolist(), b.tolist()))


def test_bulk_load_from_pairs_texts_and_arrays(tmp_path, rng):
    fps = random_fps(rng, 5000)
    ids = [f"a{i}" for i in range(len(fps))]
    reports = []
    with fpdb.Db.create(str(tmp_path / "arrays")) as db:
        summary = db.bulk_load(ids=ids, fps=fps, progress=lambda *report: reports.append(report))
        assert summary["ids"] == 5000 and summary["fingerprints"] == len(set(fps.tolist()))
        assert db.get("a17") == int(fps[17])
    phases = [phase for phase, *_ in reports]
    assert "ingesting" in phases

    # (id, text) pairs: the older spelling, still read as texts.
    documents = ((f"t{i}", text) for i, text in enumerate(TEXTS))
    with fpdb.Db.create(str(tmp_path / "pairs")) as db:
        with pytest.warns(DeprecationWarning, match="texts="):
            db.bulk_load(documents)
        assert [db.get(f"t{i}") for i in range(len(TEXTS))] == [db.fingerprint(t) for t in TEXTS]

    with fpdb.Db.create(str(tmp_path / "texts"), tokenizer="chars:2") as db:
        db.bulk_load(ids=[f"x{i}" for i in range(len(TEXTS))], texts=TEXTS)
        assert db.get("x2") == fpdb.fingerprint(TEXTS[2], tokenizer="chars:2")


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_failing_progress_callback_does_not_abort_the_load(tmp_path):
    def fail(*_report):
        raise RuntimeError("progress display broke")

    with fpdb.Db.create(str(tmp_path / "db")) as db:
        db.bulk_load([("a", 1), ("b", 2)], progress=fail)
        assert db.get("b") == 2


def _count_in_worker(config):
    with config.open() as db:
        return db.stats()["ids"], db.read_only


def test_a_worker_process_reopens_the_database_from_its_config(db_path):
    with fpdb.Db.create(db_path) as db:
        db.insert_many(["a", "b", "c"], [1, 2, 3])
        db.flush()
        config = db.config
        context = multiprocessing.get_context("spawn")
        with context.Pool(1) as pool:
            assert pool.apply(_count_in_worker, (config,)) == (3, True)


def test_bulk_load_from_files_of_every_format(tmp_path):
    (tmp_path / "a.tsv").write_text("x\t00000000000000ff\ny\t0000000000000f00\n")
    (tmp_path / "b.jsonl").write_text(
        '{"id": "t", "text": "' + TEXTS[0] + '"}\n'
        '{"id": "h", "html": "<html><body><p>' + TEXTS[1] + '</p></body></html>"}\n'
        '{"id": "f", "fp": "0123456789abcdef"}\n',
        encoding="utf-8",
    )
    with fpdb.Db.create(str(tmp_path / "db")) as db:
        summary = db.bulk_load(files=[tmp_path / "a.tsv", str(tmp_path / "b.jsonl")])
        assert summary["documents"] == 5
        assert db.get("x") == 0xFF
        assert db.get("t") == db.fingerprint(TEXTS[0])
        assert db.get("h") == db.fingerprint(TEXTS[1])
        assert db.get("f") == 0x0123456789ABCDEF


def test_a_bad_line_in_a_file_loads_nothing_and_names_the_line(tmp_path):
    (tmp_path / "bad.tsv").write_text("x\t00000000000000ff\ny\tnot-hex\n")
    with fpdb.Db.create(str(tmp_path / "db")) as db:
        with pytest.raises(fpdb.InvalidInputError, match=r"bad.tsv:2: invalid fingerprint"):
            db.bulk_load(files=[tmp_path / "bad.tsv"])
        assert db.get("x") is None
        with pytest.raises(fpdb.InvalidInputError, match="format"):
            db.bulk_load(files=[tmp_path / "bad.tsv"], format="csv")
