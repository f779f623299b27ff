"""The numpy reference evaluator (``vta_mlir.reference``): the structured ops against explicit
loops (maps that are not permutations, convolutions, reductions of each kind, views, copies,
fills, broadcasts and transposes, tiles in loops)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from vta_mlir.errors import VTAError
from vta_mlir.reference import arguments, evaluate

from .reference_helpers import pywrap, reduction_text

# --------------------------------------------------------------------------------------------
# Structured ops


def _ints(rng: np.random.Generator, shape: tuple[int, ...], dtype: type, lo: int,
          hi: int) -> np.ndarray:
    return rng.integers(lo, hi, size=shape, endpoint=True).astype(dtype)


def test_matmul_with_upstream_indexing_maps() -> None:
    """Both operands transposed: y = xᵀ · wᵀ, i8 operands into i32."""
    text = """
func.func @f(%xt: memref<40x5xi8>, %wt: memref<24x40xi8>, %y: memref<5x24xi32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                 affine_map<(m, n, k) -> (n, k)>,
                                 affine_map<(m, n, k) -> (m, n)>]
      ins(%xt, %wt : memref<40x5xi8>, memref<24x40xi8>) outs(%y : memref<5x24xi32>)
  return
}
"""
    rng = np.random.default_rng(0)
    xt, wt = _ints(rng, (40, 5), np.int8, -128, 127), _ints(rng, (24, 40), np.int8, -128, 127)
    args = arguments(text)
    assert [(a.name, a.reads, a.writes) for a in args] == [
        ("xt", True, False), ("wt", True, False), ("y", True, True)]
    y0 = _ints(rng, (5, 24), np.int32, -1000, 1000)
    (y,) = evaluate(text, [xt, wt, y0])
    want = y0.astype(np.int64) + xt.T.astype(np.int64) @ wt.T.astype(np.int64)
    np.testing.assert_array_equal(y, want)


def test_sum_of_products_wraps_at_32_bits() -> None:
    """Products of i32 values up to 2**31 overflow even int64 sums: exact modulo 2**32."""
    rng = np.random.default_rng(1)
    a = _ints(rng, (6, 50), np.int32, -(1 << 31), (1 << 31) - 1)
    b = _ints(rng, (50, 7), np.int32, -(1 << 31), (1 << 31) - 1)
    y0 = _ints(rng, (6, 7), np.int32, -(1 << 31), (1 << 31) - 1)
    (y,) = evaluate(reduction_text("%t = arith.muli %x, %z : i32", "addi"), [a, b, y0])
    exact = y0.astype(object) + a.astype(object).dot(b.astype(object))
    want = [[pywrap(int(v), 32) for v in row] for row in exact]
    assert y.tolist() == want


def test_product_wrapped_narrower_than_the_sum() -> None:
    """i16 products wrap at 16 bits before the i32 sum."""
    rng = np.random.default_rng(2)
    a = _ints(rng, (6, 50), np.int16, -(1 << 15), (1 << 15) - 1)
    b = _ints(rng, (50, 7), np.int16, -(1 << 15), (1 << 15) - 1)
    term = ("%p = arith.muli %x, %z : i16\n"
            "    %t = arith.extsi %p : i16 to i32")
    (y,) = evaluate(reduction_text(term, "addi", in_ty="i16"),
                    [a, b, np.zeros((6, 7), np.int32)])
    want = [[pywrap(sum(pywrap(int(a[m, k]) * int(b[k, n]), 16) for k in range(50)), 32)
             for n in range(7)] for m in range(6)]
    assert y.tolist() == want


def test_zero_point_factor() -> None:
    """sum((x - 3) * z): a factor that is not a bare operand."""
    rng = np.random.default_rng(3)
    a = _ints(rng, (6, 50), np.int8, -128, 127)
    b = _ints(rng, (50, 7), np.int8, -128, 127)
    term = ("%xe = arith.extsi %x : i8 to i32\n"
            "    %ze = arith.extsi %z : i8 to i32\n"
            "    %c3 = arith.constant 3 : i32\n"
            "    %d = arith.subi %xe, %c3 : i32\n"
            "    %t = arith.muli %d, %ze : i32")
    (y,) = evaluate(reduction_text(term, "addi", in_ty="i8"), [a, b, np.zeros((6, 7), np.int32)])
    np.testing.assert_array_equal(y, (a.astype(np.int64) - 3) @ b.astype(np.int64))


@pytest.mark.parametrize(("combine", "fold"), [
    ("maxsi", max), ("minsi", min),
    ("maxui", lambda x, y: max(x % (1 << 32), y % (1 << 32))),
    ("minui", lambda x, y: min(x % (1 << 32), y % (1 << 32))),
    ("xori", lambda x, y: x ^ y), ("ori", lambda x, y: x | y), ("andi", lambda x, y: x & y),
    ("muli", lambda x, y: x * y),
])
def test_other_reductions(combine: str, fold: Callable[[int, int], int]) -> None:
    rng = np.random.default_rng(4)
    a = _ints(rng, (6, 50), np.int32, -(1 << 31), (1 << 31) - 1)
    b = _ints(rng, (50, 7), np.int32, -(1 << 31), (1 << 31) - 1)
    y0 = _ints(rng, (6, 7), np.int32, -(1 << 31), (1 << 31) - 1)
    (y,) = evaluate(reduction_text("%t = arith.addi %x, %z : i32", combine), [a, b, y0])
    for m in range(6):
        for n in range(7):
            acc = int(y0[m, n])
            for k in range(50):
                acc = pywrap(fold(acc, pywrap(int(a[m, k]) + int(b[k, n]), 32)), 32)
            assert int(y[m, n]) == acc, (m, n)


def test_reduced_dimension_missing_from_the_term() -> None:
    """sum over k of x[m]: each term repeats K times."""
    text = """
func.func @f(%x: memref<5xi32>, %k: memref<9xi32>, %y: memref<5xi32>) {
  linalg.generic {indexing_maps = [affine_map<(m, k) -> (m)>, affine_map<(m, k) -> (k)>,
                                   affine_map<(m, k) -> (m)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x, %k : memref<5xi32>, memref<9xi32>) outs(%y : memref<5xi32>) {
  ^bb0(%v: i32, %unused: i32, %acc: i32):
    %r = arith.addi %acc, %v : i32
    linalg.yield %r : i32
  }
  return
}
"""
    x = np.array([1, -2, 3, 1 << 30, -(1 << 31)], dtype=np.int32)
    (y,) = evaluate(text, [x, np.zeros(9, np.int32), np.zeros(5, np.int32)])
    assert y.tolist() == [pywrap(9 * int(v), 32) for v in x]


def test_strided_convolution_map() -> None:
    """A 2-D convolution with stride 2 written as a generic: maps with d0 * 2 + d1."""
    text = """
func.func @f(%x: memref<2x3x9x11xi8>, %w: memref<4x3x3x3xi8>, %y: memref<2x4x4x5xi32>) {
  linalg.generic {indexing_maps = [
        affine_map<(n, f, h, v, c, kh, kw) -> (n, c, h * 2 + kh, v * 2 + kw)>,
        affine_map<(n, f, h, v, c, kh, kw) -> (f, c, kh, kw)>,
        affine_map<(n, f, h, v, c, kh, kw) -> (n, f, h, v)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<2x3x9x11xi8>, memref<4x3x3x3xi8>) outs(%y : memref<2x4x4x5xi32>) {
  ^bb0(%a: i8, %b: i8, %acc: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %ae, %be : i32
    %r = arith.addi %acc, %p : i32
    linalg.yield %r : i32
  }
  return
}
"""
    rng = np.random.default_rng(5)
    x = _ints(rng, (2, 3, 9, 11), np.int8, -128, 127)
    w = _ints(rng, (4, 3, 3, 3), np.int8, -128, 127)
    (y,) = evaluate(text, [x, w, np.zeros((2, 4, 4, 5), np.int32)])
    want = np.zeros((2, 4, 4, 5), np.int64)
    for kh in range(3):
        for kw in range(3):
            patch = x[:, :, kh:kh + 8:2, kw:kw + 10:2].astype(np.int64)  # n, c, h, v
            want += np.einsum("nchv,fc->nfhv", patch, w[:, :, kh, kw].astype(np.int64))
    np.testing.assert_array_equal(y, want)


def test_views_copies_fill_broadcast_transpose() -> None:
    text = """
func.func @f(%x: memref<4x6xi32>, %v: memref<6xi32>, %y: memref<6x4xi8>, %z: memref<3x6xi32>,
             %f: memref<2x3xi8>) {
  %t = memref.alloc() : memref<6x4xi32>
  linalg.transpose ins(%x : memref<4x6xi32>) outs(%t : memref<6x4xi32>) permutation = [1, 0]
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<6x4xi32>) outs(%y : memref<6x4xi8>) {
  ^bb0(%a: i32, %o: i8):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %s = arith.addi %a, %ii : i32
    %r = arith.trunci %s : i32 to i8
    linalg.yield %r : i8
  }
  linalg.broadcast ins(%v : memref<6xi32>) outs(%z : memref<3x6xi32>) dimensions = [0]
  %row = memref.subview %x[2, 1] [1, 3] [1, 1]
      : memref<4x6xi32> to memref<3xi32, strided<[1], offset: 13>>
  %dst = memref.subview %z[1, 0] [1, 3] [1, 2]
      : memref<3x6xi32> to memref<3xi32, strided<[2], offset: 6>>
  memref.copy %row, %dst
      : memref<3xi32, strided<[1], offset: 13>> to memref<3xi32, strided<[2], offset: 6>>
  %c300 = arith.constant 300 : i32
  linalg.fill ins(%c300 : i32) outs(%f : memref<2x3xi8>)
  return
}
"""
    rng = np.random.default_rng(6)
    x = _ints(rng, (4, 6), np.int32, -1000, 1000)
    v = _ints(rng, (6,), np.int32, -1000, 1000)
    args = arguments(text)
    assert [a.name for a in args if a.writes] == ["y", "z", "f"]
    y, z, f = evaluate(text, [x, v])
    want_y = np.empty((6, 4), np.int64)
    for i in range(6):
        for j in range(4):
            want_y[i, j] = pywrap(int(x[j, i]) + j, 8)
    np.testing.assert_array_equal(y, want_y)
    want_z = np.tile(v, (3, 1))
    want_z[1, 0:6:2] = x[2, 1:4]
    np.testing.assert_array_equal(z, want_z)
    np.testing.assert_array_equal(f, np.full((2, 3), 44))


def test_tiles_in_loops_with_dynamic_subviews() -> None:
    """Host loops over tiles: scf.for and affine.for with affine.apply offsets, a linalg op on
    each tile, a global constant, a rank-reducing subview, a collapse_shape."""
    text = """
memref.global "private" constant @scale : memref<4xi32> = dense<[1, -2, 3, 4]>
func.func @f(%x: memref<8x4xi32>, %y: memref<8x4xi32>, %flat: memref<32xi32>) {
  %s = memref.get_global @scale : memref<4xi32>
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %o = affine.apply affine_map<(d0) -> (d0 * 2)> (%i)
    %xt = memref.subview %x[%o, 0] [2, 4] [1, 1]
        : memref<8x4xi32> to memref<2x4xi32, strided<[4, 1], offset: ?>>
    %yt = memref.subview %y[%o, 0] [2, 4] [1, 1]
        : memref<8x4xi32> to memref<2x4xi32, strided<[4, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                     affine_map<(d0, d1) -> (d1)>,
                                     affine_map<(d0, d1) -> (d0, d1)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%xt, %s : memref<2x4xi32, strided<[4, 1], offset: ?>>, memref<4xi32>)
        outs(%yt : memref<2x4xi32, strided<[4, 1], offset: ?>>) {
    ^bb0(%a: i32, %b: i32, %out: i32):
      %r = arith.muli %a, %b : i32
      linalg.yield %r : i32
    }
  }
  affine.for %j = 0 to 8 step 4 {
    %row = memref.subview %y[%j, 0] [1, 4] [1, 1]
        : memref<8x4xi32> to memref<4xi32, strided<[1], offset: ?>>
    %c100 = arith.constant 100 : i32
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        outs(%row : memref<4xi32, strided<[1], offset: ?>>) {
    ^bb0(%out: i32):
      %r = arith.addi %out, %c100 : i32
      linalg.yield %r : i32
    }
  }
  %yc = memref.collapse_shape %y [[0, 1]] : memref<8x4xi32> into memref<32xi32>
  memref.copy %yc, %flat : memref<32xi32> to memref<32xi32>
  return
}
"""
    x = np.arange(32, dtype=np.int32).reshape(8, 4) - 10
    args = arguments(text)
    assert [(a.name, a.reads, a.writes) for a in args] == [
        ("x", True, False), ("y", True, True), ("flat", False, True)]
    y, flat = evaluate(text, [x, np.zeros((8, 4), np.int32)])
    want = x.astype(np.int64) * np.array([1, -2, 3, 4])
    want[[0, 4]] += 100
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(flat, want.reshape(-1))


def test_linalg_reduce() -> None:
    text = """
func.func @f(%x: memref<5x7xi32>, %y: memref<5xi32>) {
  linalg.reduce ins(%x : memref<5x7xi32>) outs(%y : memref<5xi32>) dimensions = [1]
    (%in: i32, %init: i32) {
      %m = arith.maxsi %in, %init : i32
      linalg.yield %m : i32
    }
  return
}
"""
    rng = np.random.default_rng(7)
    x = _ints(rng, (5, 7), np.int32, -1000, 1000)
    y0 = np.array([0, 5000, -5000, 0, 0], np.int32)
    (y,) = evaluate(text, [x, y0])
    np.testing.assert_array_equal(y, np.maximum(x.max(axis=1), y0))


def test_evaluate_picks_the_named_function() -> None:
    text = """
func.func @double(%x: memref<4xi32>, %y: memref<4xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<4xi32>) outs(%y : memref<4xi32>) {
  ^bb0(%a: i32, %o: i32):
    %r = arith.addi %a, %a : i32
    linalg.yield %r : i32
  }
  return
}
func.func @copy(%x: memref<4xi32>, %y: memref<4xi32>) {
  linalg.copy ins(%x : memref<4xi32>) outs(%y : memref<4xi32>)
  return
}
"""
    x = np.array([1, 2, 3, -4], np.int32)
    assert evaluate(text, [x], function="double")[0].tolist() == [2, 4, 6, -8]
    assert evaluate(text, [x], function="@copy")[0].tolist() == [1, 2, 3, -4]
    with pytest.raises(VTAError, match="several functions"):
        evaluate(text, [x])
    with pytest.raises(VTAError, match="no function @nope"):
        evaluate(text, [x], function="nope")


def test_maximum_and_its_argmax() -> None:
    """A reduction of two results whose body reads both accumulators (torch-mlir's maximum of
    a softmax beside its argmax): folded point by point in the loop's order, the index of the
    first maximum as a loop keeps it (strictly greater replaces)."""
    text = """
func.func @f(%x: memref<3x6xf32>, %m: memref<3xf32>, %i: memref<3xi64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  linalg.fill ins(%ninf : f32) outs(%m : memref<3xf32>)
  linalg.fill ins(%c0 : i64) outs(%i : memref<3xi64>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<3x6xf32>) outs(%m, %i : memref<3xf32>, memref<3xi64>) {
  ^bb0(%in: f32, %top: f32, %at: i64):
    %k = linalg.index 1 : index
    %n = arith.index_cast %k : index to i64
    %big = arith.maximumf %in, %top : f32
    %gt = arith.cmpf ogt, %in, %top : f32
    %pos = arith.select %gt, %n, %at : i64
    linalg.yield %big, %pos : f32, i64
  }
  return
}
"""
    x = np.array([[1, 5, 2, 5, 0, -1], [-3, -2, -7, -2, -9, -4], [0, 0, 0, 0, 0, 0]],
                 np.float32)
    m, i = evaluate(text, [x, np.zeros(3, np.float32), np.zeros(3, np.int64)])
    np.testing.assert_array_equal(m, x.max(axis=1))
    np.testing.assert_array_equal(i, x.argmax(axis=1))
