"""``vta-merge-alu-immediates``: two ALU operations in a row with immediates, of the same kind
and on the same accumulator, become one.

``vta-pack``'s normal form writes each ALU operation as an in-place ``linalg.generic`` with a
one-op body (``docs/pipeline.md``, stage 1).  An epilogue written operation by operation often
repeats a kind, for example a ReLU followed by the lower end of an int8 clip::

    linalg.generic {…} ins(%acc : memref<…xi32>) outs(%acc : memref<…xi32>) {
    ^bb0(%a: i32, %o: i32):
      %c0 = arith.constant 0 : i32
      %r = arith.maxsi %a, %c0 : i32
      linalg.yield %r : i32
    }
    linalg.generic {…} ins(%acc : memref<…xi32>) outs(%acc : memref<…xi32>) {
    ^bb0(%a: i32, %o: i32):
      %c = arith.constant -128 : i32
      %r = arith.maxsi %a, %c : i32
      linalg.yield %r : i32
    }

becomes one ``maxsi`` by ``0``: each ALU operation costs one compute cycle per accumulator
element, so every merge saves a pass over the tile.  The merge is taken only where it is exact
on the accumulator's integers:

=========  ==============================  ================================================
kind       merged immediate                when
=========  ==============================  ================================================
``min``    ``min(a, b)``                   always
``max``    ``max(a, b)``                   always
``add``    ``a + b``                       always (both wrap modulo 2^width)
``mul``    ``a · b``                       always (both wrap modulo 2^width)
``shr``    ``a + b``                       ``a``, ``b`` of one sign and ``|a + b| < width``
=========  ==============================  ================================================

(``shr`` by a negative amount shifts left, as VTA's ALU does.)  The merged immediate must also
fit the instruction's signed immediate field (``ALU_IMM_WIDTH`` bits); otherwise the two
operations stay.  Only operations next to each other in a block, on the same buffer with the
same indexing maps, merge: nothing can read the accumulator between them.  ``vta-to-isa`` runs
the pass right after ``vta-pack``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from vta_mlir.config import ALU_IMM_WIDTH
from vta_mlir.isa import AluKind
from vta_mlir.passes.analysis.alu_ops import ALU_KINDS
from vta_mlir.passes.analysis.rewriting import apply_patterns

__all__ = ["ImmediateAlu", "MergeAluImmediates", "MergeAluImmediatesPass", "immediate_alu"]

_IMM_MIN = -(1 << (ALU_IMM_WIDTH - 1))
_IMM_MAX = (1 << (ALU_IMM_WIDTH - 1)) - 1
_KIND_OF_OP = {op_class: kind for kind, op_class in ALU_KINDS.items()}


@dataclass(frozen=True)
class ImmediateAlu:
    """An in-place ALU operation of the normal form with an immediate: ``acc = op(acc, imm)``."""

    kind: AluKind
    acc: SSAValue
    imm: int
    #: The ``arith.constant`` of the body holding the immediate.
    constant: arith.ConstantOp
    width: int


def immediate_alu(op: Operation) -> ImmediateAlu | None:
    """``op`` as an :class:`ImmediateAlu` if it is one: a ``linalg.generic`` reading and
    writing the same buffer through the same map, all iterators parallel, whose body applies
    one ALU operation to the element and an integer constant."""
    if not isinstance(op, linalg.GenericOp) or op.res:
        return None
    if len(op.inputs) != 1 or len(op.outputs) != 1 or op.inputs[0] is not op.outputs[0]:
        return None
    maps = op.indexing_maps.data
    if maps[0] != maps[1]:
        return None
    if any(it.data != linalg.IteratorType.PARALLEL for it in op.iterator_types.data):
        return None
    block = op.body.block
    ops = list(block.ops)
    if len(ops) != 3 or not isinstance(ops[0], arith.ConstantOp):
        return None
    constant, compute, yielded = ops
    kind = _KIND_OF_OP.get(type(compute))
    if kind is None or not isinstance(yielded, linalg.YieldOp):
        return None
    if tuple(yielded.operands) != (compute.results[0],):
        return None
    lhs, rhs = compute.operands
    if not (isinstance(lhs, BlockArgument) and lhs.block is block and lhs.index == 0):
        return None
    value = constant.value
    if rhs is not constant.result or not isinstance(value, IntegerAttr):
        return None
    element = lhs.type
    if not isinstance(element, IntegerType):
        return None
    return ImmediateAlu(kind, op.inputs[0], value.value.data, constant, element.width.data)


def merged_immediate(kind: AluKind, first: int, second: int, width: int) -> int | None:
    """The immediate of one operation equal to ``kind`` by ``first`` then by ``second`` on
    ``width``-bit integers, or ``None`` when no single immediate is exact (or fits the
    field)."""
    if kind == AluKind.MIN:
        merged = min(first, second)
    elif kind == AluKind.MAX:
        merged = max(first, second)
    elif kind == AluKind.ADD:
        merged = first + second
    elif kind == AluKind.MUL:
        merged = first * second
    else:
        # Two shifts the same way compose; a right then a left shift loses the low bits.
        if (first < 0 < second) or (second < 0 < first) or abs(first + second) >= width:
            return None
        merged = first + second
    if kind in (AluKind.ADD, AluKind.MUL):
        # Both sides wrap modulo 2^width: any representative of the class is exact.
        merged = (merged + (1 << (width - 1))) % (1 << width) - (1 << (width - 1))
    return merged if _IMM_MIN <= merged <= _IMM_MAX else None


class MergeAluImmediates(RewritePattern):
    """An immediate ALU generic followed by others of the same kind on the same buffer and
    map → one generic (the first, its immediate replaced); see the module docstring."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.GenericOp, rewriter: PatternRewriter) -> None:
        first = immediate_alu(op)
        if first is None:
            return
        imm = first.imm
        following = op.next_op
        while following is not None:
            second = immediate_alu(following)
            if second is None or second.kind != first.kind or second.acc is not first.acc:
                break
            assert isinstance(following, linalg.GenericOp)
            if following.indexing_maps != op.indexing_maps:
                break
            merged = merged_immediate(first.kind, imm, second.imm, first.width)
            if merged is None:
                break
            imm = merged
            after = following.next_op
            rewriter.erase(following)
            following = after
        if imm != first.imm:
            element = first.constant.result.type
            assert isinstance(element, IntegerType)
            rewriter.replace(first.constant, arith.ConstantOp(IntegerAttr(imm, element)))


@dataclass(frozen=True)
class MergeAluImmediatesPass(ModulePass):
    """Merge runs of same-kind immediate ALU operations (module docstring)."""

    name = "vta-merge-alu-immediates"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        apply_patterns(op, [MergeAluImmediates()])
