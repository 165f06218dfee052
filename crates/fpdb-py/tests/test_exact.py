"""Every path answers exactly what brute force answers: single queries,
batches, pairs and in-memory dedup, after inserts, removes and bulk loads,
on planted near-duplicates, exact duplicates and the extreme fingerprints."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import fpdb
from conftest import as_dict, brute_force, near, planted, random_fps


@pytest.mark.parametrize("design", ["auto", "split-4", "split-5", "parts-2-3"])
def test_queries_equal_brute_force_after_inserts_and_removes(db_path, rng, design):
    fps = planted(rng, bases=150, copies=4, max_bits=4)
    model = {}
    with fpdb.Db.create(db_path, k=3, design=design, expected=len(fps)) as db:
        ids = [f"doc{i}" for i in range(len(fps))]
        db.insert_many(ids[:400], fps[:400])
        model.update(zip(ids[:400], (int(fp) for fp in fps[:400])))
        for doc_id, fp in zip(ids[400:], fps[400:]):
            db.insert(doc_id, int(fp))
            model[doc_id] = int(fp)
        for doc_id in ids[::7]:
            assert db.remove(doc_id) == model.pop(doc_id)
        # Re-inserting an id moves it to its new fingerprint (removed
        # ids among them come back).
        for position in range(1, len(ids), 11):
            doc_id = ids[position]
            moved = near(rng, int(fps[position]), 2)
            db.insert(doc_id, moved)
            model[doc_id] = moved

        queries = [int(fp) for fp in fps[::3]] + [near(rng, int(fp), 3) for fp in fps[1::5]]
        queries += [0, 2**64 - 1]
        # Past the database's k (3), queries probe neighbouring prefixes.
        for k in range(4, 9, 2):
            for query in queries[::4]:
                assert as_dict(db.query(query, k=k)) == brute_force(model, query, k), (query, k)
            batch = db.query_many(np.array(queries[::4], dtype=np.uint64), k=k)
            for position, query in enumerate(queries[::4]):
                assert as_dict(batch.matches(position)) == brute_force(model, query, k)
        for k in range(4):
            for query in queries:
                assert as_dict(db.query(query, k=k)) == brute_force(model, query, k), (query, k)
            batch = db.query_many(np.array(queries, dtype=np.uint64), k=k)
            for position, query in enumerate(queries):
                assert as_dict(batch.matches(position)) == brute_force(model, query, k)
            # The flat arrays say the same as the per-query matches.
            rows = list(zip(batch.query_index.tolist(), batch.fingerprint.tolist()))
            expected_rows = [
                (position, m.fingerprint)
                for position in range(len(queries))
                for m in batch.matches(position)
            ]
            assert sorted(rows) == sorted(expected_rows)
            assert all(
                batch.ids(row) == brute_force(model, queries[q], k)[fp]
                for row, (q, fp) in enumerate(zip(batch.query_index, batch.fingerprint.tolist()))
            )

        db.compact()
        for query in queries[:50]:
            assert as_dict(db.query(query)) == brute_force(model, query, 3)
        assert db.verify()["clean"]


def test_results_survive_reopening(db_path, rng):
    fps = planted(rng, bases=50, copies=3, max_bits=3)
    model = {f"u{i}": int(fp) for i, fp in enumerate(fps)}
    with fpdb.Db.create(db_path) as db:
        db.insert_many(list(model), fps)
    with fpdb.Db.open(db_path, read_only=True) as db:
        for fp in fps[::4]:
            assert as_dict(db.query(int(fp))) == brute_force(model, int(fp), 3)
        assert dict(db.export()) == model


def brute_force_pairs(fps, k):
    return {
        (a, b, bin(int(fps[a]) ^ int(fps[b])).count("1"))
        for a, b in itertools.combinations(range(len(fps)), 2)
        if bin(int(fps[a]) ^ int(fps[b])).count("1") <= k
    }


@pytest.mark.parametrize("k", [0, 1, 3, 5])
def test_dedup_pairs_equal_brute_force(rng, k):
    fps = planted(rng, bases=60, copies=3, max_bits=k + 1)
    a, b, distance = fpdb.dedup(fps, k=k)
    assert a.dtype == np.uint64 and distance.dtype == np.uint8
    found = set(zip(a.tolist(), b.tolist(), distance.tolist()))
    assert len(found) == len(a)
    assert found == brute_force_pairs(fps, k)
    # A list of ints is the same input as the array.
    assert fpdb.dedup([int(fp) for fp in fps], k=k)[0].tolist() == a.tolist()


def test_dedup_clusters_are_the_connected_components(rng):
    fps = planted(rng, bases=40, copies=2, max_bits=3)
    pairs = brute_force_pairs(fps, 3)
    # Components by repeated merging of the brute-force pairs.
    label = list(range(len(fps)))

    def root(i):
        while label[i] != i:
            i = label[i]
        return i

    for a, b, _ in pairs:
        label[root(a)] = root(b)
    groups = {}
    for i in range(len(fps)):
        groups.setdefault(root(i), []).append(i)
    expected = sorted(members for members in groups.values() if len(members) > 1)
    assert sorted(fpdb.dedup(fps, k=3, clusters=True)) == expected


def test_near_pairs_of_a_database_equal_brute_force(db_path, rng):
    fps = planted(rng, bases=80, copies=3, max_bits=4)
    ids = [f"p{i}" for i in range(len(fps))]
    with fpdb.Db.create(db_path, k=3) as db:
        db.bulk_load(ids=ids, fps=fps)
        pairs = db.near_pairs()
        found_id_pairs = {tuple(sorted(pair)) for pair in pairs.id_pairs()}
        expected = {tuple(sorted((ids[a], ids[b]))) for a, b, _ in brute_force_pairs(fps, 3)}
        assert found_id_pairs == expected
        # Fingerprint pairs: each once, a <= b, distance right.
        for a, b, d in zip(pairs.a.tolist(), pairs.b.tolist(), pairs.distance.tolist()):
            assert a <= b and bin(a ^ b).count("1") == d <= 3
        # Clusters of ids cover exactly the ids in some pair.
        clustered = {doc for _, members in db.clusters() for doc in members}
        assert clustered == {doc for pair in expected for doc in pair}


def test_bulk_loaded_database_answers_like_brute_force(db_path, rng):
    fps = np.concatenate([planted(rng, bases=100, copies=3, max_bits=3), random_fps(rng, 2000)])
    ids = [f"b{i}" for i in range(len(fps))]
    model = dict(zip(ids, (int(fp) for fp in fps)))
    with fpdb.Db.create(db_path, k=3) as db:
        summary = db.bulk_load(ids=ids, fps=fps)
        assert summary["documents"] == len(ids)
        assert summary["ids"] == len(ids)
        queries = np.concatenate([fps[:300], random_fps(rng, 100)])
        batch = db.query_many(queries)
        for position, query in enumerate(queries.tolist()):
            assert as_dict(batch.matches(position)) == brute_force(model, query, 3)
