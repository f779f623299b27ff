"""Element-wise ops for ``vta-pack``'s recognition: the bodies of element-wise
``linalg.generic`` ops as VTA ALU expressions.

:class:`ElementwiseMatcher` is the part of :class:`~.match.FunctionRecognizer` that reads an
element-wise op (every iterator parallel): its output through the identity map, each input
through the identity or a projection (a broadcast operand), and its body op by op as
:class:`~.expr.Alu` operations on i32 (``subi`` by a constant an ``add`` of its negation,
``shli`` a ``shr`` by a negative amount, constants folded), ``arith.extsi`` of ``i8`` inputs and
a final ``arith.trunci`` to ``i8`` (:class:`~.expr.Narrow`).  Immediates fit VTA's signed 16-bit
ALU field.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, MemRefType, TensorType
from xdsl.dialects.linalg import abstract_ops as linalg_abstract
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap

from vta_mlir.ir.diagnostics import report_error
from vta_mlir.isa import AluKind
from vta_mlir.passes.analysis.alu_ops import ARITH_ALU_OPS
from vta_mlir.passes.pack.expr import (
    Alu,
    Const,
    Expr,
    Narrow,
    Value,
    int_width,
    label,
    result_dims,
    type_problem,
)

if TYPE_CHECKING:
    from vta_mlir.passes.pack.match import FunctionRecognizer

__all__ = ["IMM_MAX", "IMM_MIN", "SHIFT_MAX", "ElementwiseMatcher"]

#: VTA's ALU immediate is a signed 16-bit field (docs/isa.md §2.5).
IMM_MIN = -(1 << 15)
IMM_MAX = (1 << 15) - 1
#: Shift amounts ``arith.shrsi`` / ``arith.shli`` define on i32.
SHIFT_MAX = 31

_SUPPORTED_BODY = (
    "VTA's ALU runs arith.addi, arith.subi by a constant, arith.muli, arith.shrsi and "
    "arith.shli by a constant, arith.maxsi and arith.minsi (on i32 or i8), arith.extsi of i8 "
    "inputs and a final arith.trunci to i8"
)


def _wrap32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def _fold(kind: AluKind, lhs: int, rhs: int) -> int:
    """``lhs <kind> rhs`` on i32, as the ALU computes it (``shr`` by a negative amount shifts
    left)."""
    if kind == AluKind.ADD:
        return _wrap32(lhs + rhs)
    if kind == AluKind.MUL:
        return _wrap32(lhs * rhs)
    if kind == AluKind.MAX:
        return max(lhs, rhs)
    if kind == AluKind.MIN:
        return min(lhs, rhs)
    return _wrap32(lhs >> rhs) if rhs >= 0 else _wrap32(lhs << -rhs)


@dataclass(eq=False)
class ElementwiseMatcher:
    """The element-wise ops of the function ``recognizer`` walks (module doc);
    ``recognizer`` holds the buffers' values and checks them."""

    recognizer: FunctionRecognizer = field(repr=False)

    def recognize(
        self, op: linalg_abstract.LinalgStructuredOperation, maps: Sequence[AffineMap]
    ) -> None:
        out = op.outputs[0]
        out_t = self.recognizer.check_buffer(op, out, any_rank=True)
        if maps[-1] != AffineMap.identity(out_t.get_num_dims()):
            report_error(op, "writes its output through a non-identity indexing map: VTA's "
                             "element-wise ops keep the accumulator's layout")
        env: dict[SSAValue, Value] = {}
        block = op.body.block
        lazy: dict[SSAValue, Callable[[], Value]] = {}
        for i, value in enumerate(op.inputs):
            lazy[block.args[i]] = self.input_reader(op, value, maps[i], out_t)
        lazy[block.args[len(op.inputs)]] = lambda: self.recognizer.read(op, out)

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
        if isinstance(result, Narrow) != (int_width(out_t.element_type) == 8):
            report_error(op, "yields a value of another type than its output")
        self.recognizer.write(op, out, result)

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
        t = self.recognizer.check_buffer(op, value, any_rank=True)
        dims = result_dims(imap)
        rank = out_t.get_num_dims()
        if dims == list(range(rank)):
            if t.get_shape() != out_t.get_shape():
                report_error(op, f"reads {t} element-wise into {out_t}: the shapes differ")
            return lambda: self.recognizer.read(op, value)
        kept = [d for d in dims if d is not None]
        if all(d is not None and d >= 0 for d in kept) and kept == sorted(set(kept)) \
                and len(kept) < rank:
            shape = t.get_shape()
            if any(n != (1 if d is None else out_t.get_shape()[d])
                   for d, n in zip(dims, shape, strict=True)):
                report_error(op, f"broadcasts {t} over {out_t}: the operand's dimensions do not "
                                 "match those of the output it varies along")
            return lambda: self.recognizer.broadcast_of(op, value, tuple(dims))
        if sorted(d for d in dims if d is not None) == list(range(rank)):
            report_error(op, f"reads {label(value)} transposed: VTA's element-wise ops work in "
                             "the accumulator's layout (identity indexing maps)")
        report_error(op, f"reads {label(value)} through the indexing map {imap}: VTA's "
                         "element-wise ops take identity maps or a broadcast (a projection "
                         "onto some of the output's dimensions, in order)")

    def constant_value(self, user: Operation, owner: arith.ConstantOp) -> Value:
        attr = owner.value
        if not isinstance(attr, IntegerAttr) or type_problem(attr.type) is not None:
            report_error(user, f"uses the constant {attr}: VTA's ALU immediates are i32 "
                               "(or i8, sign-extended)")
        value = attr.value.data
        # Diagnostics about the value (an immediate out of range) point at its user.
        if int_width(attr.type) == 8:
            return Narrow(Const(user, value), False, user)
        return Const(user, _wrap32(value))

    def scalar_op(self, bop: Operation, get: Callable[[SSAValue], Value]) -> Value:
        """The value of one op of an element-wise body."""
        if isinstance(bop, arith.ExtSIOp):
            if int_width(bop.input.type) != 8 or int_width(bop.result.type) != 32:
                report_error(bop, f"extends {bop.input.type} to {bop.result.type}: VTA "
                                  "sign-extends i8 inputs to i32 only")
            value = get(bop.input)
            assert isinstance(value, Narrow)
            if value.truncated:
                report_error(bop, "sign-extends a value truncated to i8 earlier: VTA truncates "
                                  "only when storing, so arith.trunci must be the last op")
            return value.value
        if isinstance(bop, arith.TruncIOp):
            if int_width(bop.input.type) != 32 or int_width(bop.result.type) != 8:
                report_error(bop, f"truncates {bop.input.type} to {bop.result.type}: VTA "
                                  "stores i32 accumulators as i8 only")
            value = get(bop.input)
            assert isinstance(value, Expr)
            return Narrow(value, True, bop)
        alu = ARITH_ALU_OPS.get(type(bop))
        if alu is None:
            report_error(bop, f"is not supported: {_SUPPORTED_BODY}")
        width = int_width(bop.results[0].type)
        kind, negated = alu
        if width == 8 and kind in (AluKind.MAX, AluKind.MIN):
            return self.narrow_min_max(bop, kind, get(bop.operands[0]), get(bop.operands[1]))
        if width != 32:
            if width == 8:
                report_error(bop, "computes on i8 values: VTA's ALU computes on i32; extend the "
                                  "inputs with arith.extsi and truncate the result")
            report_error(bop, f"computes on {bop.results[0].type}: VTA's ALU computes on i32")
        lhs, rhs = get(bop.operands[0]), get(bop.operands[1])
        assert isinstance(lhs, Expr) and isinstance(rhs, Expr)
        return self.alu(bop, kind, lhs, rhs, negated)

    def narrow_min_max(self, bop: Operation, kind: AluKind, lhs: Value, rhs: Value) -> Narrow:
        """``arith.maxsi`` / ``minsi`` on i8: the maximum (minimum) of two i8 values is the i8
        whose sign extension is the maximum (minimum) of their sign extensions, so the ALU
        computes it on i32 and the result stays an i8 value that can be extended again."""
        assert isinstance(lhs, Narrow) and isinstance(rhs, Narrow)
        for side in (lhs, rhs):
            if side.truncated:
                report_error(bop, "takes the maximum or minimum of a value truncated to i8: "
                                  "VTA truncates only when storing, so arith.trunci must be "
                                  "the last op")
        return Narrow(self.alu(bop, kind, lhs.value, rhs.value), False, bop)

    def alu(self, bop: Operation, kind: AluKind, lhs: Expr, rhs: Expr,
            negated: bool = False) -> Expr:
        """One ALU operation, normalized: ``sub c`` (``add`` with ``negated``) → ``add -c``,
        ``shl c`` (``shr`` with ``negated``) → ``shr -c``."""
        if kind == AluKind.SHR:
            if not isinstance(rhs, Const):
                report_error(bop, "shifts by an amount that is not a constant: VTA's ALU "
                                  "shifts by an immediate")
            if not 0 <= rhs.value <= SHIFT_MAX:
                report_error(bop, f"shifts by {rhs.value}, outside 0…{SHIFT_MAX}")
            if negated:
                rhs = Const(rhs.op, -rhs.value)
        elif negated:
            if not isinstance(rhs, Const):
                report_error(bop, "subtracts a tensor: VTA's ALU has no subtraction, only the "
                                  "addition of a negated constant")
            rhs = Const(rhs.op, _wrap32(-rhs.value))
        if isinstance(lhs, Const) and isinstance(rhs, Const):
            return Const(bop, _fold(kind, lhs.value, rhs.value))
        imm = rhs if isinstance(rhs, Const) else lhs if isinstance(lhs, Const) else None
        if imm is not None and not IMM_MIN <= imm.value <= IMM_MAX:
            report_error(bop, f"has the immediate {imm.value}, which does not fit VTA's signed "
                              f"16-bit ALU immediate ({IMM_MIN}…{IMM_MAX})")
        return Alu(bop, kind, lhs, rhs)
