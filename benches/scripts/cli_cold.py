"""`fpdb` as a user meets it: fresh processes against N stored fingerprints.

In one run, on this machine:
- `fpdb load` of N lines `<id>\\t<hex>` into a new database, ids
  `doc<i>` or, with `--ids url`, URL-like ones (a crawl's: sites of
  unequal size, dated paths, slugs), and what the ids take on disk;
- `fpdb query` in fresh processes, page cache warm: an empty input (start
  and open only), then 1,000 and 10,000 fingerprints (every other one a
  stored fingerprint with 0-3 bits flipped, the rest random), and 10,000
  random ones; then each once more after dropping the page cache (root
  only): the cold case;
- the baselines on the same fingerprints: faiss IndexBinaryMultiHash
  (build, then the same queries in one call, in memory) and a numpy
  brute-force scan;
and checks fpdb's answers to the 1,000 queries against the scan.

    make bench-cli                                       # N = 10,000,000
    python benches/scripts/cli_cold.py FPDB --n 1000000  # a quick look
    python benches/scripts/cli_cold.py FPDB --ids url    # ids on disk
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

K = 3


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def run(command: list[str], output: Path | None = None) -> dict:
    """Runs `command` to the end, its standard output to `output`: wall
    seconds, and CPU seconds and max RSS (MiB) as GNU time reports them
    (a child of this process would count this process's memory too: Linux
    keeps the highest RSS a process had, also before it exec'd)."""
    timed = ["/usr/bin/time", "-f", "%e %U %S %M", *command]
    with open(output or os.devnull, "w") as out:
        started = time.perf_counter()
        finished = subprocess.run(
            timed, stdout=out, stderr=subprocess.PIPE, check=False
        )
        wall = time.perf_counter() - started
    report = finished.stderr.decode(errors="replace").strip().splitlines()
    if finished.returncode != 0 or not report:
        raise SystemExit(f"{' '.join(command)} failed: {' '.join(report)}")
    _, user, system, rss_kib = report[-1].split()
    return {
        "wall_s": wall,
        "cpu_s": float(user) + float(system),
        "rss_mib": int(rss_kib) / 1024,
    }


def drop_page_cache() -> bool:
    """Empties the kernel's page cache; False when not allowed (not root)."""
    path = "/proc/sys/vm/drop_caches"
    if not os.access(path, os.W_OK):
        return False
    os.sync()
    Path(path).write_text("3\n")
    return True


def write_fps(path: Path, ids, fps: np.ndarray) -> None:
    """Lines `<id>\\t<hex>`; `ids[i]` is the id of `fps[i]`."""
    with path.open("w") as out:
        for start in range(0, len(fps), 1_000_000):
            chunk = fps[start : start + 1_000_000].tolist()
            out.write(
                "".join(f"{ids[start + i]}\t{fp:016x}\n" for i, fp in enumerate(chunk))
            )


class NumberedIds:
    """`<prefix><i>`, without holding N strings."""

    def __init__(self, prefix: str, n: int) -> None:
        self.prefix, self.n = prefix, n

    def __getitem__(self, i: int) -> str:
        return f"{self.prefix}{i}"

    def __len__(self) -> int:
        return self.n


def url_ids(n: int, seed: int = 11) -> list[str]:
    """N distinct URL-like ids: 5,000 sites whose shares fall as 1/rank (the
    largest has about 11 %), a section, a date and a slug of 1-5
    pseudo-words, the document number, and a query string on a fifth."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("bcdfghjklmnprstvwz")), np.array(list("aeiou"))

    def word() -> str:
        syllables = rng.integers(2, 5)
        consonants = rng.choice(letters[0], syllables)
        vowels = rng.choice(letters[1], syllables)
        return "".join(c + v for c, v in zip(consonants, vowels))

    words = [word() for _ in range(3000)]
    tlds = ["com", "com", "com", "org", "net", "cn", "com.cn", "co.uk", "de", "io"]
    hosts = [
        ("www." if rng.random() < 0.6 else word() + ".")
        + word()
        + word()
        + "."
        + tlds[rng.integers(len(tlds))]
        for _ in range(5000)
    ]
    sections = [word() for _ in range(40)]
    share = 1.0 / np.arange(1, len(hosts) + 1)
    site = rng.choice(len(hosts), n, p=share / share.sum())
    section = rng.integers(0, len(sections), n)
    day = rng.integers(0, 3650, n)
    slug_len = rng.integers(1, 6, n)
    slug_words = rng.integers(0, len(words), (n, 5))
    query = rng.random(n) < 0.2
    ids = []
    for i in range(n):
        d = int(day[i])
        date = f"{2016 + d // 365}/{d % 365 // 31 + 1:02}/{d % 31 + 1:02}"
        slug = "-".join(words[w] for w in slug_words[i, : slug_len[i]])
        tail = f"?from=feed&page={i % 7}" if query[i] else ""
        ids.append(
            f"https://{hosts[site[i]]}/{sections[section[i]]}/{date}/{slug}-{i}.html{tail}"
        )
    return ids


def query_mix(rng: np.random.Generator, stored: np.ndarray, count: int) -> np.ndarray:
    """Every other query a stored fingerprint with up to 3 random bits
    flipped, the rest uniform random."""
    queries = rng.integers(0, 2**64, size=count, dtype=np.uint64)
    near = stored[rng.integers(0, len(stored), size=(count + 1) // 2)]
    flips = rng.integers(0, 4, size=len(near))
    for round_ in range(3):
        bits = rng.integers(0, 64, size=len(near)).astype(np.uint64)
        near = np.where(flips > round_, near ^ (np.uint64(1) << bits), near)
    queries[0::2] = near
    return queries


def brute_force(stored: np.ndarray, query: int) -> np.ndarray:
    """Positions of the stored fingerprints within K bits of `query`."""
    distances = np.bitwise_count(stored ^ np.uint64(query))
    return np.nonzero(distances <= K)[0]


def check_answers(
    answers_path: Path, stored: np.ndarray, ids, queries: np.ndarray
) -> dict:
    """fpdb's answers against the scan, query by query; times the scan."""
    answers = [json.loads(line) for line in answers_path.read_text().splitlines()]
    if len(answers) != len(queries):
        raise SystemExit(f"fpdb answered {len(answers)} of {len(queries)} queries")
    matches = 0
    started = time.perf_counter()
    for answer, query in zip(answers, queries.tolist()):
        expected = {ids[i] for i in brute_force(stored, query).tolist()}
        got = {doc for match in answer["matches"] for doc in match["ids"]}
        if got != expected:
            raise SystemExit(
                f"query {answer['query']}: fpdb {got}, brute force {expected}"
            )
        for match in answer["matches"]:
            if (int(match["fp"], 16) ^ query).bit_count() != match["distance"]:
                raise SystemExit(f"query {answer['query']}: wrong distance in {match}")
        matches += len(got)
    return {
        "queries": len(queries),
        "matches": matches,
        "scan_us_per_query": (time.perf_counter() - started) / len(queries) * 1e6,
    }


def bench_faiss(stored: np.ndarray, query_sets: dict) -> dict:
    import faiss

    def as_bytes(fps: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(fps.astype("<u8")).view(np.uint8).reshape(-1, 8)

    # K + 1 hash tables of 64 / (K + 1) bits: within K bits means equal on
    # one table's bits (pigeonhole), so a range search of radius K + 1 is
    # exact, as fpdb is.
    started = time.perf_counter()
    index = faiss.IndexBinaryMultiHash(64, K + 1, 64 // (K + 1))
    index.nflip = 0
    index.add(as_bytes(stored))
    result = {"build_s": time.perf_counter() - started}
    for name, queries in query_sets.items():
        started = time.perf_counter()
        index.range_search(as_bytes(queries), K + 1)
        result[f"{name}_s"] = time.perf_counter() - started
    return result


def median_runs(command: list[str], runs: int, output: Path) -> dict:
    results = [run(command, output) for _ in range(runs)]
    walls = sorted(r["wall_s"] for r in results)
    return {
        "wall_s": statistics.median(walls),
        "min_s": walls[0],
        "max_s": walls[-1],
        "cpu_s": statistics.median(r["cpu_s"] for r in results),
        "rss_mib": max(r["rss_mib"] for r in results),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fpdb", help="the fpdb binary")
    parser.add_argument("--n", type=int, default=10_000_000, help="fingerprints stored")
    parser.add_argument(
        "--runs", type=int, default=10, help="fresh processes per input"
    )
    parser.add_argument(
        "--work",
        help="directory for the files, kept after the run (default: a temporary one)",
    )
    parser.add_argument(
        "--ids",
        choices=["doc", "url"],
        default="doc",
        help="stored ids: doc<i>, or URL-like ones",
    )
    args = parser.parse_args()
    if args.work:
        # Kept after the run, database included, to look into.
        work = Path(args.work)
        work.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(work / "db", ignore_errors=True)
    else:
        work_dir = tempfile.TemporaryDirectory()
        work = Path(work_dir.name)
    fpdb = str(Path(args.fpdb).resolve())
    log(f"started; {os.popen('uptime').read().strip()}")

    rng = np.random.default_rng(7)
    stored = rng.integers(0, 2**64, size=args.n, dtype=np.uint64)
    queries = query_mix(rng, stored, 10_000)
    query_sets = {
        "q0": queries[:0],
        "q1000": queries[:1000],
        "q10000": queries,
        # Random fingerprints alone: almost never a match, so the cost of
        # probing the tables without reading any ids.
        "r10000": rng.integers(0, 2**64, size=10_000, dtype=np.uint64),
    }
    ids = NumberedIds("doc", args.n) if args.ids == "doc" else url_ids(args.n)
    raw_id_bytes = sum(len(ids[i].encode()) for i in range(args.n))
    write_fps(work / "fps.tsv", ids, stored)
    for name, fps in query_sets.items():
        write_fps(work / f"{name}.tsv", NumberedIds("q", len(fps)), fps)
    log(f"wrote {args.n:,} stored and {len(queries):,} queries")

    db = str(work / "db")
    subprocess.run([fpdb, "create", db, "--expected", str(args.n)], check=True)
    if not Path("/usr/bin/time").exists():
        raise SystemExit("GNU time (/usr/bin/time) is needed: apt-get install time")
    load = run([fpdb, "load", db, str(work / "fps.tsv")])
    load["lines_per_s"] = args.n / load["wall_s"]
    log(f"load: {load}")
    stats = json.loads(
        subprocess.run(
            [fpdb, "stats", "--format", "json", db], check=True, capture_output=True
        ).stdout
    )
    table_disk = sum(t["disk_bytes"] for t in stats["tables"])
    ids_disk = stats["ids_disk_bytes"]

    warm = {}
    for name in query_sets:
        command = [fpdb, "query", db, str(work / f"{name}.tsv")]
        warm[name] = median_runs(command, args.runs, work / f"{name}.json")
        log(f"{name} warm: {warm[name]}")
    cold = {}
    for name in query_sets:
        if not drop_page_cache():
            log("not root: the page cache cannot be dropped; no cold runs")
            break
        cold[name] = run([fpdb, "query", db, str(work / f"{name}.tsv")])
        log(f"{name} cold: {cold[name]}")
    disk = sum(f.stat().st_size for f in Path(db).iterdir() if f.is_file())

    log("brute force: checking fpdb's answers to 1,000 queries")
    checked = check_answers(work / "q1000.json", stored, ids, query_sets["q1000"])
    log(f"checked: {checked}")
    log("faiss")
    faiss_result = bench_faiss(
        stored, {"q1000": query_sets["q1000"], "q10000": queries}
    )
    log(f"faiss: {faiss_result}")
    log(f"finished; {os.popen('uptime').read().strip()}")

    open_s = warm["q0"]["wall_s"]
    print(
        f"\nN = {args.n:,}; {args.runs} fresh processes per input, medians (min-max)\n"
    )
    print("| run | wall | after open | CPU | max RSS |")
    print("|---|---|---|---|---|")
    print(
        f"| `fpdb load`, {args.n:,} lines | {load['wall_s']:.2f} s "
        f"({load['lines_per_s'] / 1e6:.2f}M lines/s) | | {load['cpu_s']:.2f} s "
        f"| {load['rss_mib']:.0f} MiB |"
    )
    labels = {
        "q0": "open only (empty input)",
        "q1000": "1,000 queries",
        "q10000": "10,000 queries",
        "r10000": "10,000 random queries (no ids read)",
    }
    for name, label in labels.items():
        r = warm[name]
        after = "" if name == "q0" else f"{(r['wall_s'] - open_s) * 1e3:.1f} ms"
        print(
            f"| `fpdb query`, {label}, warm | {r['wall_s'] * 1e3:.1f} ms "
            f"({r['min_s'] * 1e3:.1f}-{r['max_s'] * 1e3:.1f}) | {after} "
            f"| {r['cpu_s'] * 1e3:.0f} ms | {r['rss_mib']:.0f} MiB |"
        )
    for name, label in labels.items():
        if name in cold:
            r = cold[name]
            print(
                f"| `fpdb query`, {label}, page cache dropped | {r['wall_s'] * 1e3:.0f} ms "
                f"| | {r['cpu_s'] * 1e3:.0f} ms | {r['rss_mib']:.0f} MiB |"
            )
    print(
        f"| faiss IndexBinaryMultiHash build, in memory | {faiss_result['build_s']:.2f} s | | | |"
    )
    for name in ("q1000", "q10000"):
        print(
            f"| faiss, {labels[name]}, in memory | {faiss_result[name + '_s'] * 1e3:.1f} ms | | | |"
        )
    print(
        f"| numpy brute-force scan, per query | {checked['scan_us_per_query'] / 1e3:.1f} ms | | | |"
    )
    print(
        f"\nDatabase on disk: {disk / 1e6:.0f} MB: tables {table_disk / 1e6:.0f} MB, "
        f"ids {ids_disk / 1e6:.0f} MB ({args.ids} ids, {raw_id_bytes / 1e6:.0f} MB raw, "
        f"{raw_id_bytes / args.n:.1f} bytes each); "
        f"{disk / (table_disk + raw_id_bytes):.2f} x (tables + raw ids). "
        f"fpdb's answers to the 1,000 queries ({checked['matches']} matches) "
        f"equal the brute-force scan's."
    )


if __name__ == "__main__":
    main()
