"""How to reopen a database in another process."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fpdb._fpdb import Db


@dataclass(frozen=True)
class DbConfig:
    """A picklable description of an open database: send it to a worker
    process (multiprocessing, Spark) and call :meth:`open` there.

    >>> import pickle, fpdb
    >>> config = fpdb.DbConfig(path="/data/pages.fpdb")
    >>> pickle.loads(pickle.dumps(config)) == config
    True
    """

    path: os.PathLike[str] | str
    cache_bytes: int | None = None

    def open(self, *, read_only: bool = True) -> Db:
        """Opens the database, read-only unless asked otherwise."""
        from fpdb._fpdb import Db

        return Db.open(self.path, read_only=read_only, cache_bytes=self.cache_bytes)
