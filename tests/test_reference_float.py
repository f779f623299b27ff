"""The numpy reference evaluator (``vta_mlir.reference``) on floats, op by op: ``arith`` float
arithmetic, minima and maxima, comparisons and conversions, against rules written here element
by element (IEEE results in numpy's own float type, exact rationals, Python's floats)."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest

from vta_mlir.reference import evaluate

from .reference_helpers import (
    FLOAT_TYPES,
    assert_same_floats,
    elementwise_text,
    nearest,
    pywrap,
)

SPECIALS = [0.0, -0.0, 1.0, -1.0, 1.5, -2.5, 0.1, 3.0e38, -3.0e38, 1e-45, -1e-40,
            math.inf, -math.inf, math.nan, 2.0**-24, 65504.0]


def pairs(dtype: type[np.floating]) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of special values, as two arrays of ``dtype``."""
    with np.errstate(over="ignore"):  # 3e38 is inf in f16
        values = np.array(SPECIALS, dtype=np.float64).astype(dtype)
    a, b = np.meshgrid(values, values)
    return a.reshape(-1), b.reshape(-1)


def run(ins: list[str], out: str, body: str, *arrays: np.ndarray) -> np.ndarray:
    (y,) = evaluate(elementwise_text(ins, out, body, arrays[0].size), list(arrays))
    return y


# --------------------------------------------------------------------------------------------
# Arithmetic


@pytest.mark.parametrize("ty", FLOAT_TYPES)
@pytest.mark.parametrize("name, ufunc", [("addf", np.add), ("subf", np.subtract),
                                         ("mulf", np.multiply), ("divf", np.divide)])
def test_basic_arithmetic_is_ieee_in_the_type(ty: str, name: str, ufunc: np.ufunc) -> None:
    dtype = FLOAT_TYPES[ty]
    a, b = pairs(dtype)
    got = run([ty, ty], ty, f"%r = arith.{name} %x0, %x1 : {ty}", a, b)
    with np.errstate(all="ignore"):
        want = ufunc(a, b)  # numpy's IEEE operation in the type itself
    assert want.dtype == dtype
    assert_same_floats(got, want)


def test_each_op_rounds_to_f32() -> None:
    """``(a * b) + c``: the product is rounded to f32 before the sum (no float64 carried
    between ops, no fused multiply-add)."""
    a = np.array([1 + 2.0**-12, 3.0, 1e30], np.float32)
    c = np.array([-1.0, -9.0, -1e30], np.float32)
    got = run(["f32", "f32", "f32"], "f32",
              "%p = arith.mulf %x0, %x1 : f32\n    %r = arith.addf %p, %x2 : f32", a, a, c)
    with np.errstate(over="ignore"):
        want = [np.float32(np.float32(x * x) + z) for x, z in zip(a, c, strict=True)]
    assert_same_floats(got, np.array(want, np.float32))
    assert got[0] == 2.0**-11  # float64 throughout would give 2**-11 + 2**-24


def test_negf_and_select() -> None:
    a, b = pairs(np.float32)
    got = run(["f32"], "f32", "%r = arith.negf %x0 : f32", a)
    assert_same_floats(got, np.array([-float(x) for x in a], np.float32))
    body = """%c = arith.cmpf olt, %x0, %x1 : f32
    %r = arith.select %c, %x0, %x1 : f32"""
    got = run(["f32", "f32"], "f32", body, a, b)
    assert_same_floats(got, np.array([x if x < z else z for x, z in zip(a, b, strict=True)],
                                     np.float32))


def _ordered_max(x: float, z: float, maximum: bool) -> float:
    """max / min with -0.0 below +0.0."""
    if x == z == 0.0:
        negative = (math.copysign(1, x) < 0) and (math.copysign(1, z) < 0) if maximum else (
            math.copysign(1, x) < 0 or math.copysign(1, z) < 0)
        return -0.0 if negative else 0.0
    return max(x, z) if maximum else min(x, z)


def _maximumf(x: float, z: float) -> float:
    return math.nan if math.isnan(x) or math.isnan(z) else _ordered_max(x, z, True)


def _minimumf(x: float, z: float) -> float:
    return math.nan if math.isnan(x) or math.isnan(z) else _ordered_max(x, z, False)


def _maxnumf(x: float, z: float) -> float:
    if math.isnan(x) or math.isnan(z):
        return z if math.isnan(x) else x
    return _ordered_max(x, z, True)


def _minnumf(x: float, z: float) -> float:
    if math.isnan(x) or math.isnan(z):
        return z if math.isnan(x) else x
    return _ordered_max(x, z, False)


@pytest.mark.parametrize("ty", ["f16", "f32"])
@pytest.mark.parametrize("name, rule", [("maximumf", _maximumf), ("minimumf", _minimumf),
                                        ("maxnumf", _maxnumf), ("minnumf", _minnumf)])
def test_minima_and_maxima(ty: str, name: str, rule: Callable[[float, float], float]) -> None:
    """NaN propagates through ``maximumf`` / ``minimumf`` and is ignored by ``maxnumf`` /
    ``minnumf``; -0.0 is less than +0.0 in all four."""
    dtype = FLOAT_TYPES[ty]
    a, b = pairs(dtype)
    got = run([ty, ty], ty, f"%r = arith.{name} %x0, %x1 : {ty}", a, b)
    want = np.array([rule(float(x), float(z)) for x, z in zip(a, b, strict=True)], dtype)
    assert_same_floats(got, want)


CMPF = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
        "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"]


def _cmpf(predicate: str, x: float, z: float) -> bool:
    if predicate in ("false", "true"):
        return predicate == "true"
    unordered = math.isnan(x) or math.isnan(z)
    if predicate == "ord":
        return not unordered
    if predicate == "uno":
        return unordered
    compare = {"eq": x == z, "gt": x > z, "ge": x >= z, "lt": x < z, "le": x <= z,
               "ne": x != z}[predicate[1:]]
    return (not unordered and compare) if predicate[0] == "o" else (unordered or compare)


@pytest.mark.parametrize("predicate", CMPF)
def test_cmpf_predicates(predicate: str) -> None:
    a, b = pairs(np.float32)
    body = f"""%c = arith.cmpf {predicate}, %x0, %x1 : f32
    %r = arith.extui %c : i1 to i8"""
    got = run(["f32", "f32"], "i8", body, a, b)
    want = [_cmpf(predicate, float(x), float(z)) for x, z in zip(a, b, strict=True)]
    np.testing.assert_array_equal(got, np.array(want, np.int8))


# --------------------------------------------------------------------------------------------
# Conversions

INTS = [0, 1, -1, 7, -128, 127, 2**24 + 1, 2**31 - 1, -(2**31), 2**60 + 2**36 + 1,
        2**63 - 1, -(2**63)]


@pytest.mark.parametrize("ty", FLOAT_TYPES)
@pytest.mark.parametrize("width", [8, 32, 64])
def test_integers_to_floats_round_once(ty: str, width: int) -> None:
    """``sitofp`` / ``uitofp`` give the nearest float (ties to even) of the integer the bits
    mean, signed or unsigned; beyond the type's range, infinity."""
    dtype = FLOAT_TYPES[ty]
    x = np.array([pywrap(v, width) for v in INTS], dtype=f"i{width // 8}")
    for op, meaning in (("sitofp", int), ("uitofp", lambda v: int(v) % (1 << width))):
        got = run([f"i{width}"], ty, f"%r = arith.{op} %x0 : i{width} to {ty}", x)
        limit = float(np.finfo(dtype).max)
        want = [nearest(Fraction(meaning(v)), dtype) if abs(meaning(v)) < limit
                else dtype(math.copysign(math.inf, meaning(v))) for v in x]
        assert_same_floats(got, np.array(want, dtype))


FLOATS = [-0.0, 0.9, -0.9, 1.5, -1.5, 126.99, 127.5, 128.0, -128.9, -129.5, 255.9, 256.0,
          2.0**31, -(2.0**31), 2.0**31 + 2**8, 1e10, -1e10, 9.3e18, -9.3e18, 2.0**64, math.inf,
          -math.inf, math.nan]


def _saturate(x: float, lo: int, hi: int) -> int:
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return hi if x > 0 else lo
    return min(max(math.trunc(x), lo), hi)


@pytest.mark.parametrize("ty", ["f32", "f64"])
@pytest.mark.parametrize("width", [8, 32, 64])
def test_floats_to_integers_truncate_and_saturate(ty: str, width: int) -> None:
    """``fptosi`` / ``fptoui`` round toward zero; a value out of range (poison in MLIR)
    saturates to the type's minimum or maximum, and NaN gives 0."""
    dtype = FLOAT_TYPES[ty]
    x = np.array(FLOATS, dtype)
    got = run([ty], f"i{width}", f"%r = arith.fptosi %x0 : {ty} to i{width}", x)
    lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
    np.testing.assert_array_equal(got, np.array([_saturate(float(v), lo, hi) for v in x],
                                                f"i{width // 8}"))
    got = run([ty], f"i{width}", f"%r = arith.fptoui %x0 : {ty} to i{width}", x)
    want = [_saturate(float(v), 0, (1 << width) - 1) for v in x]
    np.testing.assert_array_equal(got.view(f"u{width // 8}"), np.array(want, f"u{width // 8}"))


def test_float_widths_convert_by_rounding_to_nearest_even() -> None:
    wide = np.array([1 + 2.0**-24, 1 + 3 * 2.0**-24, 1 + 2.0**-24 + 2.0**-50, 3.5e38, -1e-50,
                     1 + 2.0**-11 + 2.0**-40, math.nan, -math.inf], np.float64)
    got = run(["f64"], "f32", "%r = arith.truncf %x0 : f64 to f32", wide)
    want = [nearest(Fraction(v), np.float32) for v in wide[:6] if abs(v) < 3e38]
    assert_same_floats(got, np.array([*want[:3], np.inf, *want[3:], np.nan, -np.inf],
                                     np.float32))
    assert got[1] == 1 + 2.0**-22 and got[0] == 1.0 and np.signbit(got[4])
    # To f16 straight from f64: one rounding (through f32, 1 + 2**-11 would tie to 1.0).
    got = run(["f64"], "f16", "%r = arith.truncf %x0 : f64 to f16", wide)
    assert got[5] == 1 + 2.0**-10 and got[3] == np.inf and np.signbit(got[4])
    narrow = np.array([0.1, -65504.0, 2.0**-24, math.nan], np.float16)
    got = run(["f16"], "f64", "%r = arith.extf %x0 : f16 to f64", narrow)
    assert_same_floats(got, narrow.astype(np.float64))


@pytest.mark.parametrize("ty, ity", [("f16", "i16"), ("f32", "i32"), ("f64", "i64")])
def test_bitcast_between_integers_and_floats(ty: str, ity: str) -> None:
    dtype = FLOAT_TYPES[ty]
    values = np.array([1.0, -0.0, math.inf, -2.5, 2.0**-14, math.nan], dtype)
    bits = values.view(f"i{np.dtype(dtype).itemsize}")
    got = run([ity], ty, f"%r = arith.bitcast %x0 : {ity} to {ty}", bits)
    assert_same_floats(got, values)
    got = run([ty], ity, f"%r = arith.bitcast %x0 : {ty} to {ity}", values)
    np.testing.assert_array_equal(got, bits)


# --------------------------------------------------------------------------------------------
# math functions

#: Functions computed in float64 and rounded once to f16 / f32: name -> (Python's function,
#: its domain).
WIDE: dict[str, tuple[Callable[[float], float], Callable[[float], bool]]] = {
    "exp": (math.exp, lambda v: True),
    "exp2": (math.exp2, lambda v: True),
    "expm1": (math.expm1, lambda v: True),
    "log": (math.log, lambda v: v > 0),
    "log2": (math.log2, lambda v: v > 0),
    "log10": (math.log10, lambda v: v > 0),
    "log1p": (math.log1p, lambda v: v > -1),
    "tanh": (math.tanh, lambda v: True),
    "erf": (math.erf, lambda v: True),
    "sin": (math.sin, lambda v: True),
    "cos": (math.cos, lambda v: True),
    "tan": (math.tan, lambda v: True),
    "sinh": (math.sinh, lambda v: True),
    "cosh": (math.cosh, lambda v: True),
    "asin": (math.asin, lambda v: -1 <= v <= 1),
    "acos": (math.acos, lambda v: -1 <= v <= 1),
    "atan": (math.atan, lambda v: True),
    "asinh": (math.asinh, lambda v: True),
    "acosh": (math.acosh, lambda v: v >= 1),
    "atanh": (math.atanh, lambda v: -1 < v < 1),
    "cbrt": (math.cbrt, lambda v: True),
}

GRID = [float(v) for v in np.linspace(-6, 6, 49)] + [0.3, -0.7, 0.999, 1e-6, 3.14159]


@pytest.mark.parametrize("ty", ["f16", "f32", "f64"])
@pytest.mark.parametrize("name", WIDE)
def test_functions_are_float64_rounded_once(ty: str, name: str) -> None:
    """``f16`` / ``f32``: the function's value in float64 (here the C library's, through
    Python's ``math``) rounded once to the type; ``f64``: numpy's float64 function."""
    dtype = FLOAT_TYPES[ty]
    function, domain = WIDE[name]
    x = np.array([v for v in GRID if domain(v)], dtype)
    got = run([ty], ty, f"%r = math.{name} %x0 : {ty}", x)
    if ty == "f64" and name != "erf":
        want = getattr(np, {"asin": "arcsin", "acos": "arccos", "atan": "arctan",
                            "asinh": "arcsinh", "acosh": "arccosh",
                            "atanh": "arctanh"}.get(name, name))(x)
    else:
        with np.errstate(over="ignore"):
            want = np.array([function(float(v)) for v in x], np.float64).astype(dtype)
    assert_same_floats(got, want)


def test_functions_at_special_values() -> None:
    x = np.array([math.nan, math.inf, -math.inf, 0.0, -0.0, -1.0, 100.0], np.float32)
    expected = {
        "exp": [math.nan, math.inf, 0.0, 1.0, 1.0, math.exp(-1), math.inf],
        "log": [math.nan, math.inf, math.nan, -math.inf, -math.inf, math.nan, math.log(100)],
        "tanh": [math.nan, 1.0, -1.0, 0.0, -0.0, math.tanh(-1), 1.0],
        "erf": [math.nan, 1.0, -1.0, 0.0, -0.0, math.erf(-1), 1.0],
        "sqrt": [math.nan, math.inf, math.nan, 0.0, -0.0, math.nan, 10.0],
        "rsqrt": [math.nan, 0.0, math.nan, math.inf, -math.inf, math.nan, 0.1],
    }
    for name, want in expected.items():
        got = run(["f32"], "f32", f"%r = math.{name} %x0 : f32", x)
        assert_same_floats(got, np.array(want, np.float32))


HALVES = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.49999997, 0.49999997, 8388607.5, 1e20, -0.3,
          0.0, -0.0, 7.25, -7.75, math.nan, math.inf, -math.inf]


def _signed(value: float, x: float) -> float:
    """A zero result takes the operand's sign (IEEE's rounding functions)."""
    return math.copysign(0.0, x) if value == 0 else value


def _integral(rule: Callable[[float], float]) -> Callable[[float], float]:
    return lambda x: x if math.isnan(x) or math.isinf(x) else _signed(float(rule(x)), x)


@pytest.mark.parametrize("ty", ["f16", "f32", "f64"])
@pytest.mark.parametrize("name, rule", [
    ("floor", _integral(math.floor)),
    ("ceil", _integral(math.ceil)),
    ("trunc", _integral(math.trunc)),
    ("roundeven", _integral(round)),  # Python rounds halfway cases to even
    ("round", _integral(lambda x: math.copysign(math.floor(abs(x) + 0.5), x))),
    ("absf", abs),
    ("sqrt", lambda x: math.sqrt(x) if x >= 0 or math.isnan(x) else math.nan),
])
def test_exact_functions_in_the_type(ty: str, name: str, rule: Callable[[float], float]) -> None:
    dtype = FLOAT_TYPES[ty]
    with np.errstate(over="ignore"):
        x = np.array(HALVES, np.float64).astype(dtype)
    got = run([ty], ty, f"%r = math.{name} %x0 : {ty}", x)
    with np.errstate(over="ignore"):
        want = np.array([rule(float(v)) for v in x], np.float64).astype(dtype)
    assert_same_floats(got, want)


def test_rsqrt_is_a_divided_square_root() -> None:
    """As MLIR's lowering writes it: ``1 / sqrt(x)``, each rounded to f32."""
    x = np.array([0.01, 2.0, 3.0, 1e-3, 7.7e5, 1e-40], np.float32)
    got = run(["f32"], "f32", "%r = math.rsqrt %x0 : f32", x)
    assert_same_floats(got, np.array([np.float32(1) / np.float32(math.sqrt(float(v)))
                                      for v in x], np.float32))


def test_binary_functions() -> None:
    base = np.array([2.0, 0.5, 10.0, -8.0, 0.0, 3.0, -2.0], np.float32)
    exponent = np.array([0.5, -3.3, 7.0, 1 / 3, -1.0, 2.0, 3.0], np.float32)
    got = run(["f32", "f32"], "f32", "%r = math.powf %x0, %x1 : f32", base, exponent)
    want = [math.inf if (b == 0 and e < 0) else math.nan if (b < 0 and e != int(e))
            else math.pow(float(b), float(e)) for b, e in zip(base, exponent, strict=True)]
    assert_same_floats(got, np.array(want, np.float32))
    for name, rule in (("atan2", math.atan2), ("copysign", math.copysign)):
        got = run(["f32", "f32"], "f32", f"%r = math.{name} %x0, %x1 : f32", base, exponent)
        assert_same_floats(got, np.array([rule(float(b), float(e))
                                          for b, e in zip(base, exponent, strict=True)],
                                         np.float32))


@pytest.mark.parametrize("ty", FLOAT_TYPES)
def test_fma_rounds_once(ty: str) -> None:
    """``math.fma`` is the exact ``a * b + c`` rounded once — including where the float64 sum,
    rounded again, would land on a tie of the narrower type."""
    dtype = FLOAT_TYPES[ty]
    rng = np.random.default_rng(7)
    a, b, c = (rng.standard_normal(20).astype(dtype) for _ in range(3))
    # A product on a tie of the type, plus the type's least value (f32: float64 rounds the sum
    # back onto the tie); f64: a product float64 cannot hold, minus 1.
    a[0], b[0], c[0] = {"f16": (1 + 2.0**-5, 1 + 2.0**-6, 2.0**-24),
                        "f32": (1 + 2.0**-12, 1 + 2.0**-12, 2.0**-149),
                        "f64": (1 + 2.0**-30, 1 + 2.0**-30, -1.0)}[ty]
    got = run([ty, ty, ty], ty, f"%r = math.fma %x0, %x1, %x2 : {ty}", a, b, c)
    want = [nearest(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)), dtype)
            for x, y, z in zip(a, b, c, strict=True)]
    assert_same_floats(got, np.array(want, dtype))
    assert got[0] != dtype(dtype(a[0] * b[0]) + c[0])
    if ty == "f32":
        assert got[0] != np.float32(np.float64(a[0]) * np.float64(b[0]) + np.float64(c[0]))
