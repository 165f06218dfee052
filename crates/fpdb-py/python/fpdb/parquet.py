"""Databases to and from Parquet, the format Spark jobs read and write.

A file holds one row per document: ``id`` (string) and ``fingerprint``
(int64 holding the fingerprint's 64 bits, two's complement, the column
type ``fpdb.spark`` uses). Needs ``pyarrow``.

>>> import fpdb, fpdb.parquet, os, tempfile
>>> work = tempfile.mkdtemp()
>>> with fpdb.Db.create(os.path.join(work, "a.fpdb")) as db:
...     db.insert("https://a.example/", 2**64 - 1)
...     fpdb.parquet.export(db, os.path.join(work, "docs.parquet"))
1
>>> with fpdb.Db.create(os.path.join(work, "b.fpdb")) as db:
...     summary = fpdb.parquet.load(db, os.path.join(work, "docs.parquet"))
...     db.get("https://a.example/") == 2**64 - 1
True
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from fpdb.errors import InvalidInputError

if TYPE_CHECKING:
    from fpdb._fpdb import Db

SCHEMA = pa.schema([("id", pa.string(), False), ("fingerprint", pa.int64(), False)])

#: Rows written per Parquet row group.
ROWS_PER_GROUP = 1 << 20

#: Rows read per record batch by :func:`load`.
ROWS_PER_BATCH = 1 << 16


def export(db: Db, path: str | os.PathLike[str]) -> int:
    """Writes every document of ``db`` to the Parquet file ``path`` (in
    the order ``Db.export`` yields them) and returns how many."""
    written = 0
    with pq.ParquetWriter(os.fspath(path), SCHEMA) as writer:
        ids: list[str] = []
        fps: list[int] = []
        for doc_id, fp in db.export():
            ids.append(doc_id)
            fps.append(fp)
            if len(ids) == ROWS_PER_GROUP:
                writer.write_batch(_batch(ids, fps))
                written += len(ids)
                ids, fps = [], []
        if ids or not written:
            writer.write_batch(_batch(ids, fps))
            written += len(ids)
    return written


def load(
    db: Db,
    path: str | os.PathLike[str],
    *,
    id_col: str = "id",
    fp_col: str = "fingerprint",
    progress=None,
) -> dict[str, object]:
    """Bulk-loads the documents of a Parquet file or directory (as Spark
    writes them) into the empty ``db``: ``id_col`` strings and ``fp_col``
    fingerprints (int64 two's complement, or uint64). Reads one record
    batch at a time, so memory holds a batch, not the table. Returns
    ``Db.bulk_load``'s summary."""
    dataset = ds.dataset(os.fspath(path), format="parquet")
    schema = dataset.schema
    for name in (id_col, fp_col):
        if schema.get_field_index(name) < 0:
            raise InvalidInputError(f"{path}: no column {name!r} in {schema.names}")
    id_type, fp_type = schema.field(id_col).type, schema.field(fp_col).type
    if not pa.types.is_string(id_type) and not pa.types.is_large_string(id_type):
        raise InvalidInputError(f"{path}: column {id_col!r} is {id_type}, not string")
    if fp_type not in (pa.int64(), pa.uint64()):
        raise InvalidInputError(f"{path}: column {fp_col!r} is {fp_type}, not int64 or uint64")
    batches = dataset.to_batches(columns=[id_col, fp_col], batch_size=ROWS_PER_BATCH)
    documents = itertools.chain.from_iterable(_documents(path, batch) for batch in batches)
    return db.bulk_load(documents, progress=progress)


def _documents(path: str | os.PathLike[str], batch: pa.RecordBatch) -> Iterator[tuple[str, int]]:
    """The ``(id, fingerprint)`` pairs of one batch (its columns in the
    order load asked for them)."""
    ids, fps = batch.column(0), batch.column(1)
    if ids.null_count or fps.null_count:
        raise InvalidInputError(f"{path}: null ids or fingerprints cannot be loaded")
    values = fps.to_numpy(zero_copy_only=False).view(np.uint64)
    return zip(ids.to_pylist(), values.tolist())


def _batch(ids: list[str], fps: list[int]) -> pa.RecordBatch:
    values = np.array(fps, dtype=np.uint64).view(np.int64)
    return pa.RecordBatch.from_arrays(
        [pa.array(ids, type=pa.string()), pa.array(values, type=pa.int64())], schema=SCHEMA
    )
