"""Runs the FileCheck suite (``lit -v tests/filecheck``) so that ``pytest`` alone runs
everything; fails on any failing lit test, and when lit finds no test at all.

lit is started with this interpreter (``sys.executable``), so the suite sees this
environment's ``vta-opt`` and ``filecheck``.  The lit release in use has no ``__main__``
module (``python -m lit`` fails), hence the explicit call of ``lit.main.main``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SUITE = Path(__file__).resolve().parent / "filecheck"
_LIT_MAIN = "import sys; from lit.main import main; sys.argv[0] = 'lit'; sys.exit(main())"


def test_lit_suite() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _LIT_MAIN, "-v", str(SUITE)],
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
