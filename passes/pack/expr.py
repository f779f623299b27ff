"""Expressions of ``vta-pack``'s recognition: what a buffer holds, over the function arguments.

:class:`~.match.FunctionRecognizer` keeps for every buffer the value it holds
as a small tree of these expressions (``passes/pack/match.py`` describes each kind); the
convolution :class:`~.match_conv.Conv` extends :class:`Gemm`.  Also here:
how messages name buffers (:func:`label`), an error with a note (:func:`error_with_note`), and
the element-type and indexing-map queries the recognizers share.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

from xdsl.dialects.builtin import AnyFloat, IntegerType, Signedness
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap

from vta_mlir.ir.diagnostics import DiagnosticError, op_diagnostic
from vta_mlir.isa import AluKind

__all__ = [
    "Alu",
    "Const",
    "Expr",
    "Gemm",
    "HostStepBuffers",
    "Load",
    "Narrow",
    "Output",
    "Value",
    "error_with_note",
    "int_width",
    "label",
    "result_dims",
    "type_problem",
]

@dataclass(eq=False)
class Expr:
    """An i32 value of every element of a buffer; ``op`` is where it comes from."""

    op: Operation


@dataclass(eq=False)
class Const(Expr):
    value: int


@dataclass(eq=False)
class Load(Expr):
    """The contents of a function argument (sign-extended when i8); ``broadcast``: a vector
    (or one-row matrix) repeated over the rows of the result, more generally an operand whose
    axes are the result dimensions ``axes`` (``None``: a unit axis), repeated over the others
    (``(1,)`` or ``(None, 1)`` for a per-column bias of a matrix, ``(1,)`` for a per-channel
    bias of an NCHW tensor)."""

    arg: BlockArgument
    broadcast: bool = False
    axes: tuple[int | None, ...] = ()

    @property
    def kept(self) -> tuple[int, ...]:
        """The result dimensions a broadcast operand varies along."""
        return tuple(d for d in self.axes if d is not None)


@dataclass(eq=False)
class Gemm(Expr):
    """``init + act · wgt`` with ``act`` (N×K, or K×N when ``act_transposed``) and ``wgt``
    (N_out×K as VTA stores it, or K×N_out when ``wgt_transposed``)."""

    init: Expr
    act: BlockArgument
    act_transposed: bool
    wgt: BlockArgument
    wgt_transposed: bool


@dataclass(eq=False)
class Alu(Expr):
    kind: AluKind
    lhs: Expr
    rhs: Expr


@dataclass(eq=False)
class Narrow:
    """An i8 value: ``value`` truncated to i8 (``truncated``), or an i8 input whose
    sign-extension is ``value``."""

    value: Expr
    truncated: bool
    op: Operation


@dataclass
class Output:
    """An i8 function argument the function writes, and what it receives; ``wide``: an i32
    result, stored as byte planes (``passes/pack/wide_outputs.py``)."""

    arg: BlockArgument
    value: Narrow
    writer: Operation
    wide: bool = False


@dataclass(frozen=True)
class HostStepBuffers:
    """A ``vta.host`` op between the regions (``passes/pack/host_steps.py``): the buffers
    (function arguments or intermediate stand-ins) it reads and writes."""

    op: Operation
    inputs: tuple[BlockArgument, ...]
    outputs: tuple[BlockArgument, ...]


Value = Expr | Narrow


def label(value: SSAValue) -> str:
    """How messages name a buffer: ``%name`` when it has one."""
    if value.name_hint:
        return f"%{value.name_hint}"
    if isinstance(value, BlockArgument):
        return f"argument #{value.index}"
    return "a buffer"


def error_with_note(op: Operation, message: str, other: Operation, note: str) -> NoReturn:
    """Stop with an error at ``op`` and a note at ``other``."""
    diagnostic = op_diagnostic(op, message)
    diagnostic.attach_note(note, op=other)
    raise DiagnosticError(diagnostic)


def int_width(t: object) -> int | None:
    """The width of a signless integer type (None for any other type)."""
    if isinstance(t, IntegerType) and t.signedness.data == Signedness.SIGNLESS:
        return t.width.data
    return None


def type_problem(t: object) -> str | None:
    """Why an element type is not one VTA holds (None: i8 and i32 are fine)."""
    if isinstance(t, AnyFloat):
        return (f"floating-point element type {t} is not supported: VTA computes on integers "
                "(i8 operands, i32 accumulators)")
    if isinstance(t, IntegerType) and t.signedness.data != Signedness.SIGNLESS:
        return f"element type {t} is not supported: use signless i8 or i32"
    if isinstance(t, IntegerType) and t.width.data not in (8, 32):
        return f"element type {t} is not supported: VTA's buffers hold i8 or i32"
    if not isinstance(t, IntegerType):
        return f"element type {t} is not supported: VTA's buffers hold i8 or i32"
    return None


def result_dims(m: AffineMap) -> list[int | None]:
    """The results of ``m`` as dimension positions (None for the constant 0, -1 otherwise)."""
    out: list[int | None] = []
    for r in m.results:
        if isinstance(r, AffineDimExpr):
            out.append(r.position)
        elif isinstance(r, AffineConstantExpr) and r.value == 0:
            out.append(None)
        else:
            out.append(-1)
    return out
