"""Real ``fpdb serve`` processes for the client tests: the binary is the one
``make python-test`` builds (``FPDB_BIN``), or ``fpdb`` on the PATH."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

import pytest


def fpdb_binary() -> str:
    binary = os.environ.get("FPDB_BIN") or shutil.which("fpdb")
    if not binary or not os.access(binary, os.X_OK):
        pytest.fail(
            "the fpdb binary is needed to start servers: set FPDB_BIN "
            "(make python-test does) or put fpdb on the PATH"
        )
    return binary


@contextmanager
def served(db_path: str, *extra: str) -> Iterator[str]:
    """Runs ``fpdb serve db_path --listen 127.0.0.1:0 extra…`` and yields its
    URL; stops it with SIGTERM after, expecting exit status 0."""
    process = subprocess.Popen(
        [fpdb_binary(), "serve", db_path, "--listen", "127.0.0.1:0", *extra],
        stdout=subprocess.PIPE,
        env={**os.environ, "RUST_LOG": "warn"},
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("listening on "), line
        yield "http://" + line.removeprefix("listening on ").strip()
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            code = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    assert code == 0, f"fpdb serve exited with {code}"
