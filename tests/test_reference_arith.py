"""The numpy reference evaluator (``vta_mlir.reference``): the semantics of each ``arith`` op
at every width, element by element against Python's own integers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from vta_mlir.reference import evaluate

from .reference_helpers import pywrap

DTYPES = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}


def edge_values(bits: int) -> list[int]:
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return [lo, lo + 1, -7, -2, -1, 0, 1, 2, 3, 5, 100 % hi, hi - 1, hi]


# --------------------------------------------------------------------------------------------
# arith semantics, element by element against Python integers

ELEMENTWISE = """
func.func @f(%a: memref<{n}xi{w}>, %b: memref<{n}xi{w}>, %y: memref<{n}xi{rw}>) {{
  linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                   affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}}
      ins(%a, %b : memref<{n}xi{w}>, memref<{n}xi{w}>) outs(%y : memref<{n}xi{rw}>) {{
  ^bb0(%x: i{w}, %z: i{w}, %o: i{rw}):
    {body}
    linalg.yield %r : i{rw}
  }}
  return
}}
"""


def _unsigned(v: int, bits: int) -> int:
    return v % (1 << bits)


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


BINARY_RULES: dict[str, Callable[[int, int, int], int]] = {
    "addi": lambda a, b, w: a + b,
    "subi": lambda a, b, w: a - b,
    "muli": lambda a, b, w: a * b,
    "andi": lambda a, b, w: a & b,
    "ori": lambda a, b, w: a | b,
    "xori": lambda a, b, w: a ^ b,
    "maxsi": lambda a, b, w: max(a, b),
    "minsi": lambda a, b, w: min(a, b),
    "maxui": lambda a, b, w: max(_unsigned(a, w), _unsigned(b, w)),
    "minui": lambda a, b, w: min(_unsigned(a, w), _unsigned(b, w)),
    "shli": lambda a, b, w: a << (b % w),
    "shrui": lambda a, b, w: _unsigned(a, w) >> (b % w),
    "divsi": lambda a, b, w: _trunc_div(a, b),
    "remsi": lambda a, b, w: a - b * _trunc_div(a, b),
    "floordivsi": lambda a, b, w: a // b,
    "ceildivsi": lambda a, b, w: -((-a) // b),
    "divui": lambda a, b, w: _unsigned(a, w) // _unsigned(b, w),
    "remui": lambda a, b, w: _unsigned(a, w) % _unsigned(b, w),
    "ceildivui": lambda a, b, w: -((-_unsigned(a, w)) // _unsigned(b, w)),
}
DIVIDES = {"divsi", "remsi", "floordivsi", "ceildivsi", "divui", "remui", "ceildivui"}


@pytest.mark.parametrize("bits", [8, 16, 32, 64])
@pytest.mark.parametrize("name", sorted(BINARY_RULES))
def test_binary_op(name: str, bits: int) -> None:
    values = edge_values(bits)
    pairs = [(a, b) for a in values for b in values]
    if name in DIVIDES:
        pairs = [(a, b) for a, b in pairs if b != 0]
    if name in ("shli", "shrui"):
        pairs = [(a, b % bits) for a, b in pairs]
    a = np.array([p[0] for p in pairs], dtype=DTYPES[bits])
    b = np.array([p[1] for p in pairs], dtype=DTYPES[bits])
    text = ELEMENTWISE.format(n=len(pairs), w=bits, rw=bits,
                              body=f"%r = arith.{name} %x, %z : i{bits}")
    (y,) = evaluate(text, [a, b])
    want = [pywrap(BINARY_RULES[name](x, z, bits), bits) for x, z in pairs]
    assert y.dtype == DTYPES[bits]
    assert y.tolist() == want


@pytest.mark.parametrize("bits", [8, 32, 64])
def test_shrsi_is_vta_shr(bits: int) -> None:
    """A right shift for amounts in [0, width); a negative amount shifts left (VTA's SHR, the
    normal form's left shift); amounts are taken modulo the width."""
    values = edge_values(bits)
    amounts = [0, 1, 3, bits - 1, -1, -3, -(bits - 1), bits + 2]
    pairs = [(a, s) for a in values for s in amounts]
    a = np.array([p[0] for p in pairs], dtype=DTYPES[bits])
    s = np.array([p[1] for p in pairs], dtype=DTYPES[bits])
    text = ELEMENTWISE.format(n=len(pairs), w=bits, rw=bits,
                              body=f"%r = arith.shrsi %x, %z : i{bits}")
    (y,) = evaluate(text, [a, s])
    want = [pywrap(x >> (k % bits) if k >= 0 else x << ((-k) % bits), bits) for x, k in pairs]
    assert y.tolist() == want


@pytest.mark.parametrize(("src", "dst"), [(8, 32), (16, 64), (32, 8), (64, 16), (8, 16)])
def test_casts(src: int, dst: int) -> None:
    values = edge_values(src)
    a = np.array(values, dtype=DTYPES[src])
    if dst > src:
        body = (f"%e = arith.extsi %x : i{src} to i{dst}\n"
                f"    %u = arith.extui %z : i{src} to i{dst}\n"
                f"    %r = arith.subi %e, %u : i{dst}")
        want = [pywrap(v - _unsigned(v, src), dst) for v in values]
    else:
        body = (f"%t = arith.trunci %x : i{src} to i{dst}\n"
                f"    %s = arith.trunci %z : i{src} to i{dst}\n"
                f"    %r = arith.addi %t, %s : i{dst}")
        want = [pywrap(2 * pywrap(v, dst), dst) for v in values]
    text = ELEMENTWISE.format(n=len(values), w=src, rw=dst, body=body)
    (y,) = evaluate(text, [a, a])
    assert y.tolist() == want


PREDICATES: dict[str, Callable[[int, int, int], bool]] = {
    "eq": lambda a, b, w: a == b,
    "ne": lambda a, b, w: a != b,
    "slt": lambda a, b, w: a < b,
    "sle": lambda a, b, w: a <= b,
    "sgt": lambda a, b, w: a > b,
    "sge": lambda a, b, w: a >= b,
    "ult": lambda a, b, w: _unsigned(a, w) < _unsigned(b, w),
    "ule": lambda a, b, w: _unsigned(a, w) <= _unsigned(b, w),
    "ugt": lambda a, b, w: _unsigned(a, w) > _unsigned(b, w),
    "uge": lambda a, b, w: _unsigned(a, w) >= _unsigned(b, w),
}


@pytest.mark.parametrize("predicate", sorted(PREDICATES))
def test_cmpi_select_and_i1_extensions(predicate: str) -> None:
    values = edge_values(16)
    pairs = [(a, b) for a in values for b in values]
    a = np.array([p[0] for p in pairs], dtype=np.int16)
    b = np.array([p[1] for p in pairs], dtype=np.int16)
    body = (f"%c = arith.cmpi {predicate}, %x, %z : i16\n"
            "    %s = arith.select %c, %x, %z : i16\n"
            "    %one = arith.extui %c : i1 to i16\n"
            "    %minus = arith.extsi %c : i1 to i16\n"
            "    %m = arith.muli %one, %minus : i16\n"
            "    %r = arith.subi %s, %m : i16")
    (y,) = evaluate(ELEMENTWISE.format(n=len(pairs), w=16, rw=16, body=body), [a, b])
    want = []
    for x, z in pairs:
        c = PREDICATES[predicate](x, z, 16)
        want.append(pywrap((x if c else z) + (1 if c else 0), 16))
    assert y.tolist() == want
