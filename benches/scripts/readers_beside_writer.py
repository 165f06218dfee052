"""Read-only opens beside a live writer, as users meet them: while `fpdb add`
inserts N documents, run one-query `fpdb query` processes back to back and
report each one's wall time and peak RSS, and how many failed.

Usage: python3 benches/scripts/readers_beside_writer.py FPDB_BINARY [N]
(`make bench-readers` runs it on the release build with N = 1,000,000).
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUERY = b"0123456789abcdef\n"


def main() -> None:
    fpdb = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    work = Path(tempfile.mkdtemp(prefix="fpdb-readers-"))
    db = work / "db"
    subprocess.run(
        [fpdb, "create", db, "--expected", str(n)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    rng = random.Random(1)
    lines = (f"doc{i}\t{rng.getrandbits(64):016x}\n" for i in range(n))
    (work / "in.tsv").write_text("".join(lines))

    started = time.perf_counter()
    writer = subprocess.Popen(
        [fpdb, "add", db, work / "in.tsv"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    seconds, megabytes, failures = [], [], []
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
    writer_seconds = time.perf_counter() - started
    if writer.returncode != 0:
        sys.exit(f"the writer failed with status {writer.returncode}")

    print(f"writer: {n:,} documents in {writer_seconds:.1f} s")
    print(f"opens: {len(seconds)}, failed: {len(failures)}")
    for failure in failures:
        print(f"  {failure}")
    seconds.sort()
    megabytes.sort()
    if seconds:
        print("open + one query, ms:", " ".join(f"{s * 1000:.0f}" for s in seconds))
        print(
            f"  median {seconds[len(seconds) // 2] * 1000:.0f}, max {seconds[-1] * 1000:.0f}"
        )
    if megabytes:
        print(
            f"peak RSS, MB: median {megabytes[len(megabytes) // 2]:.0f}, max {megabytes[-1]:.0f}"
        )


if __name__ == "__main__":
    main()
