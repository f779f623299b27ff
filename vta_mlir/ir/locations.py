"""Source locations (``file:line:col``) of operations parsed from text.

xDSL 0.74's parser keeps no positions: an op gets a location only when the input spells one
out with ``loc(...)``.  :class:`LocatedParser` records where every op starts (the first token
of its result list, or of its name when it has no results, as MLIR does) and stores it in the
op's own ``location`` field as a ``FileLineColLoc``.  The field is not an attribute: it is
printed only with ``--print-debuginfo``, ignored by verification and CSE, and copied by
``Operation.clone``, so an op keeps its position through passes that clone it.  Ops that
passes create are unknown until given one; :func:`copy_location` does that, and
:func:`location_of` can fall back to the nearest located ancestor.

Locations also name **layers** (:func:`layer_name`): a ``NameLoc`` (``loc("conv1")``, or
``loc("conv1"("net.mlir":3:4))``) names the layer of its op, otherwise the file and line do.
``vta-pack`` gives every op of a VTA region ``NameLoc(layer, <the op's own position>)``
(:class:`RegionLayers`), so every later op, and every command of the host program, carries the
layer of the region it comes from while diagnostics keep their ``file:line:col``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

__all__ = [
    "LocatedParser",
    "RegionLayers",
    "SourceLocation",
    "clean_layer_name",
    "copy_location",
    "given_layer_name",
    "layer_name",
    "location_of",
    "mlir_string",
    "set_location",
]


def mlir_string(text: str) -> str:
    """``text`` as an MLIR string literal (a ``loc("name")``, an attribute): quotes and
    backslashes escaped, characters that do not print (a newline) as ``\\XX`` escapes of
    their UTF-8 bytes, which the parser decodes back."""
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable():
            out.append(ch)
        else:
            out += [f"\\{b:02X}" for b in ch.encode("utf-8")]
    out.append('"')
    return "".join(out)


@dataclass(frozen=True, order=True)
class SourceLocation:
    """A 1-based line and column in a named source."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def to_attr(self) -> FileLineColLoc:
        """The builtin location attribute, ``loc("file":line:col)``."""
        return FileLineColLoc(StringAttr(self.file), IntAttr(self.line), IntAttr(self.col))


def _from_attr(loc: Attribute) -> SourceLocation | None:
    """The first file/line/col position inside a location attribute, if any."""
    match loc:
        case FileLineColLoc():
            return SourceLocation(loc.filename.data, loc.line.data, loc.column.data)
        case NameLoc():
            return _from_attr(loc.location)
        case CallSiteLoc():
            return _from_attr(loc.callee) or _from_attr(loc.caller)
        case FusedLoc():
            for inner in loc.locations.data:  # type: ignore[union-attr]
                if (found := _from_attr(inner)) is not None:
                    return found
            return None
        case _:
            return None


def location_of(op: Operation, *, inherit: bool = False) -> SourceLocation | None:
    """Where ``op`` comes from; with ``inherit``, the nearest located ancestor's position when
    ``op`` itself has none (for ops created by a pass)."""
    current: Operation | None = op
    while current is not None:
        if (found := _from_attr(current.location)) is not None:
            return found
        if not inherit:
            return None
        current = current.parent_op()
    return None


def set_location(op: Operation, location: SourceLocation | None) -> None:
    """Give ``op`` a position (``None`` makes it unknown)."""
    op.location = location.to_attr() if location is not None else UnknownLoc()


def copy_location(source: Operation, targets: Operation | Iterable[Operation]) -> None:
    """Give the ops a pass creates the location of the op they replace, as MLIR rewrites do."""
    for target in [targets] if isinstance(targets, Operation) else targets:
        target.location = source.location


def _name_in(loc: Attribute) -> str | None:
    """The name of the outermost ``NameLoc`` in a location attribute, if any."""
    match loc:
        case NameLoc():
            return loc.desc.data
        case CallSiteLoc():
            return _name_in(loc.callee) or _name_in(loc.caller)
        case FusedLoc():
            for inner in loc.locations.data:  # type: ignore[union-attr]
                if (found := _name_in(inner)) is not None:
                    return found
            return None
        case _:
            return None


def given_layer_name(op: Operation) -> str | None:
    """The name a ``NameLoc`` in ``op``'s location gives its layer (outermost first), if any."""
    return _name_in(op.location)


def layer_name(op: Operation) -> str | None:
    """The layer ``op`` belongs to: the name of the outermost ``NameLoc`` of its location, else
    ``file:line`` of its position; None for an op without a location."""
    if (name := given_layer_name(op)) is not None:
        return name
    found = _from_attr(op.location)
    return None if found is None else f"{found.file}:{found.line}"


#: Longest layer name in bytes (names are stored like segment names in a ``.vtab``).
MAX_LAYER_NAME_BYTES = 255


def clean_layer_name(name: str) -> str:
    """``name`` as a layer name of a binary: printable (other characters become ``?``), not
    empty, at most :data:`MAX_LAYER_NAME_BYTES` bytes of UTF-8."""
    text = "".join(c if c.isprintable() else "?" for c in name) or "?"
    raw = text.encode("utf-8")[:MAX_LAYER_NAME_BYTES]
    return raw.decode("utf-8", errors="ignore")


#: How a layer named after its principal op calls that op (``conv2d@12``, ``matmul@30``).
_OP_KINDS = {
    "linalg.matmul": "matmul",
    "linalg.conv_2d_nchw_fchw": "conv2d",
    "linalg.depthwise_conv_2d_nchw_chw": "dwconv2d",
    "linalg.pooling_nchw_max": "maxpool",
    "linalg.pooling_nchw_sum": "sumpool",
}


def _reduces(op: Operation) -> bool:
    """A contraction, convolution or pooling: a linalg op with a reduction iterator."""
    get = getattr(op, "get_iterator_types", None)
    if get is None or not op.name.startswith("linalg."):
        return False
    return any(str(getattr(it, "data", it)).endswith("reduction") for it in get())


def _op_kind(op: Operation) -> str:
    if op.name in _OP_KINDS:
        return _OP_KINDS[op.name]
    if op.name == "linalg.generic":
        if not _reduces(op):
            return "elementwise"
        # A generic contraction on NCHW tensors is a convolution, on matrices a matmul.
        ranks = {len(t.get_shape()) for t in (o.type for o in op.operands)
                 if hasattr(t, "get_shape")}
        if 4 in ranks:  # six loops: a depthwise convolution's (n, c, oh, ow, kh, kw)
            return "dwconv2d" if len(list(op.get_iterator_types())) == 6 else "conv2d"
        return "matmul" if ranks == {2} else "reduction"
    return op.name.split(".")[-1]


class RegionLayers:
    """The layers of one function's VTA regions, for ``vta-pack``: :meth:`add` the ops created
    for each op of a region, then :meth:`close` the region with the op writing its output.

    The region's *principal* op names the layer: its contraction, convolution or pooling, else
    the output's writer.  A ``NameLoc`` on that op gives the name (``loc("conv1")``); otherwise
    it is the op's kind and line (``conv2d@12``, ``elementwise@30``).  Names are unique within
    the function (``#2``, ``#3`` appended).  Every op of the region then gets the location
    ``NameLoc(layer, <the position of the op it was created for>)``.
    """

    def __init__(self) -> None:
        self._taken: set[str] = set()
        self._pending: list[tuple[Operation, tuple[Operation, ...]]] = []

    def add(self, source: Operation, ops: Sequence[Operation]) -> None:
        """``ops`` were created for ``source``, in the region being emitted."""
        self._pending.append((source, tuple(ops)))

    def name_for(self, principal: Operation) -> str:
        """A layer name for the region ``principal`` leads, unique within the function."""
        name = given_layer_name(principal)
        if name is None:
            where = location_of(principal)
            kind = _op_kind(principal)
            name = kind if where is None else f"{kind}@{where.line}"
        name = clean_layer_name(name)
        unique, n = name, 1
        while unique in self._taken:
            n += 1
            unique = clean_layer_name(f"{name[:240]}#{n}")
        self._taken.add(unique)
        return unique

    def close(self, writer: Operation) -> str:
        """End the region whose output ``writer`` computes; returns the layer's name."""
        principal = next((s for s, _ in self._pending if _reduces(s)), writer)
        name = StringAttr(self.name_for(principal))
        for source, ops in self._pending:
            found = _from_attr(source.location)
            inner = found.to_attr() if found is not None else UnknownLoc()
            for op in ops:
                op.location = NameLoc(name, inner)
        self._pending = []
        return name.data


class LineIndex:
    """Maps character offsets of a text to 1-based (line, column) in O(log n)."""

    def __init__(self, text: str, *, line_offset: int = 0) -> None:
        self._starts = [0]
        self._starts.extend(m.end() for m in re.finditer("\n", text))
        self.line_offset = line_offset

    def position(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self._starts, offset) - 1
        return index + 1 + self.line_offset, offset - self._starts[index] + 1


class LocatedParser(Parser):
    """xDSL's parser, recording the source position of every op it parses.

    ``line_offset`` is added to line numbers, for one chunk of a split input file.  Exceptions
    other than ``ParseError`` raised while an op is built (an attribute that fails its
    verifier, such as ``300 : i8``, or a crash in a stock custom parser) become a
    ``ParseError`` at the op, so every parse failure has a position.
    """

    def __init__(
        self, ctx: Context, text: str, name: str = "<stdin>", *, line_offset: int = 0
    ) -> None:
        super().__init__(ctx, text, name)
        self.filename = name
        self.lines = LineIndex(text, line_offset=line_offset)
        self.line_offset = line_offset
        #: First use of each SSA name referenced before it is defined, for the error message.
        self._first_forward_use: dict[str, Span] = {}

    def location_at(self, offset: int) -> SourceLocation:
        line, col = self.lines.position(offset)
        return SourceLocation(self.filename, line, col)

    def parse_operation(self) -> Operation:
        start = self._current_token.span
        try:
            op = super().parse_operation()
        except (ParseError, RecursionError):
            # Too deep a nesting is reported by parse_module, once the stack has unwound.
            raise
        except Exception as exc:
            message = " ".join(str(exc).split()) or type(exc).__name__
            if isinstance(exc, ImportError):
                # A dialect is loaded on first use; its module failed to import.
                message = f"cannot load the dialect of this operation ({message})"
            elif not isinstance(exc, DiagnosticException):
                # A crash inside a stock custom parser: its bare message is cryptic alone.
                message = f"malformed operation ({type(exc).__name__}: {message})"
            raise ParseError(start, message) from exc
        if isinstance(op.location, UnknownLoc):
            op.location = self.location_at(start.start).to_attr()
        elif isinstance(op.location, NameLoc) and isinstance(op.location.location,
                                                             NoneAttr | UnknownLoc):
            # `loc("conv1")` names the op without placing it: keep the name (a layer's name)
            # and add where the op is, so that diagnostics still point at its line.
            op.location = NameLoc(op.location.desc, self.location_at(start.start).to_attr())
        return op

    def resolve_operand(  # type: ignore[override]
        self, operand: UnresolvedOperand, type: Attribute
    ) -> SSAValue:
        name = operand.operand_name
        if name not in self.ssa_values and name not in self._first_forward_use:
            self._first_forward_use[name] = operand.span
        return super().resolve_operand(operand, type)

    def _register_ssa_definition(self, name: str, values: Sequence[SSAValue], span: Span) -> None:
        # A forward reference that gets defined is no longer a candidate for the error.
        self._first_forward_use.pop(name, None)
        super()._register_ssa_definition(name, values, span)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        if allow_implicit_module and self._current_token.kind == MLIRTokenKind.EOF:
            # Nothing but blanks and comments (an empty file, the chunk after a trailing
            # `// -----`): an empty module, as in MLIR.
            module = ModuleOp([])
            module.location = SourceLocation(self.filename, 1 + self.line_offset, 1).to_attr()
            return module
        try:
            module = super().parse_module(allow_implicit_module)
        except ParseError as exc:
            # xDSL reports values never defined at the end of the input; MLIR points at the
            # first use, which is where the reader has to look.
            if exc.msg.startswith("values used but not defined") and self.forward_ssa_references:
                name = next(iter(self.forward_ssa_references))
                span = self._first_forward_use.get(name)
                if span is not None:
                    raise ParseError(span, f"use of undeclared SSA value name %{name}") from exc
            raise
        if isinstance(module.location, UnknownLoc):
            module.location = SourceLocation(self.filename, 1 + self.line_offset, 1).to_attr()
        return module
