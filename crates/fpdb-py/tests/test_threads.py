"""Many Python threads on one handle: queries run while another thread
inserts, and every answer is exact for some moment of the writes."""

from __future__ import annotations

import threading

import numpy as np

import fpdb
from conftest import as_dict, brute_force, planted


def test_queries_from_threads_while_another_inserts(db_path, rng):
    stable = planted(rng, bases=100, copies=3, max_bits=3)
    stable_docs = {f"s{i}": int(fp) for i, fp in enumerate(stable)}
    # The writer adds fingerprints far (> 3 bits) from every stable one, so
    # the stable answers cannot change while it writes.
    fresh = []
    while len(fresh) < 2000:
        fp = int(rng.integers(0, 2**64, dtype=np.uint64))
        if np.bitwise_count(np.bitwise_xor(stable, np.uint64(fp))).min() > 6:
            fresh.append(fp)
    expected = {fp: brute_force(stable_docs, int(fp), 3) for fp in stable.tolist()}
    errors = []

    with fpdb.Db.create(db_path, k=3) as db:
        db.insert_many(list(stable_docs), stable)
        done = threading.Event()

        def write():
            try:
                for i, fp in enumerate(fresh):
                    db.insert(f"w{i}", fp)
                    if i % 500 == 0:
                        db.remove(f"w{i}")
            except Exception as error:  # noqa: BLE001 - reported below
                errors.append(error)
            finally:
                done.set()

        def read(seed):
            local = np.random.default_rng(seed)
            try:
                rounds = 0
                while not done.is_set() or rounds < 3:
                    rounds += 1
                    picks = local.choice(stable, size=50)
                    for fp in picks.tolist():
                        if as_dict(db.query(fp)) != expected[fp]:
                            errors.append(AssertionError(f"query {fp:#x}"))
                    batch = db.query_many(picks)
                    for position, fp in enumerate(picks.tolist()):
                        if as_dict(batch.matches(position)) != expected[fp]:
                            errors.append(AssertionError(f"batch {fp:#x}"))
            except Exception as error:  # noqa: BLE001 - reported below
                errors.append(error)

        threads = [threading.Thread(target=write)]
        threads += [threading.Thread(target=read, args=(seed,)) for seed in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        # Every write landed.
        written = {f"w{i}": fp for i, fp in enumerate(fresh) if i % 500 != 0}
        assert all(db.get(doc) == fp for doc, fp in written.items())
        assert db.verify()["clean"]


def test_two_threads_checking_the_same_new_page_see_each_other(db_path):
    # check_and_insert is atomic with other writers: of two crawler threads
    # storing near-copies at once, exactly one sees the other.
    for round_ in range(20):
        path = f"{db_path}-{round_}"
        with fpdb.Db.create(path) as db:
            results = {}
            barrier = threading.Barrier(2)

            def check(name, fp, db=db, barrier=barrier, results=results):
                barrier.wait()
                results[name] = db.check_and_insert(name, fp)

            threads = [
                threading.Thread(target=check, args=("a", 0b1010)),
                threading.Thread(target=check, args=("b", 0b1011)),
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            seen = sorted(len(checked.matches) for checked in results.values())
            assert seen == [0, 1]
