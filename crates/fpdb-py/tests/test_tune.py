"""fpdb.tune measures every setting on copies planted into the texts given,
exactly as `fpdb tune` does: the same report, keys as typed, a figure when
asked, and bad arguments refused."""

from __future__ import annotations

import json
import pathlib
import subprocess
import typing

import pytest
from serving import fpdb_binary

import fpdb

TEXT_DIR = pathlib.Path(__file__).resolve().parents[3] / "data" / "text"


def paragraphs() -> list[str]:
    """The repository's article paragraphs longer than 40 characters."""
    out = []
    for path in sorted(TEXT_DIR.glob("*.txt")):
        out += [line for line in path.read_text().splitlines() if len(line) > 40]
    assert len(out) >= 36
    return out


def test_tune_reports_what_the_cli_reports(tmp_path):
    texts = paragraphs()
    report = fpdb.tune(texts, originals=12, seed=9, figure=str(tmp_path / "s.svg"))
    assert set(report) == set(typing.get_type_hints(fpdb.TuneReport))
    for row in report["settings"]:
        assert set(row) == set(typing.get_type_hints(fpdb.TunedSetting))
    assert report["originals"] == 12
    # Two weightings × (distance, every candidate at 8 radii; weak bits at 10).
    assert len(report["settings"]) == 2 * (8 + 8 + 10)
    assert report["confirm_threshold"] is None
    assert {row["check"] for row in report["settings"]} == {
        "distance",
        "weak-bits",
        "every-candidate",
    }
    assert report["recommended"] in report["settings"]
    best = report["recommended"]
    for row in report["settings"]:
        if row["precision"] >= 0.99 and (row["confirmed"] or row["radius"] <= 7):
            assert row["recall"] <= best["recall"]
    svg = (tmp_path / "s.svg").read_text()
    assert svg.startswith("<svg") and "learned+confirm-every" in svg

    sample = tmp_path / "sample.jsonl"
    sample.write_text(
        "".join(json.dumps({"id": f"p{i}", "text": t}) + "\n" for i, t in enumerate(texts))
    )
    cli = subprocess.run(
        [
            fpdb_binary(),
            "tune",
            "--originals",
            "12",
            "--seed",
            "9",
            "--format",
            "json",
            str(sample),
        ],
        check=True,
        capture_output=True,
    )
    printed = json.loads(cli.stdout)
    for only_the_cli_knows in ("create", "figure"):
        printed.pop(only_the_cli_knows)
    assert printed == report


def test_tune_refuses_bad_arguments():
    texts = paragraphs()
    with pytest.raises(fpdb.InvalidInputError, match="minimum precision 2"):
        fpdb.tune(texts, min_precision=2.0)
    with pytest.raises(fpdb.InvalidInputError, match="threshold"):
        fpdb.tune(texts, confirm_threshold=-1.0)
    with pytest.raises(fpdb.InvalidInputError, match="at least 2 texts"):
        fpdb.tune(texts[:1])
    with pytest.raises(fpdb.InvalidInputError, match="tokenizer"):
        fpdb.tune(texts, tokenizer="nonsense")
