"""A process forked from one that used fpdb (how `multiprocessing` starts
its workers on Linux) opens and queries a database read-only: it inherits
fpdb's worker pool but none of its threads, and works without them. It
cannot write (RocksDB's background threads are not inherited either), and
is told so rather than left hanging."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys

import pytest

import fpdb
from conftest import as_dict, brute_force, planted


def _in_child(path, fps, answers):
    with fpdb.Db.open(path, read_only=True) as db:
        single = [as_dict(db.query(fp)) for fp in fps]
        batch = db.query_many(fps)
        answers.put((single, [as_dict(batch.matches(i)) for i in range(len(fps))]))


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork here")
def test_a_forked_child_opens_and_queries(db_path, rng):
    stored = planted(rng, bases=200, copies=3, max_bits=3)
    docs = {f"d{i}": int(fp) for i, fp in enumerate(stored)}
    with fpdb.Db.create(db_path) as db:
        db.insert_many(list(docs), stored)
    fps = stored[:50].tolist()
    # The parent opens (reading the tables' directories on fpdb's worker
    # threads) and asks a batch, so its pool is running when it forks.
    with fpdb.Db.open(db_path, read_only=True) as db:
        db.query_many(fps)
    context = multiprocessing.get_context("fork")
    answers = context.Queue()
    child = context.Process(target=_in_child, args=(db_path, fps, answers))
    child.start()
    child.join(timeout=60)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child hung")
    assert child.exitcode == 0
    single, batch = answers.get(timeout=5)
    expected = [brute_force(docs, fp, 3) for fp in fps]
    assert single == expected
    assert batch == expected


# Run in a fresh interpreter, so that nothing else this test process
# opened decides what the parent has done before it forks.
_PARENT = """
import multiprocessing, sys
import fpdb

def write(path, answers):
    try:
        with fpdb.Db.create(path) as db:
            db.insert("a", 1)
        answers.put("created")
    except fpdb.Error as error:
        answers.put(f"{type(error).__name__}: {error}")

if __name__ == "__main__":
    db_path, child_path, parent_writes = sys.argv[1], sys.argv[2], sys.argv[3] == "write"
    if parent_writes:
        with fpdb.Db.create(db_path) as db:
            db.insert("a", 1)
    else:
        with fpdb.Db.open(db_path, read_only=True) as db:
            assert db.get("a") == 1
    context = multiprocessing.get_context("fork")
    answers = context.Queue()
    child = context.Process(target=write, args=(child_path, answers))
    child.start()
    child.join(timeout=60)
    if child.is_alive():
        child.kill()
        print("the forked child hung")
    else:
        print(answers.get(timeout=5))
"""


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork here")
@pytest.mark.parametrize("parent", ["write", "read"])
def test_a_forked_child_is_refused_a_writable_database(db_path, tmp_path, parent):
    if parent == "read":
        # Made by another process: the parent only reads it.
        with fpdb.Db.create(db_path) as db:
            db.insert("a", 1)
    script = tmp_path / "parent.py"
    script.write_text(_PARENT)
    run = subprocess.run(
        [sys.executable, str(script), db_path, str(tmp_path / "child"), parent],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    answer = run.stdout.strip()
    assert answer.startswith("Error: cannot open a database for writing in a process forked"), (
        answer
    )
    assert "spawn" in answer
