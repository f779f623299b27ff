"""As few byte planes as an i32 result's range needs (``passes/pack/plane_range.py``): a product
of int8 operands of small depth leaves VTA as three planes, one of depth 512 as four, a
constant right operand bounds the range by its sums of magnitudes; the host extends the last
plane's sign (``vta_mlir.abi.ArgSpec.parts``).  Every result is numpy's bit for bit on every
shipped configuration, at the extremes of the bound too."""

from __future__ import annotations

import numpy as np
import pytest

from vta_mlir import compile
from vta_mlir.abi import ArgSpec, ArgumentError
from vta_mlir.config import VTAConfig
from vta_mlir.passes.pack.plane_range import planes_for_bound

from .mlir_programs import i32_product


def _extremes(m: int, k: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random operands with the bound's extremes: row 0 of -128 times column 0 of -128 (the
    largest value, k · 2^14) and column 1 of 127 (the most negative, -k · 128 · 127)."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, size=(m, k), dtype=np.int8)
    w = rng.integers(-128, 128, size=(k, n), dtype=np.int8)
    x[0, :] = -128
    w[:, 0] = -128
    w[:, 1] = 127
    return x, w


@pytest.mark.parametrize(("k", "planes"), [(40, 3), (512, 4)])
def test_a_product_stores_the_planes_of_its_depth(cfg: VTAConfig, k: int, planes: int) -> None:
    m, n = 2, 20
    x, w = _extremes(m, k, n, seed=k)
    module = compile(i32_product(m, k, n), config=cfg)
    assert module.args[2].parts == planes
    (y,) = module(x, w)
    expected = x.astype(np.int64) @ w.astype(np.int64)
    assert expected[0, 0] == k << 14 and expected[0, 1] == -k * 128 * 127
    assert np.array_equal(y, expected.astype(np.int32))


def test_a_batched_product_stores_the_planes_of_each_batch(cfg: VTAConfig) -> None:
    program = """func.func @bmm(%x: memref<2x3x64xi8>, %w: memref<2x64x20xi8>,
                 %y: memref<2x3x20xi32>) {
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%y : memref<2x3x20xi32>)
  linalg.batch_matmul ins(%x, %w : memref<2x3x64xi8>, memref<2x64x20xi8>)
      outs(%y : memref<2x3x20xi32>)
  return
}
"""
    rng = np.random.default_rng(11)
    x = rng.integers(-128, 128, size=(2, 3, 64), dtype=np.int8)
    w = rng.integers(-128, 128, size=(2, 64, 20), dtype=np.int8)
    x[1, 2, :] = -128
    w[1, :, 19] = -128  # 64 · 2^14 = 2^20: 22 bits with the sign, three planes
    module = compile(program, config=cfg)
    assert module.args[2].parts == 3
    (y,) = module(x, w)
    assert np.array_equal(y, np.matmul(x.astype(np.int32), w.astype(np.int32)))


#: Depth 512 with constant weights of magnitude at most 3: |y| <= 128 · 1536 < 2^18.
CONSTANT = """memref.global "private" constant @w : memref<512x16xi8> = dense<WEIGHTS>
func.func @mm(%x: memref<2x512xi8>, %y: memref<2x16xi32>) {
  %w = memref.get_global @w : memref<512x16xi8>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%y : memref<2x16xi32>)
  linalg.matmul ins(%x, %w : memref<2x512xi8>, memref<512x16xi8>)
      outs(%y : memref<2x16xi32>)
  return
}
"""


def test_constant_weights_bound_the_range(cfg: VTAConfig) -> None:
    rng = np.random.default_rng(12)
    w = rng.integers(-3, 4, size=(512, 16), dtype=np.int8)
    w[:, 0] = -3
    w[:, 1] = 3
    values = ", ".join("[" + ", ".join(map(str, row)) + "]" for row in w.tolist())
    program = CONSTANT.replace("WEIGHTS", f"[{values}]")
    x = rng.integers(-128, 128, size=(2, 512), dtype=np.int8)
    x[0, :] = -128
    module = compile(program, config=cfg)
    assert module.args[1].parts == 3
    (y,) = module(x)
    expected = x.astype(np.int32) @ w.astype(np.int32)
    assert expected[0, 0] == 128 * 1536 and expected[0, 1] == -128 * 1536
    assert np.array_equal(y, expected)


def test_the_plane_count_of_a_bound(cfg: VTAConfig) -> None:
    # Two's complement: 2^15 needs 17 bits (three planes of 8), 2^15 - 1 sixteen (two); one
    # plane is never used; an unknown range takes all of them.
    w = cfg.out_width
    assert planes_for_bound((1 << (2 * w - 1)) - 1, cfg) == 2
    assert planes_for_bound(1 << (2 * w - 1), cfg) == 3
    assert planes_for_bound(0, cfg) == 2
    assert planes_for_bound(1 << 40, cfg) == cfg.acc_width // w
    assert planes_for_bound(None, cfg) == cfg.acc_width // w


def _three_parts() -> ArgSpec:
    return ArgSpec("y", "out", "int32", (3, 20), (4, 32), (2, 2, 2, 16, 3), (4, 0, 2, 1, 3),
                   "int8")


def test_argspec_round_trips_three_parts() -> None:
    spec = _three_parts()
    assert spec.parts == 3 and spec.packed_shape == (3, 2, 2, 2, 16)
    values = np.array([[-2**23, 2**23 - 1, -1, 0, 0x010203, -0x010203] * 3 + [5, -5]] * 3,
                      dtype=np.int32)
    image = spec.pack_values(values)
    assert len(image) == 3 * 4 * 32
    planes = np.frombuffer(image, np.int8).reshape(spec.packed_shape)
    # Element (0, 4) = 0x010203: plane p holds byte p.
    assert [int(planes[p, 0, 0, 0, 4]) for p in range(3)] == [3, 2, 1]
    assert np.array_equal(spec.unpack_values(image), values)


def test_argspec_refuses_values_three_parts_do_not_hold() -> None:
    values = np.zeros((3, 20), np.int32)
    values[1, 2] = 2**23
    with pytest.raises(ArgumentError, match=r"values in \[0, 8388608\] do not fit its 3 parts "
                                            r"of int8 \(\[-8388608, 8388607\]\)"):
        _three_parts().pack_values(values)
