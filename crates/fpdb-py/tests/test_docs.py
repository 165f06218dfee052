"""The examples in the package's docstrings run and say what they show."""

from __future__ import annotations

import doctest

import fpdb
import fpdb._config


def test_docstring_examples():
    for module in (fpdb, fpdb._config):
        result = doctest.testmod(module, extraglobs={"fpdb": fpdb})
        assert result.failed == 0
    for obj in (fpdb.Db, fpdb.fingerprint):
        finder = doctest.DocTestFinder()
        runner = doctest.DocTestRunner()
        tests = finder.find(obj, globs={"fpdb": fpdb})
        assert sum(len(test.examples) for test in tests) > 0, obj
        for test in tests:
            runner.run(test)
        assert runner.failures == 0, obj
