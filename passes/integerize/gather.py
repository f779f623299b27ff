"""Nearest-resize gathers of ``vta-integerize``: torch-mlir writes an ONNX nearest ``Resize`` as
a ``linalg.generic`` without inputs whose body computes, from ``linalg.index``, the source
index of each output element in float (the coordinate transformation: ``sitofp``, ``addf``,
``divf``, ``subf``; the nearest mode: ``floor``, ``ceil``, ``cmpf``, ``select``; a clamp to the
input; ``fptosi``, ``index_cast``) and reads that element (``tensor.extract``, a
``memref.load`` after ``vta-bufferize``).

The gather is not interpreted in general: the body's index arithmetic is evaluated over every
output index (:func:`index_values`, exactly the ops above on numpy arrays, ``f32`` rounding
like the program's; any other op is an error at it), and the table of each loaded dimension
must be ``o // f`` for an integer factor ``f`` (1 on N and C): the nearest upsampling of
:class:`~vta_mlir.quant.layers_cnn.ResizeLayer` (``docs/onnx.md`` §4.12).  It reads the reals
of a tensor's codes, and the quantize after it must keep that quantization (codes are moved,
never requantized).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from xdsl.dialects import arith, math, memref
from xdsl.dialects.builtin import Float32Type, Float64Type, FloatAttr, IndexType, IntegerAttr
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, Operation, SSAValue

from vta_mlir.quant.layers_cnn import ResizeLayer
from vta_mlir.quant.program import QTensor

from .fold import FLOAT_BINARY, INT_BINARY
from .meaning import Meaning, Real, Unsupported
from .values import shape as _shape

__all__ = ["Gathered", "gather", "index_values", "resize_layer"]


class Lifter(Protocol):
    """What these functions use of the lifter."""

    held: dict[SSAValue, Meaning]

    def meaning(self, op: Operation, value: SSAValue) -> Meaning: ...

    def name(self, kind: str) -> str: ...


@dataclass(frozen=True)
class Gathered:
    """The reals of ``x`` upsampled by ``factors`` (rows, columns): element ``(n, c, h, w)``
    is ``x``'s ``(n, c, h // fh, w // fw)``."""

    op: Operation
    x: QTensor
    factors: tuple[int, int]


def _float_type(t: Attribute) -> type[np.floating] | None:
    if isinstance(t, Float32Type):
        return np.float32
    if isinstance(t, Float64Type):
        return np.float64
    return None


_FLOAT_UNARY: dict[type[Operation], Callable[[np.ndarray], np.ndarray]] = {
    math.FloorOp: np.floor, math.CeilOp: np.ceil, math.RoundEvenOp: np.rint,
    arith.NegfOp: np.negative,
}
#: ``arith.cmpf`` predicates on ordered operands (the evaluated indices are never NaN):
#: oeq/ueq, ogt/ugt, oge/uge, olt/ult, ole/ule, one/une.
_COMPARE: dict[int, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    1: np.equal, 8: np.equal, 2: np.greater, 9: np.greater, 3: np.greater_equal,
    10: np.greater_equal, 4: np.less, 11: np.less, 5: np.less_equal, 12: np.less_equal,
    6: np.not_equal, 13: np.not_equal,
}


def index_values(op: linalg.GenericOp, value: SSAValue,
                 shape: tuple[int, ...]) -> np.ndarray:
    """The values of ``value`` over the iteration space ``shape`` of ``op``'s body, computed
    from ``linalg.index`` and constants by the ops of the module doc (float ops rounded to
    their type, ``fptosi`` toward zero); :class:`Unsupported` at any other op."""
    cache: dict[SSAValue, np.ndarray] = {}

    def get(v: SSAValue) -> np.ndarray:
        if v not in cache:
            cache[v] = compute(v)
        return cache[v]

    def compute(v: SSAValue) -> np.ndarray:
        owner = v.owner
        if not isinstance(owner, Operation):
            raise Unsupported(op, "computes a gather index from a value that is neither "
                                  "linalg.index nor a constant")
        if isinstance(owner, linalg.IndexOp):
            dim = owner.dim.value.data
            extent = [1] * len(shape)
            extent[dim] = shape[dim]
            return np.arange(shape[dim], dtype=np.int64).reshape(extent)
        if isinstance(owner, arith.ConstantOp):
            attr = owner.value
            if isinstance(attr, FloatAttr):
                return np.asarray(attr.value.data, _float_type(attr.type) or np.float64)
            if isinstance(attr, IntegerAttr):
                return np.asarray(int(attr.value.data), np.int64)
        args = [get(a) for a in owner.operands]
        result_type = _float_type(owner.results[0].type) if owner.results else None
        kind = type(owner)
        if kind in FLOAT_BINARY and result_type is not None:
            return FLOAT_BINARY[kind](*(a.astype(result_type) for a in args)).astype(
                result_type)
        if kind in _FLOAT_UNARY and result_type is not None:
            return _FLOAT_UNARY[kind](args[0].astype(result_type)).astype(result_type)
        if kind in INT_BINARY:
            return INT_BINARY[kind](args[0], args[1]).astype(np.int64)
        if isinstance(owner, arith.SIToFPOp | arith.TruncFOp | arith.ExtFOp) and \
                result_type is not None:
            return args[0].astype(result_type)
        if isinstance(owner, arith.FPToSIOp):
            return np.trunc(args[0]).astype(np.int64)
        if isinstance(owner, arith.IndexCastOp | arith.ExtSIOp):
            return args[0].astype(np.int64)
        if isinstance(owner, arith.CmpfOp) and owner.predicate.value.data in _COMPARE:
            return _COMPARE[owner.predicate.value.data](args[0], args[1])
        if isinstance(owner, arith.SelectOp):
            return np.where(args[0], args[1], args[2])
        raise Unsupported(owner, "is not an op of the index arithmetic of a nearest-resize "
                                 "gather (sitofp, addf, subf, mulf, divf, floor, ceil, cmpf, "
                                 "select, maximumf, minimumf, fptosi, index_cast)")

    return np.broadcast_to(get(value), shape)


def _gather_load(op: linalg.GenericOp) -> memref.LoadOp | None:
    """The ``memref.load`` of a buffer outside ``op`` whose value the body yields, if the body
    is a gather (no inputs, one output)."""
    term = op.body.block.last_op
    if op.inputs or len(op.outputs) != 1 or not isinstance(term, linalg.YieldOp) or \
            len(term.operands) != 1:
        return None
    load = term.operands[0].owner
    if not isinstance(load, memref.LoadOp):
        return None
    definer = load.memref.owner
    return None if isinstance(definer, Operation) and op.is_ancestor(definer) else load


def gather(lifter: Lifter, op: linalg.GenericOp) -> bool:
    """A nearest-resize gather (module doc) held as :class:`Gathered`; whether ``op`` is a
    gather (an error at it when it reads or indexes otherwise)."""
    load = _gather_load(op)
    if load is None:
        return False
    src = lifter.meaning(op, load.memref)
    if not isinstance(src, Real):
        raise Unsupported(op, "a gather is read as a nearest resize of the reals of int8 codes")
    out, source = _shape(op.outputs[0]), src.tensor.shape
    if len(out) != 4 or len(source) != 4 or \
            any(not isinstance(i.type, IndexType) for i in load.indices):
        raise Unsupported(op, "a gather is read as a nearest resize of NCHW data")
    factors: list[int] = []
    for dim, index in enumerate(load.indices):
        table = index_values(op, index, out)
        factor = out[dim] // source[dim]
        expected = np.arange(out[dim]).reshape([-1 if d == dim else 1 for d in range(4)])
        if out[dim] != factor * source[dim] or (dim < 2 and factor != 1) or \
                not np.array_equal(table, np.broadcast_to(expected // factor, out)):
            raise Unsupported(op, f"the gather reads index {_shown(table, dim)} of dimension "
                                  f"{dim} (size {source[dim]}) for output index 0.. "
                                  f"{out[dim] - 1}: VTA's nearest resize reads o // f for an "
                                  f"integer factor f on H and W and the same index on N and C")
        factors.append(factor)
    lifter.held[op.outputs[0]] = Gathered(op, src.tensor, (factors[2], factors[3]))
    return True


def _shown(table: np.ndarray, dim: int) -> str:
    """The first values of ``table`` along ``dim`` (the others at 0), for a message."""
    line = table[tuple(slice(None) if d == dim else 0 for d in range(table.ndim))]
    values = ", ".join(str(int(v)) for v in line[:8])
    return f"[{values}{', ...' if line.size > 8 else ''}]"


def resize_layer(lifter: Lifter, op: Operation, src: Gathered, y: QTensor) -> ResizeLayer:
    """The resize a quantize of gathered reals closes: at the reals' own quantization."""
    if (y.scale, y.zero_point) != (src.x.scale, src.x.zero_point):
        raise Unsupported(op, "a nearest resize moves codes: it is quantized with the scale "
                              "and zero point of the codes it gathers, not requantized")
    return ResizeLayer(lifter.name("resize"), src.x.name, src.factors, y.name)
