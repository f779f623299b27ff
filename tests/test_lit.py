"""Runs the FileCheck suite (``lit -v tests/filecheck``) so that ``pytest`` alone runs
everything; fails on any failing lit test, and when lit finds no test at all.  The default run
checks the passes and the dialects (one file per pass flag, an ``invalid.mlir`` per dialect);
the whole suite, with the command-line tools' files (whose behaviour the ``test_vta_*`` modules
also check in-process), the upstream forms and the examples, runs with ``-m slow``.  Also runs
the plugin example's suite (``lit -v examples/plugins``): the ``lit.cfg.py`` recipe that
``docs/python-api.md`` gives users for testing their own pass plugins.

lit is started with this interpreter (``sys.executable``), so the suites see this
environment's ``vta-opt``, ``vta-run`` and ``filecheck``.  The lit release in use has no
``__main__`` module (``python -m lit`` fails), hence the explicit call of ``lit.main.main``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "tests" / "filecheck"
PLUGIN_SUITE = ROOT / "examples" / "plugins"
_LIT_MAIN = "import sys; from lit.main import main; sys.argv[0] = 'lit'; sys.exit(main())"


def run_lit(*suites: Path) -> int:
    """Run lit on ``suites``; returns how many tests it found, asserting none failed."""
    proc = subprocess.run(
        [sys.executable, "-c", _LIT_MAIN, "-v", *map(str, suites)],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    report = proc.stdout + proc.stderr
    found = re.search(r"Total Discovered Tests: (\d+)", report)
    assert found is not None and int(found.group(1)) > 0, f"lit found no tests:\n{report}"
    failures = [
        line for line in report.splitlines() if re.match(r"(FAIL|XPASS|UNRESOLVED|TIMEOUT):", line)
    ]
    assert proc.returncode == 0 and not failures, "\n".join(failures) + "\n\n" + report[-20000:]
    return int(found.group(1))


def test_lit_passes_and_dialects() -> None:
    run_lit(SUITE / "passes", SUITE / "dialects")


@pytest.mark.slow
def test_lit_suite() -> None:
    run_lit(SUITE)


def test_plugin_example_suite() -> None:
    """The example lit configuration finds the example's test, which loads the plugin next to
    it by path and passes."""
    tests = sorted(p.name for p in PLUGIN_SUITE.rglob("*.mlir") if "Output" not in p.parts)
    assert run_lit(PLUGIN_SUITE) == len(tests) >= 1
