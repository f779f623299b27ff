"""Recognition for ``vta-pack``: what a function computes, as expressions over its arguments.

:class:`FunctionRecognizer` walks the body of a stage-0 function (``docs/pipeline.md``) once, in
program order, and keeps for every buffer the value it holds as a small expression tree:

* :class:`Const` — a splat of an integer (``linalg.fill``, folded ``arith`` constants);
* :class:`Load` — the contents of a function argument, sign-extended when it is ``i8``,
  optionally broadcast over the rows (a per-column bias);
* :class:`Gemm` — ``init + act · wgt`` of two ``i8`` arguments, whatever their orientation;
* :class:`Conv` — ``init + conv2d(act, wgt)`` of NCHW ``i8`` data and an FCHW ``i8`` kernel
  (``linalg.conv_2d_nchw_fchw`` or the equivalent ``linalg.generic``), dilation 1, any stride,
  the data an argument or a zero-padded copy of one (:class:`Padding`);
* :class:`Alu` — one VTA ALU operation (``add``, ``mul``, ``shr``, ``max``, ``min``); ``subi`` by
  a constant is already an ``add`` of its negation and ``shli`` a ``shr`` by a negative amount;
* :class:`Narrow` — an ``i8`` value: an ``i8`` argument before its ``arith.extsi``, or the
  ``arith.trunci`` of an ``i32`` expression.

Everything VTA cannot run is reported at the op responsible (``report_error``).  The result is
the list of :class:`Output` s, one per ``i8`` function argument the function writes, in the
order of their writers; ``passes/pack.py`` turns each into one VTA region.

A function works either on matrices (rank-2 buffers, per-column bias vectors) or, when one of
its arguments or buffers has rank 4, on NCHW tensors (rank-4 buffers, per-output-channel bias
vectors, element-wise maps the identity or ``(n, c, h, w) -> (c)``).

Padding is the usual memref idiom: a buffer ``%xp`` allocated with the padded shape, filled
with 0, the argument copied into its interior view, the view read by nothing else and the buffer
by one convolution only::

    %xp = memref.alloc() : memref<1x64x58x58xi8>
    linalg.fill ins(%c0_i8 : i8) outs(%xp : memref<1x64x58x58xi8>)
    %xi = memref.subview %xp[0, 0, 1, 1] [1, 64, 56, 56] [1, 1, 1, 1] : ... to ...
    memref.copy %x, %xi : ...                 // or linalg.copy ins(%x) outs(%xi)
    linalg.conv_2d_nchw_fchw ... ins(%xp, %w ...) outs(%acc ...)

gives ``Conv(..., act=%x, padding=Padding(pads=(1, 1, 1, 1)))``.  Only H and W are padded, by at
most 15 on each side (the 4-bit ``y_pad`` / ``x_pad`` fields of a DMA load).

Example: ``linalg.fill 0 → %acc; linalg.matmul (%x, %w) → %acc;
linalg.generic {trunci(minsi(maxsi(shrsi(%a, 8), 0), 127))} (%acc) → %y`` gives the output
``%y = Narrow(Alu(min, Alu(max, Alu(shr, Gemm(Const 0, %x, %w), 8), 0), 127), truncated)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NoReturn

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    Signedness,
    TensorType,
)
from xdsl.dialects.linalg import abstract_ops as linalg_abstract
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap

from vta_mlir.config import MEMOP_PAD_WIDTH
from vta_mlir.ir.diagnostics import DiagnosticError, op_diagnostic, report_error

__all__ = [
    "ALU_KINDS",
    "COMMUTATIVE",
    "Conv",
    "IMM_MAX",
    "IMM_MIN",
    "Alu",
    "Const",
    "Expr",
    "FunctionRecognizer",
    "Gemm",
    "Load",
    "Narrow",
    "Output",
    "PAD_MAX",
    "Padding",
    "error_with_note",
    "label",
]

#: VTA's ALU immediate is a signed 16-bit field (vta-isa.md §2.5).
IMM_MIN = -(1 << 15)
IMM_MAX = (1 << 15) - 1
#: Shift amounts ``arith.shrsi`` / ``arith.shli`` define on i32.
SHIFT_MAX = 31
#: The largest zero padding of one side of a DMA load (4-bit ``y_pad`` / ``x_pad`` fields).
PAD_MAX = (1 << MEMOP_PAD_WIDTH) - 1

#: ALU operations of the normal form, by the ``arith`` op that expresses each one.
ALU_KINDS: dict[str, type[Operation]] = {
    "min": arith.MinSIOp,
    "max": arith.MaxSIOp,
    "add": arith.AddiOp,
    "shr": arith.ShRSIOp,
    "mul": arith.MuliOp,
}
COMMUTATIVE = frozenset({"min", "max", "add", "mul"})

_SUPPORTED_BODY = (
    "VTA's ALU runs arith.addi, arith.subi by a constant, arith.muli, arith.shrsi and "
    "arith.shli by a constant, arith.maxsi and arith.minsi on i32, arith.extsi of i8 inputs "
    "and a final arith.trunci to i8"
)


# --------------------------------------------------------------------------------------------
# Expressions
# --------------------------------------------------------------------------------------------


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
    (or one-row matrix) repeated over the rows of the result."""

    arg: BlockArgument
    broadcast: bool = False


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
class Padding:
    """A zero-padded copy of an NCHW ``i8`` argument (module doc): the buffer ``alloc`` filled
    with 0 by ``fill``, the argument ``arg`` copied by ``copy`` into the interior ``view``,
    ``pads`` rows and columns of zeros around it (top, bottom, left, right).  ``reader`` is the
    convolution reading the buffer, ``dealloc`` the op freeing it (None: not yet seen)."""

    alloc: Operation
    view: memref.SubviewOp | None = None
    fill: Operation | None = None
    copy: Operation | None = None
    arg: BlockArgument | None = None
    pads: tuple[int, int, int, int] = (0, 0, 0, 0)
    reader: Operation | None = None
    dealloc: memref.DeallocOp | None = None

    @property
    def buffer(self) -> SSAValue:
        return self.alloc.results[0]


@dataclass(eq=False)
class Conv(Gemm):
    """``init + conv2d(act, wgt)``: ``act`` NCHW data, ``wgt`` an FCHW (OIHW) kernel, the
    output NFHW; ``strides`` along H and W (dilation is 1); ``padding`` when the convolution
    reads a zero-padded copy of ``act``."""

    strides: tuple[int, int] = (1, 1)
    padding: Padding | None = None


@dataclass(eq=False)
class Alu(Expr):
    kind: str
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
    """An i8 function argument the function writes, and what it receives."""

    arg: BlockArgument
    value: Narrow
    writer: Operation


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


def _wrap32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def _fold(kind: str, lhs: int, rhs: int) -> int:
    """``lhs <kind> rhs`` on i32, as the ALU computes it (``shr`` by a negative amount shifts
    left)."""
    if kind == "add":
        return _wrap32(lhs + rhs)
    if kind == "mul":
        return _wrap32(lhs * rhs)
    if kind == "max":
        return max(lhs, rhs)
    if kind == "min":
        return min(lhs, rhs)
    return _wrap32(lhs >> rhs) if rhs >= 0 else _wrap32(lhs << -rhs)


# --------------------------------------------------------------------------------------------
# Types and indexing maps
# --------------------------------------------------------------------------------------------


def _int_width(t: object) -> int | None:
    if isinstance(t, IntegerType) and t.signedness.data == Signedness.SIGNLESS:
        return t.width.data
    return None


def _type_problem(t: object) -> str | None:
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


def _dims(m: AffineMap) -> list[int | None]:
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


def _coefficients(m: AffineMap, result: int) -> list[int] | None:
    """The dimension coefficients of result ``result`` of ``m`` when it is a linear form of the
    dimensions without constant term (None otherwise)."""
    n = m.num_dims

    def at(point: Sequence[int]) -> int:
        return m.eval(point, [0] * m.num_symbols)[result]

    if at([0] * n) != 0:
        return None
    coeffs = [at([int(i == d) for i in range(n)]) for d in range(n)]
    # Two more points rule out floordiv / mod / ceildiv forms that agree on the unit vectors.
    for point in ([i + 2 for i in range(n)], [7 * i + 3 for i in range(n)]):
        if at(point) != sum(c * v for c, v in zip(coeffs, point, strict=True)):
            return None
    return coeffs


def _unit(n: int, terms: dict[int, int]) -> list[int]:
    return [terms.get(d, 0) for d in range(n)]


# --------------------------------------------------------------------------------------------
# The recognizer
# --------------------------------------------------------------------------------------------


@dataclass
class FunctionRecognizer:
    """Evaluates a function's body symbolically (module doc).  :meth:`run` returns the
    outputs; any unsupported construct stops it with a diagnostic at its op."""

    func: func.FuncOp
    #: Value of every allocated buffer; None while nothing has been written to it.
    state: dict[SSAValue, Value | None] = field(default_factory=dict)
    #: The op that stored into each i8 buffer (VTA stores every result once).
    stored_by: dict[SSAValue, Operation] = field(default_factory=dict)
    outputs: dict[BlockArgument, Output] = field(default_factory=dict)
    #: Rank of the function's buffers: 2 (matrices) or 4 (NCHW tensors, module doc).
    rank: int = 2
    #: The zero-padded buffers (allocations a subview is taken of), by buffer.
    padding: dict[SSAValue, Padding] = field(default_factory=dict[SSAValue, Padding])
    #: The interior view of each zero-padded buffer, to its buffer.
    views: dict[SSAValue, SSAValue] = field(default_factory=dict[SSAValue, SSAValue])

    @property
    def block(self) -> Block:
        return self.func.body.block

    def run(self) -> list[Output]:
        values = [*self.block.args,
                  *(op.memref for op in self.block.ops
                    if isinstance(op, memref.AllocOp | memref.AllocaOp))]
        if any(isinstance(v.type, MemRefType) and v.type.get_num_dims() == 4 for v in values):
            self.rank = 4
        for op in self.block.ops:
            if isinstance(op, memref.SubviewOp) \
                    and isinstance(op.source.owner, memref.AllocOp | memref.AllocaOp) \
                    and op.source.owner.parent_block() is self.block \
                    and _int_width(op.source.owner.memref.type.element_type) == 8:
                self.padding.setdefault(op.source, Padding(op.source.owner))
        for op in list(self.block.ops):
            self.visit(op)
        return list(self.outputs.values())

    # ---- ops of the function body ---------------------------------------------------------
    def visit(self, op: Operation) -> None:
        match op:
            case func.ReturnOp():
                if op.operands:
                    report_error(op, "returns values: VTA functions write their results into "
                                     "memref arguments")
            case memref.AllocOp() | memref.AllocaOp():
                if op.dynamic_sizes:
                    report_error(op, f"allocates {op.memref.type}, which has a dynamic shape: "
                                     "VTA buffers have static shapes")
                self.check_buffer(op, op.memref, vector=True)
                self.state[op.memref] = None
            case memref.DeallocOp():
                pad = self.padding.get(op.memref)
                if pad is not None:
                    pad.dealloc = op
            case memref.SubviewOp():
                self.subview(op)
            case memref.CopyOp() if op.destination in self.views:
                self.pad_copy(op, op.source, op.destination)
            case linalg.CopyOp() if len(op.outputs) == 1 and op.outputs[0] in self.views:
                if len(op.inputs) != 1 or op.res:
                    report_error(op, "copies into the interior of a zero-padded buffer with "
                                     "other than one memref input: copy one function argument")
                self.pad_copy(op, op.inputs[0], op.outputs[0])
            case memref.GetGlobalOp():
                report_error(op, f"reads the global {op.name_}: vta-pack takes constant tensors "
                                 "(a bias, weights) as function arguments, packed by the host")
            case arith.ConstantOp():
                self.constant(op)
            case memref.CopyOp():
                self.copy(op, op.source, op.destination)
            case linalg.BroadcastOp():
                self.broadcast_op(op)
            case linalg_abstract.LinalgStructuredOperation():
                self.structured(op)
            case _:
                self.unsupported(op)

    def unsupported(self, op: Operation) -> NoReturn:
        if op.regions:
            report_error(op, "is not supported by vta-pack: loops and other region ops cannot "
                             "be packed; express the computation with linalg ops on memrefs")
        report_error(op, "is not supported by vta-pack: VTA runs int8 matrix contractions, "
                         "fills, copies and element-wise linalg.generic ops on memrefs")

    def constant(self, op: arith.ConstantOp) -> None:
        value = op.value
        if isinstance(value, IntegerAttr):
            return
        what = getattr(value, "type", value)
        if isinstance(what, TensorType):
            report_error(op, "is a tensor constant: vta-pack works on memrefs; pass constant "
                             "tensors (a bias, weights) as function arguments")
        report_error(op, f"defines a constant of type {what}: VTA computes on integers "
                         "(i8 operands, i32 accumulators)")

    # ---- buffers --------------------------------------------------------------------------
    def check_buffer(self, op: Operation, value: SSAValue, *, vector: bool = False) -> MemRefType:
        """``value`` is a static memref of i8 or i32 of rank 2 (rank 1 too when ``vector``)."""
        t = value.type
        if value in self.views:
            self.padded_view_error(op, value)
        if isinstance(t, TensorType):
            report_error(op, f"operates on tensors ({t}): vta-pack works on memrefs; "
                             "bufferize the program first")
        if not isinstance(t, MemRefType):
            report_error(op, f"operand {label(value)} of type {t} is not a memref")
        if any(d < 0 for d in t.get_shape()):
            report_error(op, f"{label(value)} ({t}) has a dynamic shape: VTA buffers have "
                             "static shapes")
        if not isinstance(t.layout, NoneAttr):
            report_error(op, f"{label(value)} ({t}) has a non-contiguous layout: vta-pack "
                             "packs contiguous buffers")
        if not isinstance(t.memory_space, NoneAttr):
            report_error(op, f"{label(value)} ({t}) is already in memory space "
                             f"{t.memory_space}: vta-pack expects unpacked DRAM buffers")
        problem = _type_problem(t.element_type)
        if problem is not None:
            report_error(op, f"{label(value)}: {problem}")
        rank = t.get_num_dims()
        if not (rank == self.rank or (vector and rank == 1)):
            if self.rank == 4:
                report_error(op, f"{label(value)} ({t}) has rank {rank}: a function on NCHW "
                                 "tensors uses rank-4 buffers; only a per-channel bias may be "
                                 "1-D")
            report_error(op, f"{label(value)} ({t}) has rank {rank}: VTA operates on 2-D "
                             "matrices (rows × columns); only a per-column bias may be 1-D")
        return t

    def is_argument(self, value: SSAValue) -> bool:
        return isinstance(value, BlockArgument) and value.block is self.block

    def read(self, op: Operation, value: SSAValue) -> Value:
        """What ``value`` holds when ``op`` reads it."""
        if isinstance(value, BlockArgument) and self.is_argument(value):
            if value in self.outputs:
                error_with_note(
                    op, f"reads {label(value)} back after it was written: VTA stores its "
                        "int8 results once and does not load them again; compute from the "
                        "accumulator instead",
                    self.outputs[value].writer, "written here")
            if _int_width(value.type.element_type) == 8:  # type: ignore[attr-defined]
                return Narrow(Load(op, value), False, op)
            return Load(op, value)
        if value in self.padding:
            self.padded_read_error(op, value)
        held = self.state.get(value)
        if held is None:
            report_error(op, f"reads {label(value)} before anything was written to it")
        return held

    def write(self, op: Operation, dst: SSAValue, value: Value) -> None:
        width = _int_width(dst.type.element_type)  # type: ignore[attr-defined]
        if dst in self.padding:
            self.pad_fill(op, self.padding[dst], value)
        if self.is_argument(dst):
            assert isinstance(dst, BlockArgument)
            if width != 8:
                self.reject_i32_output(op, dst)
            self.check_single_writer(op, dst)
            assert isinstance(value, Narrow)
            self.outputs[dst] = Output(dst, value, op)
        else:
            if width == 8:
                self.check_single_writer(op, dst)
            self.state[dst] = value
        if width == 8:
            self.stored_by[dst] = op

    @staticmethod
    def reject_i32_output(op: Operation, dst: SSAValue) -> NoReturn:
        report_error(op, f"writes {label(dst)} ({dst.type}), an i32 function output: VTA "
                         "stores only int8, so a result cannot stay i32; truncate it with "
                         "arith.trunci into an i8 output")

    def check_single_writer(self, op: Operation, dst: SSAValue) -> None:
        first = self.stored_by.get(dst)
        if first is not None:
            error_with_note(
                op, f"writes {label(dst)} a second time: VTA stores every int8 result "
                    "once, so an output has a single writer", first, "first written here")

    def argument_of(self, op: Operation, value: SSAValue, what: str) -> BlockArgument:
        """The i8 function argument a contraction operand holds."""
        held = self.read(op, value)
        if isinstance(held, Narrow) and held.truncated:
            error_with_note(
                op, f"reads {label(value)} back as the {what} of a contraction: VTA does not "
                    "load its int8 results again", self.stored_by[value], "written here")
        if (isinstance(held, Narrow) and isinstance(held.value, Load)
                and not held.value.broadcast):
            return held.value.arg
        report_error(op, f"the {what} {label(value)} is not a function argument: VTA reads "
                         "contraction operands from int8 arguments")

    # ---- zero padding ---------------------------------------------------------------------
    def subview(self, op: memref.SubviewOp) -> None:
        """The interior view of a zero-padded buffer: static, unit strides, offset along H
        and W only, at most ``PAD_MAX`` rows or columns of padding on each side."""
        base = op.source
        pad = self.padding.get(base)
        if pad is None:
            report_error(op, f"takes a view of {label(base)}: vta-pack accepts memref.subview "
                             "only as the interior of a zero-padded buffer (a memref.alloc "
                             "filled with 0) that a convolution reads")
        if pad.view is not None:
            error_with_note(op, f"takes a second view of the zero-padded buffer {label(base)}: "
                                "a function argument is copied into one interior view",
                            pad.view, "first view here")
        if self.rank != 4:
            report_error(op, f"takes a view of {label(base)}: vta-pack zero-pads only the "
                             "NCHW data of a convolution")
        t = self.check_buffer(op, base)
        if _int_width(t.element_type) != 8:
            report_error(op, f"pads {label(base)} ({t}): vta-pack zero-pads only the int8 data "
                             "of a convolution")
        if op.offsets or op.sizes or op.strides:
            report_error(op, "has dynamic offsets, sizes or strides: the padding of a "
                             "convolution is static")
        offsets, sizes, strides = (tuple(a.get_values()) for a in (
            op.static_offsets, op.static_sizes, op.static_strides))
        shape = tuple(t.get_shape())
        result = op.result.type
        if not isinstance(result, MemRefType) or result.get_num_dims() != 4 \
                or len(offsets) != 4 or tuple(result.get_shape()) != sizes:
            report_error(op, f"is not a rank-4 view of {label(base)}: the interior of a padded "
                             "NCHW buffer keeps its four dimensions")
        if any(s != 1 for s in strides):
            report_error(op, f"has strides {list(strides)}: the interior of a zero-padded "
                             "buffer has unit strides")
        if any(o < 0 or o + n > d for o, n, d in zip(offsets, sizes, shape, strict=True)):
            report_error(op, f"reaches outside {label(base)} ({t})")
        if offsets[:2] != (0, 0) or sizes[:2] != shape[:2]:
            report_error(op, f"pads the batch or channel dimension of {label(base)} (offsets "
                             f"{list(offsets)}, sizes {list(sizes)} of {t}): VTA pads only H and "
                             "W; channel counts are padded to whole blocks by the host")
        pads = (offsets[2], shape[2] - offsets[2] - sizes[2],
                offsets[3], shape[3] - offsets[3] - sizes[3])
        for side, amount in zip(("top", "bottom", "left", "right"), pads, strict=True):
            if amount > PAD_MAX:
                report_error(op, f"pads {label(base)} by {amount} on the {side}: a VTA load "
                                 f"pads each side by at most {PAD_MAX} (4-bit pad fields)")
        pad.view, pad.pads = op, pads
        self.views[op.result] = base

    def pad_fill(self, op: Operation, pad: Padding, value: Value) -> None:
        """``op`` writes the zero-padded buffer: only its ``linalg.fill`` with 0 may."""
        name = label(pad.buffer)
        if pad.copy is not None:
            error_with_note(op, f"writes the zero-padded buffer {name} after its interior was "
                                "copied: a convolution reads it as it is after the copy",
                            pad.copy, "copied here")
        if pad.fill is not None:
            error_with_note(op, f"writes the zero-padded buffer {name} a second time: it is "
                                "filled with 0 once", pad.fill, "filled here")
        if not isinstance(op, linalg.FillOp):
            report_error(op, f"writes the zero-padded buffer {name}: it may only be filled with "
                             "0 (linalg.fill) and receive a function argument in its interior "
                             "(memref.copy or linalg.copy into its subview)")
        fill = value.value if isinstance(value, Narrow) else value
        if not isinstance(fill, Const) or fill.value != 0:
            shown = fill.value if isinstance(fill, Const) else "a computed value"
            report_error(op, f"fills the zero-padded buffer {name} with {shown}: VTA pads "
                             "convolution data with zeros only")
        pad.fill = op

    def pad_copy(self, op: Operation, src: SSAValue, dst: SSAValue) -> None:
        """``op`` copies ``src`` into the interior view ``dst`` of a zero-padded buffer."""
        base = self.views[dst]
        pad = self.padding[base]
        if pad.copy is not None:
            error_with_note(op, f"copies into the interior of {label(base)} a second time: a "
                                "zero-padded buffer holds one function argument", pad.copy,
                            "first copied here")
        if pad.fill is None:
            report_error(op, f"copies into the interior of {label(base)} before the buffer is "
                             "filled: fill the zero-padded buffer with 0 (linalg.fill) first")
        ts = self.check_buffer(op, src)
        tv = dst.type
        assert isinstance(tv, MemRefType)
        if ts.get_shape() != tv.get_shape() or ts.element_type != tv.element_type:
            report_error(op, f"copies {ts} into {tv}: the interior of a zero-padded buffer "
                             "receives a whole argument of its shape")
        held = self.read(op, src)
        if not (isinstance(held, Narrow) and not held.truncated
                and isinstance(held.value, Load) and not held.value.broadcast):
            report_error(op, f"copies {label(src)}, a computed buffer, into the interior of "
                             f"{label(base)}: the padded data of a convolution is a function "
                             "argument")
        pad.copy, pad.arg = op, held.value.arg
        self.stored_by[base] = op

    def padded_data(self, op: Operation, value: SSAValue) -> tuple[BlockArgument, Padding]:
        """The argument and padding of the zero-padded buffer ``value`` that the convolution
        ``op`` reads as its data."""
        pad = self.padding[value]
        name = label(value)
        if pad.reader is not None:
            error_with_note(op, f"reads the zero-padded buffer {name}, which another "
                                "convolution reads: it is the data of one convolution only",
                            pad.reader, "first read here")
        if pad.copy is None or pad.arg is None:
            report_error(op, f"reads the zero-padded buffer {name} before a function argument "
                             "is copied into its interior (memref.copy into its subview)")
        if pad.dealloc is not None:
            error_with_note(op, f"reads {name} after it is deallocated", pad.dealloc,
                            "deallocated here")
        pad.reader = op
        return pad.arg, pad

    def padded_read_error(self, op: Operation, value: SSAValue) -> NoReturn:
        pad = self.padding[value]
        message = (f"reads the zero-padded buffer {label(value)}: only the data operand of one "
                   "convolution may read it")
        if pad.reader is not None:
            error_with_note(op, message, pad.reader, "a convolution reads it here")
        if pad.copy is not None:
            error_with_note(op, message, pad.copy, "its data is copied here")
        report_error(op, message)

    def padded_view_error(self, op: Operation, view: SSAValue) -> NoReturn:
        report_error(op, f"uses {label(view)}, the interior of the zero-padded buffer "
                         f"{label(self.views[view])}: the interior only receives a function "
                         "argument (memref.copy or linalg.copy)")

    # ---- copies ---------------------------------------------------------------------------
    def copy(self, op: Operation, src: SSAValue, dst: SSAValue) -> None:
        ts = self.check_buffer(op, src)
        td = self.check_buffer(op, dst)
        if ts != td:
            report_error(op, f"copies {ts} into {td}: vta-pack copies whole buffers of one type")
        self.write(op, dst, self.read(op, src))

    def broadcast_op(self, op: linalg.BroadcastOp) -> None:
        if op.result:
            report_error(op, "operates on tensors: vta-pack works on memrefs; bufferize the "
                             "program first")
        src, dst = op.input, op.init
        ts = self.check_buffer(op, src, vector=True)
        td = self.check_buffer(op, dst)
        dims = tuple(op.dimensions.get_values())
        # The added dimensions: the rows of a matrix, or N, H and W of an NCHW tensor.
        if ts.get_num_dims() != 1 or dims != ((0,) if self.rank == 2 else (0, 2, 3)):
            report_error(op, "broadcasts along the columns (a per-row operand): VTA adds "
                             "per-column biases only, broadcast over the rows")
        if ts.get_shape()[0] != td.get_shape()[1]:
            report_error(op, f"broadcasts {ts} into {td}: the vector does not have one value "
                             "per column")
        self.write(op, dst, self.broadcast_of(op, src))

    def broadcast_of(self, op: Operation, value: SSAValue) -> Value:
        """A function argument read as a per-column bias, broadcast over the rows."""
        if not self.is_argument(value):
            report_error(op, f"broadcasts {label(value)}, a computed buffer: VTA loads a "
                             "broadcast bias only from a function argument")
        held = self.read(op, value)
        if isinstance(held, Narrow):
            assert isinstance(held.value, Load)
            return Narrow(Load(op, held.value.arg, True), False, op)
        assert isinstance(held, Load)
        return Load(op, held.arg, True)

    # ---- linalg ---------------------------------------------------------------------------
    def structured(self, op: linalg_abstract.LinalgStructuredOperation) -> None:
        if op.res or any(isinstance(v.type, TensorType) for v in op.operands):
            report_error(op, "operates on tensors: vta-pack works on memrefs; bufferize the "
                             "program first")
        if op.name.startswith("linalg.conv_2d_ng"):
            report_error(op, "is a grouped convolution: VTA runs dense convolutions (one "
                             "group); split it into one linalg.conv_2d_nchw_fchw per group")
        if op.name.startswith(("linalg.conv", "linalg.depthwise", "linalg.pooling")) \
                and not isinstance(op, linalg.Conv2DNchwFchwOp):
            report_error(op, "is not supported by vta-pack: convolutions are packed in the "
                             "NCHW × FCHW form (linalg.conv_2d_nchw_fchw or the equivalent "
                             "linalg.generic)")
        if len(op.outputs) != 1:
            report_error(op, f"has {len(op.outputs)} outputs: a VTA op writes one buffer")
        for value in op.operands:
            if isinstance(value.type, MemRefType):
                self.check_buffer(op, value, vector=True)
        maps = [m.data for m in op.get_indexing_maps()]
        if any(m.num_symbols for m in maps):
            report_error(op, "has indexing maps with symbols: vta-pack needs static maps")
        iterators = [it.data for it in op.get_iterator_types()]
        if IteratorType.REDUCTION in iterators and self.rank == 4:
            self.convolution(op, maps, iterators)
        elif IteratorType.REDUCTION in iterators:
            self.contraction(op, maps, iterators)
        elif all(it == IteratorType.PARALLEL for it in iterators):
            self.elementwise(op, maps)
        else:
            report_error(op, "has window iterators: only contractions and element-wise ops "
                             "are packed")

    def contraction(
        self,
        op: linalg_abstract.LinalgStructuredOperation,
        maps: Sequence[AffineMap],
        iterators: Sequence[IteratorType],
    ) -> None:
        inputs = list(op.inputs)
        reduced = iterators.count(IteratorType.REDUCTION)
        if len(inputs) != 2 or len(iterators) != 3 or reduced != 1:
            report_error(op, "is a reduction that is not a matrix contraction: VTA reduces only "
                             "sums of products of two int8 matrices (loops m, n parallel, k "
                             f"reduced); here {len(iterators)} loops, {reduced} reduced, "
                             f"{len(inputs)} inputs")
        out = op.outputs[0]
        types = [self.check_buffer(op, v) for v in (*inputs, out)]
        self.check_contraction_types(op, types)
        self.check_contraction_body(op)

        k = iterators.index(IteratorType.REDUCTION)
        out_dims = _dims(maps[2])
        not_product = "has indexing maps that are not those of a matrix product"
        if sorted(d for d in out_dims if d is not None) != sorted({0, 1, 2} - {k}) \
                or len(out_dims) != 2:
            report_error(op, not_product)
        m, n = out_dims
        roles: dict[str, tuple[SSAValue, bool, int]] = {}
        for i, (value, imap) in enumerate(zip(inputs, maps[:2], strict=True)):
            dims = _dims(imap)
            if dims == [m, k] or dims == [k, m]:
                roles["act"] = (value, dims == [k, m], i)
            elif dims == [n, k] or dims == [k, n]:
                roles["wgt"] = (value, dims == [k, n], i)
        if set(roles) != {"act", "wgt"}:
            report_error(op, not_product)
        act, act_t, ai = roles["act"]
        wgt, wgt_t, wi = roles["wgt"]
        rows, red = types[ai].get_shape()[::-1] if act_t else types[ai].get_shape()
        cols, red2 = types[wi].get_shape()[::-1] if wgt_t else types[wi].get_shape()
        if red != red2 or (rows, cols) != tuple(types[2].get_shape()):
            report_error(op, f"multiplies {types[ai]} by {types[wi]} into {types[2]}: the "
                             "shapes do not form a matrix product")
        if self.is_argument(out):
            self.reject_i32_output(op, out)
        init = self.read(op, out)
        assert isinstance(init, Expr)
        result = Gemm(op, init, self.argument_of(op, act, "activation"), act_t,
                      self.argument_of(op, wgt, "weight"), wgt_t)
        self.write(op, out, result)

    @staticmethod
    def check_contraction_types(op: Operation, types: Sequence[MemRefType]) -> None:
        """The operands are i8 × i8 → i32."""
        widths = [_int_width(t.element_type) for t in types]
        if widths[0] == 32 and widths[1] == 32:
            report_error(op, "is a contraction of i32 operands: VTA's GEMM core multiplies int8 "
                             "operands into int32 accumulators (i8 × i8 → i32)")
        if widths != [8, 8, 32]:
            report_error(op, f"is a contraction of {types[0].element_type} × "
                             f"{types[1].element_type} into {types[2].element_type}: VTA "
                             "computes i8 × i8 → i32")

    def convolution(
        self,
        op: linalg_abstract.LinalgStructuredOperation,
        maps: Sequence[AffineMap],
        iterators: Sequence[IteratorType],
    ) -> None:
        """A 2-D convolution of NCHW data with an FCHW kernel into NFHW (module doc)."""
        inputs = list(op.inputs)
        reduced = iterators.count(IteratorType.REDUCTION)
        if len(inputs) != 2 or len(iterators) != 7 or reduced != 3:
            report_error(op, "is a reduction that is not a 2-D convolution: on NCHW tensors VTA "
                             "reduces NCHW int8 data with an FCHW int8 kernel over (c, kh, kw); "
                             f"here {len(iterators)} loops, {reduced} reduced, {len(inputs)} "
                             "inputs")
        out = op.outputs[0]
        types = [self.check_buffer(op, v) for v in (*inputs, out)]
        self.check_contraction_types(op, types)
        self.check_contraction_body(op)
        strides = self.convolution_strides(op, maps, iterators)
        (n, c, h, w), (f, c2, kh, kw), out_shape = (t.get_shape() for t in types)
        oh, ow = out_shape[2:]
        if c != c2 or tuple(out_shape[:2]) != (n, f) \
                or (oh - 1) * strides[0] + kh > h or (ow - 1) * strides[1] + kw > w:
            report_error(op, f"convolves {types[0]} with {types[1]} into {types[2]}: the shapes "
                             "do not form a convolution")
        if self.is_argument(out):
            self.reject_i32_output(op, out)
        init = self.read(op, out)
        assert isinstance(init, Expr)
        padding: Padding | None = None
        if inputs[0] in self.padding:
            act, padding = self.padded_data(op, inputs[0])
        else:
            act = self.argument_of(op, inputs[0], "data")
        result = Conv(op, init, act, False, self.argument_of(op, inputs[1], "kernel"), False,
                      strides, padding)
        self.write(op, out, result)

    @staticmethod
    def convolution_strides(
        op: Operation, maps: Sequence[AffineMap], iterators: Sequence[IteratorType]
    ) -> tuple[int, int]:
        """The strides of a convolution whose maps are ``X(n, c, oh*sh + kh, ow*sw + kw)``,
        ``W(f, c, kh, kw)``, ``Y(n, f, oh, ow)`` for some order of the seven loops."""
        not_conv = ("has indexing maps that are not those of a 2-D convolution of NCHW data "
                    "with an FCHW kernel: X(n, c, oh*s + kh, ow*s + kw), W(f, c, kh, kw), "
                    "Y(n, f, oh, ow)")
        out_dims, w_dims = _dims(maps[2]), _dims(maps[1])
        loops = [*out_dims, *w_dims[1:]]
        if len(out_dims) != 4 or len(w_dims) != 4 or len(maps[0].results) != 4 \
                or any(d is None or d < 0 for d in loops) or len(set(loops)) != 7 \
                or w_dims[0] != out_dims[1]:
            report_error(op, not_conv)
        nd, fd, ohd, owd, cd, khd, kwd = (d for d in loops if d is not None)
        if any(iterators[d] != IteratorType.PARALLEL for d in (nd, fd, ohd, owd)) \
                or any(iterators[d] != IteratorType.REDUCTION for d in (cd, khd, kwd)):
            report_error(op, not_conv)
        x = [_coefficients(maps[0], r) for r in range(4)]
        if x[0] != _unit(7, {nd: 1}) or x[1] != _unit(7, {cd: 1}):
            report_error(op, not_conv)
        strides: list[int] = []
        for coeffs, o, k in ((x[2], ohd, khd), (x[3], owd, kwd)):
            if coeffs is None or any(v for d, v in enumerate(coeffs) if d not in (o, k)) \
                    or coeffs[o] < 1 or coeffs[k] < 1:
                report_error(op, not_conv)
            if coeffs[k] != 1:
                report_error(op, f"has dilation {coeffs[k]}: VTA convolutions are packed with "
                                 "dilation 1")
            strides.append(coeffs[o])
        return strides[0], strides[1]

    def check_contraction_body(self, op: linalg_abstract.LinalgStructuredOperation) -> None:
        """The body is ``out + extsi(a) * extsi(b)`` (any operand order)."""
        block = op.body.block
        a, b, acc = block.args

        def owner(v: SSAValue, kind: type[Operation]) -> Operation | None:
            o = v.owner
            return o if isinstance(o, kind) and o.parent_block() is block else None

        def fail() -> NoReturn:
            report_error(op, "is a reduction that is not an int8 matrix contraction: VTA "
                             "accumulates only `acc + extsi(a) * extsi(b)`")

        yield_ = block.last_op
        if not isinstance(yield_, linalg.YieldOp) or len(yield_.operands) != 1:
            fail()
        add = owner(yield_.operands[0], arith.AddiOp)
        if add is None or acc not in add.operands:
            fail()
        product = add.operands[1] if add.operands[0] is acc else add.operands[0]
        mul = owner(product, arith.MuliOp)
        if mul is None:
            fail()
        sources = []
        for v in mul.operands:
            ext = owner(v, arith.ExtSIOp)
            if ext is None:
                fail()
            sources.append(ext.operands[0])
        if sorted(s.index for s in sources if isinstance(s, BlockArgument)
                  and s.block is block) != [a.index, b.index]:
            fail()
        if len(list(block.ops)) != 5:
            fail()

    # ---- element-wise ---------------------------------------------------------------------
    def elementwise(
        self, op: linalg_abstract.LinalgStructuredOperation, maps: Sequence[AffineMap]
    ) -> None:
        out = op.outputs[0]
        out_t = self.check_buffer(op, out)
        if maps[-1] != AffineMap.identity(self.rank):
            report_error(op, "writes its output through a non-identity indexing map: VTA's "
                             "element-wise ops keep the accumulator's layout")
        env: dict[SSAValue, Value] = {}
        block = op.body.block
        lazy: dict[SSAValue, Callable[[], Value]] = {}
        for i, value in enumerate(op.inputs):
            lazy[block.args[i]] = self.input_reader(op, value, maps[i], out_t)
        lazy[block.args[len(op.inputs)]] = lambda: self.read(op, out)

        def get(user: Operation, v: SSAValue) -> Value:
            if v in env:
                return env[v]
            if v in lazy:
                env[v] = lazy[v]()
                return env[v]
            if isinstance(v.owner, arith.ConstantOp):
                return self.constant_value(user, v.owner)
            report_error(user, f"uses {label(v) if v.name_hint else 'a value'} defined outside "
                               "the op that is not a constant: VTA's ALU takes immediates or "
                               "tensors")

        result: Value | None = None
        for bop in block.ops:
            if isinstance(bop, linalg.YieldOp):
                if len(bop.operands) != 1:
                    report_error(op, "yields several values: a VTA op writes one buffer")
                result = get(bop, bop.operands[0])
            elif isinstance(bop, arith.ConstantOp):
                env[bop.result] = self.constant_value(bop, bop)
            else:
                env[bop.results[0]] = self.scalar_op(bop, lambda v, b=bop: get(b, v))
        assert result is not None
        if isinstance(result, Narrow) != (_int_width(out_t.element_type) == 8):
            report_error(op, "yields a value of another type than its output")
        self.write(op, out, result)

    def input_reader(
        self, op: Operation, value: SSAValue, imap: AffineMap, out_t: MemRefType
    ) -> Callable[[], Value]:
        """How an input of an element-wise op is read (evaluated on first use)."""
        if not isinstance(value.type, MemRefType | TensorType):
            owner = value.owner
            if isinstance(owner, arith.ConstantOp):
                return lambda: self.constant_value(op, owner)
            return lambda: report_error(
                op, f"takes the scalar {label(value)}, which is not a constant: VTA's ALU "
                    "takes immediates from the program, not from arguments")
        t = self.check_buffer(op, value, vector=True)
        dims = _dims(imap)
        if dims == list(range(self.rank)):
            if t.get_shape() != out_t.get_shape():
                report_error(op, f"reads {t} element-wise into {out_t}: the shapes differ")
            return lambda: self.read(op, value)
        if dims in ([1], [None, 1]):
            if t.get_shape()[-1] != out_t.get_shape()[1] or t.get_shape()[:-1] not in ((), (1,)):
                report_error(op, f"broadcasts {t} over {out_t}: a bias has one value per column")
            return lambda: self.broadcast_of(op, value)
        if dims in ([0], [0, None]):
            report_error(op, f"broadcasts {label(value)} along the columns (a per-row "
                             "operand): VTA adds per-column biases only, broadcast over the rows")
        if dims == [1, 0]:
            report_error(op, f"reads {label(value)} transposed: VTA's element-wise ops work in "
                             "the accumulator's layout (identity indexing maps)")
        report_error(op, f"reads {label(value)} through the indexing map {imap}: VTA's "
                         "element-wise ops take identity maps or a per-column bias broadcast")

    def constant_value(self, user: Operation, owner: arith.ConstantOp) -> Value:
        attr = owner.value
        if not isinstance(attr, IntegerAttr) or _type_problem(attr.type) is not None:
            report_error(user, f"uses the constant {attr}: VTA's ALU immediates are i32 "
                               "(or i8, sign-extended)")
        value = attr.value.data
        # Diagnostics about the value (an immediate out of range) point at its user.
        if _int_width(attr.type) == 8:
            return Narrow(Const(user, value), False, user)
        return Const(user, _wrap32(value))

    def scalar_op(self, bop: Operation, get: Callable[[SSAValue], Value]) -> Value:
        """The value of one op of an element-wise body."""
        if isinstance(bop, arith.ExtSIOp):
            if _int_width(bop.input.type) != 8 or _int_width(bop.result.type) != 32:
                report_error(bop, f"extends {bop.input.type} to {bop.result.type}: VTA "
                                  "sign-extends i8 inputs to i32 only")
            value = get(bop.input)
            assert isinstance(value, Narrow)
            if value.truncated:
                report_error(bop, "sign-extends a value truncated to i8 earlier: VTA truncates "
                                  "only when storing, so arith.trunci must be the last op")
            return value.value
        if isinstance(bop, arith.TruncIOp):
            if _int_width(bop.input.type) != 32 or _int_width(bop.result.type) != 8:
                report_error(bop, f"truncates {bop.input.type} to {bop.result.type}: VTA "
                                  "stores i32 accumulators as i8 only")
            value = get(bop.input)
            assert isinstance(value, Expr)
            return Narrow(value, True, bop)
        kind = {
            arith.AddiOp: "add", arith.SubiOp: "sub", arith.MuliOp: "mul",
            arith.ShRSIOp: "shr", arith.ShLIOp: "shl", arith.MaxSIOp: "max",
            arith.MinSIOp: "min",
        }.get(type(bop))
        if kind is None:
            report_error(bop, f"is not supported: {_SUPPORTED_BODY}")
        width = _int_width(bop.results[0].type)
        if width != 32:
            if width == 8:
                report_error(bop, "computes on i8 values: VTA's ALU computes on i32; extend the "
                                  "inputs with arith.extsi and truncate the result")
            report_error(bop, f"computes on {bop.results[0].type}: VTA's ALU computes on i32")
        lhs, rhs = get(bop.operands[0]), get(bop.operands[1])
        assert isinstance(lhs, Expr) and isinstance(rhs, Expr)
        return self.alu(bop, kind, lhs, rhs)

    def alu(self, bop: Operation, kind: str, lhs: Expr, rhs: Expr) -> Expr:
        """One ALU operation, normalized: ``sub c`` → ``add -c``, ``shl c`` → ``shr -c``."""
        if kind in ("shr", "shl"):
            if not isinstance(rhs, Const):
                report_error(bop, "shifts by an amount that is not a constant: VTA's ALU "
                                  "shifts by an immediate")
            if not 0 <= rhs.value <= SHIFT_MAX:
                report_error(bop, f"shifts by {rhs.value}, outside 0…{SHIFT_MAX}")
            if kind == "shl":
                kind, rhs = "shr", Const(rhs.op, -rhs.value)
        if kind == "sub":
            if not isinstance(rhs, Const):
                report_error(bop, "subtracts a tensor: VTA's ALU has no subtraction, only the "
                                  "addition of a negated constant")
            kind, rhs = "add", Const(rhs.op, _wrap32(-rhs.value))
        if isinstance(lhs, Const) and isinstance(rhs, Const):
            return Const(bop, _fold(kind, lhs.value, rhs.value))
        imm = rhs if isinstance(rhs, Const) else lhs if isinstance(lhs, Const) else None
        if imm is not None and not IMM_MIN <= imm.value <= IMM_MAX:
            report_error(bop, f"has the immediate {imm.value}, which does not fit VTA's signed "
                              f"16-bit ALU immediate ({IMM_MIN}…{IMM_MAX})")
        return Alu(bop, kind, lhs, rhs)
