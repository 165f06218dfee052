"""How a fingerprint lives in a Spark column.

Spark has no unsigned 64-bit type, so a fingerprint column is a LongType
holding the fingerprint's 64 bits as two's complement: equal fingerprints
are equal longs and the XOR of two columns is the XOR of the
fingerprints, but fingerprints of 2**63 and above read as negative longs,
so sort by :func:`unsigned_order` when order matters.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from pyspark.sql import Column
from pyspark.sql import functions as F

_SIGN = 1 << 63
_MIN_LONG = -(1 << 63)


def to_signed(fp: int) -> int:
    """The long that holds fingerprint ``fp`` (an int in 0..2**64).

    >>> to_signed(2**64 - 1)
    -1
    """
    if not 0 <= fp < 1 << 64:
        raise ValueError(f"fingerprint {fp} is outside 0..2**64")
    return fp - (1 << 64) if fp >= _SIGN else fp


def to_unsigned(value: int) -> int:
    """The fingerprint a long column value holds.

    >>> to_unsigned(-1) == 2**64 - 1
    True
    """
    return value & ((1 << 64) - 1)


def unsigned_order(column: str | Column) -> Column:
    """A long column that sorts as the fingerprints do (unsigned): the
    fingerprint with its top bit flipped."""
    column = F.col(column) if isinstance(column, str) else column
    return column.bitwiseXOR(F.lit(_MIN_LONG))


def hex_fingerprint(column: str | Column) -> Column:
    """The fingerprint as 16 lower-case hex digits, as the CLI prints it."""
    column = F.col(column) if isinstance(column, str) else column
    return F.lpad(F.lower(F.hex(column)), 16, "0")


def arrow_fingerprints(array: pa.Array) -> np.ndarray:
    """A long Arrow column without nulls as a numpy uint64 array."""
    return array.to_numpy(zero_copy_only=False).astype(np.int64, copy=False).view(np.uint64)


def arrow_longs(fps: np.ndarray) -> pa.Array:
    """Numpy uint64 fingerprints as an Arrow long column."""
    return pa.array(np.ascontiguousarray(fps, dtype=np.uint64).view(np.int64), type=pa.int64())
