"""Element arithmetic of the reference evaluator (:mod:`vta_mlir.reference`): integer
``arith`` ops on numpy arrays, each result wrapped to its width, the numpy storage of memref
elements, and affine expressions on host integers (float ops: :mod:`.floats`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    TensorType,
)
from xdsl.ir import Attribute, Operation
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)

from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.index_arith import IndexArithError, evaluate_map

#: numpy storage type of a memref element, by integer width.
_STORAGE: dict[int, type[np.signedinteger[Any]]] = {
    8: np.int8,
    16: np.int16,
    32: np.int32,
    64: np.int64,
}

#: numpy storage type of a memref element (and type of a value), by float type.
FLOAT_STORAGE: dict[type[Attribute], type[np.floating[Any]]] = {
    Float16Type: np.float16,
    Float32Type: np.float32,
    Float64Type: np.float64,
}

#: Sums of products below this bound are exact in float64 (53-bit significand).
FLOAT_EXACT = 1 << 53

EINSUM_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


# --------------------------------------------------------------------------------------------
# Integer semantics


def wrap(values: Any, width: int) -> np.ndarray:
    """Two's-complement wrap-around of integer values to ``width`` bits, as int64 holding the
    sign-extended result (``width`` 64: int64's own wrap-around)."""
    v = np.asarray(values)
    if v.dtype != np.int64:
        # A uint64 wraps to the same bits; narrower types convert exactly.
        v = v.astype(np.int64)
    if width >= 64:
        return v
    shift = 64 - width
    return (v << shift) >> shift


def as_unsigned(v: np.ndarray, width: int) -> np.ndarray:
    """The unsigned reading of sign-extended ``width``-bit values (uint64 for 64 bits)."""
    if width >= 64:
        return np.asarray(v).astype(np.uint64)
    return np.asarray(v) & ((1 << width) - 1)


def shift_right(a: Any, b: Any, width: int = 32) -> np.ndarray:
    """``arith.shrsi`` as VTA's SHR: an arithmetic right shift by ``b`` for ``b >= 0`` and a left
    shift by ``-b`` otherwise, the amount taken modulo ``width``; wrapped to ``width`` bits."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    right = a >> np.mod(b, width)
    if not np.any(b < 0):
        return right
    left = wrap(a << np.mod(-b, width), width)
    return np.where(b < 0, left, right)


def _shift_left(a: np.ndarray, b: np.ndarray, width: int) -> np.ndarray:
    return wrap(a << np.mod(b, width), width)


def _shift_right_unsigned(a: np.ndarray, b: np.ndarray, width: int) -> np.ndarray:
    return wrap(as_unsigned(a, width) >> as_unsigned(np.mod(b, width), width), width)


def _nonzero_divisor(op: Operation, b: np.ndarray) -> None:
    if np.any(b == 0):
        report_error(op, "divides by zero (undefined behaviour) for the given inputs")


def _divsi(op: Operation, a: np.ndarray, b: np.ndarray, width: int) -> np.ndarray:
    _nonzero_divisor(op, b)
    q = np.floor_divide(a, b)
    # Floor to truncation: one up where the division was inexact and the signs differ.
    q = q + ((np.mod(a, b) != 0) & ((a < 0) != (b < 0)))
    return wrap(q, width)


def _remsi(op: Operation, a: np.ndarray, b: np.ndarray, width: int) -> np.ndarray:
    q = _divsi(op, a, b, 64)
    return wrap(a - q * b, width)


def _unsigned_div(
    op: Operation, a: np.ndarray, b: np.ndarray, width: int, *, ceil: bool = False,
    rem: bool = False,
) -> np.ndarray:
    ua, ub = as_unsigned(a, width), as_unsigned(b, width)
    _nonzero_divisor(op, ub)
    if rem:
        return wrap(ua % ub, width)
    q = ua // ub
    if ceil:
        q = q + (ua % ub != 0)
    return wrap(q, width)


def _cmpi(predicate: int, a: np.ndarray, b: np.ndarray, width: int) -> np.ndarray:
    if predicate >= 6:
        a, b = as_unsigned(a, width), as_unsigned(b, width)
    result = {
        0: np.equal,
        1: np.not_equal,
        2: np.less,
        3: np.less_equal,
        4: np.greater,
        5: np.greater_equal,
        6: np.less,
        7: np.less_equal,
        8: np.greater,
        9: np.greater_equal,
    }[predicate](a, b)
    # An i1 true sign-extends to -1 (so extui gives 1 and extsi gives -1, as in MLIR).
    return np.where(result, np.int64(-1), np.int64(0))


#: Binary integer ops: ``(op, a, b, width) -> value`` on sign-extended int64 arrays.
_BINARY: dict[type[Operation], Callable[[Operation, np.ndarray, np.ndarray, int], np.ndarray]] = {
    arith.AddiOp: lambda op, a, b, w: wrap(a + b, w),
    arith.SubiOp: lambda op, a, b, w: wrap(a - b, w),
    arith.MuliOp: lambda op, a, b, w: wrap(a * b, w),
    arith.AndIOp: lambda op, a, b, w: a & b,
    arith.OrIOp: lambda op, a, b, w: a | b,
    arith.XOrIOp: lambda op, a, b, w: a ^ b,
    arith.MaxSIOp: lambda op, a, b, w: np.maximum(a, b),
    arith.MinSIOp: lambda op, a, b, w: np.minimum(a, b),
    arith.MaxUIOp: lambda op, a, b, w: wrap(np.maximum(as_unsigned(a, w), as_unsigned(b, w)), w),
    arith.MinUIOp: lambda op, a, b, w: wrap(np.minimum(as_unsigned(a, w), as_unsigned(b, w)), w),
    arith.ShRSIOp: lambda op, a, b, w: shift_right(a, b, w),
    arith.ShLIOp: lambda op, a, b, w: _shift_left(a, b, w),
    arith.ShRUIOp: lambda op, a, b, w: _shift_right_unsigned(a, b, w),
    arith.DivSIOp: _divsi,
    arith.RemSIOp: _remsi,
    arith.FloorDivSIOp: lambda op, a, b, w: (
        _nonzero_divisor(op, b), wrap(np.floor_divide(a, b), w))[1],
    arith.CeilDivSIOp: lambda op, a, b, w: (
        _nonzero_divisor(op, b), wrap(np.floor_divide(a, b) + (np.mod(a, b) != 0), w))[1],
    arith.DivUIOp: lambda op, a, b, w: _unsigned_div(op, a, b, w),
    arith.CeilDivUIOp: lambda op, a, b, w: _unsigned_div(op, a, b, w, ceil=True),
    arith.RemUIOp: lambda op, a, b, w: _unsigned_div(op, a, b, w, rem=True),
}

#: Reductions: the op combining the accumulator with a value -> its numpy ufunc, whether
#: repeating a value leaves the result unchanged, whether it compares unsigned.
COMBINERS: dict[type[Operation], tuple[np.ufunc, bool, bool]] = {
    arith.AddiOp: (np.add, False, False),
    arith.MuliOp: (np.multiply, False, False),
    arith.XOrIOp: (np.bitwise_xor, False, False),
    arith.AndIOp: (np.bitwise_and, True, False),
    arith.OrIOp: (np.bitwise_or, True, False),
    arith.MaxSIOp: (np.maximum, True, False),
    arith.MinSIOp: (np.minimum, True, False),
    arith.MaxUIOp: (np.maximum, True, True),
    arith.MinUIOp: (np.minimum, True, True),
}


def type_width(op: Operation, t: Attribute) -> int:
    """Bit width of an integer or ``index`` type; anything else is unsupported."""
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, IndexType):
        return 64
    report_error(op, f"type {t} is not supported by the reference evaluator (integer and index "
                     "types only)")


def float_storage(op: Operation, t: Attribute) -> type[np.floating[Any]] | None:
    """numpy dtype of a float type (``f16``, ``f32``, ``f64``); None for other types.  ``bf16``
    is an error: numpy has no type holding its values."""
    if isinstance(t, BFloat16Type):
        report_error(op, "bf16 is not supported by the reference evaluator: numpy has no "
                         "bfloat16 type to compute in")
    return FLOAT_STORAGE.get(type(t))


def storage_type(
    op: Operation, t: Attribute
) -> type[np.signedinteger[Any]] | type[np.floating[Any]]:
    """numpy dtype of a memref's elements."""
    if isinstance(t, TensorType):
        report_error(op, "tensor operands are not supported by the reference evaluator: it "
                         "evaluates programs on memrefs")
    if not isinstance(t, MemRefType):
        report_error(op, f"expected a memref, got {t}")
    element = t.element_type
    if isinstance(element, IntegerType) and element.width.data in _STORAGE:
        return _STORAGE[element.width.data]
    if (dtype := float_storage(op, element)) is not None:
        return dtype
    report_error(op, f"memref element type {element} is not supported by the reference "
                     "evaluator (i8, i16, i32, i64, f16, f32 or f64)")


def scalar_op(op: Operation, operands: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The results of an element-wise ``arith`` op on (broadcastable) operand values."""
    if isinstance(op, arith.ConstantOp):
        value = op.value
        if not isinstance(value, IntegerAttr):
            report_error(op, f"constant {value} is not supported by the reference evaluator "
                             "(integer and index constants only)")
        width = type_width(op, op.result.type)
        return [wrap(np.int64(value.value.data), width)]
    result_width = type_width(op, op.results[0].type) if op.results else 64
    kind = type(op)
    if kind in _BINARY:
        width = type_width(op, op.operands[0].type)
        return [_BINARY[kind](op, operands[0], operands[1], width)]
    if isinstance(op, arith.ExtSIOp):
        return [operands[0]]
    if isinstance(op, arith.ExtUIOp):
        return [wrap(as_unsigned(operands[0], type_width(op, op.operands[0].type)), result_width)]
    if isinstance(op, arith.TruncIOp):
        return [wrap(operands[0], result_width)]
    if isinstance(op, arith.IndexCastOp):
        return [wrap(operands[0], result_width)]
    if isinstance(op, arith.CmpiOp):
        width = type_width(op, op.operands[0].type)
        return [_cmpi(op.predicate.value.data, operands[0], operands[1], width)]
    if isinstance(op, arith.SelectOp):
        return [np.where(operands[0] != 0, operands[1], operands[2])]
    report_error(op, "is not supported by the reference evaluator")


# --------------------------------------------------------------------------------------------
# Affine expressions over index grids


def affine_value(op: Operation, expr: AffineExpr, dims: Sequence[Any], syms: Sequence[Any]) -> Any:
    """``expr`` with dimension ``i`` bound to ``dims[i]`` and symbol ``j`` to ``syms[j]``
    (broadcastable index arrays: the element grids of indexing maps); ``mod`` and
    ``floordiv`` round towards minus infinity as in MLIR."""
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, AffineSymExpr):
        return syms[expr.position]
    if isinstance(expr, AffineConstantExpr):
        return expr.value
    if isinstance(expr, AffineBinaryOpExpr):
        lhs = affine_value(op, expr.lhs, dims, syms)
        rhs = affine_value(op, expr.rhs, dims, syms)
        kind = expr.kind
        if kind == AffineBinaryOpKind.Add:
            return lhs + rhs
        if kind == AffineBinaryOpKind.Mul:
            return lhs * rhs
        if np.any(np.asarray(rhs) == 0):
            report_error(op, f"affine expression {expr} divides by zero")
        if kind == AffineBinaryOpKind.Mod:
            return lhs % rhs
        if kind == AffineBinaryOpKind.FloorDiv:
            return lhs // rhs
        if kind == AffineBinaryOpKind.CeilDiv:
            return -((-lhs) // rhs)
    report_error(op, f"affine expression {expr} is not supported by the reference evaluator")


def apply_map(op: Operation, m: AffineMap, operands: Sequence[int]) -> tuple[int, ...]:
    """The results of a loop bound's map (:mod:`vta_mlir.ir.index_arith`)."""
    try:
        return evaluate_map(m, operands)
    except IndexArithError as e:
        report_error(op, str(e))
