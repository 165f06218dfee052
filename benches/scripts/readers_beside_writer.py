"""Read-only opens beside a live writer, as users meet them: while `fpdb add`
inserts N documents into a new database, run one-query `fpdb query`
processes back to back and report each one's wall time, CPU time (user +
system: wall time beyond it is waiting, for a core the writer holds or for
the disk) and peak RSS, and how many failed. Rounds (a new database and writer each) repeat until at
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


def one_round(
    fpdb: str, work: Path, n: int, seconds, cpu, megabytes, failures
) -> float:
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
            ["/usr/bin/time", "-f", "%M %U %S", fpdb, "query", db],
            check=False,
            input=QUERY,
            capture_output=True,
        )
        seconds.append(time.perf_counter() - before)
        if out.returncode == 0:
            rss, user, system = out.stderr.split()[-3:]
            megabytes.append(int(rss) / 1024)
            cpu.append(float(user) + float(system))
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

    seconds, cpu, megabytes, failures = [], [], [], []
    rounds = 0
    while rounds == 0 or len(seconds) < min_opens:
        writer_seconds = one_round(fpdb, work, n, seconds, cpu, megabytes, failures)
        rounds += 1
        print(f"round {rounds}: writer added {n:,} documents in {writer_seconds:.1f} s")
    # The baseline: the same process against the same database, no writer.
    idle = []
    for _ in range(50):
        before = time.perf_counter()
        subprocess.run(
            [fpdb, "query", work / "db"], check=True, input=QUERY, capture_output=True
        )
        idle.append(time.perf_counter() - before)
    shutil.rmtree(work, ignore_errors=True)

    print(f"opens: {len(seconds)} in {rounds} rounds, failed: {len(failures)}")
    for failure in failures:
        print(f"  {failure}")
    for name, values in (
        ("open + one query", seconds),
        ("CPU of those", cpu),
        ("open + one query, writer done", idle),
    ):
        values.sort()
        if values:
            p99 = values[min(len(values) - 1, len(values) * 99 // 100)]
            print(
                f"{name}, ms: median {values[len(values) // 2] * 1000:.0f},"
                f" p99 {p99 * 1000:.0f}, max {values[-1] * 1000:.0f}"
            )
    megabytes.sort()
    if megabytes:
        print(
            f"peak RSS, MB: median {megabytes[len(megabytes) // 2]:.0f}, max {megabytes[-1]:.0f}"
        )


if __name__ == "__main__":
    main()
