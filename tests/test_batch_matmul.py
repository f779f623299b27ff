"""Batched matrix products (``passes/pack/match_batch.py``, ``passes/pack/plan_batch.py``):
``linalg.batch_matmul`` with one weight matrix for every batch (MLIR's ``indexing_maps`` form and
torch's ``linalg.broadcast`` of the weight) as one product on the collapsed rows, with weights
per batch as a host loop over the batches, and per-head attention (two computed operands);
compiled, run on the simulator and compared bit for bit with numpy on every shipped
configuration; and the refusals."""

from __future__ import annotations

import numpy as np
import pytest

import vta_mlir
from tests.attention_programs import (
    head_attention,
    head_attention_reference,
    head_scores,
    head_scores_reference,
)
from tests.mlir_programs import memref
from vta_mlir.config import VTAConfig
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.sim.hazards import program_hazards

_ID3 = "affine_map<(h, i, j) -> (h, i, j)>"
_SHARED = ("indexing_maps = [affine_map<(h, m, n, k) -> (h, m, k)>, "
           "affine_map<(h, m, n, k) -> (k, n)>, affine_map<(h, m, n, k) -> (h, m, n)>] ")


def _program(h: int, m: int, k: int, n: int, weight: str) -> str:
    """``y = (x · w + bias) >> 5`` (wrapping) with ``x`` H×M×K and ``weight`` ``"batched"``
    (``w`` H×K×N), ``"maps"`` (``w`` K×N through MLIR's indexing maps) or ``"broadcast"``
    (``w`` K×N repeated over the batch by a ``linalg.broadcast``)."""
    acc, out = memref((h, m, n), "i32"), memref((h, m, n), "i8")
    wshape = (h, k, n) if weight == "batched" else (k, n)
    wt = memref(wshape, "i8")
    lines = [f"  %acc = memref.alloc() : {acc}",
             f"  linalg.fill ins(%c0 : i32) outs(%acc : {acc})"]
    operand, prefix = "%w", _SHARED if weight == "maps" else ""
    if weight == "broadcast":
        wb = memref((h, k, n), "i8")
        lines += [f"  %wb = memref.alloc() : {wb}",
                  f"  linalg.broadcast ins(%w : {wt}) outs(%wb : {wb}) dimensions = [0]"]
        operand, wt = "%wb", wb
    lines += [
        f"  linalg.batch_matmul {prefix}ins(%x, {operand} : {memref((h, m, k), 'i8')}, {wt}) "
        f"outs(%acc : {acc})",
        f"""  linalg.generic {{indexing_maps = [{_ID3}, affine_map<(h, i, j) -> (j)>, {_ID3}],
                  iterator_types = ["parallel", "parallel", "parallel"]}}
      ins(%acc, %bias : {acc}, memref<{n}xi32>) outs(%y : {out}) {{
  ^bb0(%in: i32, %b: i32, %o: i8):
    %s = arith.addi %in, %b : i32
    %c5 = arith.constant 5 : i32
    %r = arith.shrsi %s, %c5 : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }}"""]
    body = "\n".join(lines)
    return (f"func.func @batched(%x: {memref((h, m, k), 'i8')}, %w: {memref(wshape, 'i8')}, "
            f"%bias: memref<{n}xi32>, %y: {out}) {{\n  %c0 = arith.constant 0 : i32\n"
            f"{body}\n  return\n}}\n")


def _run(text: str, cfg: VTAConfig, *inputs: np.ndarray) -> np.ndarray:
    binary = vta_mlir.lower(text, config=cfg)
    assert program_hazards(binary.program, cfg) == []
    (out,) = vta_mlir.Device(cfg).load_module(binary)(*inputs)
    return out


@pytest.mark.parametrize(("weight", "rows"), [("maps", 32), ("broadcast", 32), ("maps", 3),
                                              ("batched", 32), ("batched", 3)])
def test_batch_matmul(cfg: VTAConfig, weight: str, rows: int) -> None:
    """One weight for every batch: one product on the collapsed rows (a host loop where
    BATCH does not divide the rows: 3 rows on batch2); a weight per batch: a host loop."""
    h, k, n = 2, 32, 48
    rng = np.random.default_rng(rows)
    x = rng.integers(-128, 128, (h, rows, k), dtype=np.int8)
    w = rng.integers(-128, 128, (h, k, n) if weight == "batched" else (k, n), dtype=np.int8)
    bias = rng.integers(-5000, 5000, n).astype(np.int32)
    text = _program(h, rows, k, n, weight)
    packed = vta_mlir.print_ir(vta_mlir.run_pipeline(vta_mlir.parse(text, config=cfg),
                                                     "vta-pack"))
    looped = weight == "batched" or rows % cfg.batch != 0
    assert ("affine.for" in packed) == looped
    expected = ((x.astype(np.int64) @ w.astype(np.int64) + bias) >> 5).astype(np.int8)
    np.testing.assert_array_equal(_run(text, cfg, x, w, bias), expected)


def test_head_scores(cfg: VTAConfig) -> None:
    """``p[h] = q[h] · k[h]ᵀ``, both computed per head from ``x[h]``."""
    rng = np.random.default_rng(4)
    x = rng.integers(-128, 128, (2, 32, 64), dtype=np.int8)
    wq, wk = (rng.integers(-128, 128, (64, 32), dtype=np.int8) for _ in range(2))
    expected = head_scores_reference(x, wq, wk)
    assert (expected != 0).mean() > 0.3
    np.testing.assert_array_equal(_run(head_scores(2, 32, 32, 64), cfg, x, wq, wk), expected)


def test_head_attention(cfg: VTAConfig) -> None:
    """``y[h] = (q[h] · k[h]ᵀ) · v[h]``: ``v[h]`` transposed on the device."""
    rng = np.random.default_rng(5)
    x = rng.integers(-128, 128, (2, 32, 64), dtype=np.int8)
    ws = [rng.integers(-128, 128, (64, 32), dtype=np.int8) for _ in range(3)]
    expected = head_attention_reference(x, *ws)
    assert (expected != 0).mean() > 0.3
    np.testing.assert_array_equal(_run(head_attention(2, 32, 32, 64), cfg, x, *ws), expected)


def test_quantized_batch_matmul_is_refused() -> None:
    """Zero points are the frontends' to fold: one error at the op."""
    text = """func.func @q(%a: memref<2x4x16xi8>, %b: memref<2x16x16xi8>, %y: memref<2x4x16xi8>) {
  %c0 = arith.constant 0 : i32
  %c3 = arith.constant 3 : i32
  %acc = memref.alloc() : memref<2x4x16xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<2x4x16xi32>)
  linalg.quantized_batch_matmul ins(%a, %b, %c3, %c0 : memref<2x4x16xi8>, memref<2x16x16xi8>,
                                    i32, i32) outs(%acc : memref<2x4x16xi32>)
  return
}"""
    with pytest.raises(DiagnosticError, match=r"6:3: error: 'linalg.quantized_batch_matmul' op "
                                              r"is a batched product of 4 inputs"):
        vta_mlir.lower(text)


_TENSOR_PROGRAM = """func.func @bm(%a: tensor<2x32x16xi8>,
                   %b: tensor<2x16x32xi8>) -> tensor<2x32x32xi8> {
  %c0 = arith.constant 0 : i32
  %bias = arith.constant dense<[100, -200, 300, 5000, -7000, 12, 13, 14, 15, 16, 17, 18, 19, 20,
      21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38]> : tensor<32xi32>
  %e = tensor.empty() : tensor<2x32x32xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<2x32x32xi32>) -> tensor<2x32x32xi32>
  %m = linalg.batch_matmul ins(%a, %b : tensor<2x32x16xi8>, tensor<2x16x32xi8>)
      outs(%f : tensor<2x32x32xi32>) -> tensor<2x32x32xi32>
  %e8 = tensor.empty() : tensor<2x32x32xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>,
                                        affine_map<(b, i, j) -> (j)>,
                                        affine_map<(b, i, j) -> (b, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%m, %bias : tensor<2x32x32xi32>, tensor<32xi32>) outs(%e8 : tensor<2x32x32xi8>) {
  ^bb0(%in: i32, %bb: i32, %o: i8):
    %s0 = arith.addi %in, %bb : i32
    %c5 = arith.constant 5 : i32
    %s = arith.shrsi %s0, %c5 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  } -> tensor<2x32x32xi8>
  return %r : tensor<2x32x32xi8>
}
"""


def test_batch_matmul_on_tensors(cfg: VTAConfig) -> None:
    """The tensor form (``vta-bufferize`` first), weights per batch and a constant bias: a host
    loop over the batches whose bias the GEMM may accumulate (``vta-bias-gemm``)."""
    rng = np.random.default_rng(7)
    a = rng.integers(-128, 128, (2, 32, 16), dtype=np.int8)
    b = rng.integers(-128, 128, (2, 16, 32), dtype=np.int8)
    bias = np.array([100, -200, 300, 5000, -7000, *range(12, 39)], dtype=np.int64)
    expected = ((a.astype(np.int64) @ b.astype(np.int64) + bias) >> 5).astype(np.int8)
    np.testing.assert_array_equal(_run(_TENSOR_PROGRAM, cfg, a, b), expected)
