"""The dicts that ``Db.stats``, ``verify``, ``repair``, ``backup``,
``bulk_load`` and ``fpdb.tune`` return, as TypedDicts: plain dicts at run time, typed keys
for a type checker (the tests check that every key is there). They are the
JSON reports ``fpdb stats``, ``verify``, ``repair`` and ``backup`` print with
``--format json``, with the same keys (the command adds what only it
knows, such as ``seconds``)."""

from __future__ import annotations

from typing import Literal, Optional, TypedDict


class TableStats(TypedDict):
    """One permuted table of ``Db.stats()``."""

    prefix_bits: int
    blocks: int
    bytes: int
    bits_per_fingerprint: float
    disk_bytes: int


class ConfirmationStats(TypedDict):
    """``Db.stats()["confirmation"]``: the second stage of a confirming
    database."""

    signature: str
    radius: int
    threshold: float
    common_features: int
    weak_bits: int
    weak_flips: int
    min_shared: int
    numbers_from_permille: int


class Stats(TypedDict):
    """``Db.stats()``: counts and sizes, read without reading a block."""

    path: str
    fingerprints: int
    ids: int
    k: int
    design: str
    simhash: str
    tokenizer: str
    weights: str
    extract: str
    confirmation: ConfirmationStats | None
    learned_features: int | None
    directory_bytes: int
    block_cache_bytes: int
    block_bytes: int
    delta_added: int
    delta_removed: int
    candidates_per_probe: float
    keys_per_block: float
    ids_disk_bytes: int
    warnings: list[str]
    tables: list[TableStats]


class VerifyReport(TypedDict):
    """``Db.verify()`` and ``Db.verify_at(path)``."""

    clean: bool
    tables: int
    blocks: int
    fingerprints: int
    ids: int
    problems: list[str]
    unlisted_problems: int


class RepairReport(TypedDict):
    """``Db.repair(path)``; ``damage`` empty means nothing was done."""

    repaired: bool
    damage: list[str]
    unlisted_damage: int
    documents: int
    restored_from_fp_ids: int
    restored_from_id_fp: int
    conflicting_ids: list[str]
    lost_fingerprints: list[int]
    unreadable: list[str]
    left_out: list[str]
    placed_by_content: list[str]
    stale_entries: int
    partial: bool
    # Optional, not "str | None": get_type_hints evaluates it on Python 3.9 too.
    damaged_copy: Optional[str]  # noqa: UP045


class BackupReport(TypedDict):
    """``Db.backup(dest)``."""

    path: str
    method: str
    bytes: int


class BulkLoadSummary(TypedDict):
    """``Db.bulk_load(...)``."""

    documents: int
    ids: int
    fingerprints: int
    spilled_runs: int
    featureless: int
    seconds: float
    reading_seconds: float
    writing_seconds: float
    ingesting_seconds: float


class TunedSetting(TypedDict):
    """One setting and radius of ``fpdb.tune(...)["settings"]``."""

    setting: str
    learned_weights: bool
    confirmed: bool
    check: Literal["distance", "weak-bits", "every-candidate"]
    radius: int
    recall: float
    recall_by_edit: dict[str, float]
    precision: float
    true_pairs: int
    false_pairs: int
    false_per_query: float
    false_per_query_at_expected: float


class TuneReport(TypedDict):
    """``fpdb.tune(texts)``: every setting measured on planted copies."""

    texts: int
    originals: int
    reposts: int
    expected: int
    min_precision: float
    confirm_threshold: Optional[float]  # noqa: UP045
    too_short_to_confirm: int
    settings: list[TunedSetting]
    recommended: Optional[TunedSetting]  # noqa: UP045
