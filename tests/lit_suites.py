"""The lit suites that ``tests/test_lit.py`` checks, run in a process of their own.

pytest runs the tests one at a time, on one core; lit's suites are hundreds of short
``vta-opt | filecheck`` processes.  :func:`start_selected` (called by ``tests/conftest.py`` once
the tests are collected) starts every selected suite in the background with one lit worker, so
the suites run beside the rest of the tests; the test of a suite then waits for its report
(:func:`report`).  A suite that was not started beforehand runs when its test asks for it.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "tests" / "filecheck"
PLUGIN_SUITE = ROOT / "examples" / "plugins"

#: The suites by the name of the test of ``tests/test_lit.py`` that checks them.
SUITES: dict[str, tuple[Path, ...]] = {
    "test_lit_passes_and_dialects": (SUITE / "passes", SUITE / "dialects"),
    "test_lit_suite": (SUITE,),
    "test_plugin_example_suite": (PLUGIN_SUITE,),
}

# The lit release in use has no ``__main__`` module (``python -m lit`` fails), hence the
# explicit call of ``lit.main.main``.
_LIT_MAIN = "import sys; from lit.main import main; sys.argv[0] = 'lit'; sys.exit(main())"
TIMEOUT_S = 3600


@dataclass
class LitRun:
    """A lit process and the file its output goes to (a file, not a pipe, so that a long
    report never blocks the process while nobody reads it)."""

    process: subprocess.Popen[bytes]
    output: IO[bytes]

    def wait(self) -> tuple[int, str]:
        """The exit status and the report."""
        try:
            status = self.process.wait(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            status = self.process.wait()
        self.output.seek(0)
        report = self.output.read().decode(errors="replace")
        self.output.close()
        return status, report

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.output.close()


_started: dict[str, LitRun] = {}


def start(suites: Iterable[Path], workers: int | None = None) -> LitRun:
    """lit on ``suites`` with this interpreter, so that the suites see this environment's
    ``vta-opt``, ``vta-run`` and ``filecheck``."""
    output = tempfile.TemporaryFile()
    jobs = [] if workers is None else [f"-j{workers}"]
    process = subprocess.Popen(
        [sys.executable, "-c", _LIT_MAIN, "-v", *jobs, *map(str, suites)],
        stdout=output, stderr=subprocess.STDOUT)
    return LitRun(process, output)


def start_selected(test_names: Iterable[str]) -> None:
    """Starts, with one worker each, the suites of the selected tests of ``tests/test_lit.py``."""
    for name in test_names:
        if name in SUITES and name not in _started:
            _started[name] = start(SUITES[name], workers=1)


def report(test_name: str) -> tuple[int, str]:
    """The exit status and report of the suite of ``test_name``: of the run started in the
    background if there is one, else of a run started now."""
    run = _started.pop(test_name, None) or start(SUITES[test_name])
    return run.wait()


def stop_all() -> None:
    """Stops the background runs nobody waited for (an interrupted or failed session)."""
    while _started:
        _started.popitem()[1].stop()
