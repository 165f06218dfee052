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

import os
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from fpdb.errors import InvalidInputError

if TYPE_CHECKING:
    from fpdb._fpdb import Db

SCHEMA = pa.schema([("id", pa.string(), False), ("fingerprint", pa.int64(), False)])

#: Rows written per Parquet row group.
ROWS_PER_GROUP = 1 << 20


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
    fingerprints (int64 two's complement, or uint64). Returns
    ``Db.bulk_load``'s summary."""
    table = pq.read_table(os.fspath(path), columns=[id_col, fp_col])
    ids, fps = table.column(id_col), table.column(fp_col)
    if ids.null_count or fps.null_count:
        raise InvalidInputError(f"{path}: null ids or fingerprints cannot be loaded")
    if not pa.types.is_string(ids.type) and not pa.types.is_large_string(ids.type):
        raise InvalidInputError(f"{path}: column {id_col!r} is {ids.type}, not string")
    if fps.type not in (pa.int64(), pa.uint64()):
        raise InvalidInputError(f"{path}: column {fp_col!r} is {fps.type}, not int64 or uint64")
    values = fps.to_numpy().view(np.uint64)
    return db.bulk_load(ids=ids.to_pylist(), fps=values, progress=progress)


def _batch(ids: list[str], fps: list[int]) -> pa.RecordBatch:
    values = np.array(fps, dtype=np.uint64).view(np.int64)
    return pa.RecordBatch.from_arrays(
        [pa.array(ids, type=pa.string()), pa.array(values, type=pa.int64())], schema=SCHEMA
    )
