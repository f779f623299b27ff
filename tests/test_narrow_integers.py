"""``vta-narrow-integers``: integer programs as torch-mlir's FX importer writes integer PyTorch
code — the int8 operands sign-extended to ``i64`` in generics of their own, contractions
accumulating in ``i64``, epilogues computing in ``i64`` — compile on every shipped
configuration and run bit for bit like numpy written here; what cannot be narrowed exactly
stays wide (and ``vta-pack`` refuses it as before)."""

from __future__ import annotations

import numpy as np
import pytest

from vta_mlir import compile, parse, run_pipeline
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.errors import VTAError

_ID2 = "affine_map<(d0, d1) -> (d0, d1)>"
_ID4 = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"


def _extend(name: str, src: str, shape: str, ident: str, rank: int) -> str:
    parallel = ", ".join(['"parallel"'] * rank)
    return f"""
  %e_{name} = tensor.empty() : tensor<{shape}xi64>
  %{name} = linalg.generic {{indexing_maps = [{ident}, {ident}], iterator_types = [{parallel}]}}
      ins(%{src} : tensor<{shape}xi8>) outs(%e_{name} : tensor<{shape}xi64>) {{
  ^bb0(%in: i8, %out: i64):
    %ext = arith.extsi %in : i8 to i64
    linalg.yield %ext : i64
  }} -> tensor<{shape}xi64>"""


def _epilogue(src: str, shape: str, ident: str, rank: int, shift: int, scale: int) -> str:
    parallel = ", ".join(['"parallel"'] * rank)
    return f"""
  %e_y = tensor.empty() : tensor<{shape}xi8>
  %y = linalg.generic {{indexing_maps = [{ident}, {ident}], iterator_types = [{parallel}]}}
      ins(%{src} : tensor<{shape}xi64>) outs(%e_y : tensor<{shape}xi8>) {{
  ^bb0(%in: i64, %out: i8):
    %m = arith.constant {scale} : i64
    %s = arith.constant {shift} : i64
    %lo = arith.constant -128 : i64
    %hi = arith.constant 127 : i64
    %0 = arith.muli %in, %m : i64
    %1 = arith.shrsi %0, %s : i64
    %2 = arith.maxsi %1, %lo : i64
    %3 = arith.minsi %2, %hi : i64
    %4 = arith.trunci %3 : i64 to i8
    linalg.yield %4 : i8
  }} -> tensor<{shape}xi8>
  return %y : tensor<{shape}xi8>
}}"""


def matmul_program(m: int, k: int, n: int, shift: int = 9, scale: int = 3) -> str:
    return (f"func.func @mm(%a: tensor<{m}x{k}xi8>, %b: tensor<{k}x{n}xi8>) -> "
            f"tensor<{m}x{n}xi8> {{"
            + _extend("a64", "a", f"{m}x{k}", _ID2, 2) + _extend("b64", "b", f"{k}x{n}", _ID2, 2)
            + f"""
  %c0 = arith.constant 0 : i64
  %e_acc = tensor.empty() : tensor<{m}x{n}xi64>
  %f = linalg.fill ins(%c0 : i64) outs(%e_acc : tensor<{m}x{n}xi64>) -> tensor<{m}x{n}xi64>
  %acc = linalg.matmul ins(%a64, %b64 : tensor<{m}x{k}xi64>, tensor<{k}x{n}xi64>)
      outs(%f : tensor<{m}x{n}xi64>) -> tensor<{m}x{n}xi64>"""
            + _epilogue("acc", f"{m}x{n}", _ID2, 2, shift, scale))


def conv_program(c: int, o: int, hw: int, shift: int = 8, scale: int = 1) -> str:
    padded = f"1x{c}x{hw + 2}x{hw + 2}"
    return (f"func.func @conv(%x: tensor<1x{c}x{hw}x{hw}xi8>, %w: tensor<{o}x{c}x3x3xi8>) -> "
            f"tensor<1x{o}x{hw}x{hw}xi8> {{"
            + _extend("x64", "x", f"1x{c}x{hw}x{hw}", _ID4, 4)
            + _extend("w64", "w", f"{o}x{c}x3x3", _ID4, 4)
            + f"""
  %zero = arith.constant 0 : i64
  %p = tensor.pad %x64 low[0, 0, 1, 1] high[0, 0, 1, 1] {{
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : i64
  }} : tensor<1x{c}x{hw}x{hw}xi64> to tensor<{padded}xi64>
  %e_acc = tensor.empty() : tensor<1x{o}x{hw}x{hw}xi64>
  %f = linalg.fill ins(%zero : i64) outs(%e_acc : tensor<1x{o}x{hw}x{hw}xi64>)
      -> tensor<1x{o}x{hw}x{hw}xi64>
  %acc = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : vector<2xi64>,
                                   strides = dense<1> : vector<2xi64>}}
      ins(%p, %w64 : tensor<{padded}xi64>, tensor<{o}x{c}x3x3xi64>)
      outs(%f : tensor<1x{o}x{hw}x{hw}xi64>) -> tensor<1x{o}x{hw}x{hw}xi64>"""
            + _epilogue("acc", f"1x{o}x{hw}x{hw}", _ID4, 4, shift, scale))


def _requant(acc: np.ndarray, scale: int, shift: int) -> np.ndarray:
    return np.clip((acc * scale) >> shift, -128, 127).astype(np.int8)


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
def test_matmul_accumulating_in_i64(config: str) -> None:
    rng = np.random.default_rng(0)
    a = rng.integers(-128, 128, (4, 96), dtype=np.int8)
    b = rng.integers(-128, 128, (96, 48), dtype=np.int8)
    (y,) = compile(matmul_program(4, 96, 48), config=config)(a, b)
    acc = a.astype(np.int64) @ b.astype(np.int64)
    np.testing.assert_array_equal(y, _requant(acc, 3, 9))


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
def test_padded_conv_accumulating_in_i64(config: str) -> None:
    """The pad of the extended data (with 0) is the padding idiom on the int8 data."""
    rng = np.random.default_rng(1)
    x = rng.integers(-128, 128, (1, 16, 8, 8), dtype=np.int8)
    w = rng.integers(-128, 128, (16, 16, 3, 3), dtype=np.int8)
    (y,) = compile(conv_program(16, 16, 8), config=config)(x, w)
    xp = np.pad(x.astype(np.int64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    acc = np.zeros((1, 16, 8, 8), np.int64)
    for i in range(3):
        for j in range(3):
            acc += np.einsum("nchw,oc->nohw", xp[:, :, i:i + 8, j:j + 8],
                             w[:, :, i, j].astype(np.int64))
    np.testing.assert_array_equal(y, _requant(acc, 1, 8))


def _narrowed(text: str) -> str:
    module = parse(text)
    run_pipeline(module, "vta-bufferize,vta-narrow-integers")
    return str(module)


def test_what_is_not_provably_exact_stays_wide() -> None:
    """A reduction long enough to overflow i32 keeps its i64 accumulator; an epilogue value
    that may not fit i32 keeps the epilogue in i64: vta-pack then refuses the i64 buffer."""
    long = _narrowed(matmul_program(1, 140_000, 16))
    assert "memref<1x16xi64>" in long and "linalg.matmul ins(%a, %b" in long
    overflow = _narrowed(matmul_program(4, 64, 16, scale=1 << 20))
    assert "memref<4x16xi64>" in overflow
    with pytest.raises(VTAError, match="i64"):
        compile(matmul_program(4, 64, 16, scale=1 << 20))
