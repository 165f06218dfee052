"""Whole-process cost of `fpdb dedup` against the radius, beside a numpy
brute-force pair scan of the same fingerprints in the same run (up to
200,000 fingerprints).

Usage: python benches/scripts/pairs_radius.py FPDB [N ...]

Each corpus holds N fingerprints: random ones, and a quarter of them
copies of earlier ones with 0 to 12 bits flipped, so every radius has
pairs. Each radius is timed in a fresh `fpdb dedup --k R` process, the
radii alternated over three rounds (medians). The brute force compares
every pair (numpy's bitwise_count, in chunks) and its pair counts must
equal fpdb's.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

RADII = [3, 7, 10, 12]
ROUNDS = 3
# Past this, the brute force takes too long to run beside (quadratic).
BRUTE_FORCE_MAX = 200_000


def corpus(n, seed):
    rng = np.random.default_rng(seed)
    fps = rng.integers(0, 2**64, size=n, dtype=np.uint64)
    copies = rng.random(n) < 0.25
    copies[0] = False
    for i in np.nonzero(copies)[0]:
        fp = fps[rng.integers(0, i)]
        for bit in rng.integers(0, 64, size=rng.integers(0, 13)):
            fp ^= np.uint64(1) << np.uint64(bit)
        fps[i] = fp
    return fps


def brute_force_counts(fps, radii):
    counts = {r: 0 for r in radii}
    chunk = max(1, 20_000_000 // len(fps))
    for start in range(0, len(fps), chunk):
        block = fps[start : start + chunk]
        for offset, fp in enumerate(block):
            rest = fps[start + offset + 1 :]
            distances = np.bitwise_count(rest ^ fp)
            for r in radii:
                counts[r] += int(np.count_nonzero(distances <= r))
    return counts


def main():
    fpdb = sys.argv[1]
    sizes = [int(n) for n in sys.argv[2:]] or [100_000]
    print(
        f"started {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load {os.getloadavg()}"
    )
    for n in sizes:
        fps = corpus(n, n)
        with tempfile.TemporaryDirectory() as scratch:
            path = os.path.join(scratch, "corpus.tsv")
            with open(path, "w") as out:
                out.writelines(f"doc{i}\t{int(fp):016x}\n" for i, fp in enumerate(fps))
            times = {r: [] for r in RADII}
            pairs = {}
            for _ in range(ROUNDS):
                for r in RADII:
                    begin = time.perf_counter()
                    done = subprocess.run(
                        [
                            fpdb,
                            "dedup",
                            "--quiet",
                            "--k",
                            str(r),
                            "--format",
                            "tsv",
                            path,
                        ],
                        check=True,
                        capture_output=True,
                    )
                    times[r].append(time.perf_counter() - begin)
                    pairs[r] = done.stdout.count(b"\n") - 1
        checked = n <= BRUTE_FORCE_MAX
        if checked:
            begin = time.perf_counter()
            expected = brute_force_counts(fps, RADII)
            brute = time.perf_counter() - begin
        for r in RADII:
            if checked:
                assert pairs[r] == expected[r], (n, r, pairs[r], expected[r])
            print(
                f"| {n:,} | {r} | {pairs[r]:,} | {statistics.median(times[r]):.2f} s "
                f"({min(times[r]):.2f}–{max(times[r]):.2f}) |"
            )
        if checked:
            print(f"| {n:,} | brute force, every radius at once | | {brute:.1f} s |")
    print(
        f"finished {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load {os.getloadavg()}"
    )


if __name__ == "__main__":
    main()
