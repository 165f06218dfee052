"""The handle: creating, opening, closing, locking, read-only use, and what
check_and_insert tells a crawler."""

from __future__ import annotations

import os
import threading

import pytest

import fpdb


def test_create_then_open_keeps_the_options(db_path):
    with fpdb.Db.create(db_path, k=4, design="split-5", tokenizer="chars:3", weights="tf") as db:
        assert db.k == 4 and db.design == "split-5"
        fp = db.insert_text("a", "一段用来测试的中文文字")
    with fpdb.Db.open(db_path) as db:
        assert db.k == 4
        assert db.stats()["simhash"] == "tokenizer=chars:3 weights=tf"
        assert db.fingerprint("一段用来测试的中文文字") == fp
        assert fp == fpdb.fingerprint("一段用来测试的中文文字", tokenizer="chars:3", weights="tf")


def test_open_and_create_name_what_is_wrong(db_path, tmp_path):
    with pytest.raises(fpdb.NotFoundError):
        fpdb.Db.open(db_path)
    fpdb.Db.create(db_path).close()
    with pytest.raises(fpdb.AlreadyExistsError):
        fpdb.Db.create(db_path)
    with fpdb.Db.create(db_path, exist_ok=True) as db:
        assert db.k == 3
    with pytest.raises(fpdb.InvalidInputError):
        fpdb.Db.create(str(tmp_path / "other"), design="no-such-design")
    with pytest.raises(fpdb.InvalidInputError):
        fpdb.Db.create(str(tmp_path / "other2"), tokenizer="chars:99")


def test_a_second_writer_is_locked_out_but_readers_are_not(db_path):
    with fpdb.Db.create(db_path) as writer:
        writer.insert("a", 1)
        writer.flush()
        with pytest.raises(fpdb.LockedError):
            fpdb.Db.open(db_path)
        with fpdb.Db.open(db_path, read_only=True) as reader:
            assert reader.get("a") == 1
            with pytest.raises(fpdb.ReadOnlyError):
                reader.insert("b", 2)


def test_closed_handles_raise_and_release_the_lock(db_path):
    db = fpdb.Db.create(db_path)
    db.close()
    assert db.closed
    with pytest.raises(fpdb.ClosedError):
        db.query(1)
    db.close()  # closing twice is harmless
    with fpdb.Db.open(db_path) as again:
        assert again.get("missing") is None


def test_insert_get_remove(db_path):
    with fpdb.Db.create(db_path) as db:
        db.insert("x", 2**64 - 1)
        assert db.get("x") == 2**64 - 1
        db.insert("x", 0)
        assert db.get("x") == 0
        assert db.remove("x") == 0
        assert db.remove("x") is None
        db.insert_many(["a", "b", "c"], [1, 2, 3])
        assert db.remove_many(["a", "c", "zz"]) == 2
        assert [m.ids for m in db.query(2, k=0)] == [["b"]]


def test_check_and_insert_never_reports_the_id_itself(db_path):
    with fpdb.Db.create(db_path) as db:
        first = db.check_and_insert("https://a/1", 0xF0F0)
        assert first.matches == [] and first.previous is None and not first.is_duplicate
        # A re-crawl of the same page, unchanged: no duplicate of itself,
        # and the previous fingerprint says it did not change.
        again = db.check_and_insert("https://a/1", 0xF0F0)
        assert again.matches == [] and again.previous == 0xF0F0
        # The same page under another URL is a near-duplicate of the first.
        mirror = db.check_and_insert("https://b/1", 0xF0F1)
        assert [(m.fingerprint, m.distance, m.ids) for m in mirror.matches] == [
            (0xF0F0, 1, ["https://a/1"])
        ]
        # The first page changes a little: previous tells the crawler so,
        # and the mirror is still found.
        changed = db.check_and_insert("https://a/1", 0xF0F3)
        assert changed.previous == 0xF0F0
        assert [m.ids for m in changed.matches] == [["https://b/1"]]
        # Text is fingerprinted with the database's options.
        by_text = db.check_and_insert("https://c/1", text="今天北京天气晴朗，适合出门散步。")
        assert by_text.fingerprint == db.fingerprint("今天北京天气晴朗，适合出门散步。")
        assert db.get("https://c/1") == by_text.fingerprint


def test_query_text_uses_the_database_options(db_path):
    with fpdb.Db.create(db_path) as db:
        fp = db.insert_text("a", "城市的夜晚灯火通明，街道上行人来来往往。")
        assert [m.ids for m in db.query_text("城市的夜晚灯火通明，街道上行人来来往往。")] == [["a"]]
        assert db.query(fp, k=0)[0].distance == 0


def test_stats_and_verify(db_path):
    with fpdb.Db.create(db_path) as db:
        db.insert_many([f"d{i}" for i in range(100)], list(range(100)))
        stats = db.stats()
        assert stats["ids"] == 100 and stats["fingerprints"] == 100
        assert len(stats["tables"]) >= 4
        report = db.verify()
        assert report["clean"] and report["ids"] == 100 and report["problems"] == []


def test_export_streams_every_document(db_path):
    docs = {f"id{i:05d}": i * 7919 for i in range(10_000)}
    with fpdb.Db.create(db_path) as db:
        db.insert_many(list(docs), list(docs.values()))
        exported = list(db.export())
    assert exported == sorted(docs.items())


def test_closing_stops_a_half_read_export(db_path):
    with fpdb.Db.create(db_path) as db:
        db.insert_many([f"id{i:05d}" for i in range(50_000)], list(range(50_000)))
    db = fpdb.Db.open(db_path)
    partial = db.export()
    assert next(partial) == ("id00000", 0)
    db.close()
    # The reader thread let go of the database: it opens for writing again.
    with fpdb.Db.open(db_path) as again:
        assert again.get("id00001") == 1
    with pytest.raises(fpdb.ClosedError):
        for _ in partial:
            pass


def test_backup_while_a_thread_writes_holds_every_acknowledged_write(db_path, tmp_path):
    stop = threading.Event()
    acknowledged = [0]
    with fpdb.Db.create(db_path) as db:

        def write():
            i = 0
            while not stop.is_set():
                db.insert(f"doc-{i}", i * 0x9E3779B97F4A7C15 % 2**64)
                i += 1
                acknowledged[0] = i

        writer = threading.Thread(target=write)
        writer.start()
        while acknowledged[0] < 1_000:
            stop.wait(0.005)
        before = acknowledged[0]
        backup = db.backup(tmp_path / "backup")
        # A reader of the live database that replays the writer's log sees
        # what was acknowledged before it opened, and backs that up as a copy.
        seen = acknowledged[0]
        with fpdb.Db.open(db_path, read_only=True, replay_log=True) as reader:
            copy = reader.backup(str(tmp_path / "copy"))
        stop.set()
        writer.join()
        with pytest.raises(fpdb.AlreadyExistsError):
            db.backup(tmp_path / "backup")
    assert backup["method"] == "checkpoint" and backup["bytes"] > 0
    assert copy["method"] == "copy" and copy["path"] == str(tmp_path / "copy")
    for path, at_least in [(tmp_path / "backup", before), (tmp_path / "copy", seen)]:
        with fpdb.Db.open(path) as restored:
            assert restored.verify()["clean"]
            held = dict(restored.export())
        assert len(held) >= at_least
        assert held == {f"doc-{i}": i * 0x9E3779B97F4A7C15 % 2**64 for i in range(len(held))}


def test_verify_at_names_damage_and_repair_mends_it(db_path):
    docs = {f"doc{i:05d}": i * 0x9E3779B97F4A7C15 % 2**64 for i in range(20_000)}
    with fpdb.Db.create(db_path) as db:
        db.bulk_load(list(docs.items()))
    assert fpdb.Db.verify_at(db_path)["clean"]
    assert fpdb.Db.repair(db_path)["damage"] == []
    # Flip bytes in the middle of the largest table file of the store.
    largest = max(
        (os.path.join(db_path, name) for name in os.listdir(db_path) if name.endswith(".sst")),
        key=os.path.getsize,
    )
    data = bytearray(open(largest, "rb").read())
    middle = len(data) // 2
    data[middle : middle + 64] = bytes(b ^ 0xFF for b in data[middle : middle + 64])
    open(largest, "wb").write(data)
    report = fpdb.Db.verify_at(db_path)
    assert not report["clean"] and os.path.basename(largest) in "\n".join(report["problems"])
    repaired = fpdb.Db.repair(db_path)
    assert repaired["damage"] and repaired["documents"] == len(docs)
    assert repaired["lost_fingerprints"] == [] and os.path.isdir(repaired["damaged_copy"])
    assert fpdb.Db.verify_at(db_path)["clean"]
    with fpdb.Db.open(db_path, read_only=True) as db:
        assert dict(db.export()) == docs


def test_stats_say_what_the_ids_take_on_disk(db_path):
    with fpdb.Db.create(db_path) as db:
        assert db.stats()["ids_disk_bytes"] == 0
        ids = [f"https://news.example.com/2024/05/{i}.html" for i in range(2000)]
        db.insert_many(ids, [i * 0x9E3779B97F4A7C15 % 2**64 for i in range(2000)])
        db.compact()
        on_disk = db.stats()["ids_disk_bytes"]
        # Both id families, compressed: more than nothing, less than the
        # two uncompressed copies of every id.
        assert 0 < on_disk < 2 * sum(len(i) for i in ids)
