"""The examples in the package's docstrings run and say what they show."""

from __future__ import annotations

import doctest

import fpdb
import fpdb._config
import fpdb.parquet
import fpdb.spark._columns


def test_docstring_examples():
    modules = (fpdb, fpdb._config, fpdb.parquet, fpdb.spark._columns)
    for module in modules:
        result = doctest.testmod(module, extraglobs={"fpdb": fpdb})
        assert result.failed == 0
        assert result.attempted > 0, module
    for obj in (fpdb.Db, fpdb.fingerprint):
        finder = doctest.DocTestFinder()
        runner = doctest.DocTestRunner()
        tests = finder.find(obj, globs={"fpdb": fpdb})
        assert sum(len(test.examples) for test in tests) > 0, obj
        for test in tests:
            runner.run(test)
        assert runner.failures == 0, obj
