"""Element-wise float functions of one tensor's reals, as torch-mlir writes ``HardSigmoid``,
``HardSwish`` and a ``Mul`` by a constant: a chain of generics between a dequantize and a
quantize, each one op on the reals ``x`` (or on the previous generic's values) and a constant
— ``addf``, ``subf``, ``mulf``, ``divf`` by a scalar, ``maximumf`` / ``minimumf`` or
``select(cmpf)`` against a scalar (a ``tensor<f32>`` constant or a body constant) — or the
product of the chain's values and ``x`` itself.  ``vta-integerize`` keeps the chain as
:class:`Chain` and reads it when the quantize closes it, as the ONNX frontend's layer of the
same function (``docs/onnx.md`` §4.10–§4.11, :mod:`vta_mlir.quant.activations`):

* one multiplication by a dequantized constant (one value, or one per channel) →
  :class:`~vta_mlir.quant.activations.MulConstLayer`, from the constant's codes, scale and
  zero point;
* ``c · clip(a·x + b, lo, hi) + d`` with ``c·lo + d = 0`` and ``c·hi + d = 1`` (affine steps,
  then the two clamps, then affine steps) → ``HardSigmoid`` with ``α = c·a``, ``β = c·b + d``;
  the same times ``x`` → ``HardSwish`` of that ``α``, ``β``
  (:class:`~vta_mlir.quant.activations.HardLayer`): torch-mlir's ``HardSwish`` is
  ``x · min(max(x + 3, 0), 6) / 6``, so ``α = 1/6``, ``β = 1/2``.  The chain's float values on
  all 256 codes must then be the form's real values to within half an output step.

A chain that is none of these is an error at the quantize.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import BlockArgument, Operation, SSAValue

from vta_mlir.quant.activations import HardLayer, MulConstLayer, hard_layer, mul_const_layer
from vta_mlir.quant.program import QTensor

from . import bodies
from .meaning import Const, Meaning, Real, Unsupported

__all__ = ["Chain", "chain_layer", "step"]


class Lifter(Protocol):
    """What these functions use of the lifter."""

    held: dict[SSAValue, Meaning]

    def name(self, kind: str) -> str: ...


@dataclass(frozen=True)
class Chain:
    """``x``'s reals through ``steps``: ``(kind, value)`` with ``kind`` one of ``add``,
    ``mul``, ``div``, ``max``, ``min`` (by the scalar ``value``), ``mulconst`` (by the
    :class:`~.meaning.Const` ``value``, a dequantized constant) and ``mulx`` (by ``x``)."""

    x: QTensor
    steps: tuple[tuple[str, object], ...]


def _arg(value: SSAValue, op: linalg.GenericOp) -> int | None:
    if isinstance(value, BlockArgument) and value.block is op.body.block \
            and value.index < len(op.inputs):
        return value.index
    return None


#: ``arith.cmpf`` predicates: greater (ogt, oge, ugt, uge) and less (olt, ole, ult, ule).
_GREATER = (2, 3, 9, 10)
_LESS = (4, 5, 11, 12)


def _body_steps(op: linalg.GenericOp, ins: list[Meaning],
                x: QTensor) -> list[tuple[str, object]] | None:
    """The steps the body of ``op`` applies, op after op, to its input read as the chain
    (module doc); None when the body is something else."""
    term = op.body.block.last_op
    if not isinstance(term, linalg.YieldOp) or len(term.operands) != 1:
        return None
    # The chain read by the body: the Chain input, else the reals.
    chained = min(range(len(ins)), key=lambda i: (not isinstance(ins[i], Chain),
                                                  not isinstance(ins[i], Real)))
    block = op.body.block

    def on_chain(value: SSAValue) -> bool:
        owner = value.owner
        return _arg(value, op) == chained or (isinstance(owner, Operation) and
                                              owner.parent_block() is block and
                                              not isinstance(owner, arith.ConstantOp))

    def scalar(value: SSAValue) -> float | None:
        index = _arg(value, op)
        if index is not None:
            held = ins[index]
            return float(held.array.reshape(())) if isinstance(held, Const) and \
                held.array.size == 1 and held.source is None else None
        found = bodies.scalar(value)
        return None if found is None else float(found.value)

    def split(a: SSAValue, b: SSAValue) -> tuple[SSAValue, SSAValue] | None:
        """(the chain's value, the other operand)."""
        if on_chain(a) and not on_chain(b):
            return a, b
        return (b, a) if on_chain(b) and not on_chain(a) else None

    def one(owner: Operation) -> tuple[SSAValue, tuple[str, object]] | None:
        if isinstance(owner, arith.SelectOp) and \
                isinstance(cmp := owner.cond.owner, arith.CmpfOp):
            # select(p > q, p, q) is max(p, q); select(p > q, q, p) min(p, q); < the other way.
            p, q = cmp.lhs, cmp.rhs
            predicate = cmp.predicate.value.data
            parts = split(p, q)
            if {owner.lhs, owner.rhs} != {p, q} or predicate not in _GREATER + _LESS or \
                    parts is None or (value := scalar(parts[1])) is None:
                return None
            larger = (predicate in _GREATER) == (owner.lhs is p)
            return parts[0], ("max" if larger else "min", value)
        if not isinstance(owner, arith.AddfOp | arith.SubfOp | arith.MulfOp | arith.DivfOp |
                          arith.MaximumfOp | arith.MinimumfOp):
            return None
        a, b = owner.operands
        if isinstance(owner, arith.MulfOp) and on_chain(a) and on_chain(b):
            # The chain's value in the body times the reals it started from (x read once).
            inner = a if _arg(a, op) is None else b
            return (inner, ("mulx", None)) if _arg(a if inner is b else b, op) == chained \
                and isinstance(ins[chained], Real) and inner is not (b if inner is a else a) \
                else None
        parts = split(a, b)
        if parts is None:
            return None
        inner, rest = parts
        if isinstance(owner, arith.MulfOp) and (index := _arg(rest, op)) is not None:
            held = ins[index]
            if isinstance(held, Real) and held.tensor == x:
                return inner, ("mulx", None)  # HardSwish: times x itself
            if isinstance(held, Const) and held.source is not None:
                return inner, ("mulconst", held)
        value = scalar(rest)
        if value is None or (isinstance(owner, arith.SubfOp | arith.DivfOp) and rest is a):
            return None
        kind = {arith.AddfOp: "add", arith.SubfOp: "add", arith.MulfOp: "mul",
                arith.DivfOp: "div", arith.MaximumfOp: "max", arith.MinimumfOp: "min"}[
            type(owner)]
        return inner, (kind, -value if isinstance(owner, arith.SubfOp) else value)

    steps: list[tuple[str, object]] = []
    value = term.operands[0]
    while _arg(value, op) != chained:
        owner = value.owner
        found = one(owner) if isinstance(owner, Operation) and on_chain(value) else None
        if found is None:
            return None
        value, taken = found
        steps.insert(0, taken)
    return steps


def step(lifter: Lifter, op: linalg.GenericOp, ins: list[Meaning]) -> bool:
    """A step of a chain on one tensor's reals (module doc); whether ``op`` was one."""
    chains = [m for m in ins if isinstance(m, Chain)]
    reals = [m for m in ins if isinstance(m, Real)]
    if len(op.outputs) != 1 or len(chains) > 1 or not chains + reals or \
            any(str(it.data) != "parallel" for it in op.iterator_types.data):
        return False
    x = chains[0].x if chains else reals[0].tensor
    identity = [f"d{d}" for d in range(len(op.iterator_types.data))]
    if len(chains) + len(reals) > 2 or any(r.tensor != x for r in reals) or any(
            [str(e) for e in op.indexing_maps.data[i].data.results] != identity
            for i, m in enumerate(ins) if isinstance(m, Real | Chain)):
        return False
    found = _body_steps(op, ins, x)
    if not found:
        return False
    steps = chains[0].steps if chains else ()
    lifter.held[op.outputs[0]] = Chain(x, (*steps, *found))
    return True


def _affine(steps: list[tuple[str, object]]) -> tuple[float, float]:
    """``(s, t)`` of the affine map ``v ↦ s·v + t`` the add / mul / div ``steps`` compute."""
    s, t = 1.0, 0.0
    for kind, value in steps:
        v = float(value)  # type: ignore[arg-type]
        if kind == "add":
            t += v
        elif kind == "mul":
            s, t = s * v, t * v
        else:
            s, t = s / v, t / v
    return s, t


def _hard_form(chain: Chain) -> tuple[bool, float, float] | None:
    """``(swish, α, β)`` of a chain of the hard form (module doc), if it is one."""
    steps = list(chain.steps)
    swish = bool(steps) and steps[-1][0] == "mulx"
    if swish:
        steps.pop()
    kinds = [kind for kind, _ in steps]
    if any(k in ("mulx", "mulconst") for k in kinds) or sorted(
            k for k in kinds if k in ("max", "min")) != ["max", "min"]:
        return None
    first = min(i for i, k in enumerate(kinds) if k in ("max", "min"))
    if kinds[first + 1] not in ("max", "min"):
        return None
    a, b = _affine(steps[:first])
    c, d = _affine(steps[first + 2:])
    bounds = {kind: float(value) for kind, value in steps[first:first + 2]}  # type: ignore[arg-type]
    lo, hi = bounds["max"], bounds["min"]
    if not (a > 0 and c > 0 and lo < hi) or not np.isclose(c * lo + d, 0, atol=1e-9) or \
            not np.isclose(c * hi + d, 1, rtol=1e-9):
        return None
    return swish, c * a, c * b + d


def _chain_values(chain: Chain, x: np.ndarray) -> np.ndarray:
    """The chain's ``f32`` values on the reals ``x`` (scalar steps only)."""
    v = x
    f32 = np.float32
    for kind, value in chain.steps:
        if kind == "mulx":
            v = v * x
            continue
        k = f32(value)  # type: ignore[arg-type]
        v = {"add": np.add, "mul": np.multiply, "div": np.divide, "max": np.maximum,
             "min": np.minimum}[kind](v, k).astype(f32)
    return v


def chain_layer(lifter: Lifter, op: Operation, src: Chain,
                y: QTensor) -> HardLayer | MulConstLayer:
    """The layer a quantize of a chain closes (module doc)."""
    x = src.x
    try:
        if len(src.steps) == 1 and src.steps[0][0] == "mulconst":
            const = src.steps[0][1]
            assert isinstance(const, Const) and const.source is not None
            codes, scale, zero_point = const.source
            channels = x.shape[1] if len(x.shape) == 4 else 0
            if scale.size != 1 or zero_point.size != 1 or len(x.shape) != 4 or \
                    (codes.size != 1 and codes.shape != (1, channels, 1, 1)):
                raise Unsupported(op, "a Mul of NCHW reals by a constant of one scale and zero "
                                      "point, one value or one per channel, is supported")
            factor = codes.reshape(-1).astype(np.int64) - int(zero_point.reshape(()))
            return mul_const_layer(lifter.name("mul"), x.name, x.scale, x.zero_point, factor,
                                   float(scale.reshape(())), y.scale, y.zero_point, y.name)
        form = _hard_form(src)
        if form is None:
            raise Unsupported(op, "quantizes a float function of int8 codes that is none of "
                                  "HardSigmoid clip(α·x + β, 0, 1), HardSwish x·clip(α·x + β, "
                                  "0, 1) and a Mul by a dequantized constant")
        swish, alpha, beta = form
        reals = (np.arange(-128, 128).astype(np.float32) - np.float32(x.zero_point)) * \
            np.float32(x.scale)
        exact = reals.astype(np.float64)
        defined = np.clip(alpha * exact + beta, 0, 1) * (exact if swish else 1)
        if np.max(np.abs(_chain_values(src, reals) - defined)) > y.scale / 2:
            raise Unsupported(op, f"the float function of int8 codes is not "
                                  f"{'HardSwish' if swish else 'HardSigmoid'} with α = "
                                  f"{alpha:g}, β = {beta:g} on every code")
        return hard_layer(lifter.name("hardswish" if swish else "hardsigmoid"), x.name, swish,
                          alpha, beta, x.scale, x.zero_point, y.scale, y.zero_point, y.name)
    except ValueError as exc:
        raise Unsupported(op, str(exc)) from None
