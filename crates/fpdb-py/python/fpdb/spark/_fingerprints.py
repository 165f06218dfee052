"""Fingerprints of a DataFrame's texts or pages, computed in the executors."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql.types import BinaryType, LongType, StructField, StructType

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
    confirm: bool = False,
    signature_col: str = "signature",
    learn_from: Sequence[str] | None = None,
    confirm_weak_bits: int | None = None,
    confirm_min_shared: int | None = None,
    confirm_numbers_from: int | None = None,
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

    ``confirm=True`` also adds ``signature_col`` (binary): the bytes a
    database created with ``confirm=True`` (and the same
    ``confirm_weak_bits`` and ``confirm_min_shared``, defaults 6 and 7)
    stores for each document, as ``fpdb.Signer.documents`` makes them:
    its 32-byte confirming signature, then its count of distinct
    shingles (2 bytes, unless ``confirm_min_shared=0``) and its weak bits
    (8 bytes, unless ``confirm_weak_bits=0``), for the match rule of
    :func:`near_duplicate_pairs` and :func:`query`. ``learn_from`` (texts,
    read on the driver) teaches what ``Db.create(..., learn_from=)``
    learns: the features common to a site's template, left out of
    signatures, and with ``weights="learned"`` every word's weight. Under
    ``confirm=True`` or learned weights, a text without features gets a
    null fingerprint (a confirming ``fpdb.dedup`` leaves it out), and one
    with only common features a null signature (it is matched by
    distance alone). A text of at least ``confirm_numbers_from`` percent
    digits (default 20, as for ``Db.create``) is signed with its numbers.
    """
    if (text_col is None) == (html_col is None):
        raise InvalidInputError("give exactly one of text_col and html_col")
    source = text_col if text_col is not None else html_col
    for name in (source, content_type_col):
        if name is not None and name not in df.columns:
            raise InvalidInputError(f"no column {name!r} in {df.columns}")
    new_columns = [output_col, signature_col] if confirm else [output_col]
    for name in new_columns:
        if name in df.columns:
            raise InvalidInputError(f"column {name!r} already exists")
    if len(set(new_columns)) != len(new_columns):
        raise InvalidInputError("output_col and signature_col must differ")
    # Bad options fail here, on the driver, not in every executor.
    _fpdb.page_text(b"", extract=extract)
    confirm_options = (confirm_weak_bits, confirm_min_shared, confirm_numbers_from)
    if not confirm and any(option is not None for option in confirm_options):
        raise InvalidInputError(
            "confirm_weak_bits, confirm_min_shared and confirm_numbers_from need confirm=True"
        )
    if confirm or weights == "learned":
        signer = _fpdb.Signer(tokenizer=tokenizer, weights=weights, learn_from=learn_from)
        stored = {
            "confirm_weak_bits": (
                _fpdb.CONFIRM_WEAK_BITS if confirm_weak_bits is None else confirm_weak_bits
            ),
            "confirm_min_shared": (
                _fpdb.CONFIRM_MIN_SHARED if confirm_min_shared is None else confirm_min_shared
            ),
            "confirm_numbers_from": confirm_numbers_from,
        }
        signer.documents([], **stored)
        return _signed(
            df,
            signer,
            stored,
            source,
            text_col is not None,
            content_type_col,
            extract,
            output_col,
            signature_col if confirm else None,
        )
    if learn_from is not None:
        raise InvalidInputError(
            'learn_from: nothing to learn without weights="learned" or confirm=True'
        )
    _fpdb.fingerprint("", tokenizer=tokenizer, weights=weights)

    def compute(batches):
        for batch in batches:
            rows, present, items, types = _present(batch, source, content_type_col)
            fps = np.zeros(rows, dtype=np.uint64)
            valid = np.zeros(rows, dtype=bool)
            if present:
                if text_col is not None:
                    got = _fpdb.fingerprint_many(items, tokenizer=tokenizer, weights=weights)
                    readable = np.ones(len(items), dtype=bool)
                else:
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


def _signed(
    df: DataFrame,
    signer: _fpdb.Signer,
    stored: dict[str, int | None],
    source: str,
    is_text: bool,
    content_type_col: str | None,
    extract: str,
    output_col: str,
    signature_col: str | None,
) -> DataFrame:
    """:func:`fingerprints` made by ``signer``, as a confirming database
    makes documents; with a signature column (the bytes ``stored`` asks
    for) unless ``signature_col`` is None."""

    def compute(batches):
        for batch in batches:
            rows, present, items, types = _present(batch, source, content_type_col)
            fps = np.zeros(rows, dtype=np.uint64)
            valid = np.zeros(rows, dtype=bool)
            signatures: list[bytes | None] = [None] * rows
            if present:
                if is_text:
                    got, signed, made = signer.documents(items, **stored)
                else:
                    got, signed, made = signer.page_documents(
                        items, types, extract=extract, **stored
                    )
                fps[present] = got
                valid[present] = made
                for row, signature in zip(present, signed):
                    signatures[row] = signature
            columns = [pa.array(fps.view(np.int64), mask=~valid, type=pa.int64())]
            names = [output_col]
            if signature_col is not None:
                columns.append(pa.array(signatures, type=pa.binary()))
                names.append(signature_col)
            yield pa.RecordBatch.from_arrays(
                [*batch.columns, *columns], names=[*batch.schema.names, *names]
            )

    fields = [StructField(output_col, LongType(), True)]
    if signature_col is not None:
        fields.append(StructField(signature_col, BinaryType(), True))
    return df.mapInArrow(compute, StructType([*df.schema.fields, *fields]))


def _present(batch, source: str, content_type_col: str | None):
    """A batch's row count, the rows whose ``source`` is not null, their
    values, and their content types (None without a content-type
    column)."""
    values = batch.column(source).to_pylist()
    present = [row for row, value in enumerate(values) if value is not None]
    items = [values[row] for row in present]
    types = None
    if content_type_col is not None:
        all_types = batch.column(content_type_col).to_pylist()
        types = [all_types[row] for row in present]
    return len(values), present, items, types
