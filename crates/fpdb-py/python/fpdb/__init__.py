"""fpdb: a persistent near-duplicate fingerprint database for crawlers.

Pages become 64-bit simhash fingerprints; fpdb stores them with document
ids and answers "which stored pages are within k bits of this one"
exactly, from one process or many, without rebuilding an index at start.

>>> import fpdb, tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "pages.fpdb")
>>> with fpdb.Db.create(path, k=3) as db:
...     first = db.check_and_insert("https://a.example/1", text="今天北京天气晴朗，适合出门散步。")
...     again = db.check_and_insert("https://b.example/1", text="今天北京天气晴朗，适合出门散步！")
...     [m.ids for m in again.matches]
[['https://a.example/1']]
"""

from __future__ import annotations

from fpdb._config import DbConfig
from fpdb._fpdb import (
    DEFAULT_K,
    MAX_ID_BYTES,
    BatchMatches,
    Checked,
    Db,
    Export,
    FingerprintPairs,
    Match,
    Signer,
    __version__,
    dedup,
    fingerprint,
    fingerprint_many,
    fingerprint_pages,
    page_text,
    similarity,
    tune,
)
from fpdb._reports import (
    BackupReport,
    BulkLoadSummary,
    ConfirmationStats,
    RepairReport,
    Stats,
    TableStats,
    TunedSetting,
    TuneReport,
    VerifyReport,
)
from fpdb.client import Client
from fpdb.errors import (
    AlreadyExistsError,
    ClosedError,
    CorruptError,
    Error,
    InvalidInputError,
    LimitExceededError,
    LockedError,
    NotEmptyError,
    NotFoundError,
    ReadOnlyError,
    StorageError,
)

__all__ = [
    "DEFAULT_K",
    "MAX_ID_BYTES",
    "AlreadyExistsError",
    "BackupReport",
    "BatchMatches",
    "BulkLoadSummary",
    "Checked",
    "Client",
    "ClosedError",
    "ConfirmationStats",
    "CorruptError",
    "Db",
    "DbConfig",
    "Error",
    "Export",
    "FingerprintPairs",
    "InvalidInputError",
    "LimitExceededError",
    "LockedError",
    "Match",
    "NotEmptyError",
    "NotFoundError",
    "ReadOnlyError",
    "RepairReport",
    "Signer",
    "Stats",
    "StorageError",
    "TableStats",
    "TuneReport",
    "TunedSetting",
    "VerifyReport",
    "__version__",
    "dedup",
    "fingerprint",
    "fingerprint_many",
    "fingerprint_pages",
    "page_text",
    "similarity",
    "tune",
]
