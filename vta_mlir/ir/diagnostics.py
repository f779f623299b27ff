"""MLIR-style diagnostics: ``file:line:col: error: message``, attached to operations.

Passes report a problem with an op through :func:`report_error`, which raises a
:class:`DiagnosticError` (a :class:`~vta_mlir.errors.VTAError`) carrying a :class:`Diagnostic`
that names the op and its source position.  Non-fatal diagnostics (warnings, remarks) go
through :func:`emit_warning` / :func:`emit_remark` to the innermost handler installed with
:func:`collect_diagnostics`, or straight to stderr when there is none.  :func:`verify_op`
verifies IR like ``Operation.verify`` but reports the failing op with its position.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NoReturn

from xdsl.dialects import affine, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.dialects.memref import DYNAMIC_INDEX
from xdsl.ir import Block, Operation
from xdsl.printer import Printer
from xdsl.traits import NoTerminator, SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import DiagnosticException

from vta_mlir.errors import VTAError
from vta_mlir.ir.locations import SourceLocation, location_of

__all__ = [
    "NESTING_TOO_DEEP",
    "Diagnostic",
    "DiagnosticError",
    "ExpectedDiagnostic",
    "Severity",
    "check_expected_diagnostics",
    "collect_diagnostics",
    "emit",
    "emit_error",
    "emit_remark",
    "emit_warning",
    "one_line",
    "op_diagnostic",
    "parse_expected_diagnostics",
    "report_error",
    "verify_op",
]


#: The error for input nested deeper than the Python stack allows the parser, verifier,
#: printer or passes to recurse (``"(" * 1000`` in a type, deeply nested attributes or regions).
NESTING_TOO_DEEP = "nesting too deep: the input nests more levels than vta-mlir can process"


class Severity(StrEnum):
    """Kinds of diagnostics, spelled as MLIR prints them."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"
    REMARK = "remark"


def one_line(text: str) -> str:
    """Collapse a multi-line exception message (xDSL wraps some) into one line."""
    return " ".join(part.strip() for part in text.strip().splitlines() if part.strip())


@dataclass
class Diagnostic:
    """One message about the IR: severity, text, where (if known) and which op (if any)."""

    message: str
    severity: Severity = Severity.ERROR
    location: SourceLocation | None = None
    op: Operation | None = None
    notes: list[Diagnostic] = field(default_factory=list["Diagnostic"])

    def attach_note(
        self, message: str, *, op: Operation | None = None, location: SourceLocation | None = None
    ) -> Diagnostic:
        """Add a note; without a position of its own it is shown at the diagnostic's."""
        if location is None and op is not None:
            location = location_of(op, inherit=True)
        note = Diagnostic(message, Severity.NOTE, location or self.location, op)
        self.notes.append(note)
        return note

    def header(self, default_file: str | None = None) -> str:
        """The first line, ``file:line:col: error: message``."""
        if self.location is not None:
            where = f"{self.location}: "
        elif default_file is not None:
            where = f"{default_file}: "
        else:
            where = ""
        return f"{where}{self.severity}: {self.message}"

    def format(
        self,
        *,
        sources: Mapping[str, str] | None = None,
        show_op: bool = True,
        default_file: str | None = None,
    ) -> str:
        """The diagnostic as MLIR prints it: the header, the source line with a caret under
        the column (when ``sources`` has the file), then ``note: see current operation:``
        with the op in generic form, then the notes."""
        lines = [self.header(default_file)]
        lines.extend(_snippet(self.location, sources))
        if show_op and self.op is not None and self.severity != Severity.NOTE:
            where = f"{self.location}: " if self.location is not None else ""
            lines.append(f"{where}note: see current operation: {print_op_generic(self.op)}")
        for note in self.notes:
            lines.append(note.format(sources=sources, show_op=False, default_file=default_file))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.header()


def _snippet(location: SourceLocation | None, sources: Mapping[str, str] | None) -> list[str]:
    if location is None or sources is None or location.file not in sources:
        return []
    text_lines = sources[location.file].splitlines()
    if not 1 <= location.line <= len(text_lines):
        return []
    line = text_lines[location.line - 1]
    return [line, " " * (location.col - 1) + "^"]


def print_op_generic(op: Operation) -> str:
    """``op`` in generic form, as MLIR shows the op a diagnostic is about."""
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(op)
    return out.getvalue().rstrip("\n")


class DiagnosticError(VTAError, DiagnosticException):
    """An error about the IR, with the op and source position it concerns.

    Both a :class:`~vta_mlir.errors.VTAError` (the project's user-facing errors) and an xDSL
    ``DiagnosticException`` (so xDSL's own drivers treat it as a diagnostic, not a crash).
    """

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.header())
        self.diagnostic = diagnostic

    @property
    def op(self) -> Operation | None:
        return self.diagnostic.op

    @property
    def location(self) -> SourceLocation | None:
        return self.diagnostic.location


def op_diagnostic(
    op: Operation | None, message: str, severity: Severity = Severity.ERROR
) -> Diagnostic:
    """A diagnostic at ``op``, worded as MLIR's ``op->emitError``: ``'name' op message``."""
    if op is None:
        return Diagnostic(message, severity)
    return Diagnostic(f"'{op.name}' op {message}", severity, location_of(op, inherit=True), op)


def report_error(op: Operation | None, message: str, *, notes: Iterable[str] = ()) -> NoReturn:
    """Stop with an error at ``op``: raises :class:`DiagnosticError`."""
    diagnostic = op_diagnostic(op, message)
    for note in notes:
        diagnostic.attach_note(note)
    raise DiagnosticError(diagnostic)


# --------------------------------------------------------------------------------------------
# Non-fatal diagnostics and their handlers
# --------------------------------------------------------------------------------------------

DiagnosticHandler = Callable[[Diagnostic], None]

_handlers: ContextVar[tuple[DiagnosticHandler, ...]] = ContextVar("_handlers", default=())


def emit(diagnostic: Diagnostic) -> Diagnostic:
    """Send a diagnostic to the innermost handler (stderr when none is installed)."""
    handlers = _handlers.get()
    if handlers:
        handlers[-1](diagnostic)
    else:
        print(diagnostic.format(), file=sys.stderr)
    return diagnostic


def emit_error(op: Operation | None, message: str) -> Diagnostic:
    """Report an error at ``op`` and carry on (the driver fails the run afterwards); use
    :func:`report_error` to stop at once."""
    return emit(op_diagnostic(op, message, Severity.ERROR))


def emit_warning(op: Operation | None, message: str) -> Diagnostic:
    return emit(op_diagnostic(op, message, Severity.WARNING))


def emit_remark(op: Operation | None, message: str) -> Diagnostic:
    return emit(op_diagnostic(op, message, Severity.REMARK))


@contextmanager
def collect_diagnostics() -> Iterator[list[Diagnostic]]:
    """Within the block, emitted diagnostics are appended to the yielded list."""
    collected: list[Diagnostic] = []
    token = _handlers.set((*_handlers.get(), collected.append))
    try:
        yield collected
    finally:
        _handlers.reset(token)


# --------------------------------------------------------------------------------------------
# Verification with positions
# --------------------------------------------------------------------------------------------


def _position(op: Operation, cache: dict[Block, dict[Operation, int]]) -> int:
    block = op.parent
    assert block is not None
    if block not in cache:
        cache[block] = {o: i for i, o in enumerate(block.ops)}
    return cache[block][op]


def _verify_dominance(op: Operation, cache: dict[Block, dict[Operation, int]]) -> None:
    """Report an operand defined by an op that does not come before the user in the user's
    block (or in a block enclosing it), or defined in a block that does not enclose the user
    at all: xDSL's parser accepts such references and its verifier does not check dominance,
    and passes then fail on the ill-formed IR in ways that are not diagnostics.  Uses across
    the blocks of one CFG region are not checked."""
    for index, operand in enumerate(op.operands):
        definer = operand.owner
        block = definer if isinstance(definer, Block) else definer.parent
        if block is None:
            continue
        user: Operation | None = op
        while user is not None and user.parent is not block:
            user = user.parent_op()
        if user is None:
            # Defined in a block that does not enclose the use (a value of another function).
            report_error(op, f"operand #{index} is defined in a region that does not enclose "
                             "this use")
        if isinstance(definer, Operation) and (
                user is definer or _position(definer, cache) > _position(user, cache)):
            report_error(op, f"operand #{index} does not dominate this use")


def verify_op(op: Operation, _positions: dict[Block, dict[Operation, int]] | None = None, *,
              vouched: Callable[[Operation], bool] | None = None) -> None:
    """Verify ``op`` and everything nested in it, innermost ops first (as
    ``Operation.verify`` does), raising :class:`DiagnosticError` at the first op that fails.

    ``vouched`` names ops the caller vouches for, whose own verifier does not run: a pass
    that builds them from checked records (and runs their own checks itself), or that only
    moved ops the module verified before.  Their regions and the dominance of their operands
    are verified all the same."""
    positions: dict[Block, dict[Operation, int]] = {} if _positions is None else _positions
    for region in op.regions:
        for block in region.blocks:
            if block.first_op is None and len(region.blocks) == 1:
                if not op.has_trait(NoTerminator):
                    report_error(
                        op, "contains an empty block in a region that expects a terminator"
                    )
            for child in block.ops:
                verify_op(child, positions, vouched=vouched)
    if vouched is None or not vouched(op):
        try:
            op.verify(verify_nested_ops=False)
        except DiagnosticError:
            raise
        except (DiagnosticException, ValueError) as exc:
            report_error(op, one_line(str(exc)) or type(exc).__name__)
    # After the op's own verifier, as MLIR orders them: an op that is wrong in itself is
    # reported as such even when it also uses a value defined later.
    _verify_dominance(op, positions)
    _verify_symbol_parent(op)
    _verify_affine_step(op)
    _verify_subview_bounds(op)


def _verify_subview_bounds(op: Operation) -> None:
    """Report a ``memref.subview`` whose static offsets, sizes and strides reach beyond its
    source's static shape: xDSL's verifier accepts it, and passes then index past the
    buffer."""
    if not isinstance(op, memref.SubviewOp):
        return
    source = op.source.type
    if not isinstance(source, MemRefType):
        return
    shape = source.get_shape()
    offsets = op.static_offsets.get_values()
    sizes = op.static_sizes.get_values()
    strides = op.static_strides.get_values()
    if not len(shape) == len(offsets) == len(sizes) == len(strides):
        return
    for dim, (extent, offset, size, stride) in enumerate(zip(shape, offsets, sizes, strides,
                                                             strict=True)):
        if DYNAMIC_INDEX in (offset, size, stride) or extent < 0 or size == 0:
            continue
        last = offset + (size - 1) * stride
        if offset < 0 or last < 0 or last >= extent:
            report_error(op, f"the view runs out of its source along dimension {dim}: offset "
                             f"{offset}, size {size} and stride {stride} reach element {last} "
                             f"of {extent}")


def _verify_affine_step(op: Operation) -> None:
    """Report an ``affine.for`` whose step is not positive, as MLIR's verifier does (xDSL's
    accepts it, and such a loop never ends)."""
    if isinstance(op, affine.ForOp) and op.step.value.data <= 0:
        report_error(op, f"expected step to be a positive integer, got {op.step.value.data}")


def _verify_symbol_parent(op: Operation) -> None:
    """Report a symbol (a ``func.func``, a ``memref.global``) nested in an op that is no
    symbol table, such as a loop or a ``linalg.generic`` body: nothing could refer to it, and
    xDSL's verifiers accept it."""
    # A builtin.module may nest anywhere (a host step holds one): it is a symbol only when
    # named, and nothing here names one.
    if op.name == "builtin.module" or not op.has_trait(SymbolOpInterface):
        return
    parent = op.parent_op()
    if parent is not None and not parent.has_trait(SymbolTable):
        report_error(op, f"symbol's parent must have the SymbolTable trait (it is in "
                         f"'{parent.name}'; a {op.name} belongs directly in a builtin.module)")


# --------------------------------------------------------------------------------------------
# `// expected-error {{...}}` annotations, for --verify-diagnostics
# --------------------------------------------------------------------------------------------

_DESIGNATOR = re.compile(
    r"expected-(?P<kind>error|warning|note|remark)(?P<re>-re)?[ \t]*"
    r"(?:@(?P<where>[+-][0-9]+|above|below|unknown))?[ \t]*\{\{(?P<text>.*)\}\}[ \t]*$"
)


#: The start of any ``expected-*`` directive, well-formed or not.
_DIRECTIVE = re.compile(r"//\s*(expected-(?:error|warning|note|remark)(?:-re)?)\b")


def _designator_regex(text: str) -> re.Pattern[str]:
    """The pattern of an ``expected-*-re`` message: literal text with ``{{regex}}`` parts."""
    parts: list[str] = []
    rest = text
    while (start := rest.find("{{")) != -1:
        end = rest.find("}}", start + 2)
        if end == -1:
            break
        parts.append(re.escape(rest[:start]))
        parts.append(f"(?:{rest[start + 2 : end]})")
        rest = rest[end + 2 :]
    parts.append(re.escape(rest))
    return re.compile("".join(parts))


@dataclass
class ExpectedDiagnostic:
    """One ``// expected-<severity>[@where] {{message}}`` annotation."""

    severity: Severity
    #: The line the diagnostic is expected on; ``None`` for ``@unknown`` (no location).
    line: int | None
    #: Where the annotation itself is written (for the "was not produced" error).
    location: SourceLocation
    text: str
    pattern: re.Pattern[str] | None = None
    matched: bool = False

    def matches(self, diagnostic: Diagnostic, filename: str) -> bool:
        if diagnostic.severity != self.severity:
            return False
        loc = diagnostic.location
        if self.line is None:
            if loc is not None:
                return False
        elif loc is None or loc.file != filename or loc.line != self.line:
            return False
        if self.pattern is not None:
            return self.pattern.search(diagnostic.message) is not None
        return self.text in diagnostic.message


def parse_expected_diagnostics(
    text: str, *, filename: str, line_offset: int = 0
) -> list[ExpectedDiagnostic]:
    """The annotations of ``text`` (one chunk of ``filename`` starting ``line_offset`` lines
    in), with MLIR's designators: same line, ``@+N``/``@-N``, ``@above`` (the last line
    without an annotation), ``@below`` (the next such line) and ``@unknown``."""
    found: list[ExpectedDiagnostic] = []
    pending_below: list[ExpectedDiagnostic] = []
    last_plain_line: int | None = None
    for index, line_text in enumerate(text.splitlines()):
        line = index + 1 + line_offset
        designator = None
        start = line_text.find("expected-")
        if start != -1:
            designator = _DESIGNATOR.search(line_text, start)
            directive = _DIRECTIVE.search(line_text)
            if designator is None and directive is not None:
                # MLIR refuses a directive it cannot read instead of ignoring it.
                raise DiagnosticError(Diagnostic(
                    f"malformed {directive[1]} directive: its text goes in {{{{...}}}} at the "
                    "end of the line",
                    location=SourceLocation(filename, line, directive.start() + 1)))
        if designator is None:
            # A line the `@above`/`@below` designators can refer to.
            for expected in pending_below:
                expected.line = line
            pending_below.clear()
            last_plain_line = line
            continue
        where = designator["where"]
        expected = ExpectedDiagnostic(
            Severity(designator["kind"]),
            line,
            SourceLocation(filename, line, designator.start() + 1),
            designator["text"],
            _designator_regex(designator["text"]) if designator["re"] else None,
        )
        if where is None:
            pass
        elif where == "unknown":
            expected.line = None
        elif where == "above":
            expected.line = last_plain_line if last_plain_line is not None else line
        elif where == "below":
            pending_below.append(expected)
        else:
            expected.line = line + int(where)
        found.append(expected)
    return found


def _flatten(diagnostics: Iterable[Diagnostic]) -> Iterator[Diagnostic]:
    for diagnostic in diagnostics:
        yield diagnostic
        yield from _flatten(diagnostic.notes)


def check_expected_diagnostics(
    expected: list[ExpectedDiagnostic], produced: Iterable[Diagnostic], *, filename: str
) -> list[Diagnostic]:
    """Match produced diagnostics (notes included) against the annotations; return one error
    per diagnostic nobody expected and per annotation nothing produced (empty when all
    agree), worded as MLIR's ``-verify-diagnostics``."""
    problems: list[Diagnostic] = []
    for diagnostic in _flatten(produced):
        for candidate in expected:
            if not candidate.matched and candidate.matches(diagnostic, filename):
                candidate.matched = True
                break
        else:
            problems.append(
                Diagnostic(
                    f"unexpected {diagnostic.severity}: {diagnostic.message}",
                    location=diagnostic.location,
                )
            )
    for candidate in expected:
        if not candidate.matched:
            problems.append(
                Diagnostic(
                    f'expected {candidate.severity} "{candidate.text}" was not produced',
                    location=candidate.location,
                )
            )
    return problems
