"""Type stubs of the native module (crates/fpdb-py/src)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from typing import Callable, Literal, final, overload

import numpy as np
import numpy.typing as npt

from fpdb._config import DbConfig
from fpdb._reports import (
    BackupReport,
    BulkLoadSummary,
    RepairReport,
    Stats,
    TuneReport,
    VerifyReport,
)

DEFAULT_K: int
MAX_ID_BYTES: int
CONFIRM_RADIUS: int
CONFIRM_THRESHOLD: float
CONFIRM_WEAK_BITS: int
CONFIRM_WEAK_FLIPS: int
CONFIRM_MIN_SHARED: int
__version__: str

_Fingerprints = npt.NDArray[np.uint64] | Sequence[int]
_ProgressCallback = Callable[[str, int, int, int], object]
_CheckProgress = Callable[[str, int, int | None], object]

@final
class Match:
    fingerprint: int
    distance: int
    ids: list[str]
    similarity: float | None
    def __new__(
        cls, fingerprint: int, distance: int, ids: list[str], similarity: float | None = None
    ) -> Match: ...

@final
class Checked:
    matches: list[Match]
    previous: int | None
    fingerprint: int
    @property
    def is_duplicate(self) -> bool: ...

@final
class BatchMatches:
    def __len__(self) -> int: ...
    @property
    def queries(self) -> int: ...
    @property
    def query_index(self) -> npt.NDArray[np.uint64]: ...
    @property
    def fingerprint(self) -> npt.NDArray[np.uint64]: ...
    @property
    def distance(self) -> npt.NDArray[np.uint8]: ...
    def ids(self, row: int) -> list[str]: ...
    def matches(self, query: int) -> list[Match]: ...

@final
class FingerprintPairs:
    def __len__(self) -> int: ...
    @property
    def a(self) -> npt.NDArray[np.uint64]: ...
    @property
    def b(self) -> npt.NDArray[np.uint64]: ...
    @property
    def distance(self) -> npt.NDArray[np.uint8]: ...
    def ids(self, index: int) -> tuple[list[str], list[str]]: ...
    def id_pairs(self) -> list[tuple[str, str]]: ...
    def clusters(self) -> list[tuple[str, list[str]]]: ...

@final
class Export(Iterator[tuple[str, int]]):
    def __iter__(self) -> Export: ...
    def __next__(self) -> tuple[str, int]: ...

@final
class Db:
    @staticmethod
    def create(
        path: str | os.PathLike[str],
        *,
        k: int = 3,
        expected: int | None = None,
        design: str = "auto",
        tokenizer: str | None = None,
        weights: str | None = None,
        extract: Literal["main", "all"] = "main",
        block_bytes: int | None = None,
        exist_ok: bool = False,
        cache_bytes: int | None = None,
        sync: bool = False,
        confirm: bool = False,
        confirm_radius: int | None = None,
        confirm_threshold: float | None = None,
        confirm_weak_bits: int | None = None,
        confirm_min_shared: int | None = None,
        confirm_numbers_from: int | None = None,
        learn_from: Iterable[str] | None = None,
    ) -> Db: ...
    @staticmethod
    def open(
        path: str | os.PathLike[str],
        *,
        read_only: bool = False,
        cache_bytes: int | None = None,
        sync: bool = False,
        replay_log: bool = False,
    ) -> Db: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    def __enter__(self) -> Db: ...
    def __exit__(self, *exc: object) -> bool: ...
    @property
    def path(self) -> str: ...
    @property
    def k(self) -> int: ...
    @property
    def read_only(self) -> bool: ...
    @property
    def design(self) -> str: ...
    @property
    def config(self) -> DbConfig: ...
    def fingerprint(
        self,
        text: str | None = None,
        *,
        html: bytes | str | None = None,
        content_type: str | None = None,
    ) -> int: ...
    def fingerprint_many(self, texts: Sequence[str]) -> npt.NDArray[np.uint64]: ...
    def fingerprint_pages(
        self,
        pages: Sequence[bytes | str],
        content_types: Sequence[str | None] | None = None,
    ) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.bool_]]: ...
    def fingerprint_html(self, html: bytes | str, content_type: str | None = None) -> int: ...
    def get(self, id: str) -> int | None: ...
    def insert(self, id: str, fp: int) -> None: ...
    def insert_text(self, id: str, text: str) -> int: ...
    def insert_html(self, id: str, html: bytes | str, content_type: str | None = None) -> int: ...
    def insert_many(self, ids: Sequence[str], fps: _Fingerprints) -> None: ...
    def remove(self, id: str) -> int | None: ...
    def remove_many(self, ids: Sequence[str]) -> int: ...
    def query(self, fp: int, k: int | None = None) -> list[Match]: ...
    def query_text(self, text: str, k: int | None = None) -> list[Match]: ...
    def query_many(self, fps: _Fingerprints, k: int | None = None) -> BatchMatches: ...
    def check_and_insert(
        self,
        id: str,
        fp: int | None = None,
        k: int | None = None,
        *,
        text: str | None = None,
        html: bytes | str | None = None,
        content_type: str | None = None,
    ) -> Checked: ...
    def near_pairs(self, k: int | None = None) -> FingerprintPairs: ...
    def clusters(self, k: int | None = None) -> list[tuple[str, list[str]]]: ...
    def bulk_load(
        self,
        documents: Iterable[tuple[str, int]] | None = None,
        *,
        ids: Sequence[str] | None = None,
        fps: _Fingerprints | None = None,
        texts: Sequence[str] | None = None,
        html: Sequence[bytes | str] | None = None,
        content_types: Sequence[str | None] | None = None,
        files: Sequence[str | os.PathLike[str]] | None = None,
        format: Literal["fps", "jsonl", "lines", "files", "html", "warc"] | None = None,
        progress: None | bool | _ProgressCallback = None,
        memory_bytes: int | None = None,
    ) -> BulkLoadSummary: ...
    def stats(self) -> Stats: ...
    def verify(self, *, progress: _CheckProgress | None = None) -> VerifyReport: ...
    @staticmethod
    def verify_at(
        path: str | os.PathLike[str], *, progress: _CheckProgress | None = None
    ) -> VerifyReport: ...
    @staticmethod
    def repair(
        path: str | os.PathLike[str], *, progress: _CheckProgress | None = None
    ) -> RepairReport: ...
    def export(self) -> Export: ...
    def backup(self, dest: str | os.PathLike[str]) -> BackupReport: ...
    def flush(self) -> None: ...
    def compact(self) -> None: ...

_Documents = tuple[npt.NDArray[np.uint64], list[bytes | None], npt.NDArray[np.bool_]]

@final
class Signer:
    def __new__(
        cls,
        *,
        tokenizer: str | None = None,
        weights: str | None = None,
        learn_from: Iterable[str] | None = None,
    ) -> Signer: ...
    @classmethod
    def from_state(cls, state: bytes) -> Signer: ...
    def __bytes__(self) -> bytes: ...
    def __reduce__(self) -> tuple[Callable[[bytes], Signer], tuple[bytes]]: ...
    def fingerprint(self, text: str) -> int: ...
    def signature(self, text: str) -> bytes | None: ...
    def documents(
        self,
        texts: Sequence[str],
        *,
        confirm_weak_bits: int = 0,
        confirm_min_shared: int = 0,
        confirm_numbers_from: int | None = None,
    ) -> _Documents: ...
    def page_documents(
        self,
        pages: Sequence[bytes | str],
        content_types: Sequence[str | None] | None = None,
        *,
        extract: Literal["main", "all"] = "main",
        confirm_weak_bits: int = 0,
        confirm_min_shared: int = 0,
        confirm_numbers_from: int | None = None,
    ) -> _Documents: ...

def similarity(a: bytes, b: bytes) -> float: ...
def fingerprint(text: str, *, tokenizer: str | None = None, weights: str | None = None) -> int: ...
def page_text(
    html: bytes | str, content_type: str | None = None, *, extract: Literal["main", "all"] = "main"
) -> str: ...
def fingerprint_many(
    texts: Sequence[str], *, tokenizer: str | None = None, weights: str | None = None
) -> npt.NDArray[np.uint64]: ...
@overload
def dedup(
    fps: _Fingerprints | None = None,
    *,
    texts: Sequence[str] | None = None,
    k: int = 3,
    clusters: Literal[False] = False,
    tokenizer: str | None = None,
    weights: str | None = None,
    confirm: Literal[False] = False,
    confirm_radius: int | None = None,
    confirm_threshold: float | None = None,
    confirm_weak_bits: int | None = None,
    confirm_min_shared: int | None = None,
    confirm_numbers_from: int | None = None,
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64], npt.NDArray[np.uint8]]: ...
@overload
def dedup(
    fps: _Fingerprints | None = None,
    *,
    texts: Sequence[str] | None = None,
    k: int = 3,
    clusters: Literal[False] = False,
    tokenizer: str | None = None,
    weights: str | None = None,
    confirm: Literal[True],
    confirm_radius: int | None = None,
    confirm_threshold: float | None = None,
    confirm_weak_bits: int | None = None,
    confirm_min_shared: int | None = None,
    confirm_numbers_from: int | None = None,
) -> tuple[
    npt.NDArray[np.uint64], npt.NDArray[np.uint64], npt.NDArray[np.uint8], npt.NDArray[np.float64]
]: ...
@overload
def dedup(
    fps: _Fingerprints | None = None,
    *,
    texts: Sequence[str] | None = None,
    k: int = 3,
    clusters: Literal[True],
    tokenizer: str | None = None,
    weights: str | None = None,
    confirm: bool = False,
    confirm_radius: int | None = None,
    confirm_threshold: float | None = None,
    confirm_weak_bits: int | None = None,
    confirm_min_shared: int | None = None,
    confirm_numbers_from: int | None = None,
) -> list[list[int]]: ...
def tune(
    texts: Sequence[str],
    *,
    originals: int = 1000,
    expected: int = 10_000_000,
    min_precision: float = 0.99,
    confirm_threshold: float | None = None,
    seed: int = 1,
    tokenizer: str | None = None,
    figure: str | os.PathLike[str] | None = None,
) -> TuneReport: ...
def fingerprint_pages(
    pages: Sequence[bytes | str],
    content_types: Sequence[str | None] | None = None,
    *,
    extract: Literal["main", "all"] = "main",
    tokenizer: str | None = None,
    weights: str | None = None,
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.bool_]]: ...

# The kernels fpdb.spark runs in executors.
_Triples = tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64], npt.NDArray[np.uint8]]

def design_for(k: int, design: str | None = None) -> tuple[str, int]: ...
def route(
    fps: _Fingerprints,
    design: str,
    k: int,
    buckets: int,
    is_query: npt.NDArray[np.bool_] | None = None,
) -> tuple[
    npt.NDArray[np.uint32],
    npt.NDArray[np.int32],
    npt.NDArray[np.bool_],
    npt.NDArray[np.int32],
    npt.NDArray[np.uint64],
]: ...
def pairs_in_partition(
    tables: npt.NDArray[np.int32],
    fps: _Fingerprints,
    design: str,
    k: int,
    is_query: npt.NDArray[np.bool_] | None = None,
) -> _Triples: ...
def judge_pairs(
    fp_a: _Fingerprints,
    fp_b: _Fingerprints,
    a: Sequence[bytes | None],
    b: Sequence[bytes | None],
    k: int,
    confirm_radius: int | None = None,
    confirm_threshold: float | None = None,
    confirm_weak_bits: int | None = None,
    confirm_min_shared: int | None = None,
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64]]: ...
def route_keys(
    fps: _Fingerprints,
    buckets: int,
    stored: Sequence[bytes | None] | None = None,
    confirm_weak_bits: int | None = None,
    confirm_min_shared: int | None = None,
) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.int32], npt.NDArray[np.uint64]]: ...
def reached_in_partition(
    keys: npt.NDArray[np.uint64],
    fps: _Fingerprints,
    is_probe: npt.NDArray[np.bool_],
    k: int,
    radius: int,
    ordered: bool,
) -> _Triples: ...

@final
class BatchIndex:
    def __new__(cls, queries: _Fingerprints, k: int) -> BatchIndex: ...
    def matches(self, fps: _Fingerprints) -> _Triples: ...
