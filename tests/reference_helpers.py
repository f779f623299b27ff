"""Shared by the reference evaluator tests: Python integers wrapped to a width, a matrix
reduction whose term and combining op vary, element-wise float programs, a bitwise float
comparison and exact rounding from rationals."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np


def pywrap(value: int, bits: int) -> int:
    """Python integer wrapped to ``bits`` (two's complement)."""
    half = 1 << (bits - 1)
    return (value + half) % (1 << bits) - half


def reduction_text(term: str, combine: str, ty: str = "i32", in_ty: str = "i32") -> str:
    """A 6x50 by 50x7 reduction: ``term`` of two elements (``%t``), folded by ``combine``."""
    return f"""
func.func @f(%a: memref<6x50x{in_ty}>, %b: memref<50x7x{in_ty}>, %y: memref<6x7x{ty}>) {{
  linalg.generic {{indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%a, %b : memref<6x50x{in_ty}>, memref<50x7x{in_ty}>) outs(%y : memref<6x7x{ty}>) {{
  ^bb0(%x: {in_ty}, %z: {in_ty}, %acc: {ty}):
    {term}
    %r = arith.{combine} %acc, %t : {ty}
    linalg.yield %r : {ty}
  }}
  return
}}
"""


# --------------------------------------------------------------------------------------------
# Float programs and their expectations

#: MLIR float type -> numpy dtype.
FLOAT_TYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


def elementwise_text(ins: Sequence[str], out: str, body: str, n: int) -> str:
    """``@f(%a0, ..., %y)`` over ``memref<n x T>``: one parallel ``linalg.generic`` whose body
    reads ``%x0``, ``%x1``, ... (element types ``ins``) and yields ``%r`` of type ``out``."""
    params = ", ".join(f"%a{i}: memref<{n}x{t}>" for i, t in enumerate(ins))
    maps = ", ".join(["affine_map<(d0) -> (d0)>"] * (len(ins) + 1))
    names = ", ".join(f"%a{i}" for i in range(len(ins)))
    types = ", ".join(f"memref<{n}x{t}>" for t in ins)
    args = ", ".join(f"%x{i}: {t}" for i, t in enumerate(ins))
    return f"""
func.func @f({params}, %y: memref<{n}x{out}>) {{
  linalg.generic {{indexing_maps = [{maps}], iterator_types = ["parallel"]}}
      ins({names} : {types}) outs(%y : memref<{n}x{out}>) {{
  ^bb0({args}, %o: {out}):
    {body}
    linalg.yield %r : {out}
  }}
  return
}}
"""


def assert_same_floats(got: np.ndarray, want: np.ndarray) -> None:
    """Equal dtype, shape and bits (a NaN matches any NaN; -0.0 does not match +0.0)."""
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    bits = f"u{want.dtype.itemsize}"
    np.testing.assert_array_equal(got[~nan].view(bits), want[~nan].view(bits))


def nearest(exact: Fraction, dtype: type[np.floating[Any]]) -> np.floating[Any]:
    """The finite value of ``dtype`` nearest to ``exact``, a tie going to the even
    significand (IEEE's rounding, from an exact rational)."""
    guess = dtype(float(exact))
    candidates = [np.nextafter(guess, dtype(-np.inf)), guess, np.nextafter(guess, dtype(np.inf))]
    bits = f"u{np.dtype(dtype).itemsize}"

    def key(c: np.floating[Any]) -> tuple[Fraction, int]:
        return abs(Fraction(float(c)) - exact), int(np.asarray(c).view(bits)) & 1

    return min((c for c in candidates if np.isfinite(c)), key=key)


def sequential(op: Callable[[Any, Any], Any], init: Any, values: Iterable[Any]) -> Any:
    """A left fold, one rounding per step as a loop computes it."""
    acc = init
    for v in values:
        acc = op(acc, v)
    return acc
