"""The shared index most Python crawlers would pick instead of fpdb serve:
datasketch MinHashLSH with Redis storage, every client a process of its
own doing what `serve_load ADDR check N` does to fpdb: for each new
document, query the index, then insert it.

Usage: lsh_redis_baseline.py REDIS_PORT CLIENTS SECONDS

MinHashes (128 permutations, threshold 0.8, datasketch's usual setting)
are made before the clock starts, as serve_load's fingerprints are, so
only the index's query and insert are timed. Prints one line in
serve_load's shape: requests/s, p50 and p99 of one query-then-insert.
"""

from __future__ import annotations

import multiprocessing
import sys
import time

import numpy as np
from datasketch import MinHash, MinHashLSH

NUM_PERM = 128
THRESHOLD = 0.8
# More than a client can do in the run, so none runs out.
PREPARED = 5_000


def lsh(port: int) -> MinHashLSH:
    return MinHashLSH(
        threshold=THRESHOLD,
        num_perm=NUM_PERM,
        storage_config={
            "type": "redis",
            "basename": b"bench",
            "redis": {"host": "127.0.0.1", "port": port},
        },
    )


def client(port: int, worker: int, seconds: float, start, results) -> None:
    index = lsh(port)
    rng = np.random.default_rng(worker)
    # Random documents: minhash values drawn directly, as serve_load draws
    # random fingerprints.
    hashes = [
        MinHash(
            num_perm=NUM_PERM,
            hashvalues=rng.integers(0, 2**32 - 1, NUM_PERM, dtype=np.uint64),
            scheme="legacy",
        )
        for _ in range(PREPARED)
    ]
    latencies = []
    start.wait()
    deadline = time.perf_counter() + seconds
    done = 0
    while time.perf_counter() < deadline and done < PREPARED:
        began = time.perf_counter()
        index.query(hashes[done])
        index.insert(f"{worker}-{done}", hashes[done])
        latencies.append(time.perf_counter() - began)
        done += 1
    results.put(latencies)


def main() -> None:
    port, clients, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    lsh(port)  # creates the index's keys before the clients start
    start = multiprocessing.Barrier(clients + 1)
    results = multiprocessing.Queue()
    workers = [
        multiprocessing.Process(target=client, args=(port, w, seconds, start, results))
        for w in range(clients)
    ]
    for worker in workers:
        worker.start()
    start.wait()
    began = time.perf_counter()
    latencies = np.concatenate([np.array(results.get()) for _ in workers])
    elapsed = time.perf_counter() - began
    for worker in workers:
        worker.join()
    p50, p99 = np.percentile(latencies, [50, 99]) * 1000
    print(
        f"datasketch MinHashLSH on Redis, query+insert, {clients} clients: "
        f"{len(latencies) / elapsed:,.0f} ops/s ({len(latencies):,} in {elapsed:.1f} s), "
        f"p50 {p50:.2f} ms, p99 {p99:.2f} ms"
    )


if __name__ == "__main__":
    main()
