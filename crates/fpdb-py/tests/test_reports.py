"""The report dicts have exactly the keys of their TypedDicts, so the
types a checker sees are the dicts Python gets."""

from __future__ import annotations

import typing

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
