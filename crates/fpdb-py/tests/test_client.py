"""fpdb.Client against real ``fpdb serve`` processes: answers as a brute-force
scan and as fpdb.Db gives them, the same exceptions, tokens, and crawler
processes racing to store one page."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest
from serving import served

import fpdb
from conftest import as_dict, brute_force, near, planted

WRITER = "writer-token-0123456789"
READER = "reader-token-0123456789"


@pytest.fixture
def server_url(tmp_path):
    path = str(tmp_path / "served.fpdb")
    fpdb.Db.create(path, k=3, expected=100_000).close()
    with served(path) as url:
        yield url


def test_client_answers_as_a_brute_force_scan(server_url, rng):
    fps = planted(rng, 300, 3, 3)
    ids = [f"doc-{i}" for i in range(len(fps))]
    stored = dict(zip(ids, (int(fp) for fp in fps)))
    with fpdb.Client(server_url) as client:
        client.insert_many(ids, fps)
        probes = [int(fp) for fp in fps[:200]] + [near(rng, fps[0], 4), 0, 2**64 - 1]
        for k in (0, 3):
            for fp in probes:
                assert as_dict(client.query(fp, k)) == brute_force(stored, fp, k)
            batch = client.query_many(np.array(probes, dtype=np.uint64), k)
            assert batch.queries == len(probes)
            for index, fp in enumerate(probes):
                assert as_dict(batch.matches(index)) == brute_force(stored, fp, k)
            rows = batch.query_index
            assert len(rows) == len(batch) == sum(len(brute_force(stored, fp, k)) for fp in probes)
            for row in range(0, len(batch), 97):
                query = int(rows[row])
                found = brute_force(stored, probes[query], k)
                assert batch.ids(row) == found[int(batch.fingerprint[row])]
                stored_fp = int(batch.fingerprint[row])
                assert batch.distance[row] == bin(probes[query] ^ stored_fp).count("1")

        for i in range(100):
            doc_id = f"doc-{i * 7}" if i % 4 == 0 else f"new-{i}"
            fp = near(rng, fps[i], 2)
            checked = client.check_and_insert(doc_id, fp)
            expected = brute_force({d: f for d, f in stored.items() if d != doc_id}, fp, 3)
            assert as_dict(checked.matches) == expected
            assert checked.previous == stored.get(doc_id)
            assert checked.fingerprint == fp
            assert checked.is_duplicate == bool(expected)
            stored[doc_id] = fp

        assert client.get("doc-1") == stored["doc-1"]
        assert client.get("never") is None
        assert client.remove("doc-1") == stored.pop("doc-1")
        assert client.remove("doc-1") is None
        assert client.remove_many(["doc-2", "doc-3", "never"]) == 2
        del stored["doc-2"], stored["doc-3"]
        stats = client.stats()
        assert stats["ids"] == len(stored)
        assert stats["fingerprints"] == len(set(stored.values()))
        assert client.k == 3


def test_client_gives_what_db_gives(server_url, tmp_path):
    page = (
        "<html><body><article><p>今年春天雨水充足，山区的茶农们比往年提前十天开始采摘新茶。"
        "合作社负责人介绍，新建的加工车间让鲜叶当天就能完成杀青和揉捻。</p></article></body></html>"
    )
    gbk = page.encode("gbk")
    text = "The quick brown fox jumps over the lazy dog by the river bank."
    calls = [
        ("a", {"fp": 0x0123456789ABCDEF}),
        ("b", {"text": text}),
        ("c", {"html": page.encode()}),
        ("d", {"html": gbk, "content_type": "text/html; charset=gbk"}),
        # A str page is already decoded: its declared charset is ignored.
        ("e", {"html": page.replace("<html>", "<html><head><meta charset=gbk></head>")}),
        ("a", {"fp": 0x0123456789ABCDEE}),
        ("f", {"text": text + " Again."}),
    ]
    with (
        fpdb.Db.create(str(tmp_path / "local.fpdb"), k=3, expected=100_000) as db,
        fpdb.Client(server_url) as client,
    ):
        for doc_id, document in calls:
            local = db.check_and_insert(doc_id, **document)
            remote = client.check_and_insert(doc_id, **document)
            assert remote.fingerprint == local.fingerprint, doc_id
            assert remote.previous == local.previous, doc_id
            assert remote.matches == local.matches, doc_id
            assert repr(remote) == repr(local)
        # The older positional spelling: the same answer, the same warning.
        for target in (db, client):
            with pytest.warns(DeprecationWarning, match="text="):
                checked = target.check_and_insert("g", text + " Once more.")
            assert checked.fingerprint == db.fingerprint(text=text + " Once more.")
        for doc_id in "abcdefg":
            assert client.get(doc_id) == db.get(doc_id)
            assert client.query(db.get(doc_id)) == db.query(db.get(doc_id))
        assert client.query_text(text) == db.query_text(text)
        assert client.insert_text("h", text) == db.insert_text("h", text)
        client_stats, db_stats = client.stats(), db.stats()
        for key in ("ids", "fingerprints", "k", "design", "simhash", "extract"):
            assert client_stats[key] == db_stats[key], key


def test_client_raises_what_db_raises(server_url, tmp_path):
    with (
        fpdb.Db.create(str(tmp_path / "local.fpdb"), k=3) as db,
        fpdb.Client(server_url) as client,
    ):
        for target in (db, client):
            with pytest.raises(fpdb.InvalidInputError):
                target.query(1, k=17)
            with pytest.raises(fpdb.InvalidInputError):
                target.check_and_insert("a", 1, k=17)
            with pytest.raises(fpdb.InvalidInputError):
                target.insert("", 1)
            with pytest.raises(fpdb.InvalidInputError):
                target.check_and_insert("x" * (fpdb.MAX_ID_BYTES + 1), 1)
            with pytest.raises(TypeError):
                target.insert("a", True)
            with pytest.raises(TypeError):
                target.insert("a", "text")
            with pytest.raises(ValueError):
                target.query(2**64)
            with pytest.raises(fpdb.InvalidInputError):
                target.insert_many(["a", "b"], [1])
            target.close()
            with pytest.raises(fpdb.ClosedError):
                target.get("a")


def test_tokens_and_read_only_servers(tmp_path):
    path = str(tmp_path / "tokens.fpdb")
    fpdb.Db.create(path, k=3).close()
    tokens = tmp_path / "tokens"
    tokens.write_text(f"read-write {WRITER}\nread-only {READER}\n")
    with served(path, "--token-file", str(tokens)) as url:
        with fpdb.Client(url) as anonymous:
            with pytest.raises(fpdb.Error, match="token"):
                anonymous.insert("a", 1)
        with fpdb.Client(url, token=READER) as reader:
            with pytest.raises(fpdb.ReadOnlyError):
                reader.check_and_insert("a", 1)
            assert reader.stats()["ids"] == 0
        with fpdb.Client(url, token=WRITER) as writer:
            writer.insert("a", 1)
        with fpdb.Client(url, token=READER) as reader:
            assert reader.get("a") == 1
    with served(path, "--read-only") as url, fpdb.Client(url) as client:
        assert client.get("a") == 1
        with pytest.raises(fpdb.ReadOnlyError):
            client.remove("a")


def _race(url: str, barrier, worker: int, fps: list[int], answers) -> None:
    with fpdb.Client(url) as client:
        client.stats()  # connected before the first race
        for round_, fp in enumerate(fps):
            barrier.wait()
            checked = client.check_and_insert(f"r{round_}-p{worker}", fp)
            answers.put((round_, worker, len(checked.matches)))


def test_of_processes_racing_to_store_one_page_exactly_one_sees_nothing(server_url, rng):
    context = multiprocessing.get_context("spawn")
    processes, rounds = 6, 10
    # Each round's page, and each process's near-duplicate of it (within
    # 1 bit, so within 2 of every other: k is 3).
    pages = [int(rng.integers(0, 2**63)) for _ in range(rounds)]
    barrier = context.Barrier(processes)
    answers = context.Queue()
    workers = [
        context.Process(
            target=_race,
            args=(server_url, barrier, p, [near(rng, page, 1) for page in pages], answers),
        )
        for p in range(processes)
    ]
    for worker in workers:
        worker.start()
    seen: dict[int, list[int]] = {}
    for _ in range(processes * rounds):
        round_, _worker, matches = answers.get(timeout=120)
        seen.setdefault(round_, []).append(matches)
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    for round_, matches in seen.items():
        assert matches.count(0) == 1, (round_, matches)


def test_backup_while_serving_gives_what_db_backup_gives(tmp_path):
    path = str(tmp_path / "served.fpdb")
    fpdb.Db.create(path, k=3).close()
    backups = tmp_path / "backups"
    tokens = tmp_path / "tokens"
    tokens.write_text(f"read-write {WRITER}\nread-only {READER}\n")
    ids = [f"doc-{i}" for i in range(500)]
    fps = [i * 0x9E3779B97F4A7C15 % 2**64 for i in range(500)]
    with served(path, "--backup-dir", str(backups), "--token-file", str(tokens)) as url:
        with fpdb.Client(url, token=WRITER) as client:
            client.insert_many(ids[:400], fps[:400])
            made = client.backup("first")
            client.insert_many(ids[400:], fps[400:])
            with pytest.raises(fpdb.AlreadyExistsError):
                client.backup("first")
            with pytest.raises(fpdb.InvalidInputError):
                client.backup("../outside")
        with fpdb.Client(url, token=READER) as reader, pytest.raises(fpdb.ReadOnlyError):
            reader.backup("second")
    with fpdb.Db.open(path, read_only=True) as db:
        local = db.backup(str(tmp_path / "local-copy"))
    assert set(made) == set(local) == {"path", "method", "bytes"}
    assert made["method"] == "checkpoint"
    assert made["path"] == str(backups / "first")
    assert isinstance(made["bytes"], int) and made["bytes"] > 0
    # The copy holds what was answered before it, and nothing after.
    with fpdb.Db.open(made["path"], read_only=True) as copy:
        assert copy.stats()["ids"] == 400
        assert copy.get("doc-399") == fps[399]
        assert copy.get("doc-400") is None
    with served(path) as url, fpdb.Client(url) as client:
        with pytest.raises(fpdb.Error, match="backup-dir"):
            client.backup("third")
