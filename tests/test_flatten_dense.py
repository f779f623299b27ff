"""A dense layer reading a flattened N×C×H×W intermediate with H·W > 1 (a VGG / LeNet head,
``passes/pack/flattened_act.py``): the convolution's packed tensor read through a collapsed
view, the weights permuted at compile time (a constant) or by the host (an argument) —
compiled, run on every shipped configuration and compared bit for bit with numpy written
here."""

from __future__ import annotations

import numpy as np
import pytest

from vta_mlir import compile as vta_compile
from vta_mlir.config import VTAConfig


def hex_dense(values: np.ndarray) -> str:
    return f'dense<"0x{values.astype(values.dtype.newbyteorder("<")).tobytes().hex().upper()}">'


def flatten_fc_mlir(n: int, c: int, h: int, w: int, o: int, shift: int,
                    weight: np.ndarray | None) -> str:
    """A 1×1 convolution of ``n × 16 × h × w`` data into ``c`` channels (``>> 5``), flattened
    and multiplied by ``(c·h·w) × o`` weights (``>> shift``); the weights a constant global
    when given, else an argument."""
    k = c * h * w
    x_t, h_t = f"memref<{n}x16x{h}x{w}xi8>", f"memref<{n}x{c}x{h}x{w}xi8>"
    acc_t, w2_t = f"memref<{n}x{c}x{h}x{w}xi32>", f"memref<{k}x{o}xi8>"
    ident4 = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"
    ident2 = "affine_map<(d0, d1) -> (d0, d1)>"
    head = "" if weight is None else \
        f'memref.global "private" constant @w2 : {w2_t} = {hex_dense(weight)}\n'
    w2_arg = f", %w2: {w2_t}" if weight is None else ""
    w2_get = "" if weight is None else f"  %w2 = memref.get_global @w2 : {w2_t}\n"
    return f"""{head}func.func @head(%x: {x_t}, %w1: memref<{c}x16x1x1xi8>{w2_arg},
                 %y: memref<{n}x{o}xi8>) {{
{w2_get}  %c0 = arith.constant 0 : i32
  %h = memref.alloc() : {h_t}
  %acc = memref.alloc() : {acc_t}
  linalg.fill ins(%c0 : i32) outs(%acc : {acc_t})
  linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>,
                            strides = dense<1> : tensor<2xi64>}}
      ins(%x, %w1 : {x_t}, memref<{c}x16x1x1xi8>) outs(%acc : {acc_t})
  linalg.generic {{indexing_maps = [{ident4}, {ident4}],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins(%acc : {acc_t}) outs(%h : {h_t}) {{
  ^bb0(%v: i32, %out: i8):
    %c5 = arith.constant 5 : i32
    %s = arith.shrsi %v, %c5 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }}
  %f = memref.collapse_shape %h [[0], [1, 2, 3]] : {h_t} into memref<{n}x{k}xi8>
  %acc2 = memref.alloc() : memref<{n}x{o}xi32>
  linalg.fill ins(%c0 : i32) outs(%acc2 : memref<{n}x{o}xi32>)
  linalg.matmul ins(%f, %w2 : memref<{n}x{k}xi8>, {w2_t}) outs(%acc2 : memref<{n}x{o}xi32>)
  linalg.generic {{indexing_maps = [{ident2}, {ident2}], iterator_types = ["parallel", "parallel"]}}
      ins(%acc2 : memref<{n}x{o}xi32>) outs(%y : memref<{n}x{o}xi8>) {{
  ^bb0(%v: i32, %out: i8):
    %cs = arith.constant {shift} : i32
    %s = arith.shrsi %v, %cs : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }}
  memref.dealloc %h : {h_t}
  return
}}
"""


def reference(x: np.ndarray, w1: np.ndarray, w2: np.ndarray, shift: int) -> np.ndarray:
    """MLIR's semantics: the 1×1 convolution, ``>> 5`` wrapped to int8, C-order flatten,
    the product, ``>> shift`` wrapped to int8."""
    conv = np.einsum("nchw,oc->nohw", x.astype(np.int64), w1[:, :, 0, 0].astype(np.int64))
    h = (conv >> 5).astype(np.int32).astype(np.int8)
    acc = h.reshape(h.shape[0], -1).astype(np.int64) @ w2.astype(np.int64)
    return (acc >> shift).astype(np.int32).astype(np.int8)


@pytest.mark.parametrize(("c", "h", "w", "o", "constant"), [
    (24, 3, 3, 10, True),     # channels not a whole block: the padded rows of the weights
    (32, 2, 3, 40, False),    # the weights an argument, packed by the host
])
def test_flatten_before_dense_matches_numpy(cfg: VTAConfig, c: int, h: int, w: int, o: int,
                                            constant: bool) -> None:
    rng = np.random.default_rng(c + o)
    n = cfg.batch
    x = rng.integers(-128, 128, (n, 16, h, w), dtype=np.int8)
    w1 = rng.integers(-20, 20, (c, 16, 1, 1), dtype=np.int8)
    w2 = rng.integers(-128, 128, (c * h * w, o), dtype=np.int8)
    text = flatten_fc_mlir(n, c, h, w, o, 9, w2 if constant else None)
    module = vta_compile(text, config=cfg)
    (y,) = module(x, w1) if constant else module(x, w1, w2)
    assert module.last_run.warnings == []
    np.testing.assert_array_equal(y, reference(x, w1, w2, 9))
