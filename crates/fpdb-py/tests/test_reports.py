"""The report dicts have exactly the keys of their TypedDicts, so the
types a checker sees are the dicts Python gets."""

from __future__ import annotations

import json
import subprocess
import typing

import pytest
from serving import fpdb_binary

import fpdb


def keys(typed_dict: type) -> set[str]:
    return set(typing.get_type_hints(typed_dict))


def test_stats_verify_backup_bulk_load_and_repair_match_their_types(tmp_path):
    path = str(tmp_path / "db")
    with fpdb.Db.create(path) as db:
        summary = db.bulk_load(ids=["a", "b"], fps=[1, 2])
        assert set(summary) == keys(fpdb.BulkLoadSummary)
        assert summary["documents"] == 2
        stats = db.stats()
        assert set(stats) == keys(fpdb.Stats)
        assert stats["ids"] == 2
        assert stats["tables"]
        for table in stats["tables"]:
            assert set(table) == keys(fpdb.TableStats)
        report = db.verify()
        assert set(report) == keys(fpdb.VerifyReport)
        assert report["clean"] is True
        backup = db.backup(str(tmp_path / "copy"))
        assert set(backup) == keys(fpdb.BackupReport)
    assert set(fpdb.Db.verify_at(path)) == keys(fpdb.VerifyReport)
    repaired = fpdb.Db.repair(path)
    assert set(repaired) == keys(fpdb.RepairReport)
    assert repaired["damage"] == []


def cli_json(*arguments: str) -> dict:
    done = subprocess.run(
        [fpdb_binary(), *arguments, "--format", "json"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_cli_prints_the_reports_python_returns(tmp_path):
    path = str(tmp_path / "db")
    with fpdb.Db.create(path, tokenizer="words") as db:
        db.bulk_load(ids=["a", "b", "c"], fps=[1, 3, 2**64 - 1])
    with fpdb.Db.open(path, read_only=True) as db:
        stats = db.stats()
        verified = db.verify()
    from_cli = cli_json("stats", path)
    assert set(from_cli) == set(stats)
    assert from_cli == stats
    assert stats["tokenizer"] == "words"
    assert stats["block_bytes"] == sum(table["bytes"] for table in stats["tables"])
    # The command adds the path it checked; the rest is the library's report.
    verify_cli = cli_json("verify", path)
    assert verify_cli.pop("path") == path
    assert verify_cli == verified
    repair_cli = cli_json("repair", path)
    assert repair_cli.pop("path") == path
    assert repair_cli.pop("seconds") >= 0
    repaired = fpdb.Db.repair(path)
    assert repair_cli == repaired
    assert repaired["repaired"] is False
    backup_cli = cli_json("backup", path, str(tmp_path / "copy"))
    assert backup_cli.pop("source") == path
    assert backup_cli.pop("seconds") >= 0
    assert backup_cli.pop("verify")["clean"] is True
    assert set(backup_cli) == keys(fpdb.BackupReport)
    assert backup_cli["path"] == str(tmp_path / "copy")


def test_verify_and_repair_tell_a_callable_how_far_they_are(tmp_path):
    path = str(tmp_path / "db")
    ids = [f"doc-{i}" for i in range(5000)]
    fps = [(i * 0x9E3779B97F4A7C15) % 2**64 for i in range(5000)]
    with fpdb.Db.create(path) as db:
        db.bulk_load(ids=ids, fps=fps)
        blocks = sum(table["blocks"] for table in db.stats()["tables"])
        seen: list[tuple[str, int, int | None]] = []
        assert db.verify(progress=lambda *told: seen.append(told))["clean"]
    # Each phase starts at 0 and its last report reaches its total.
    last = {}
    for phase, done, total in seen:
        if phase not in last:
            assert done == 0
        last[phase] = (done, total)
    assert last == {"blocks": (blocks, blocks), "ids": (10_000, 10_000)}
    told_at_path: list[tuple[str, int, int | None]] = []
    fpdb.Db.verify_at(path, progress=lambda *told: told_at_path.append(told))
    assert told_at_path == seen
    phases = []
    fpdb.Db.repair(path, progress=lambda phase, done, total: phases.append(phase))
    assert set(phases) == {"blocks", "ids"}
    with pytest.raises(TypeError, match="callable"):
        fpdb.Db.verify_at(path, progress=True)
