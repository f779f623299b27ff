"""Pooling regions end to end: max-pool (``linalg.pooling_nchw_max``, its data padded with the
memref idiom and any fill value), sum pool (``linalg.pooling_nchw_sum``) and global sum /
average pool (a reduction ``linalg.generic`` over H and W) → ``vta_mlir.compile`` → the
simulator, compared bit for bit with numpy written here, on every shipped configuration;
``vta-run --check`` on a pooling program; one diagnostic at the op for what VTA cannot pool.
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
from vta_mlir.tools import vta_opt, vta_run

CONFIGS = {name: VTAConfig.shipped(name) for name in SHIPPED_CONFIGS}


@dataclass(frozen=True)
class MaxPool:
    """A max-pool (or sum pool) of an ``n × c × h × w`` int8 tensor: a ``k × k`` window,
    ``stride``, ``pad`` rows and columns of ``pad_value`` on each side, the output initialised
    to ``init``;
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
    #: ``max`` (``linalg.pooling_nchw_max``) or ``sum`` (``linalg.pooling_nchw_sum``).
    op: str = "max"

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
    lines += [f"  linalg.pooling_nchw_{p.op} {{dilations = dense<1> : tensor<2xi64>, "
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
            out = np.maximum(out, window) if p.op == "max" else out + window
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
    # Windows wholly in the padding at the borders: their value is max(f, v).
    MaxPool(1, 16, 6, 6, 3, 1, pad=3, pad_value=7, init=-5),
    MaxPool(1, 16, 6, 5, 2, 3, pad=4, pad_value=-9, init=-20, epilogue=True),
    # Sum pooling: into an i8 output (wrapping, as MLIR's i8 addi), or i32 and an epilogue.
    MaxPool(1, 32, 8, 8, 2, 2, init=5, op="sum"),
    MaxPool(1, 16, 10, 9, 3, 2, pad=1, pad_value=0, init=-40, epilogue=True, op="sum"),
    # A sum over padding of another value: added once per padded tap.
    MaxPool(1, 16, 8, 8, 3, 2, pad=1, pad_value=-128, init=0, epilogue=True, op="sum"),
)


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("pool", SMALL, ids=lambda p: f"{p.op}{p.k}x{p.k}s{p.stride}p{p.pad}v"
                         f"{p.pad_value}f{p.init}{'e' if p.epilogue else ''}")
def test_small_maxpools_match_numpy(pool: MaxPool, name: str) -> None:
    cfg = CONFIGS[name]
    p = dataclasses.replace(pool, n=cfg.batch)
    x = pool_data((p.n, p.c, p.h, p.w), np.random.default_rng(p.c * 7 + p.pad_value + 128))
    y, _ = run_checked(maxpool_mlir(p), cfg, x)
    np.testing.assert_array_equal(y, maxpool_reference(p, x))


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("pad_value", [0, -128])
def test_resnet18_maxpool_matches_numpy(pad_value: int, name: str) -> None:
    """ResNet-18's max-pool: 1×64×112×112 → 56×56, 3×3, stride 2, padding 1."""
    cfg = CONFIGS[name]
    p = MaxPool(cfg.batch, 64, 112, 112, 3, 2, pad=1, pad_value=pad_value, init=-128)
    x = pool_data((p.n, p.c, p.h, p.w), np.random.default_rng(11 - pad_value))
    y, _ = run_checked(maxpool_mlir(p), cfg, x)
    np.testing.assert_array_equal(y, maxpool_reference(p, x))


@dataclass(frozen=True)
class GlobalPool:
    """A global pooling of an ``n × c × h × w`` int8 tensor into ``n × c × 1 × 1``: ``sum``
    (``addi``) or ``max`` (``maxsi``) from ``init``, then ``trunci(clip((acc * m) >> s))``
    into the i8 output."""

    n: int
    c: int
    h: int
    w: int
    combine: str = "addi"
    init: int = 0
    m: int = 21
    s: int = 10


def global_pool_mlir(p: GlobalPool) -> str:
    x_t = f"memref<{p.n}x{p.c}x{p.h}x{p.w}xi8>"
    acc_t = f"memref<{p.n}x{p.c}x1x1xi32>"
    y_t = f"memref<{p.n}x{p.c}x1x1xi8>"
    ident = "affine_map<(n, c, h, w) -> (n, c, h, w)>"
    return f"""func.func @gap(%x: {x_t}, %y: {y_t}) {{
  %init = arith.constant {p.init} : i32
  %acc = memref.alloc() : {acc_t}
  linalg.fill ins(%init : i32) outs(%acc : {acc_t})
  linalg.generic {{indexing_maps = [{ident}, affine_map<(n, c, h, w) -> (n, c, 0, 0)>],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}}
      ins(%x : {x_t}) outs(%acc : {acc_t}) {{
  ^bb0(%in: i8, %out: i32):
    %e = arith.extsi %in : i8 to i32
    %r = arith.{p.combine} %out, %e : i32
    linalg.yield %r : i32
  }}
  linalg.generic {{indexing_maps = [{ident}, {ident}],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins(%acc : {acc_t}) outs(%y : {y_t}) {{
  ^bb0(%a: i32, %o: i8):
    %m = arith.constant {p.m} : i32
    %sh = arith.constant {p.s} : i32
    %lo = arith.constant -128 : i32
    %hi = arith.constant 127 : i32
    %p = arith.muli %a, %m : i32
    %q = arith.shrsi %p, %sh : i32
    %r = arith.maxsi %q, %lo : i32
    %t = arith.minsi %r, %hi : i32
    %u = arith.trunci %t : i32 to i8
    linalg.yield %u : i8
  }}
  return
}}
"""


def global_pool_reference(p: GlobalPool, x: np.ndarray) -> np.ndarray:
    x32 = x.astype(np.int64)
    if p.combine == "addi":
        acc = p.init + x32.sum(axis=(2, 3), keepdims=True)
    else:
        acc = np.maximum(p.init, x32.max(axis=(2, 3), keepdims=True))
    return np.clip((acc * p.m) >> p.s, -128, 127).astype(np.int8)


GLOBAL = (
    GlobalPool(1, 512, 7, 7),                           # ResNet-18: 49 ≈ 1024 / 21
    GlobalPool(1, 40, 5, 3, init=-100, m=3, s=2),
    GlobalPool(1, 16, 4, 4, combine="maxsi", init=-7, m=1, s=0),
)


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("pool", GLOBAL, ids=lambda p: f"{p.c}x{p.h}x{p.w}_{p.combine}")
def test_global_pools_match_numpy(pool: GlobalPool, name: str) -> None:
    cfg = CONFIGS[name]
    p = dataclasses.replace(pool, n=cfg.batch)
    x = np.random.default_rng(p.c).integers(-128, 128, size=(p.n, p.c, p.h, p.w), dtype=np.int8)
    y, _ = run_checked(global_pool_mlir(p), cfg, x)
    expected = global_pool_reference(p, x)
    np.testing.assert_array_equal(y, expected)
    assert len(np.unique(expected)) > 4  # off the clip bounds


@pytest.mark.parametrize("text", [
    maxpool_mlir(MaxPool(1, 16, 9, 9, 3, 2, pad=1, pad_value=-128)),
    maxpool_mlir(MaxPool(1, 16, 9, 9, 3, 2, pad=1, init=-7, epilogue=True, op="sum")),
    global_pool_mlir(GlobalPool(1, 32, 7, 7)),
], ids=["maxpool", "sum", "global"])
def test_vta_run_checks_a_pooling_program(text: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "pool.mlir"
    path.write_text(text)
    assert vta_run.main([str(path), "--random-inputs", "--check", "--check-hazards"]) == 0, \
        capsys.readouterr().err
    out = capsys.readouterr().out
    assert "check: PASS" in out and "hazards: 0 found" in out


# ---- bad input: one error at the op, exit status 1 -------------------------------------------

_MAXPOOL = maxpool_mlir(MaxPool(1, 16, 8, 8, 3, 2, pad=1, pad_value=-128))
_GLOBAL = global_pool_mlir(GlobalPool(1, 16, 4, 4))

BAD = {
    "dilation": (_MAXPOOL.replace("dilations = dense<1>", "dilations = dense<2>")
                 .replace("memref<1x16x4x4xi8>", "memref<1x16x3x3xi8>"),
                 "has dilations [2, 2]: VTA pools with dilation 1"),
    "row_too_wide": (maxpool_mlir(MaxPool(1, 16, 4, 6000, 3, 1)),
                     "cannot tile this pooling: one output row of one channel block and its "
                     "data rows take"),
    "min_pool": (_GLOBAL.replace("arith.addi %out", "arith.minsi %out"),
                 "is a reduction that is not a pooling"),
    "pad_16": (maxpool_mlir(MaxPool(1, 16, 8, 8, 3, 2, pad=16, pad_value=-128)),
               "by 16 on the top: a VTA load pads each side by at most 15"),
    "not_filled": (_MAXPOOL.replace("  linalg.fill ins(%f : i8) outs(%y : memref<1x16x4x4xi8>)\n",
                                    ""),
                   "pools into %y, which no linalg.fill initialises"),
    "i32_data": (_GLOBAL.replace("%x: memref<1x16x4x4xi8>", "%x: memref<1x16x4x4xi32>")
                 .replace("ins(%x : memref<1x16x4x4xi8>)", "ins(%x : memref<1x16x4x4xi32>)")
                 .replace("^bb0(%in: i8", "^bb0(%in: i32")
                 .replace("%e = arith.extsi %in : i8 to i32", "%e = arith.addi %in, %in : i32"),
                 "is a reduction that is not a pooling"),
    # torch-mlir's form: bufferized, the filled tensor becomes the result argument itself.
    "into_i32_result": ("""
func.func @f(%x: tensor<1x16x8x8xi8>) -> tensor<1x16x4x4xi32> {
  %c0 = arith.constant 0 : i32
  %k = tensor.empty() : tensor<2x2xi32>
  %e = tensor.empty() : tensor<1x16x4x4xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%e : tensor<1x16x4x4xi32>) -> tensor<1x16x4x4xi32>
  %c = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>,
                                strides = dense<2> : vector<2xi64>}
      ins(%x, %k : tensor<1x16x8x8xi8>, tensor<2x2xi32>) outs(%f : tensor<1x16x4x4xi32>)
      -> tensor<1x16x4x4xi32>
  return %c : tensor<1x16x4x4xi32>
}
""", "pools into %result0, a function argument (an i32 result)"),
    "partial_reduction": (_GLOBAL.replace('"parallel", "parallel", "reduction", "reduction"',
                                          '"parallel", "parallel", "parallel", "reduction"'),
                          "is a reduction that is not a global pooling"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_pooling_gets_one_error(case: str, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    text, expected = BAD[case]
    path = tmp_path / "bad.mlir"
    path.write_text(text)
    status = vta_opt.main([str(path), "-p", "vta-to-isa"])
    out, err = capsys.readouterr()
    assert status == 1, out + err
    assert "Traceback" not in err and "internal error" not in err, err
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1 and expected in errors[0], err
    assert errors[0].startswith(f"{path}:"), err  # at the op
