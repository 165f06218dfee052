"""`fpdb load --input warc` on real-shaped pages: does it use every core?

In one run, on this machine: the detection-quality report's pages (real
Chinese and English articles, each under two site templates, the Chinese
ones half in GBK) written as one WARC file by `quality --warc`, then loaded
into a new database by a fresh `fpdb load --input warc` on every core and,
as the baseline, pinned to one core (`taskset -c 0`). Both must report the
same fingerprints (checked through `fpdb export`).

    make bench-warc
    python benches/scripts/warc_load.py FPDB QUALITY_BIN QUALITY_CACHE
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import tempfile
import time
from pathlib import Path

from cli_cold import log, run


def load(fpdb: str, warc: Path, work: Path, name: str, pin: bool) -> dict:
    """A fresh database loaded from `warc`; its timings and export digest."""
    db = str(work / name)
    subprocess.run([fpdb, "create", db], check=True)
    command = [fpdb, "load", db, "--input", "warc", str(warc)]
    result = run(["taskset", "-c", "0", *command] if pin else command)
    exported = subprocess.run(
        [fpdb, "export", db], check=True, capture_output=True
    ).stdout
    result["digest"] = hashlib.sha256(
        b"".join(sorted(exported.splitlines()))
    ).hexdigest()
    result["documents"] = len(exported.splitlines())
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fpdb")
    parser.add_argument("quality")
    parser.add_argument("cache")
    args = parser.parse_args()
    log(f"uptime: {os.popen('uptime').read().strip()}")
    with tempfile.TemporaryDirectory(prefix="fpdb-warc-") as tmp:
        work = Path(tmp)
        warc = work / "pages.warc"
        subprocess.run(
            [args.quality, "--data", args.cache, "--warc", str(warc)], check=True
        )
        megabytes = warc.stat().st_size / 1e6
        runs = {}
        for name, pin in [
            ("all", False),
            ("one", True),
            ("all2", False),
            ("one2", True),
        ]:
            runs[name] = load(args.fpdb, warc, work, name, pin)
            log(f"{name}: {runs[name]}")
        digests = {r["digest"] for r in runs.values()}
        if len(digests) != 1:
            raise SystemExit("the loads disagree on the fingerprints")
        cores = os.cpu_count()
        print(
            f"\n{time.strftime('%Y-%m-%d %H:%M')}, {cores} cores, WARC {megabytes:.1f} MB, "
            f"{runs['all']['documents']} pages\n"
        )
        print("| run | wall | MB/s of WARC | CPU time | cores busy | RSS |")
        print("|---|---|---|---|---|---|")
        for name, label in [
            ("all", "every core"),
            ("all2", "every core, again"),
            ("one", "one core (`taskset -c 0`)"),
            ("one2", "one core, again"),
        ]:
            r = runs[name]
            print(
                f"| {label} | {r['wall_s']:.2f} s | {megabytes / r['wall_s']:.1f} | "
                f"{r['cpu_s']:.2f} s | {r['cpu_s'] / r['wall_s']:.2f} | {r['rss_mib']:.0f} MiB |"
            )
        best_all = min(runs["all"]["wall_s"], runs["all2"]["wall_s"])
        best_one = min(runs["one"]["wall_s"], runs["one2"]["wall_s"])
        print(
            f"\nSpeed-up over one core: {best_one / best_all:.2f}x; "
            f"uptime after: {os.popen('uptime').read().strip()}"
        )


if __name__ == "__main__":
    main()
