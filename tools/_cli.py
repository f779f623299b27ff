"""Helpers shared by the command-line tools: reading the input (a file or ``-`` for stdin),
writing the output (``-o``), MLIR-style one-line errors and the top-level guard that turns
every exception into one of them (never a traceback, unless ``VTA_MLIR_DEBUG=1``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, NoReturn

from vta_mlir.errors import VTAError

__all__ = [
    "DEBUG_ENV",
    "CLIArgumentParser",
    "ErrorReport",
    "InputFile",
    "UsageError",
    "debug_enabled",
    "describe_exception",
    "print_error",
    "read_input",
    "run_guarded",
    "write_output",
]

#: Set to ``1`` to let unexpected exceptions show their traceback.
DEBUG_ENV = "VTA_MLIR_DEBUG"


def debug_enabled() -> bool:
    return os.environ.get(DEBUG_ENV, "") not in ("", "0")


class UsageError(VTAError):
    """Bad command-line arguments."""


class CLIArgumentParser(argparse.ArgumentParser):
    """``argparse`` that raises :class:`UsageError` instead of exiting with status 2, so a bad
    argument is reported like every other error (one line, exit status 1)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


@dataclass(frozen=True)
class InputFile:
    """The text of the input and the name diagnostics use for it (``<stdin>`` for ``-``)."""

    name: str
    text: str


def read_input(path: str | None) -> InputFile:
    """Read ``path``, or stdin when it is ``None`` or ``-``."""
    if path is None or path == "-":
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise VTAError(f"cannot open input file '{path}': {exc.strerror or exc}") from exc
        name = path
    try:
        return InputFile(name, data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise VTAError(f"{name}: input is not valid UTF-8 ({exc.reason})") from exc


def write_output(path: str | None, text: str) -> None:
    """Write ``text`` to ``path``, or stdout when it is ``None`` or ``-``."""
    if path is None or path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise VTAError(f"cannot write output file '{path}': {exc.strerror or exc}") from exc


def print_error(prog: str, message: str, stream: IO[str] | None = None) -> None:
    """``prog: error: message`` (for errors with no source position)."""
    print(f"{prog}: error: {message}", file=stream or sys.stderr)


@dataclass(frozen=True)
class ErrorReport:
    """What to print for an exception: the message, its source position if known, and
    whether it is an internal error (a bug) rather than a problem with the input."""

    message: str
    location: str | None = None
    internal: bool = False

    def line(self, prog: str) -> str:
        return f"{self.location or prog}: error: {self.message}"


def describe_exception(exc: BaseException) -> ErrorReport:
    """The one-line report of ``exc``."""
    from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError

    from vta_mlir.ir.diagnostics import DiagnosticError, one_line

    if isinstance(exc, DiagnosticError):
        location = exc.diagnostic.location
        return ErrorReport(exc.diagnostic.message, str(location) if location else None)
    if isinstance(exc, ParseError):
        return ErrorReport(one_line(exc.msg), str(exc.span.get_location()))
    if isinstance(exc, ArgSpecParseError):
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        return ErrorReport(f"invalid pass pipeline: {lines[-1] if lines else exc}")
    if isinstance(exc, VTAError | DiagnosticException):
        return ErrorReport(one_line(str(exc)) or type(exc).__name__)
    if isinstance(exc, NotImplementedError):
        return ErrorReport(f"not supported: {one_line(str(exc)) or 'not implemented'}")
    message = one_line(str(exc))
    detail = f": {message}" if message else ""
    return ErrorReport(f"internal error: {type(exc).__name__}{detail}", internal=True)


def run_guarded(
    prog: str, body: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None = None
) -> int:
    """Run ``body(argv)`` and return its exit status; any exception becomes one error line on
    stderr and status 1 (``VTA_MLIR_DEBUG=1`` re-raises unexpected ones, with traceback)."""
    try:
        return body(argv)
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except KeyboardInterrupt:
        print_error(prog, "interrupted")
        return 130
    except BrokenPipeError:
        # The reader went away (`vta-opt x.mlir | head`): stop quietly, and keep Python from
        # failing again when it flushes stdout at exit.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        return 1
    except BaseException as exc:  # ArgSpecParseError derives from BaseException
        report = describe_exception(exc)
        if report.internal and debug_enabled():
            raise
        print(report.line(prog), file=sys.stderr)
        return 1
