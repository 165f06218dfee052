"""Shared fixtures: a fresh database path, a seeded random generator and
one Spark session for the whole run."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "test.fpdb")


@pytest.fixture
def rng():
    return np.random.default_rng(20261124)


@pytest.fixture(scope="session")
def spark():
    """Spark in local mode, started once for every module that uses it."""
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("fpdb-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def random_fps(rng, n):
    """n uniform 64-bit fingerprints as a uint64 array."""
    return rng.integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False)


def near(rng, fp, max_bits):
    """fp with between 0 and max_bits random bits flipped."""
    flips = rng.choice(64, size=int(rng.integers(0, max_bits + 1)), replace=False)
    mask = 0
    for bit in flips:
        mask |= 1 << int(bit)
    return int(fp) ^ mask


def planted(rng, bases, copies, max_bits):
    """Random bases, each with near copies within max_bits, plus the
    extremes 0 and 2**64 - 1 and an exact duplicate of a base."""
    fps = [int(fp) for fp in random_fps(rng, bases)]
    out = []
    for fp in fps:
        out.append(fp)
        out.extend(near(rng, fp, max_bits) for _ in range(copies))
    out.extend([0, 1, 2**64 - 1, 2**64 - 2, out[0]])
    return np.array(out, dtype=np.uint64)


def brute_pairs(fingerprints, k, prefix="d"):
    """Every pair of documents within k, by comparing all of them: the
    i-th fingerprint's id is prefix and i in six digits."""
    values = [int(fp) for fp in fingerprints]
    return {
        (f"{prefix}{i:06d}", f"{prefix}{j:06d}", bin(values[i] ^ values[j]).count("1"))
        for i in range(len(values))
        for j in range(i + 1, len(values))
        if bin(values[i] ^ values[j]).count("1") <= k
    }


def brute_clusters(pairs):
    """{id: representative} for every id in some pair, the representative
    being the smallest id of its connected component."""
    parent = {}

    def root(x):
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for a, b, _ in pairs:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    return {x: root(x) for x in parent}


def distances(stored, fp):
    """Hamming distance of every stored fingerprint to fp."""
    return np.bitwise_count(np.bitwise_xor(stored, np.uint64(fp)))


def brute_force(stored_by_id, fp, k):
    """{fingerprint: sorted ids} of every stored document within k of fp."""
    found = {}
    for doc_id, stored in stored_by_id.items():
        if bin(stored ^ fp).count("1") <= k:
            found.setdefault(stored, []).append(doc_id)
    return {stored: sorted(ids, key=lambda i: i.encode()) for stored, ids in found.items()}


def as_dict(matches):
    return {m.fingerprint: m.ids for m in matches}
