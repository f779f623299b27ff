"""Runs the FileCheck suite (``lit -v tests/filecheck``) so that ``pytest`` alone runs
everything; fails on any failing lit test, and when lit finds no test at all.  The default run
checks the passes and the dialects (one file per pass flag, an ``invalid.mlir`` per dialect);
the whole suite, with the command-line tools' files (whose behaviour the ``test_vta_*`` modules
also check in-process), the upstream forms and the examples, runs with ``-m slow``.  Also runs
the plugin example's suite (``lit -v examples/plugins``): the ``lit.cfg.py`` recipe that
``docs/python-api.md`` gives users for testing their own pass plugins.

The suites of the selected tests start in the background once pytest has collected them
(``tests/lit_suites.py``); each test here waits for its suite's report."""

from __future__ import annotations

import re

import pytest

from tests import lit_suites


def checked_report(test_name: str) -> int:
    """The report of ``test_name``'s suite; returns how many tests lit found, asserting none
    failed."""
    status, report = lit_suites.report(test_name)
    found = re.search(r"Total Discovered Tests: (\d+)", report)
    assert found is not None and int(found.group(1)) > 0, f"lit found no tests:\n{report}"
    failures = [
        line for line in report.splitlines() if re.match(r"(FAIL|XPASS|UNRESOLVED|TIMEOUT):", line)
    ]
    assert status == 0 and not failures, "\n".join(failures) + "\n\n" + report[-20000:]
    return int(found.group(1))


def test_lit_passes_and_dialects() -> None:
    checked_report("test_lit_passes_and_dialects")


@pytest.mark.slow
def test_lit_suite() -> None:
    checked_report("test_lit_suite")


def test_plugin_example_suite() -> None:
    """The example lit configuration finds the example's test, which loads the plugin next to
    it by path and passes."""
    tests = sorted(p.name for p in lit_suites.PLUGIN_SUITE.rglob("*.mlir")
                   if "Output" not in p.parts)
    assert checked_report("test_plugin_example_suite") == len(tests) >= 1
