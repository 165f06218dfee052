"""The exceptions fpdb raises. Every one derives from :class:`fpdb.Error`."""

from __future__ import annotations


class Error(Exception):
    """Anything fpdb reports about a database or its input."""


class LockedError(Error):
    """Another process (or another handle) has the database open for writing."""


class NotFoundError(Error):
    """No fpdb database at the path."""


class AlreadyExistsError(Error):
    """``Db.create`` on a path that already holds something."""


class CorruptError(Error):
    """Stored data fails its checks; ``what`` names the damaged part."""

    what: str = ""


class InvalidInputError(Error, ValueError):
    """A bad argument: an id that is empty or over 1 KiB, a query radius over
    16 bits or near pairs past the database's k, unknown options."""


class LimitExceededError(Error):
    """A request larger than fpdb handles at once."""


class ReadOnlyError(Error):
    """A write through a handle opened with ``read_only=True``."""


class NotEmptyError(Error):
    """``bulk_load`` into a database that already holds documents."""


class StorageError(Error, OSError):
    """The storage engine or the file system failed (I/O error, full disk)."""


class ClosedError(Error):
    """A call on a closed handle (or one busy with ``bulk_load``)."""


__all__ = [
    "AlreadyExistsError",
    "ClosedError",
    "CorruptError",
    "Error",
    "InvalidInputError",
    "LimitExceededError",
    "LockedError",
    "NotEmptyError",
    "NotFoundError",
    "ReadOnlyError",
    "StorageError",
]
