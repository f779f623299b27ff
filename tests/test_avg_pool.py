"""Average pooling on VTA in its linalg form (``docs/onnx.md`` §4.7): a sum pool of data padded
with its zero point (``linalg.pooling_nchw_sum`` reading the padding idiom filled with any
``i8``: vta-tile adds the value once per padded tap), then a fixed-point epilogue — one
multiplier, or one per output position read as an ``OH × OW`` operand ``(n, c, h, w) -> (h,
w)`` when the divisor is the count of taps inside the image — and a global sum pool into N×C
(without the unit dimensions); compiled, run on every shipped configuration and compared bit
for bit with numpy written here."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from vta_mlir import compile as vta_compile
from vta_mlir.config import VTAConfig
from vta_mlir.sim.hazards import program_hazards


@dataclass(frozen=True)
class AvgPool:
    """A ``k × k`` sum pool, ``stride``, ``pad`` rows and columns of ``value`` each side,
    then ``add``, ``>> s1``, the multiplier (``per_position``: an OH × OW operand ``m + h -
    w``), ``>> s2`` to nearest and ``+ zy``, clipped to int8."""

    c: int
    h: int
    w: int
    k: int
    stride: int
    pad: int
    value: int
    per_position: bool
    add: int = -40
    s1: int = 1
    m: int = 300
    s2: int = 9
    zy: int = 3

    @property
    def out_hw(self) -> tuple[int, int]:
        return ((self.h + 2 * self.pad - self.k) // self.stride + 1,
                (self.w + 2 * self.pad - self.k) // self.stride + 1)

    def multipliers(self) -> np.ndarray:
        oh, ow = self.out_hw
        hh, ww = np.meshgrid(np.arange(oh), np.arange(ow), indexing="ij")
        return (self.m + 7 * hh - 5 * ww).astype(np.int32)


def avg_pool_mlir(p: AvgPool, n: int) -> str:
    c, h, w, k, s, pad = p.c, p.h, p.w, p.k, p.stride, p.pad
    oh, ow = p.out_hw
    x_t, y_t = f"memref<{n}x{c}x{h}x{w}xi8>", f"memref<{n}x{c}x{oh}x{ow}xi8>"
    acc_t, m_t = f"memref<{n}x{c}x{oh}x{ow}xi32>", f"memref<{oh}x{ow}xi32>"
    hp, wp = h + 2 * pad, w + 2 * pad
    xp_t = f"memref<{n}x{c}x{hp}x{wp}xi8>"
    view_t = (f"memref<{n}x{c}x{h}x{w}xi8, strided<[{c * hp * wp}, {hp * wp}, {wp}, 1], "
              f"offset: {pad * wp + pad}>>")
    ident = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"
    m_in = f", %m : {acc_t}, {m_t}" if p.per_position else f" : {acc_t}"
    maps = f"{ident}, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, {ident}" if p.per_position \
        else f"{ident}, {ident}"
    multiply = "%u = arith.muli %cl, %mm : i32" if p.per_position else \
        f"%mc = arith.constant {p.m} : i32\n    %u = arith.muli %cl, %mc : i32"
    m_arg = f"%m: {m_t}, " if p.per_position else ""
    return f"""func.func @avg(%x: {x_t}, {m_arg}%y: {y_t}) {{
  %v = arith.constant {p.value} : i8
  %c0 = arith.constant 0 : i32
  %xp = memref.alloc() : {xp_t}
  linalg.fill ins(%v : i8) outs(%xp : {xp_t})
  %xi = memref.subview %xp[0, 0, {pad}, {pad}] [{n}, {c}, {h}, {w}] [1, 1, 1, 1]
      : {xp_t} to {view_t}
  memref.copy %x, %xi : {x_t} to {view_t}
  %win = memref.alloc() : memref<{k}x{k}xi8>
  %acc = memref.alloc() : {acc_t}
  linalg.fill ins(%c0 : i32) outs(%acc : {acc_t})
  linalg.pooling_nchw_sum {{dilations = dense<1> : tensor<2xi64>,
                           strides = dense<{s}> : tensor<2xi64>}}
      ins(%xp, %win : {xp_t}, memref<{k}x{k}xi8>) outs(%acc : {acc_t})
  linalg.generic {{indexing_maps = [{maps}],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins(%acc{m_in}) outs(%y : {y_t}) {{
  ^bb0(%a: i32, {"%mm: i32, " if p.per_position else ""}%o: i8):
    %ca = arith.constant {p.add} : i32
    %b = arith.addi %a, %ca : i32
    %cs1 = arith.constant {p.s1} : i32
    %t = arith.shrsi %b, %cs1 : i32
    %chi = arith.constant 20000 : i32
    %clo = arith.constant -20000 : i32
    %ch = arith.minsi %t, %chi : i32
    %cl = arith.maxsi %ch, %clo : i32
    {multiply}
    %cs2 = arith.constant {p.s2 - 1} : i32
    %r1 = arith.shrsi %u, %cs2 : i32
    %cz = arith.constant {1 + 2 * p.zy} : i32
    %r2 = arith.addi %r1, %cz : i32
    %c1 = arith.constant 1 : i32
    %r3 = arith.shrsi %r2, %c1 : i32
    %c127 = arith.constant 127 : i32
    %cm128 = arith.constant -128 : i32
    %r4 = arith.minsi %r3, %c127 : i32
    %r5 = arith.maxsi %r4, %cm128 : i32
    %tr = arith.trunci %r5 : i32 to i8
    linalg.yield %tr : i8
  }}
  memref.dealloc %xp : {xp_t}
  return
}}
"""


def avg_pool_reference(p: AvgPool, x: np.ndarray) -> np.ndarray:
    xp = np.pad(x.astype(np.int64), ((0, 0), (0, 0), (p.pad, p.pad), (p.pad, p.pad)),
                constant_values=p.value)
    oh, ow = p.out_hw
    acc = np.zeros((x.shape[0], p.c, oh, ow), np.int64)
    for i in range(p.k):
        for j in range(p.k):
            acc += xp[:, :, i:i + (oh - 1) * p.stride + 1:p.stride,
                      j:j + (ow - 1) * p.stride + 1:p.stride]
    t = np.clip((acc + p.add) >> p.s1, -20000, 20000)
    u = t * (p.multipliers().astype(np.int64) if p.per_position else p.m)
    r = (((u >> (p.s2 - 1)) + 1 + 2 * p.zy) >> 1)
    return np.clip(r, -128, 127).astype(np.int8)


CASES = [
    AvgPool(16, 6, 6, 3, 1, 1, value=0, per_position=False),
    AvgPool(16, 6, 6, 3, 1, 1, value=-7, per_position=False),
    AvgPool(20, 7, 5, 3, 1, 1, value=5, per_position=True),
    AvgPool(32, 9, 8, 3, 2, 1, value=-128, per_position=True),
    AvgPool(16, 8, 8, 5, 2, 2, value=3, per_position=True),
    AvgPool(16, 6, 7, 2, 2, 1, value=-2, per_position=False),
]


@pytest.mark.parametrize("p", CASES, ids=lambda p: f"k{p.k}s{p.stride}p{p.pad}v{p.value}"
                         f"{'m' if p.per_position else ''}")
def test_average_pools_match_numpy(cfg: VTAConfig, p: AvgPool) -> None:
    n = cfg.batch
    rng = np.random.default_rng(p.c + p.k + p.value + 128)
    x = rng.integers(-128, 128, (n, p.c, p.h, p.w), dtype=np.int8)
    module = vta_compile(avg_pool_mlir(p, n), config=cfg)
    (y,) = module(x, p.multipliers()) if p.per_position else module(x)
    assert module.last_run.warnings == []
    assert program_hazards(module.module.program, cfg) == []
    np.testing.assert_array_equal(y, avg_pool_reference(p, x))


def global_pool_nc_mlir(n: int, c: int, h: int, w: int) -> str:
    """A global sum pool into N×C (maps ``(n, c, h, w) -> (n, c)``), a per-channel bias and
    ``>> 4`` into an N×C output."""
    x_t, acc_t, y_t = f"memref<{n}x{c}x{h}x{w}xi8>", f"memref<{n}x{c}xi32>", f"memref<{n}x{c}xi8>"
    return f"""func.func @gap(%x: {x_t}, %b: memref<{c}xi32>, %y: {y_t}) {{
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : {acc_t}
  linalg.fill ins(%c0 : i32) outs(%acc : {acc_t})
  linalg.generic {{indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (n, c)>],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}}
      ins(%x : {x_t}) outs(%acc : {acc_t}) {{
  ^bb0(%in: i8, %out: i32):
    %e = arith.extsi %in : i8 to i32
    %s = arith.addi %out, %e : i32
    linalg.yield %s : i32
  }}
  linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                                   affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}}
      ins(%acc, %b : {acc_t}, memref<{c}xi32>) outs(%y : {y_t}) {{
  ^bb0(%v: i32, %bb: i32, %o: i8):
    %a = arith.addi %v, %bb : i32
    %c4 = arith.constant 4 : i32
    %s = arith.shrsi %a, %c4 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }}
  return
}}
"""


def test_global_pool_into_nc_matches_numpy(cfg: VTAConfig) -> None:
    n, c, h, w = cfg.batch, 40, 5, 3
    rng = np.random.default_rng(5)
    x = rng.integers(-128, 128, (n, c, h, w), dtype=np.int8)
    b = rng.integers(-500, 500, c).astype(np.int32)
    module = vta_compile(global_pool_nc_mlir(n, c, h, w), config=cfg)
    (y,) = module(x, b)
    assert y.shape == (n, c)
    expected = (x.astype(np.int64).sum(axis=(2, 3)) + b) >> 4
    np.testing.assert_array_equal(y, expected.astype(np.int32).astype(np.int8))


def two_use_epilogue_mlir(n: int, c: int, h: int, w: int) -> str:
    """A 1×1 sum pool (a copy of the input into the accumulator) whose epilogue reads the
    accumulator twice — ``a · clip(a + 59, 0, 120) >> 6`` — and clips with two per-channel
    vectors: the second use needs a copy of the accumulator tile, and each vector a tile of
    its own, beside the pool's buffers."""
    x_t, y_t = f"memref<{n}x{c}x{h}x{w}xi8>", f"memref<{n}x{c}x{h}x{w}xi8>"
    acc_t, v_t = f"memref<{n}x{c}x{h}x{w}xi32>", f"memref<{c}xi32>"
    ident = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"
    chan = "affine_map<(d0, d1, d2, d3) -> (d1)>"
    return f"""
func.func @hard_swish_like(%x: {x_t}, %hi: {v_t}, %lo: {v_t}, %y: {y_t}) {{
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : {acc_t}
  linalg.fill ins(%c0 : i32) outs(%acc : {acc_t})
  %win = memref.alloc() : memref<1x1xi8>
  linalg.pooling_nchw_sum {{dilations = dense<1> : tensor<2xi64>,
                           strides = dense<1> : tensor<2xi64>}}
      ins(%x, %win : {x_t}, memref<1x1xi8>) outs(%acc : {acc_t})
  memref.dealloc %win : memref<1x1xi8>
  linalg.generic {{indexing_maps = [{ident}, {chan}, {chan}, {ident}],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins(%acc, %hi, %lo : {acc_t}, {v_t}, {v_t}) outs(%y : {y_t}) {{
  ^bb0(%a: i32, %h: i32, %l: i32, %o: i8):
    %k59 = arith.constant 59 : i32
    %k0 = arith.constant 0 : i32
    %k120 = arith.constant 120 : i32
    %k6 = arith.constant 6 : i32
    %b = arith.addi %a, %k59 : i32
    %b1 = arith.maxsi %b, %k0 : i32
    %b2 = arith.minsi %b1, %k120 : i32
    %p = arith.muli %a, %b2 : i32
    %s = arith.shrsi %p, %k6 : i32
    %t1 = arith.minsi %s, %h : i32
    %t2 = arith.maxsi %t1, %l : i32
    %t = arith.trunci %t2 : i32 to i8
    linalg.yield %t : i8
  }}
  memref.dealloc %acc : {acc_t}
  return
}}
"""


def test_epilogue_reading_the_accumulator_twice_matches_numpy(cfg: VTAConfig) -> None:
    """Every SRAM tile of the epilogue has its own elements: the accumulator's copy once
    overlapped the accumulator's first vectors and changed the outputs there."""
    n, c, h, w = cfg.batch, 4, 8, 8
    rng = np.random.default_rng(11)
    x = rng.integers(-128, 128, (n, c, h, w), dtype=np.int8)
    hi = rng.integers(20, 128, c).astype(np.int32)
    lo = -rng.integers(20, 129, c).astype(np.int32)
    module = vta_compile(two_use_epilogue_mlir(n, c, h, w), config=cfg)
    (y,) = module(x, hi, lo)
    a = x.astype(np.int64)
    expected = (a * np.clip(a + 59, 0, 120)) >> 6
    expected = np.clip(expected, lo[None, :, None, None], hi[None, :, None, None])
    np.testing.assert_array_equal(y, expected.astype(np.int8))
