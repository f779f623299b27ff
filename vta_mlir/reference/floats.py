"""Float element arithmetic of the reference evaluator (:mod:`vta_mlir.reference`): the
``arith`` float ops, comparisons, minima and maxima, conversions between integers and floats,
float constants, and :func:`element_op`, which evaluates any element-wise op of a body (integer
ops: :func:`.elementwise.scalar_op`; ``math`` functions: :mod:`.float_math`).

A float value is a numpy array of its type (``float16``, ``float32``, ``float64``); every op
returns its result type, rounded to nearest even once (the semantics are set out in the package
docstring).  An integer value is int64, sign-extended from its width (an ``i1`` true is -1).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerType,
    ShapedType,
)
from xdsl.ir import Attribute, Operation

from vta_mlir.ir.dense import resource_dtype
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.reference.elementwise import as_unsigned, float_storage, scalar_op, wrap
from vta_mlir.reference.float_math import MATH_OPS

Array = np.ndarray
Binary = Callable[[Array, Array], Array]


def value_dtype(op: Operation, t: Attribute) -> type[np.generic]:
    """numpy dtype of a value of type ``t`` in a body: int64 for integers and ``index``, the
    float's own type for ``f16`` / ``f32`` / ``f64``."""
    if isinstance(t, IntegerType | IndexType):
        return np.int64
    if (dtype := float_storage(op, t)) is not None:
        return dtype
    report_error(op, f"type {t} is not supported by the reference evaluator (integer, index, "
                     "f16, f32 and f64 types only)")


def is_float(op: Operation, t: Attribute) -> bool:
    """Whether ``t`` is a float type the evaluator computes in (``bf16`` is an error)."""
    return float_storage(op, t) is not None


def _int_width(op: Operation, t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, IndexType):
        return 64
    report_error(op, f"expected an integer type, got {t}")


# --------------------------------------------------------------------------------------------
# Minima and maxima: NaN and signed zeros as MLIR defines them


def _zero_signs(r: Array, negative: Array) -> Array:
    """``r`` with each zero given the sign of ``negative`` (-0.0 where it holds)."""
    zero = np.zeros((), dtype=r.dtype)
    return np.where(r == 0, np.where(negative, -zero, zero), r)


def maximumf(a: Array, b: Array) -> Array:
    """``arith.maximumf``: NaN if either operand is NaN; -0.0 is less than +0.0."""
    return _zero_signs(np.maximum(a, b), np.signbit(a) & np.signbit(b))


def minimumf(a: Array, b: Array) -> Array:
    """``arith.minimumf``: NaN if either operand is NaN; -0.0 is less than +0.0."""
    return _zero_signs(np.minimum(a, b), np.signbit(a) | np.signbit(b))


def maxnumf(a: Array, b: Array) -> Array:
    """``arith.maxnumf``: the other operand where one is NaN (NaN if both are); zeros as in
    :func:`maximumf`."""
    return maximumf(np.where(np.isnan(a), b, a), np.where(np.isnan(b), a, b))


def minnumf(a: Array, b: Array) -> Array:
    """``arith.minnumf``: the other operand where one is NaN (NaN if both are); zeros as in
    :func:`minimumf`."""
    return minimumf(np.where(np.isnan(a), b, a), np.where(np.isnan(b), a, b))


def _reduce_max(x: Array, axes: tuple[int, ...]) -> Array:
    r = np.maximum.reduce(x, axis=axes, keepdims=True)
    return _zero_signs(r, np.all(np.signbit(x), axis=axes, keepdims=True))


def _reduce_min(x: Array, axes: tuple[int, ...]) -> Array:
    r = np.minimum.reduce(x, axis=axes, keepdims=True)
    return _zero_signs(r, np.any(np.signbit(x), axis=axes, keepdims=True))


def _reduce_maxnum(x: Array, axes: tuple[int, ...]) -> Array:
    r = np.fmax.reduce(x, axis=axes, keepdims=True)
    return _zero_signs(r, np.all(np.signbit(x) | np.isnan(x), axis=axes, keepdims=True))


def _reduce_minnum(x: Array, axes: tuple[int, ...]) -> Array:
    r = np.fmin.reduce(x, axis=axes, keepdims=True)
    return _zero_signs(r, np.any(np.signbit(x) & ~np.isnan(x), axis=axes, keepdims=True))


#: Combiners of float reductions that are associative and commutative on values (NaN payloads
#: aside), so that a whole-array reduction gives what the left fold gives: op -> (the reduction
#: over axes, keeping them; the element-wise op).
ORDER_FREE_COMBINERS: dict[type[Operation], tuple[Callable[[Array, tuple[int, ...]], Array],
                                                  Binary]] = {
    arith.MaximumfOp: (_reduce_max, maximumf),
    arith.MinimumfOp: (_reduce_min, minimumf),
    arith.MaxnumfOp: (_reduce_maxnum, maxnumf),
    arith.MinnumfOp: (_reduce_minnum, minnumf),
}

#: Combiners of float reductions folded in iteration order: op -> its numpy ufunc.
FOLDED_COMBINERS: dict[type[Operation], np.ufunc] = {
    arith.AddfOp: np.add,
    arith.SubfOp: np.subtract,
    arith.MulfOp: np.multiply,
    arith.DivfOp: np.divide,
}

#: Binary float ops computed in their own type (IEEE operations, correctly rounded).
_BINARY: dict[type[Operation], Binary] = {
    **{kind: ufunc for kind, ufunc in FOLDED_COMBINERS.items()},
    **{kind: pair[1] for kind, pair in ORDER_FREE_COMBINERS.items()},
}


# --------------------------------------------------------------------------------------------
# Comparisons

#: The ordered comparisons of ``arith.cmpf`` by predicate (1..6); ``u*`` (8..13) are the same
#: comparison or unordered.
_ORDERED: dict[int, np.ufunc] = {
    1: np.equal,
    2: np.greater,
    3: np.greater_equal,
    4: np.less,
    5: np.less_equal,
    6: np.not_equal,
}


def cmpf(predicate: int, a: Array, b: Array) -> Array:
    """``arith.cmpf``: ``false oeq ogt oge olt ole one ord ueq ugt uge ult ule une uno true``
    (predicates 0..15); an ordered comparison is false and an unordered one true when an
    operand is NaN.  The i1 result is -1 / 0."""
    unordered = np.isnan(a) | np.isnan(b)
    if predicate in _ORDERED:
        result = _ORDERED[predicate](a, b) & ~unordered
    elif 8 <= predicate <= 13:
        result = _ORDERED[predicate - 7](a, b) | unordered
    elif predicate == 7:
        result = ~unordered
    elif predicate == 14:
        result = unordered
    else:
        result = np.full(unordered.shape, predicate == 15)
    return np.where(result, np.int64(-1), np.int64(0))


# --------------------------------------------------------------------------------------------
# Conversions


def fptosi(x: Array, width: int) -> Array:
    """``arith.fptosi`` to ``width`` bits: rounded toward zero; saturating where MLIR has poison
    (a value out of range gives the nearest of the type's minimum and maximum, NaN gives 0)."""
    t = np.trunc(np.asarray(x).astype(np.float64))
    lo, hi = -(2.0 ** (width - 1)), 2.0 ** (width - 1)
    inside = (t >= lo) & (t < hi)
    exact = np.where(inside, t, 0.0).astype(np.int64)
    return np.where(t >= hi, np.int64((1 << (width - 1)) - 1),
                    np.where(t < lo, np.int64(-(1 << (width - 1))), exact))


def fptoui(x: Array, width: int) -> Array:
    """``arith.fptoui`` to ``width`` bits: rounded toward zero; saturating to
    ``[0, 2**width - 1]`` (NaN gives 0); held sign-extended from ``width`` bits."""
    t = np.trunc(np.asarray(x).astype(np.float64))
    hi = 2.0**width
    inside = (t >= 0) & (t < hi)
    exact = np.where(inside, t, 0.0).astype(np.uint64)
    return wrap(np.where(t >= hi, np.uint64((1 << width) - 1), exact), width)


def bitcast(op: Operation, x: Array, source: Attribute, target: Attribute) -> Array:
    """``arith.bitcast`` between same-width types: the bits reinterpreted."""
    src_float, dst_float = float_storage(op, source), float_storage(op, target)
    if src_float is None and dst_float is None:
        return wrap(x, _int_width(op, target))
    if src_float is not None and dst_float is not None:
        return np.asarray(x).view(dst_float)
    if dst_float is not None:
        width = np.dtype(dst_float).itemsize * 8
        return np.asarray(x).astype(f"<i{width // 8}").view(dst_float)
    assert src_float is not None
    width = np.dtype(src_float).itemsize * 8
    return np.asarray(x).view(f"<i{width // 8}").astype(np.int64)


# --------------------------------------------------------------------------------------------
# Constants


def dense_float_array(attr: DenseIntOrFPElementsAttr, shape: Sequence[int]) -> Array | None:
    """The float elements of a ``dense<...>`` attribute in an array of ``shape`` (a splat
    repeated), of the element type's numpy dtype; None for non-float elements.  Raises
    ``ValueError`` when it holds another number of elements."""
    element = attr.get_element_type()
    stored = resource_dtype(element)
    if stored is None or stored.kind != "f":
        return None
    flat = np.frombuffer(attr.data.data, dtype=stored)
    count = math.prod(shape)
    if flat.size == 1 and count != 1:
        flat = np.full(count, flat[0], dtype=stored)
    if flat.size != count:
        raise ValueError(f"holds {flat.size} values for {count} elements")
    return flat.astype(stored.newbyteorder("="), copy=True).reshape(tuple(shape))


def _constant(op: arith.ConstantOp) -> Array:
    value, t = op.value, op.result.type
    if isinstance(value, FloatAttr):
        # xDSL holds the literal as the nearest float64; one rounding to the type.
        return np.asarray(value.value.data, dtype=np.float64).astype(value_dtype(op, t))
    if isinstance(value, DenseIntOrFPElementsAttr) and isinstance(t, ShapedType):
        try:
            array = dense_float_array(value, t.get_shape())
        except ValueError as e:
            report_error(op, f"constant {e}")
        if array is not None:
            return array
    report_error(op, f"constant {value} is not supported by the reference evaluator")


# --------------------------------------------------------------------------------------------
# Dispatch


def _float_result(op: Operation, operands: Sequence[Array]) -> Array | None:
    """The result of a float op, None if ``op`` is not one."""
    kind = type(op)
    if kind in _BINARY:
        return _BINARY[kind](operands[0], operands[1])
    if isinstance(op, arith.NegfOp):
        return np.negative(operands[0])
    if isinstance(op, arith.CmpfOp):
        return cmpf(op.predicate.value.data, operands[0], operands[1])
    if isinstance(op, arith.ExtFOp | arith.TruncFOp | arith.SIToFPOp):
        return np.asarray(operands[0]).astype(value_dtype(op, op.result.type))
    if isinstance(op, arith.UIToFPOp):
        unsigned = as_unsigned(operands[0], _int_width(op, op.input.type))
        return unsigned.astype(value_dtype(op, op.result.type))
    if isinstance(op, arith.FPToSIOp):
        return fptosi(operands[0], _int_width(op, op.result.type))
    if isinstance(op, arith.FPToUIOp):
        return fptoui(operands[0], _int_width(op, op.result.type))
    if isinstance(op, arith.BitcastOp):
        return bitcast(op, operands[0], op.input.type, op.result.type)
    if isinstance(op, arith.ConstantOp):
        value = op.value
        if isinstance(value, FloatAttr) or (isinstance(value, DenseIntOrFPElementsAttr)
                                            and is_float(op, value.get_element_type())):
            return _constant(op)
        return None
    if isinstance(op, arith.SelectOp) and is_float(op, op.result.type):
        return np.where(operands[0] != 0, operands[1], operands[2])
    if op.dialect_name() == "math":
        if kind not in MATH_OPS or not all(is_float(op, v.type) for v in op.operands):
            report_error(op, "is not supported by the reference evaluator")
        dtype = value_dtype(op, op.results[0].type)
        return np.asarray(MATH_OPS[kind](*operands, dtype=dtype))
    return None


def element_op(op: Operation, operands: Sequence[Array]) -> list[Array]:
    """The results of an element-wise ``arith`` or ``math`` op on (broadcastable) operand
    values: float ops here, integer ops by :func:`~.elementwise.scalar_op`."""
    result = _float_result(op, operands)
    if result is None:
        return scalar_op(op, operands)
    return [np.asarray(result)]
