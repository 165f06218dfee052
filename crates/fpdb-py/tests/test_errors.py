"""Bad arguments raise TypeError or ValueError (or an fpdb.Error subclass)
with a message naming the problem, and nothing is stored."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import fpdb


@pytest.fixture
def db(db_path):
    with fpdb.Db.create(db_path) as handle:
        yield handle


@pytest.mark.parametrize("bad", [-1, 2**64, 2**100, -(2**63)])
def test_fingerprints_outside_64_bits_are_value_errors(db, bad):
    with pytest.raises(ValueError, match="outside 0..2\\*\\*64"):
        db.insert("x", bad)
    with pytest.raises(ValueError):
        db.query(bad)
    with pytest.raises(ValueError, match="element 1"):
        db.insert_many(["a", "b"], [1, bad])
    assert db.get("x") is None and db.get("a") is None


@pytest.mark.parametrize("bad", ["12", 1.5, None, b"\x01", True])
def test_fingerprints_of_other_types_are_type_errors(db, bad):
    with pytest.raises(TypeError):
        db.insert("x", bad)
    assert db.get("x") is None


def test_numpy_integers_are_fingerprints(db):
    db.insert("n", np.uint64(2**64 - 1))
    db.insert("m", np.int64(5))
    assert db.get("n") == 2**64 - 1 and db.get("m") == 5
    with pytest.raises(ValueError):
        db.insert("neg", np.int64(-5))


def test_ids_must_be_str_of_at_most_1_kib(db):
    with pytest.raises(TypeError):
        db.insert(17, 1)
    with pytest.raises(fpdb.InvalidInputError, match="1025 bytes"):
        db.insert("x" * 1025, 1)
    with pytest.raises(ValueError):  # InvalidInputError is a ValueError
        db.insert("", 1)
    db.insert("é" * 512, 1)  # 1,024 bytes of UTF-8
    assert db.get("é" * 512) == 1
    with pytest.raises(TypeError, match="not a single str"):
        db.remove_many("abc")
    with pytest.raises(TypeError, match=r"ids\[1\]"):
        db.insert_many(["a", 2], [1, 2])


def test_unpaired_surrogates_are_rejected_not_mangled(db):
    with pytest.raises(UnicodeEncodeError):
        db.insert("bad\udc80id", 1)
    with pytest.raises(UnicodeEncodeError):
        db.insert_text("id", "text \udc80")


def test_a_failed_batch_stores_nothing(db):
    with pytest.raises(fpdb.InvalidInputError):
        db.insert_many(["ok", "x" * 2000], [1, 2])
    assert db.get("ok") is None
    with pytest.raises(fpdb.InvalidInputError, match="2 ids but 1"):
        db.insert_many(["a", "b"], [1])


def test_radius_beyond_the_widest_and_negative_k(db):
    with pytest.raises(fpdb.InvalidInputError, match="k = 17"):
        db.query(1, k=17)
    with pytest.raises(ValueError):
        db.query(1, k=-1)
    with pytest.raises(ValueError):
        db.query_many([1, 2], k=64 + 1)


def test_arrays_must_be_one_dimensional(db):
    with pytest.raises(ValueError, match="one-dimensional"):
        db.query_many(np.zeros((2, 2), dtype=np.uint64))


def test_a_handle_is_not_picklable_but_its_config_is(db, db_path):
    with pytest.raises(TypeError, match="db.config"):
        pickle.dumps(db)
    config = pickle.loads(pickle.dumps(db.config))
    assert str(config.path) == db_path


def test_bulk_load_into_a_populated_database(db):
    db.insert("a", 1)
    with pytest.raises(fpdb.NotEmptyError):
        db.bulk_load(ids=["b"], fps=[2])
    # The handle is usable afterwards.
    assert db.get("a") == 1


def test_bulk_load_arguments(db):
    with pytest.raises(TypeError, match="ids with one of fps, texts and html"):
        db.bulk_load(ids=["a"])
    with pytest.raises(TypeError, match=r"documents\[1\]"):
        db.bulk_load([("a", 1), ("b",)])
