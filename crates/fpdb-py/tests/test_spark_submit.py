"""docs/SPARK.md's spark-submit recipe, run: the one-line job file, the
packed environment shipped with --archives, executors that import fpdb
from that environment only, and an answer equal to brute force.

The executors are separate processes (``local-cluster``), each in its own
working directory where Spark unpacks the archive, as on YARN, Kubernetes
or a standalone cluster. (``local[N]`` runs executors inside the driver,
in the driver's directory, so a relative interpreter path from an archive
cannot be used there.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import brute_pairs, planted

pyspark = pytest.importorskip("pyspark")

#: The packed environment `make python-test` builds (venv-pack).
ENV = os.environ.get("FPDB_SPARK_ENV")


def spark_home(tmp_path: Path) -> Path:
    """A Spark home of links to the pip-installed pyspark's, so that the
    workers' directories (SPARK_HOME/work) are made under tmp_path."""
    home = tmp_path / "spark-home"
    home.mkdir()
    installed = Path(pyspark.__file__).parent
    for part in ("bin", "jars", "python", "conf", "sbin"):
        if (installed / part).exists():
            (home / part).symlink_to(installed / part)
    return home


@pytest.mark.skipif(not ENV, reason="FPDB_SPARK_ENV (make python-test packs it) is not set")
def test_spark_submit_ships_fpdb_to_executors(tmp_path):
    fingerprints = planted(np.random.default_rng(7), 60, 2, 3)
    ids = [f"d{i:06d}" for i in range(len(fingerprints))]
    docs = tmp_path / "docs.parquet"
    pq.write_table(
        pa.table(
            {"id": ids, "fingerprint": np.asarray(fingerprints, dtype=np.uint64).view(np.int64)}
        ),
        docs,
    )
    out = tmp_path / "pairs"
    launcher = tmp_path / "fpdb_job.py"
    launcher.write_text("from fpdb.spark.job import main; main()\n")
    home = spark_home(tmp_path)
    env = dict(os.environ, SPARK_HOME=str(home))
    # The executors must not find fpdb anywhere but in the archive.
    env.pop("PYTHONPATH", None)
    command = [
        str(home / "bin" / "spark-submit"),
        "--master",
        "local-cluster[1,2,1024]",
        "--conf",
        "spark.ui.enabled=false",
        "--conf",
        "spark.sql.shuffle.partitions=4",
        "--archives",
        f"{ENV}#environment",
        "--conf",
        "spark.pyspark.python=./environment/bin/python",
        "--conf",
        f"spark.pyspark.driver.python={sys.executable}",
        str(launcher),
        "pairs",
        str(docs),
        str(out),
    ]
    done = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-4000:]

    expected = brute_pairs(fingerprints, 3)
    assert len(expected) > 50, "the data plants near pairs"
    got = pq.read_table(out).to_pylist()
    assert {(r["id_a"], r["id_b"], r["distance"]) for r in got} == expected
    assert len(got) == len(expected)
    assert f"pairs: {len(expected)} rows written" in done.stdout

    # The executor ran the archive's interpreter, in its own directory.
    work = list((home / "work").glob("app-*/*/environment/bin/python"))
    assert work, "no executor unpacked the environment"
