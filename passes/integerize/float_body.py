"""The body of a float ``linalg.generic`` as the text of a float layer's operation
(:mod:`vta_mlir.quant.host_generic`): the ops the yielded value depends on, written again with
the block arguments ``%a``, ``%b``, ... of the operands the operation keeps, each scalar the body
reads (a constant inside or outside it, a one-element constant operand, a filled buffer) as an
``arith.constant``.  The ops are the float ones the host computes with the reference
evaluator's semantics (``docs/reference.md``): ``addf``, ``subf``, ``mulf``, ``divf``,
``maximumf``, ``minimumf``, ``maxnumf``, ``minnumf``, ``negf``, ``cmpf``, ``select`` and the
``math`` functions, on ``f32``; anything else is an error at the generic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, IntegerType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import BlockArgument, Operation, SSAValue

from vta_mlir.quant.host_generic import f32_literal
from vta_mlir.reference.float_math import MATH_OPS

from . import bodies
from .meaning import Unsupported

__all__ = ["Body", "body_text"]

#: The arith ops of one or two ``f32`` operands a body may hold.
_ARITH = (arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp, arith.MaximumfOp,
          arith.MinimumfOp, arith.MaxnumfOp, arith.MinnumfOp, arith.NegfOp)


@dataclass(frozen=True)
class Body:
    """The text of a body (its lines, the ``linalg.yield`` last) and whether it reads the
    output's block argument (a reduction's accumulator)."""

    lines: tuple[str, ...]
    reads_output: bool


def _letter(index: int) -> str:
    return f"%{chr(ord('a') + index)}"


def _is_f32(value: SSAValue) -> bool:
    return isinstance(value.type, Float32Type)


def _slice(block_ops: Sequence[Operation], value: SSAValue) -> list[Operation]:
    """The ops of the body ``value`` depends on, in the body's order."""
    needed: set[Operation] = set()
    work = [value]
    while work:
        owner = work.pop().owner
        if isinstance(owner, Operation) and owner in block_ops and owner not in needed:
            needed.add(owner)
            work.extend(owner.operands)
    return [o for o in block_ops if o in needed]


def body_text(op: linalg.GenericOp, scalars: dict[int, float], kept: Sequence[int]) -> Body:
    """The body of ``op`` (its first result's computation) with the inputs ``kept`` as block
    arguments in that order, then the output's; ``scalars`` the value of each input read as a
    constant."""
    block = op.body.block
    term = block.last_op
    if not isinstance(term, linalg.YieldOp) or not term.operands:
        raise Unsupported(op, "a float generic's body ends with a linalg.yield of its value")
    block_ops = list(block.ops)
    names: dict[SSAValue, str] = {}
    lines: list[str] = []
    count = len(op.inputs)
    for index, arg in enumerate(block.args):
        if index in scalars:
            names[arg] = f"%s{index}"
            lines.append(f"%s{index} = arith.constant {f32_literal(scalars[index])} : f32")
        elif index < count:
            names[arg] = _letter(kept.index(index))
        elif index == count:
            names[arg] = _letter(len(kept))
    constants = 0

    def name(value: SSAValue) -> str:
        nonlocal constants
        if value in names:
            return names[value]
        if isinstance(value, BlockArgument):
            raise Unsupported(op, "the body of a float generic reads the output of another "
                                  "result than its first")
        found = bodies.scalar(value)
        if found is None or not _is_f32(value):
            raise Unsupported(op, "the body of a float generic reads a value that is neither "
                                  "computed in it nor an f32 constant")
        names[value] = f"%k{constants}"
        lines.append(f"%k{constants} = arith.constant {f32_literal(float(found.value))} : f32")
        constants += 1
        return names[value]

    result = term.operands[0]
    computed = _slice(block_ops, result)
    for k, inner in enumerate(computed):
        if inner.results and bodies.scalar(inner.results[0]) is not None:
            continue  # a constant (or a truncf of one): written where it is read
        operands = ", ".join(name(v) for v in inner.operands)
        out = f"%v{k}"
        if isinstance(inner, arith.CmpfOp) and all(_is_f32(v) for v in inner.operands):
            predicate = arith.CMPF_COMPARISON_OPERATIONS[inner.predicate.value.data]
            lines.append(f"{out} = arith.cmpf {predicate}, {operands} : f32")
        elif isinstance(inner, arith.SelectOp) and _is_f32(inner.result) and \
                isinstance(inner.cond.type, IntegerType):
            lines.append(f"{out} = arith.select {operands} : f32")
        elif isinstance(inner, (*_ARITH, *MATH_OPS)) and len(inner.results) == 1 and \
                _is_f32(inner.results[0]) and all(_is_f32(v) for v in inner.operands):
            lines.append(f"{out} = {inner.name} {operands} : f32")
        else:
            raise Unsupported(op, f"a float generic computes '{inner.name}', which the host's "
                                  "float code does not (f32 arithmetic, comparisons, selects "
                                  "and the math functions)")
        names[inner.results[0]] = out
    if not _is_f32(result):
        raise Unsupported(op, "a float generic yields an f32 value")
    output = block.args[count] if len(block.args) > count else None
    reads_output = output is not None and (
        result is output or any(output in inner.operands for inner in computed))
    return Body((*lines, f"linalg.yield {name(result)} : f32"), reads_output)
