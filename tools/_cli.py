"""Helpers shared by the command-line tools: reading the input (a file or ``-`` for stdin, as
text or as a ``.vtab`` or MLIR :class:`~vta_mlir.driver.Source`), writing the output (``-o``,
all at once: a temporary file renamed into place), ``--config``, the pass pipeline options
(``-p``, ``--pass-pipeline``, ``--load-pass-plugin``), MLIR-style errors and the top-level
guard that turns every exception into one of them (never a traceback, unless
``VTA_MLIR_DEBUG=1``; an interrupt is ``interrupted``, exit status 130).
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import IO, NoReturn

from vta_mlir.atomic_write import atomic_open
from vta_mlir.config import VTAConfig
from vta_mlir.driver import Source
from vta_mlir.errors import VTAError
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.ir.pipeline import (
    ErrorReport,
    describe_exception,
    load_pass_plugin,
    load_pass_plugins_from_env,
    mlir_pipeline_to_xdsl,
)

__all__ = [
    "DEBUG_ENV",
    "CLIArgumentParser",
    "ErrorReport",
    "InputFile",
    "UsageError",
    "add_pipeline_arguments",
    "debug_enabled",
    "describe_exception",
    "load_config",
    "load_pass_plugins",
    "open_output",
    "pipeline_spec",
    "print_diagnostic",
    "print_error",
    "read_input",
    "read_source",
    "run_guarded",
    "write_binary_output",
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


def read_source(path: str | None) -> Source:
    """Read ``path`` (``None`` or ``-``: stdin) as bytes; decode it unless it is a ``.vtab``."""
    if path is None or path == "-":
        return Source.from_bytes(sys.stdin.buffer.read(), "<stdin>")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise VTAError(f"cannot open input file '{path}': {exc.strerror or exc}") from None
    return Source.from_bytes(data, path)


def load_config(spec: str | None) -> VTAConfig | None:
    """The configuration ``--config`` names (a ``vta_config.json`` path or a shipped name), or
    ``None`` when it was not given (the input's own, else the default, applies)."""
    if spec is None:
        return None
    return VTAConfig.load(spec)


def add_pipeline_arguments(parser: argparse.ArgumentParser) -> None:
    """``-p``/``--passes`` (xDSL's pipeline syntax), ``--pass-pipeline`` (MLIR's) and
    ``--load-pass-plugin`` (repeatable), as ``vta-opt`` and ``vta-run`` spell them."""
    parser.add_argument("-p", "--passes", default=None, help="xDSL pipeline: 'a,b{opt=v}'")
    parser.add_argument(
        "--pass-pipeline",
        default=None,
        help="MLIR pipeline: 'builtin.module(a,b{opt=v})'",
    )
    parser.add_argument(
        "--load-pass-plugin",
        action="append",
        default=[],
        metavar="FILE.py|MODULE",
        help="import a Python file or module that registers passes (repeatable)",
    )


def load_pass_plugins(args: argparse.Namespace) -> list[ModuleType]:
    """Import the pass plugins of ``VTA_MLIR_PASS_PLUGINS``, then those of
    ``--load-pass-plugin``."""
    loaded = load_pass_plugins_from_env()
    for spec in args.load_pass_plugin:
        loaded.append(load_pass_plugin(spec))
    return loaded


def pipeline_spec(args: argparse.Namespace) -> str | None:
    """The pipeline of ``-p`` or ``--pass-pipeline`` in xDSL's flat syntax, ``None`` when
    neither was given."""
    if args.passes is not None and args.pass_pipeline is not None:
        raise VTAError("use either -p/--passes or --pass-pipeline, not both")
    given = args.pass_pipeline if args.pass_pipeline is not None else args.passes
    return None if given is None else mlir_pipeline_to_xdsl(given)


@contextmanager
def open_output(path: str) -> Iterator[IO[bytes]]:
    """A binary file object whose contents replace ``path`` once the ``with`` block ends
    (:func:`vta_mlir.atomic_write.atomic_open`: an error or an interrupt leaves the old file, a
    concurrent reader never sees a torn one); an ``OSError`` becomes the tools' one-line
    error."""
    try:
        with atomic_open(path, "wb") as f:
            yield f
    except OSError as exc:
        raise VTAError(f"cannot write output file '{path}': {exc.strerror or exc}") from None


def check_outputs_spare_inputs(inputs: Sequence[str | None],
                               outputs: Sequence[str | None]) -> None:
    """An error when an output file is one of the input files: the tools that write another
    kind of file than they read (a model's MLIR, a run's arrays) would replace their input
    with it."""
    read = [name for name in inputs if name and name != "-" and os.path.isfile(name)]
    for out in outputs:
        if out and out != "-" and os.path.isfile(out):
            for name in read:
                if os.path.samefile(out, name):
                    raise VTAError(f"output file '{out}' is the input file '{name}'; give "
                                   "another path")


def check_output_paths(outputs: Sequence[str | None]) -> None:
    """An error, before anything is written, for an output path that cannot be written: a
    folder, or a file in a folder that does not exist.  A run writing several files then
    writes all of them or none."""
    for out in outputs:
        if not out or out == "-":
            continue
        folder = os.path.dirname(os.path.abspath(out))
        # The words the write itself would have failed with.
        if os.path.isdir(out):
            raise VTAError(f"cannot write output file '{out}': {os.strerror(errno.EISDIR)}")
        if not os.path.isdir(folder):
            raise VTAError(f"cannot write output file '{out}': {os.strerror(errno.ENOENT)}")
        if not os.access(folder, os.W_OK):
            raise VTAError(f"cannot write output file '{out}': {os.strerror(errno.EACCES)}")


def write_output(path: str | None, text: str) -> None:
    """Write ``text`` to ``path`` (see :func:`open_output`), or stdout when it is ``None`` or
    ``-``."""
    if path is None or path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    with open_output(path) as f:
        f.write(text.encode("utf-8"))


def write_binary_output(path: str | None, data: bytes) -> None:
    """Write ``data`` to ``path`` (see :func:`open_output`), or stdout when it is ``None`` or
    ``-``."""
    if path is None or path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    with open_output(path) as f:
        f.write(data)


def _interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` is, or was raised while handling, a ``KeyboardInterrupt``: an interrupt
    that lands inside library code (numpy writing an array) can surface as another
    exception."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def print_error(prog: str, message: str, stream: IO[str] | None = None) -> None:
    """``prog: error: message`` (for errors with no source position)."""
    print(f"{prog}: error: {message}", file=stream or sys.stderr)


def print_diagnostic(exc: DiagnosticError, source: Source | None) -> None:
    """Print ``exc`` to stderr as MLIR does: ``file:line:col: error: ...``, the source line
    with a caret, the op concerned."""
    sources = source.sources if source is not None else None
    default = source.name if source is not None else None
    print(exc.diagnostic.format(sources=sources, default_file=default), file=sys.stderr)


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
        if _interrupted(exc):
            print_error(prog, "interrupted")
            return 130
        report = describe_exception(exc)
        if report.internal and debug_enabled():
            raise
        print(report.line(prog), file=sys.stderr)
        return 1
