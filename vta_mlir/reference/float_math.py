"""The ``math`` dialect's float functions in the reference evaluator
(:mod:`vta_mlir.reference`), on numpy arrays of the operands' type.

Two kinds, so that every result is defined by the inputs alone (the semantics are set out in
the package docstring):

* operations IEEE 754 rounds exactly once in the type itself — ``absf``, ``copysign``,
  ``floor``, ``ceil``, ``trunc``, ``round``, ``roundeven``, ``sqrt`` — computed by numpy in the
  type; ``rsqrt`` is ``1 / sqrt(x)``, two such operations, as MLIR's ``math`` to LLVM lowering
  writes it; ``fma`` is rounded once (exactly, below);
* the other functions — ``exp``, ``log``, ``tanh``, ``erf``, ``powf``, ``sin``, ... — are
  computed in float64 and rounded once to ``f16`` / ``f32``, which gives the correctly rounded
  result except when the float64 value falls within a float64 ulp of a rounding boundary of the
  narrower type; numpy's own float32 functions are not used, as their last bits depend on which
  SIMD code the CPU runs.  ``f64`` uses numpy's float64 function (``erf``: Python's
  ``math.erf``, the C library's).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
from xdsl.dialects import math as math_dialect
from xdsl.ir import Operation

Array = np.ndarray
#: ``(*operands, dtype=...) -> result``.
MathFunction = Callable[..., Array]


def _in_type(f: Callable[..., Any]) -> MathFunction:
    """A function IEEE rounds once in the operands' own type."""

    def apply(*operands: Array, dtype: type[np.floating[Any]]) -> Array:
        return np.asarray(f(*operands)).astype(dtype, copy=False)

    return apply


def _wide(f: Callable[..., Any]) -> MathFunction:
    """A function computed in float64, rounded once to the result type."""

    def apply(*operands: Array, dtype: type[np.floating[Any]]) -> Array:
        wide = [np.asarray(x).astype(np.float64, copy=False) for x in operands]
        return np.asarray(f(*wide), dtype=np.float64).astype(dtype, copy=False)

    return apply


_erf_elements = np.frompyfunc(math.erf, 1, 1)


def _erf(x: Array) -> Array:
    return np.asarray(_erf_elements(x), dtype=np.float64)


def _round_half_away(x: Array) -> Array:
    """``math.round``: to the nearest integer, halfway cases away from zero (the sign of a zero
    result is the operand's)."""
    whole = np.trunc(x)
    away = np.abs(x - whole) >= 0.5  # x - trunc(x) is exact
    return np.where(away, whole + np.copysign(np.ones((), x.dtype), x), whole)


def _rsqrt(x: Array, *, dtype: type[np.floating[Any]]) -> Array:
    root = np.sqrt(np.asarray(x))
    return np.divide(np.ones((), dtype), root).astype(dtype, copy=False)


def _fma(a: Array, b: Array, c: Array, *, dtype: type[np.floating[Any]]) -> Array:
    """``a * b + c`` rounded once.  For ``f16`` / ``f32`` the product is exact in float64; the
    sum is rounded to odd in float64 (the error of the rounded sum, by TwoSum, says whether it
    was exact), and rounding that to the narrower type is the correctly rounded result.
    ``f64``: exact rationals, element by element."""
    if np.dtype(dtype) == np.float64:
        return _fma64(*np.broadcast_arrays(a, b, c))
    p = np.asarray(a).astype(np.float64) * np.asarray(b).astype(np.float64)
    c64 = np.asarray(c).astype(np.float64)
    s = p + c64
    # TwoSum: s + e == p + c exactly (finite values).
    pv = s - c64
    cv = s - pv
    e = (p - pv) + (c64 - cv)
    even = (np.asarray(s).view(np.int64) & 1) == 0
    inexact = np.isfinite(s) & (e != 0) & even
    toward = np.where(e > 0, np.inf, -np.inf)
    odd = np.where(inexact, np.nextafter(s, toward), s)
    return np.asarray(odd).astype(dtype)


def _fma64_element(a: float, b: float, c: float) -> float:
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        return a * b + c
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        # An exact zero has the sign IEEE gives a * b + c (the product is exact then).
        return a * b + c
    try:
        return float(exact)
    except OverflowError:
        return math.copysign(math.inf, exact)


_fma64_elements = np.frompyfunc(_fma64_element, 3, 1)


def _fma64(a: Array, b: Array, c: Array) -> Array:
    return np.asarray(_fma64_elements(a, b, c), dtype=np.float64)


#: The ``math`` ops the evaluator computes: op -> function of the operands and result dtype.
MATH_OPS: dict[type[Operation], MathFunction] = {
    math_dialect.AbsFOp: _in_type(np.abs),
    math_dialect.CopySignOp: _in_type(np.copysign),
    math_dialect.FloorOp: _in_type(np.floor),
    math_dialect.CeilOp: _in_type(np.ceil),
    math_dialect.TruncOp: _in_type(np.trunc),
    math_dialect.RoundEvenOp: _in_type(np.rint),
    math_dialect.RoundOp: _in_type(_round_half_away),
    math_dialect.SqrtOp: _in_type(np.sqrt),
    math_dialect.RsqrtOp: _rsqrt,
    math_dialect.FmaOp: _fma,
    math_dialect.ExpOp: _wide(np.exp),
    math_dialect.Exp2Op: _wide(np.exp2),
    math_dialect.ExpM1Op: _wide(np.expm1),
    math_dialect.LogOp: _wide(np.log),
    math_dialect.Log2Op: _wide(np.log2),
    math_dialect.Log10Op: _wide(np.log10),
    math_dialect.Log1pOp: _wide(np.log1p),
    math_dialect.PowFOp: _wide(np.power),
    math_dialect.CbrtOp: _wide(np.cbrt),
    math_dialect.ErfOp: _wide(_erf),
    math_dialect.TanhOp: _wide(np.tanh),
    math_dialect.SinhOp: _wide(np.sinh),
    math_dialect.CoshOp: _wide(np.cosh),
    math_dialect.AsinhOp: _wide(np.arcsinh),
    math_dialect.AcoshOp: _wide(np.arccosh),
    math_dialect.AtanhOp: _wide(np.arctanh),
    math_dialect.SinOp: _wide(np.sin),
    math_dialect.CosOp: _wide(np.cos),
    math_dialect.TanOp: _wide(np.tan),
    math_dialect.AsinOp: _wide(np.arcsin),
    math_dialect.AcosOp: _wide(np.arccos),
    math_dialect.AtanOp: _wide(np.arctan),
    math_dialect.Atan2Op: _wide(np.arctan2),
}
