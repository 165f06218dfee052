"""Read-only opens beside a live writer, as users meet them: while `fpdb add`
inserts N documents into a new database, run one-query `fpdb query`
processes back to back and report each one's wall time and peak RSS, and
how many failed. Rounds (a new database and writer each) repeat until at
least MIN_OPENS opens were made.

Usage: python3 benches/scripts/readers_beside_writer.py FPDB_BINARY [N [MIN_OPENS]]
(`make bench-readers` runs it on the release build with N = 2,000,000 and
MIN_OPENS = 1,000).
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUERY = b"0123456789abcdef\n"


def one_round(fpdb: str, work: Path, n: int, seconds, megabytes, failures) -> float:
    """One writer adding the input to a new database, readers beside it;
    returns the writer's wall time."""
    db = work / "db"
    shutil.rmtree(db, ignore_errors=True)
    subprocess.run(
        [fpdb, "create", db, "--expected", str(n)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    started = time.perf_counter()
    writer = subprocess.Popen(
        [fpdb, "add", db, work / "in.tsv"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    while writer.poll() is None:
        before = time.perf_counter()
        out = subprocess.run(
            ["/usr/bin/time", "-f", "%M", fpdb, "query", db],
            check=False,
            input=QUERY,
            capture_output=True,
        )
        seconds.append(time.perf_counter() - before)
        if out.returncode == 0:
            megabytes.append(int(out.stderr.split()[-1]) / 1024)
        else:
            failures.append(out.stderr.decode(errors="replace").strip())
    if writer.returncode != 0:
        sys.exit(f"the writer failed with status {writer.returncode}")
    return time.perf_counter() - started


def main() -> None:
    fpdb = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2_000_000
    min_opens = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    work = Path(tempfile.mkdtemp(prefix="fpdb-readers-"))
    rng = random.Random(1)
    lines = (f"doc{i}\t{rng.getrandbits(64):016x}\n" for i in range(n))
    (work / "in.tsv").write_text("".join(lines))

    seconds, megabytes, failures = [], [], []
    rounds = 0
    while rounds == 0 or len(seconds) < min_opens:
        writer_seconds = one_round(fpdb, work, n, seconds, megabytes, failures)
        rounds += 1
        print(f"round {rounds}: writer added {n:,} documents in {writer_seconds:.1f} s")
    shutil.rmtree(work, ignore_errors=True)

    print(f"opens: {len(seconds)} in {rounds} rounds, failed: {len(failures)}")
    for failure in failures:
        print(f"  {failure}")
    seconds.sort()
    megabytes.sort()
    if seconds:
        p99 = seconds[min(len(seconds) - 1, len(seconds) * 99 // 100)]
        print(
            f"open + one query, ms: median {seconds[len(seconds) // 2] * 1000:.0f},"
            f" p99 {p99 * 1000:.0f}, max {seconds[-1] * 1000:.0f}"
        )
    if megabytes:
        print(
            f"peak RSS, MB: median {megabytes[len(megabytes) // 2]:.0f}, max {megabytes[-1]:.0f}"
        )


if __name__ == "__main__":
    main()
