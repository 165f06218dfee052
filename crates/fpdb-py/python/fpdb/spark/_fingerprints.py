"""Fingerprints of a DataFrame's texts or pages, computed in the executors."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql.types import LongType, StructField, StructType

from fpdb import _fpdb
from fpdb.errors import InvalidInputError


def fingerprints(
    df: DataFrame,
    *,
    text_col: str | None = None,
    html_col: str | None = None,
    content_type_col: str | None = None,
    output_col: str = "fingerprint",
    extract: str = "main",
    tokenizer: str | None = None,
    weights: str | None = None,
) -> DataFrame:
    """``df`` with a fingerprint column (LongType, see ``fpdb.spark``)
    computed by fpdb's simhasher inside the executors, one Arrow batch at
    a time.

    Give ``text_col`` (str) or ``html_col`` (binary pages as received, or
    str); ``content_type_col`` optionally names each page's HTTP
    Content-Type, whose charset is used. ``extract``, ``tokenizer`` and
    ``weights`` mean what they mean for ``fpdb.Db.create``: pass the
    options your database was created with and the fingerprints agree
    with it. A null text or page, or a page that cannot be read as HTML
    (binary, above fpdb's size limit), gets a null fingerprint.
    """
    if (text_col is None) == (html_col is None):
        raise InvalidInputError("give exactly one of text_col and html_col")
    source = text_col if text_col is not None else html_col
    for name in (source, content_type_col):
        if name is not None and name not in df.columns:
            raise InvalidInputError(f"no column {name!r} in {df.columns}")
    if output_col in df.columns:
        raise InvalidInputError(f"column {output_col!r} already exists")
    # Bad option names fail here, on the driver, not in every executor.
    _fpdb.fingerprint("", tokenizer=tokenizer, weights=weights)
    _fpdb.page_text(b"", extract=extract)

    def compute(batches):
        for batch in batches:
            values = batch.column(source).to_pylist()
            present = [row for row, value in enumerate(values) if value is not None]
            fps = np.zeros(len(values), dtype=np.uint64)
            valid = np.zeros(len(values), dtype=bool)
            if present:
                items = [values[row] for row in present]
                if text_col is not None:
                    got = _fpdb.fingerprint_many(items, tokenizer=tokenizer, weights=weights)
                    readable = np.ones(len(items), dtype=bool)
                else:
                    types = None
                    if content_type_col is not None:
                        all_types = batch.column(content_type_col).to_pylist()
                        types = [all_types[row] for row in present]
                    got, readable = _fpdb.fingerprint_pages(
                        items, types, extract=extract, tokenizer=tokenizer, weights=weights
                    )
                fps[present] = got
                valid[present] = readable
            column = pa.array(fps.view(np.int64), mask=~valid, type=pa.int64())
            yield pa.RecordBatch.from_arrays(
                [*batch.columns, column], names=[*batch.schema.names, output_col]
            )

    schema = StructType([*df.schema.fields, StructField(output_col, LongType(), True)])
    return df.mapInArrow(compute, schema)
