"""Pooling regions end to end: max-pool (``linalg.pooling_nchw_max``, its data padded with the
memref idiom and any fill value) and global sum / average pool (a reduction ``linalg.generic``
over H and W) → ``vta_mlir.compile`` → the simulator, compared bit for bit with numpy written
here, on every shipped configuration; and ``vta-run --check`` on a pooling program.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from vta_mlir import compile as vta_compile
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.runtime.device import LoadedModule
from vta_mlir.sim.hazards import program_hazards
from vta_mlir.tools import vta_run

CONFIGS = {name: VTAConfig.shipped(name) for name in SHIPPED_CONFIGS}


@dataclass(frozen=True)
class MaxPool:
    """A max-pool of an ``n × c × h × w`` int8 tensor: a ``k × k`` window, ``stride``, ``pad``
    rows and columns of ``pad_value`` on each side, the output initialised to ``init``;
    ``epilogue``: into an i32 buffer, then ``trunci(min(x + 3, 100))`` into the i8 output."""

    n: int
    c: int
    h: int
    w: int
    k: int
    stride: int
    pad: int = 0
    pad_value: int = 0
    init: int = -128
    epilogue: bool = False

    @property
    def out_hw(self) -> tuple[int, int]:
        return ((self.h + 2 * self.pad - self.k) // self.stride + 1,
                (self.w + 2 * self.pad - self.k) // self.stride + 1)


def maxpool_mlir(p: MaxPool) -> str:
    n, c, h, w, k, s, pad = p.n, p.c, p.h, p.w, p.k, p.stride, p.pad
    oh, ow = p.out_hw
    x_t = f"memref<{n}x{c}x{h}x{w}xi8>"
    y_t = f"memref<{n}x{c}x{oh}x{ow}xi8>"
    lines = [f"func.func @pool(%x: {x_t}, %y: {y_t}) {{",
             f"  %v = arith.constant {p.pad_value} : i8",
             f"  %f = arith.constant {p.init} : i8",
             f"  %f32 = arith.constant {p.init} : i32"]
    data, data_t = "%x", x_t
    if pad:
        hp, wp = h + 2 * pad, w + 2 * pad
        data, data_t = "%xp", f"memref<{n}x{c}x{hp}x{wp}xi8>"
        strided = f"strided<[{c * hp * wp}, {hp * wp}, {wp}, 1], offset: {pad * wp + pad}>"
        lines += [f"  %xp = memref.alloc() : {data_t}",
                  f"  linalg.fill ins(%v : i8) outs(%xp : {data_t})",
                  f"  %xi = memref.subview %xp[0, 0, {pad}, {pad}] [{n}, {c}, {h}, {w}] "
                  f"[1, 1, 1, 1] : {data_t} to memref<{n}x{c}x{h}x{w}xi8, {strided}>",
                  f"  memref.copy %x, %xi : {x_t} to memref<{n}x{c}x{h}x{w}xi8, {strided}>"]
    lines.append(f"  %win = memref.alloc() : memref<{k}x{k}xi8>")
    out, out_t = "%y", y_t
    if p.epilogue:
        out, out_t = "%acc", f"memref<{n}x{c}x{oh}x{ow}xi32>"
        lines += [f"  %acc = memref.alloc() : {out_t}",
                  f"  linalg.fill ins(%f32 : i32) outs(%acc : {out_t})"]
    else:
        lines.append(f"  linalg.fill ins(%f : i8) outs(%y : {y_t})")
    lines += [f"  linalg.pooling_nchw_max {{dilations = dense<1> : tensor<2xi64>, "
              f"strides = dense<{s}> : tensor<2xi64>}}",
              f"      ins({data}, %win : {data_t}, memref<{k}x{k}xi8>) outs({out} : {out_t})"]
    if p.epilogue:
        lines += ["  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, "
                  "affine_map<(a, b, c, d) -> (a, b, c, d)>], iterator_types = [\"parallel\", "
                  "\"parallel\", \"parallel\", \"parallel\"]}",
                  f"      ins(%acc : {out_t}) outs(%y : {y_t}) {{",
                  "  ^bb0(%a: i32, %o: i8):",
                  "    %c3 = arith.constant 3 : i32",
                  "    %c100 = arith.constant 100 : i32",
                  "    %s = arith.addi %a, %c3 : i32",
                  "    %m = arith.minsi %s, %c100 : i32",
                  "    %t = arith.trunci %m : i32 to i8",
                  "    linalg.yield %t : i8",
                  "  }"]
    if pad:
        lines.append(f"  memref.dealloc %xp : {data_t}")
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def maxpool_reference(p: MaxPool, x: np.ndarray) -> np.ndarray:
    """MLIR's semantics: ``max(init, max over the window of the padded data)``."""
    xp = np.pad(x.astype(np.int32), ((0, 0), (0, 0), (p.pad, p.pad), (p.pad, p.pad)),
                constant_values=p.pad_value)
    oh, ow = p.out_hw
    out = np.full((p.n, p.c, oh, ow), p.init, np.int32)
    for i in range(p.k):
        for j in range(p.k):
            window = xp[:, :, i:i + (oh - 1) * p.stride + 1:p.stride,
                        j:j + (ow - 1) * p.stride + 1:p.stride]
            out = np.maximum(out, window)
    if p.epilogue:
        out = np.minimum(out + 3, 100)
    return out.astype(np.int8)


def pool_data(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Random int8 data whose top-left and bottom-right corners are all negative, so that the
    windows at the borders hold only negative values (the padding value then matters)."""
    x = rng.integers(-128, 128, size=shape, dtype=np.int8)
    x[:, :, :3, :3] = rng.integers(-128, -60, size=(*shape[:2], 3, 3), dtype=np.int8)
    x[:, :, -3:, -3:] = rng.integers(-128, -60, size=(*shape[:2], 3, 3), dtype=np.int8)
    return x


def run_checked(text: str, cfg: VTAConfig, *args: np.ndarray) -> tuple[np.ndarray, LoadedModule]:
    module = vta_compile(text, config=cfg)
    (y,) = module(*args)
    # Tokens balance (no deadlock, no token left) and no SRAM race between the modules.
    assert module.last_run.warnings == []
    assert program_hazards(module.module.program, cfg) == []
    return y, module


SMALL = (
    MaxPool(1, 32, 12, 12, 3, 2, pad=1, pad_value=-128, init=-128),
    MaxPool(1, 32, 12, 12, 3, 2, pad=1, pad_value=0, init=-128),
    MaxPool(1, 16, 8, 8, 2, 2),
    MaxPool(1, 20, 9, 7, 3, 1, pad=1, pad_value=5, init=-3, epilogue=True),
    MaxPool(1, 48, 11, 13, 3, 2, pad=2, pad_value=-128, init=0),
)


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("pool", SMALL, ids=lambda p: f"{p.k}x{p.k}s{p.stride}p{p.pad}v"
                         f"{p.pad_value}f{p.init}{'e' if p.epilogue else ''}")
def test_small_maxpools_match_numpy(pool: MaxPool, name: str) -> None:
    cfg = CONFIGS[name]
    p = dataclasses.replace(pool, n=cfg.batch)
    x = pool_data((p.n, p.c, p.h, p.w), np.random.default_rng(p.c * 7 + p.pad_value + 128))
    y, _ = run_checked(maxpool_mlir(p), cfg, x)
    np.testing.assert_array_equal(y, maxpool_reference(p, x))
