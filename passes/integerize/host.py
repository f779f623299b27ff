"""Float functions the host computes, as torch-mlir writes them between a dequantize and a
quantize: ``Sigmoid`` and ``Softmax`` (``docs/onnx.md`` §4.9).  ``vta-integerize`` reads them as
the ONNX frontend's :class:`~vta_mlir.quant.host_layers.HostLayer`, whose float code
``vta-outline-host-steps`` makes a host step; its semantics (every op rounded to ``f32``, the
reductions folded in order) are those of torch-mlir's ops, which it recognises op for op:

* ``Sigmoid``: one generic on the reals ``x``: ``1 / (1 + exp(−x))`` (``negf``, ``math.exp``,
  ``addf`` of 1, ``divf`` of 1);
* ``Softmax`` along ``axis``: the maximum (a reduction generic of ``maximumf`` into a buffer
  filled with a constant, which may also compute the argmax in a second result nobody reads),
  maybe reshaped (``expand_shape``); ``x − max`` (``subf``); ``math.exp``; the sum (a reduction
  of ``addf`` into a buffer filled with 0); ``e / sum`` (``divf``).

Each step is held as :class:`HostFloat` and checked against the step before it (the same
``x``, the same axis); anything else is an error at the op.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from xdsl.dialects import arith, math
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import BlockArgument, Operation, SSAValue

from vta_mlir.quant.host_layers import HostLayer
from vta_mlir.quant.program import QTensor

from . import bodies
from .meaning import Filled, Meaning, Real, Unsupported

__all__ = ["HostFloat", "host_layer", "step"]


class Lifter(Protocol):
    """What these functions use of the lifter."""

    held: dict[SSAValue, Meaning]

    def meaning(self, op: Operation, value: SSAValue) -> Meaning: ...

    def name(self, kind: str) -> str: ...


@dataclass(frozen=True)
class HostFloat:
    """A step of a float function of ``x``'s reals: ``sigmoid``, or the softmax's ``max``,
    ``shifted`` (``x − max``), ``exp``, ``sum`` and ``softmax`` along ``axis``."""

    x: QTensor
    stage: str
    axis: int = 0


def _arg(value: SSAValue, op: linalg.GenericOp) -> int | None:
    """Which operand of ``op`` (inputs, then outputs) the body argument ``value`` is."""
    if isinstance(value, BlockArgument) and value.block is op.body.block:
        return value.index
    return None


def _one(op: linalg.GenericOp) -> Operation | None:
    """The op whose only result the body yields (the body's last op before the yield)."""
    term = op.body.block.last_op
    if not isinstance(term, linalg.YieldOp) or not term.operands:
        return None
    owner = term.operands[0].owner
    return owner if isinstance(owner, Operation) else None


def _is_one(value: SSAValue) -> bool:
    found = bodies.scalar(value)
    return found is not None and float(found.value) == 1.0


def _sigmoid(op: linalg.GenericOp) -> bool:
    """``1 / (1 + exp(−in))`` (module doc)."""
    div = _one(op)
    if not isinstance(div, arith.DivfOp) or not _is_one(div.lhs):
        return False
    add = div.rhs.owner
    if not isinstance(add, arith.AddfOp):
        return False
    exp = next((v.owner for v in add.operands if isinstance(v.owner, math.ExpOp)), None)
    other = next((v for v in add.operands if not isinstance(v.owner, math.ExpOp)), None)
    if exp is None or other is None or not _is_one(other):
        return False
    neg = exp.operand.owner
    return isinstance(neg, arith.NegfOp) and _arg(neg.operand, op) == 0


def _reduced_axis(op: linalg.GenericOp) -> int | None:
    """The one reduction dimension of ``op``, if it has exactly one."""
    kinds = [str(it.data) for it in op.iterator_types.data]
    reductions = [d for d, kind in enumerate(kinds) if kind == "reduction"]
    return reductions[0] if len(reductions) == 1 else None


def _map_results(op: linalg.GenericOp, index: int) -> list[str]:
    return [str(e) for e in op.indexing_maps.data[index].data.results]


def _along(op: linalg.GenericOp, index: int, axis: int) -> bool:
    """Whether operand ``index`` of ``op`` is read or written once per position along the
    other dimensions than ``axis`` (that dimension dropped, or 0)."""
    rank = len(op.iterator_types.data)
    kept = [f"d{d}" for d in range(rank) if d != axis]
    return _map_results(op, index) in (kept, [f"d{d}" if d != axis else "0"
                                              for d in range(rank)])


def _reduction(op: linalg.GenericOp, kind: type[Operation], axis: int) -> bool:
    """Whether result 0 of the reduction ``op`` along ``axis`` is ``kind(in, out)`` (max or
    sum) of its identity-mapped input."""
    combine = _one(op)
    rank = len(op.iterator_types.data)
    args = [_arg(v, op) for v in combine.operands] if combine is not None else []
    return isinstance(combine, kind) and None not in args and \
        sorted(args) == [0, len(op.inputs)] and \
        _map_results(op, 0) == [f"d{d}" for d in range(rank)] and \
        _along(op, len(op.inputs), axis)


def _binary(op: linalg.GenericOp, kind: type[Operation], axis: int) -> bool:
    """Whether the two-input ``op`` yields ``kind(in0, in1)``, ``in1`` broadcast along
    ``axis``."""
    combine = _one(op)
    rank = len(op.iterator_types.data)
    return isinstance(combine, kind) and [_arg(v, op) for v in combine.operands] == [0, 1] \
        and _map_results(op, 0) == [f"d{d}" for d in range(rank)] and _along(op, 1, axis)


def step(lifter: Lifter, op: linalg.GenericOp, ins: list[Meaning]) -> bool:
    """A step of a host function (module doc), held as :class:`HostFloat`; whether ``op``
    was one."""
    out = op.outputs[0]
    if len(ins) == 1 and isinstance(ins[0], Real) and len(op.outputs) == 1 and _sigmoid(op):
        lifter.held[out] = HostFloat(ins[0].tensor, "sigmoid")
        return True
    axis = _reduced_axis(op)
    if axis is not None and len(ins) == 1:
        init = lifter.meaning(op, out)
        if isinstance(ins[0], Real) and _reduction(op, arith.MaximumfOp, axis) and \
                isinstance(init, Filled):
            lifter.held[out] = HostFloat(ins[0].tensor, "max", axis)
            return True
        if isinstance(ins[0], HostFloat) and ins[0].stage == "exp" and \
                ins[0].axis == axis and _reduction(op, arith.AddfOp, axis) and \
                isinstance(init, Filled) and init.value == 0:
            lifter.held[out] = HostFloat(ins[0].x, "sum", axis)
            return True
        return False
    if len(ins) == 1 and isinstance(ins[0], HostFloat) and ins[0].stage == "shifted":
        exp = _one(op)
        if isinstance(exp, math.ExpOp) and _arg(exp.operand, op) == 0:
            lifter.held[out] = HostFloat(ins[0].x, "exp", ins[0].axis)
            return True
        return False
    if len(ins) != 2 or not isinstance(ins[1], HostFloat):
        return False
    first, second = ins
    if isinstance(first, Real) and second.stage == "max" and first.tensor == second.x and \
            _binary(op, arith.SubfOp, second.axis):
        lifter.held[out] = HostFloat(second.x, "shifted", second.axis)
        return True
    if isinstance(first, HostFloat) and (first.stage, second.stage) == ("exp", "sum") and \
            (first.x, first.axis) == (second.x, second.axis) and \
            _binary(op, arith.DivfOp, second.axis):
        lifter.held[out] = HostFloat(second.x, "softmax", second.axis)
        return True
    return False


def host_layer(lifter: Lifter, op: Operation, src: HostFloat, y: QTensor) -> HostLayer:
    """The host layer a quantize of a sigmoid or softmax closes."""
    if src.stage not in ("sigmoid", "softmax"):
        raise Unsupported(op, f"quantizes an unfinished softmax (its {src.stage} step): the "
                              "host computes a whole Sigmoid or Softmax")
    return HostLayer(lifter.name(src.stage), src.x.name, src.stage, src.axis, y.name)
