"""Evaluating an element-wise ``linalg.generic`` on constants, with the float semantics of the
program: ``f32`` arithmetic rounds like IEEE single precision (numpy ``float32``),
``math.roundeven`` rounds half to even, ``fptosi`` truncates toward zero, integer arithmetic
wraps to its width. MLIR frontends write such generics around the constants of a quantized
layer (a bias dequantized, then quantized again at the accumulator's scale)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, BlockArgument, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap

from vta_mlir.reference.elementwise import wrap

__all__ = ["FLOAT_BINARY", "INT_BINARY", "fold_generic"]

#: The binary float and integer ops the evaluations of ``vta-integerize`` compute, as numpy
#: functions (the caller rounds or wraps the result to the op's type).
FLOAT_BINARY: dict[type, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    arith.AddfOp: np.add,
    arith.SubfOp: np.subtract,
    arith.MulfOp: np.multiply,
    arith.DivfOp: np.divide,
    arith.MaximumfOp: np.maximum,
    arith.MinimumfOp: np.minimum,
}

INT_BINARY: dict[type, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    arith.AddiOp: np.add,
    arith.SubiOp: np.subtract,
    arith.MuliOp: np.multiply,
    arith.MaxSIOp: np.maximum,
    arith.MinSIOp: np.minimum,
}


def _dtype(t: Attribute) -> type | None:
    if isinstance(t, Float32Type):
        return np.float32
    if isinstance(t, Float64Type):
        return np.float64
    if isinstance(t, IntegerType) and t.width.data in (8, 16, 32, 64):
        return {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}[t.width.data]
    return None


def _width(t: Attribute) -> int:
    return t.width.data if isinstance(t, IntegerType) else 64


def fold_generic(op: linalg.GenericOp, inputs: list[np.ndarray]) -> np.ndarray | None:
    """The array ``op`` writes when its inputs hold ``inputs``; None when ``op`` is not an
    element-wise map of the ops above (parallel iterators, an identity output map, inputs read
    through projected permutations: transposed or broadcast)."""
    out_type = op.outputs[0].type
    if len(op.outputs) != 1 or not isinstance(out_type, MemRefType):
        return None
    shape = tuple(out_type.get_shape())
    out_dtype = _dtype(out_type.element_type)
    maps = [m.data for m in op.indexing_maps.data]
    if out_dtype is None or maps[-1] != AffineMap.identity(maps[-1].num_dims) or \
            any(str(it.data) != "parallel" for it in op.iterator_types.data):
        return None
    spread = [_spread(a, m, shape) for a, m in zip(inputs, maps, strict=False)]
    if any(a is None for a in spread):
        return None
    values: dict[SSAValue, np.ndarray] = {}
    block = op.body.block
    for arg in block.args:
        if isinstance(arg, BlockArgument) and arg.index < len(inputs):
            values[arg] = spread[arg.index]

    def get(v: SSAValue) -> np.ndarray | None:
        if v in values:
            return values[v]
        owner = v.owner
        if isinstance(owner, arith.ConstantOp) and owner.parent_block() is not block:
            return _constant(owner)
        return None

    for inner in block.ops:
        if isinstance(inner, linalg.YieldOp):
            result = get(inner.operands[0])
            if result is None:
                return None
            return np.broadcast_to(result, shape).astype(out_dtype)
        args = [get(v) for v in inner.operands]
        if any(a is None for a in args):
            return None
        result = _apply(inner, args)
        if result is None:
            return None
        values[inner.results[0]] = result
    return None


def _spread(array: np.ndarray, indexing: AffineMap,
            shape: tuple[int, ...]) -> np.ndarray | None:
    """``array`` read through ``indexing`` at every point of the iteration space ``shape``: a
    projected permutation (each result one distinct dimension) transposes it and broadcasts
    it along the dimensions it does not name (a constant weight broadcast to a batch)."""
    if not all(isinstance(e, AffineDimExpr) for e in indexing.results):
        return None
    dims = [e.position for e in indexing.results]
    if len(set(dims)) != len(dims) or len(dims) != array.ndim or \
            any(array.shape[i] != shape[d] for i, d in enumerate(dims)):
        return None
    order = sorted(range(len(dims)), key=lambda i: dims[i])
    kept = np.transpose(array, order)
    expanded = [1] * len(shape)
    for d in dims:
        expanded[d] = shape[d]
    return np.broadcast_to(kept.reshape(expanded), shape)


def _constant(op: arith.ConstantOp) -> np.ndarray | None:
    attr = op.value
    dtype = _dtype(op.result.type)
    if dtype is None:
        return None
    if isinstance(attr, FloatAttr):
        return np.asarray(attr.value.data, dtype)
    if isinstance(attr, IntegerAttr):
        return np.asarray(int(attr.value.data), np.int64)
    return None


def _apply(op, args: list[np.ndarray]) -> np.ndarray | None:  # noqa: ANN001
    if isinstance(op, arith.ConstantOp):
        return _constant(op)
    result_type = op.results[0].type if op.results else None
    kind = type(op)
    if kind in FLOAT_BINARY:
        dtype = _dtype(result_type)
        return FLOAT_BINARY[kind](args[0].astype(dtype), args[1].astype(dtype)).astype(dtype)
    if kind in INT_BINARY:
        return wrap(INT_BINARY[kind](args[0].astype(np.int64), args[1].astype(np.int64)),
                    _width(result_type))
    if isinstance(op, math.RoundEvenOp):
        return np.rint(args[0])
    if isinstance(op, arith.SIToFPOp):
        return args[0].astype(np.int64).astype(_dtype(result_type))
    if isinstance(op, arith.FPToSIOp):
        return wrap(np.trunc(args[0]).astype(np.int64), _width(result_type))
    if isinstance(op, arith.TruncFOp | arith.ExtFOp):
        return args[0].astype(_dtype(result_type))
    if isinstance(op, arith.ExtSIOp):
        return args[0].astype(np.int64)
    if isinstance(op, arith.TruncIOp):
        return wrap(args[0].astype(np.int64), _width(result_type))
    return None
