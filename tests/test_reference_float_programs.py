"""The numpy reference evaluator (``vta_mlir.reference``) on float programs: reductions folded
in iteration order, float matmul, host loops, constants and globals, and the host-side layers
the ONNX and torch-mlir routes write (softmax, layer norm, a quantized sigmoid), each against
numpy written op by op here, with the sums as the sequential loops they are."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import onnx
import pytest

from tests.onnx_semantics import onnxruntime_output
from vta_mlir import parse, run_pipeline
from vta_mlir.errors import VTAError
from vta_mlir.frontend.onnx import import_program
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.reference import evaluate, folds

from .reference_helpers import assert_same_floats, elementwise_text, sequential

F32 = np.float32


def f32_sum(init: float, values: np.ndarray) -> np.float32:
    """A float32 loop ``acc = acc + v``."""
    return sequential(lambda a, v: F32(a + v), F32(init), values.astype(F32))


def row_reduction(combine: str, shape: str = "2x16", out: str = "2") -> str:
    return f"""
func.func @f(%x: memref<{shape}xf32>, %y: memref<{out}xf32>) {{
  linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}}
      ins(%x : memref<{shape}xf32>) outs(%y : memref<{out}xf32>) {{
  ^bb0(%a: f32, %acc: f32):
    %r = arith.{combine} %acc, %a : f32
    linalg.yield %r : f32
  }}
  return
}}
"""


# --------------------------------------------------------------------------------------------
# Reductions


def test_sums_are_sequential_not_pairwise() -> None:
    x = np.zeros((2, 16), F32)
    x[0, :4] = [1e8, 1, -1e8, 1]
    x[1] = [1e8] + [1] * 15
    (y,) = evaluate(row_reduction("addf"), [x, np.array([0.0, 0.5], F32)])
    assert_same_floats(y, np.array([f32_sum(0, x[0]), f32_sum(0.5, x[1])], F32))
    assert y[0] == 1.0  # exact: 2; summed pairwise, (1e8 + 1) + (-1e8 + 1) = 0
    assert y[1] == 1e8  # exact: 1e8 + 15.5


def test_fold_order_over_several_reduction_dimensions(monkeypatch: pytest.MonkeyPatch) -> None:
    """``acc`` runs over the reduction dimensions in loop order (here d0 outer, d2 inner, d1
    parallel in between), the term reading ``linalg.index``; the same in windows of a few
    points."""
    text = """
func.func @f(%x: memref<3x2x5xf32>, %y: memref<2xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                                   affine_map<(d0, d1, d2) -> (d1)>],
                  iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%x : memref<3x2x5xf32>) outs(%y : memref<2xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %k = linalg.index 2 : index
    %ki = arith.index_cast %k : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    %t = arith.mulf %a, %kf : f32
    %r = arith.subf %acc, %t : f32
    linalg.yield %r : f32
  }
  return
}
"""
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((3, 2, 5)) * 10.0 ** rng.integers(-3, 8, (3, 2, 5))).astype(F32)
    init = np.array([1.0, -2.0], F32)
    want = np.array([sequential(lambda a, t: F32(a - F32(t[0] * F32(t[1]))), init[j],
                                [(x[i, j, k], k) for i in range(3) for k in range(5)])
                     for j in range(2)], F32)
    (y,) = evaluate(text, [x, init])
    assert_same_floats(y, want)
    monkeypatch.setattr(folds, "WINDOW_ELEMENTS", 3)
    (y,) = evaluate(text, [x, init])
    assert_same_floats(y, want)
    monkeypatch.setattr(folds, "ACCUMULATE_BELOW", 0)  # one numpy operation per step
    (y,) = evaluate(text, [x, init])
    assert_same_floats(y, want)


def test_fold_with_the_accumulator_second() -> None:
    """``acc = term - acc`` and ``acc = term / acc``: not numpy's accumulate, still in order."""
    x = (np.random.default_rng(6).standard_normal((2, 16)) * 1e3).astype(F32)
    init = np.array([0.5, -3.0], F32)
    for name, rule in (("subf", lambda a, v: F32(v - a)), ("divf", lambda a, v: F32(v / a))):
        text = row_reduction(name).replace(f"arith.{name} %acc, %a", f"arith.{name} %a, %acc")
        (y,) = evaluate(text, [x, init])
        assert_same_floats(y, np.array([sequential(rule, i, r) for i, r in zip(
            init, x, strict=True)], F32))


def test_linalg_reduce_and_the_order_free_combiners() -> None:
    text = """
func.func @f(%x: memref<4x6xf32>, %s: memref<4xf32>, %m: memref<4xf32>, %n: memref<4xf32>) {
  linalg.reduce ins(%x : memref<4x6xf32>) outs(%s : memref<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %r = arith.addf %in, %init : f32
      linalg.yield %r : f32
    }
  linalg.reduce ins(%x : memref<4x6xf32>) outs(%m : memref<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %r = arith.maximumf %in, %init : f32
      linalg.yield %r : f32
    }
  linalg.reduce ins(%x : memref<4x6xf32>) outs(%n : memref<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %r = arith.maxnumf %in, %init : f32
      linalg.yield %r : f32
    }
  return
}
"""
    nan = math.nan
    x = np.array([[0.1, 0.2, 0.3, 1e7, -1e7, 0.7],
                  [-0.0, -0.0, -3.0, -0.0, -1.0, -2.0],
                  [-0.0, 0.0, -1.0, nan, -2.0, -0.0],
                  [nan, nan, nan, nan, nan, nan]], F32)
    init = np.array([0.25, -5.0, -5.0, -5.0], F32)
    s, m, n = evaluate(text, [x, init, init, init])
    assert_same_floats(s, np.array([f32_sum(i, r) for i, r in zip(init, x, strict=True)], F32))
    assert_same_floats(m, np.array([1e7, -0.0, nan, nan], F32))
    assert_same_floats(n, np.array([1e7, -0.0, 0.0, -5.0], F32))


def test_float_matmul_folds_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """``linalg.matmul`` on f32: ``c += a * b`` for k = 0, 1, ..., each product and sum
    rounded (no BLAS, no fused multiply-add); the same in windows of a few points."""
    text = """
func.func @f(%a: memref<3x7xf32>, %b: memref<7x4xf32>, %c: memref<3x4xf32>) {
  linalg.matmul ins(%a, %b : memref<3x7xf32>, memref<7x4xf32>) outs(%c : memref<3x4xf32>)
  return
}
"""
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((3, 7)) * 10.0 ** rng.integers(-2, 6, (3, 7))).astype(F32)
    b = (rng.standard_normal((7, 4)) * 10.0 ** rng.integers(-2, 6, (7, 4))).astype(F32)
    c = rng.standard_normal((3, 4)).astype(F32)
    want = c.copy()
    for i in range(3):
        for j in range(4):
            for k in range(7):
                want[i, j] = F32(want[i, j] + F32(a[i, k] * b[k, j]))
    (y,) = evaluate(text, [a, b, c])
    assert_same_floats(y, want)
    monkeypatch.setattr(folds, "WINDOW_ELEMENTS", 5)
    monkeypatch.setattr(folds, "ACCUMULATE_BELOW", 0)
    (y,) = evaluate(text, [a, b, c])
    assert_same_floats(y, want)


def test_host_loops_constants_and_globals() -> None:
    """Float scalars outside ``linalg`` (constants, ``math``, loop-carried values, loads and
    stores), ``linalg.fill`` and ``memref.get_global`` of dense float arrays and splats."""
    text = """
memref.global "private" constant @w : memref<4xf32> = dense<[0.5, -1.25, 0x7F800000, 3.0]>
memref.global "private" constant @h : memref<4xf16> = dense<1.5>
func.func @f(%x: memref<4xf32>, %s: memref<1xf32>, %y: memref<4xf32>, %z: memref<4xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %two = arith.constant 2.0 : f32
  %root = math.sqrt %two : f32
  %init = arith.constant -0.0 : f32
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (f32) {
    %v = memref.load %x[%i] : memref<4xf32>
    %n = arith.addf %acc, %v : f32
    scf.yield %n : f32
  }
  %t = arith.mulf %sum, %root : f32
  memref.store %t, %s[%c0] : memref<1xf32>
  %w = memref.get_global @w : memref<4xf32>
  linalg.fill ins(%root : f32) outs(%y : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%w : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  }
  %h = memref.get_global @h : memref<4xf16>
  memref.copy %h, %z : memref<4xf16> to memref<4xf16>
  return
}
"""
    x = np.array([0.1, 0.2, 1e8, -1e8], np.float64)  # rounded to f32 on the way in
    s, y, z = evaluate(text, [x, np.zeros(4, F32)])  # %y is read after the fill
    root = F32(math.sqrt(2.0))
    assert_same_floats(s, np.array([F32(f32_sum(-0.0, x) * root)], F32))
    assert_same_floats(y, np.array([0.5, -1.25, math.inf, 3.0], F32) + root)
    assert_same_floats(z, np.full(4, 1.5, np.float16))


def test_named_float_ops() -> None:
    text = """
func.func @f(%a: memref<5xf32>, %b: memref<5xf32>, %s: memref<5xf32>, %m: memref<5xf32>,
             %e: memref<5xf32>) {
  linalg.add ins(%a, %b : memref<5xf32>, memref<5xf32>) outs(%s : memref<5xf32>)
  linalg.max ins(%a, %b : memref<5xf32>, memref<5xf32>) outs(%m : memref<5xf32>)
  linalg.exp ins(%a : memref<5xf32>) outs(%e : memref<5xf32>)
  return
}
"""
    a = np.array([0.0, -0.0, math.nan, 1e38, -3.5], F32)
    b = np.array([-0.0, 0.0, 1.0, 1e38, 2.0], F32)
    s, m, e = evaluate(text, [a, b])
    assert_same_floats(s, a + b)
    assert_same_floats(m, np.array([0.0, 0.0, math.nan, 1e38, 2.0], F32))
    assert_same_floats(e, np.array([math.inf if v >= 88 else math.exp(v) for v in a.tolist()],
                                   np.float64).astype(F32))


# --------------------------------------------------------------------------------------------
# Host layers as the ONNX and torch-mlir routes write them

SOFTMAX = """
func.func @softmax(%x: memref<2x10xf32>, %y: memref<2x10xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %max = memref.alloc() : memref<2x1xf32>
  %sum = memref.alloc() : memref<2x1xf32>
  %exp = memref.alloc() : memref<2x10xf32>
  linalg.fill ins(%ninf : f32) outs(%max : memref<2x1xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, 0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<2x10xf32>) outs(%max : memref<2x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, 0)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : memref<2x10xf32>, memref<2x1xf32>) outs(%exp : memref<2x10xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %d = arith.subf %in, %in_0 : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  }
  linalg.fill ins(%zero : f32) outs(%sum : memref<2x1xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, 0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%exp : memref<2x10xf32>) outs(%sum : memref<2x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0, 0)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : memref<2x10xf32>, memref<2x1xf32>) outs(%y : memref<2x10xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %q = arith.divf %in, %in_0 : f32
    linalg.yield %q : f32
  }
  return
}
"""


def test_softmax_as_torch_mlir_writes_it() -> None:
    x = (np.random.default_rng(1).standard_normal((2, 10)) * 4).astype(F32)
    x[1, 3] = 60.0  # one dominant logit
    (y,) = evaluate(SOFTMAX, [x])
    for row, got in zip(x, y, strict=True):
        exp = np.array([math.exp(float(F32(v - row.max()))) for v in row]).astype(F32)
        total = f32_sum(0.0, exp)
        assert_same_floats(got, np.array([F32(e / total) for e in exp], F32))
    assert abs(float(y.sum(dtype=np.float64)) - 2.0) < 1e-5


LAYER_NORM = """
func.func @layer_norm(%x: memref<4x16xf32>, %g: memref<16xf32>, %b: memref<16xf32>,
                      %y: memref<4x16xf32>) {
  %zero = arith.constant 0.000000e+00 : f32
  %n = arith.constant 1.600000e+01 : f32
  %eps = arith.constant 9.99999974E-6 : f32
  %sum = memref.alloc() : memref<4xf32>
  %var = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x16xf32>) outs(%sum : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%var : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x, %sum : memref<4x16xf32>, memref<4xf32>) outs(%var : memref<4xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %mean = arith.divf %s, %n : f32
    %d = arith.subf %in, %mean : f32
    %sq = arith.mulf %d, %d : f32
    %v = arith.addf %sq, %out : f32
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
                                   affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>,
                                   affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %var, %g, %b : memref<4x16xf32>, memref<4xf32>, memref<4xf32>,
          memref<16xf32>, memref<16xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%in: f32, %s: f32, %v: f32, %gamma: f32, %beta: f32, %out: f32):
    %mean = arith.divf %s, %n : f32
    %variance = arith.divf %v, %n : f32
    %ve = arith.addf %variance, %eps : f32
    %rstd = math.rsqrt %ve : f32
    %d = arith.subf %in, %mean : f32
    %nd = arith.mulf %d, %rstd : f32
    %sc = arith.mulf %nd, %gamma : f32
    %r = arith.addf %sc, %beta : f32
    linalg.yield %r : f32
  }
  return
}
"""


def test_layer_norm() -> None:
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((4, 16)) * 3 + 100).astype(F32)
    g = rng.standard_normal(16).astype(F32)
    b = rng.standard_normal(16).astype(F32)
    (y,) = evaluate(LAYER_NORM, [x, g, b])
    n, eps = F32(16), F32(9.99999974e-6)
    for row, got in zip(x, y, strict=True):
        mean = F32(f32_sum(0.0, row) / n)
        squares = np.array([F32(F32(v - mean) * F32(v - mean)) for v in row], F32)
        var = F32(f32_sum(0.0, squares) / n)
        rstd = F32(1) / np.sqrt(F32(var + eps))
        want = [F32(F32(F32(F32(v - mean) * rstd) * gi) + bi) for v, gi, bi in zip(
            row, g, b, strict=True)]
        assert_same_floats(got, np.array(want, F32))


def quantized_sigmoid(s_in: float, z_in: int, s_out: float, z_out: int) -> str:
    """DequantizeLinear, Sigmoid, QuantizeLinear on int8, as torch-mlir writes them."""
    body = f"""%in_scale = arith.constant {s_in:e} : f32
    %in_zp = arith.constant {z_in:.1f} : f32
    %out_scale = arith.constant {s_out:e} : f32
    %out_zp = arith.constant {z_out:.1f} : f32
    %one = arith.constant 1.0 : f32
    %lo = arith.constant -128.0 : f32
    %hi = arith.constant 127.0 : f32
    %q = arith.sitofp %x0 : i8 to f32
    %c = arith.subf %q, %in_zp : f32
    %v = arith.mulf %c, %in_scale : f32
    %n = arith.negf %v : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %one, %d : f32
    %u = arith.divf %s, %out_scale : f32
    %t = math.roundeven %u : f32
    %z = arith.addf %t, %out_zp : f32
    %cl = arith.maximumf %z, %lo : f32
    %ch = arith.minimumf %cl, %hi : f32
    %r = arith.fptosi %ch : f32 to i8"""
    return elementwise_text(["i8"], "i8", body, 256)


@pytest.mark.parametrize("s_out, z_out", [(1 / 256, -128), (0.2, 0)])
def test_dequantize_sigmoid_quantize(s_out: float, z_out: int) -> None:
    """QuantizeLinear's rounding (halfway to even) and saturation: sigmoid(0) / 0.2 is 2.5,
    which gives 2; 1 / (1/256) - 128 is 128, which saturates to 127."""
    s_in, z_in = 0.1, 3
    q = np.arange(-128, 128, dtype=np.int8)
    (y,) = evaluate(quantized_sigmoid(s_in, z_in, s_out, z_out), [q])
    want = []
    for v in q:
        x = F32(F32(F32(int(v)) - F32(z_in)) * F32(s_in))
        s = F32(F32(1) / F32(F32(math.exp(-float(x))) + F32(1)))
        u = float(F32(s / F32(s_out)))
        want.append(int(min(max(round(u) + z_out, -128), 127)))  # round: halfway to even
    np.testing.assert_array_equal(y, np.array(want, np.int8))
    if z_out == 0:
        assert y[z_in + 128] == 2  # sigmoid(0) / 0.2 = 2.5
    else:
        assert y[-1] == 127


TORCH_MLIR = Path(__file__).parent / "data" / "torch_mlir"


@pytest.mark.parametrize("name", ["dense_asym", "conv_relu", "small_cnn_asym", "residual_asym"])
def test_torch_mlir_float_programs_agree_with_onnxruntime(name: str) -> None:
    """torch-mlir's lowering of a QDQ model (float edges, ``sitofp`` / ``divf`` / ``roundeven``
    / clamp / ``fptosi`` quantization, integer cores), bufferized and evaluated as it is, agrees
    with onnxruntime as the ONNX route does: within one output step (``docs/onnx.md`` §6)."""
    module = parse((TORCH_MLIR / f"{name}.mlir").read_text())
    run_pipeline(module, "vta-bufferize")
    model = onnx.load(str(TORCH_MLIR / f"{name}.onnx"))
    shape = tuple(d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim)
    x = np.random.default_rng(1).standard_normal(shape).astype(F32)
    y = evaluate(module, [x])[-1]
    want = onnxruntime_output(TORCH_MLIR / f"{name}.onnx", x)
    step = import_program(TORCH_MLIR / f"{name}.onnx").output.scale
    assert y.dtype == want.dtype and y.shape == want.shape
    assert np.abs(y - want).max() <= step * 1.001


# --------------------------------------------------------------------------------------------
# Errors


def test_float_errors() -> None:
    fpowi = elementwise_text(["f32", "i32"], "f32", "%r = math.fpowi %x0, %x1 : f32, i32", 2)
    with pytest.raises(DiagnosticError) as info:
        evaluate(fpowi, [np.ones(2, F32), np.ones(2, np.int32)])
    assert info.value.diagnostic.message == (
        "'math.fpowi' op is not supported by the reference evaluator")
    assert info.value.location is not None and info.value.location.line == 6
    powf = row_reduction("addf").replace("arith.addf %acc, %a", "math.powf %acc, %a")
    with pytest.raises(DiagnosticError, match="combines the accumulator once"):
        evaluate(powf, [np.ones((2, 16), F32), np.ones(2, F32)])
    bf16 = elementwise_text(["f32"], "f32", "%h = arith.truncf %x0 : f32 to bf16\n"
                            "    %r = arith.extf %h : bf16 to f32", 2)
    with pytest.raises(DiagnosticError, match="'arith.truncf' op bf16 is not supported"):
        evaluate(bf16, [np.ones(2, F32)])
    mixed = elementwise_text(["f32"], "f32", "%r = arith.addf %x0, %x0 : f32", 2)
    for f32_text, i32_text in (("%y: memref<2xf32>", "%y: memref<2xi32>"),
                               ("(%y : memref<2xf32>)", "(%y : memref<2xi32>)"),
                               ("%o: f32", "%o: i32")):
        mixed = mixed.replace(f32_text, i32_text)
    with pytest.raises(DiagnosticError, match="yields f32 into output #0, a memref of i32"):
        evaluate(mixed, [np.ones(2, F32)])
    with pytest.raises(VTAError, match="expected floats"):
        evaluate(SOFTMAX, [np.ones((2, 10), np.int32)])


def test_float_convolution_folds_channels_then_kernel() -> None:
    """``linalg.conv_2d_nchw_fchw`` on f32: the loops over c, kh, kw in that order."""
    text = """
func.func @f(%x: memref<1x2x5x5xf32>, %w: memref<3x2x3x3xf32>, %y: memref<1x3x3x3xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>,
                            strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x2x5x5xf32>, memref<3x2x3x3xf32>) outs(%y : memref<1x3x3x3xf32>)
  return
}
"""
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((1, 2, 5, 5)) * 10.0 ** rng.integers(-3, 6, (1, 2, 5, 5)))
    x = x.astype(F32)
    w = rng.standard_normal((3, 2, 3, 3)).astype(F32)
    init = rng.standard_normal((1, 3, 3, 3)).astype(F32)
    (y,) = evaluate(text, [x, w, init])
    want = init.copy()
    for f, i, j in np.ndindex(3, 3, 3):
        for c, kh, kw in np.ndindex(2, 3, 3):
            term = F32(x[0, c, i + kh, j + kw] * w[f, c, kh, kw])
            want[0, f, i, j] = F32(want[0, f, i, j] + term)
    assert_same_floats(y, want)
