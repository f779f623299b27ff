"""``vta-normalize`` end to end: a matrix product whose epilogue clamps with ``arith.select``
of ``arith.cmpi`` (torch-mlir's integer clamp) and one that negates with ``0 - x`` (or
``c - x``) compile through ``vta-to-isa`` and run on the simulator bit for bit as numpy
computes them, on every shipped configuration.  Without the pass, ``vta-pack`` refuses both."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vta_mlir import compile, lower, parse, print_ir, run_pipeline
from vta_mlir.config import VTAConfig
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.passes.pipeline import VtaToIsaPass

ROOT = Path(__file__).resolve().parent.parent
M, K, N = 4, 64, 48

#: y = clamp((x @ w) >> 6, -20, 90) on tensors, the clamp as torch-mlir writes it.
SELECT_CLAMP = f"""\
func.func @select_clamp(%x: tensor<{M}x{K}xi8>, %w: tensor<{K}x{N}xi8>) -> tensor<{M}x{N}xi8> {{
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<{M}x{N}xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<{M}x{N}xi32>) -> tensor<{M}x{N}xi32>
  %acc = linalg.matmul ins(%x, %w : tensor<{M}x{K}xi8>, tensor<{K}x{N}xi8>)
                       outs(%f : tensor<{M}x{N}xi32>) -> tensor<{M}x{N}xi32>
  %o = tensor.empty() : tensor<{M}x{N}xi8>
  %y = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}}
      ins(%acc : tensor<{M}x{N}xi32>) outs(%o : tensor<{M}x{N}xi8>) {{
  ^bb0(%a: i32, %out: i8):
    %c6 = arith.constant 6 : i32
    %lo = arith.constant -20 : i32
    %hi = arith.constant 90 : i32
    %s = arith.shrsi %a, %c6 : i32
    %below = arith.cmpi slt, %s, %lo : i32
    %m = arith.select %below, %lo, %s : i32
    %above = arith.cmpi sge, %m, %hi : i32
    %k = arith.select %above, %hi, %m : i32
    %t = arith.trunci %k : i32 to i8
    linalg.yield %t : i8
  }} -> tensor<{M}x{N}xi8>
  return %y : tensor<{M}x{N}xi8>
}}
"""


def negation(c: int) -> str:
    """y = clip(c - ((x @ w) >> 7), -128, 127) on memrefs."""
    return f"""\
func.func @negate(%x: memref<{M}x{K}xi8>, %w: memref<{K}x{N}xi8>, %y: memref<{M}x{N}xi8>) {{
  %acc = memref.alloc() : memref<{M}x{N}xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<{M}x{N}xi32>)
  linalg.matmul ins(%x, %w : memref<{M}x{K}xi8>, memref<{K}x{N}xi8>)
                outs(%acc : memref<{M}x{N}xi32>)
  linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}}
      ins(%acc : memref<{M}x{N}xi32>) outs(%y : memref<{M}x{N}xi8>) {{
  ^bb0(%a: i32, %out: i8):
    %c7 = arith.constant 7 : i32
    %c = arith.constant {c} : i32
    %lo = arith.constant -128 : i32
    %hi = arith.constant 127 : i32
    %s = arith.shrsi %a, %c7 : i32
    %n = arith.subi %c, %s : i32
    %m = arith.maxsi %n, %lo : i32
    %k = arith.minsi %m, %hi : i32
    %t = arith.trunci %k : i32 to i8
    linalg.yield %t : i8
  }}
  memref.dealloc %acc : memref<{M}x{N}xi32>
  return
}}
"""


def operands(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.integers(-128, 128, size=(M, K), dtype=np.int8),
            rng.integers(-128, 128, size=(K, N), dtype=np.int8))


def accumulate(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """x @ w in int64: 64 products of at most 2^14 cannot overflow int32."""
    return x.astype(np.int64) @ w.astype(np.int64)


def test_select_clamp_epilogue(cfg: VTAConfig) -> None:
    x, w = operands(3)
    (y,) = compile(SELECT_CLAMP, config=cfg)(x, w)
    want = np.clip(accumulate(x, w) >> 6, -20, 90).astype(np.int8)
    assert np.array_equal(y, want)
    # The clamp bites at both ends, so both selects matter.
    assert (want == -20).any() and (want == 90).any()


@pytest.mark.parametrize("c", [0, 3])
def test_negation_epilogue(cfg: VTAConfig, c: int) -> None:
    x, w = operands(5)
    (y,) = compile(negation(c), config=cfg)(x, w)
    want = np.clip(c - (accumulate(x, w) >> 7), -128, 127).astype(np.int8)
    assert np.array_equal(y, want)
    assert (want == 127).any() and (want == -128).any() and (np.abs(want) < 100).any()


@pytest.mark.parametrize("text", [SELECT_CLAMP, negation(0)], ids=["select-clamp", "negation"])
def test_vta_pack_needs_the_pass(text: str) -> None:
    """vta-to-isa's stages from vta-pack on, without vta-normalize (and vta-bufferize run by
    hand): the forms are refused."""
    module = run_pipeline(parse(text), "vta-bufferize")
    with pytest.raises(DiagnosticError, match="not supported|subtracts a tensor"):
        lower(module, pipeline=VtaToIsaPass().passes())


def test_other_programs_stay_as_they_are() -> None:
    text = (ROOT / "examples" / "dense_bias_relu.mlir").read_text()
    assert print_ir(run_pipeline(parse(text), "vta-normalize")) == print_ir(parse(text))
