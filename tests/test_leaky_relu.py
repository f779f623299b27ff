"""Epilogues combining the accumulator with a value derived from it, such as the leaky ReLU
``max(x, x >> k)``, after a dense layer, after a convolution and on their own, on every shipped
configuration.

VTA's ALU takes its second tensor operand from an accumulator buffer, so ``vta-pack`` copies
the shared value into a second accumulator (a reset to 0 and an ALU add), applies each side's
immediate ops and combines the two.  Each program is MLIR text compiled with
``vta_mlir.compile``, run on the simulator with random inputs and compared bit for bit with
numpy written out here (int32 wrap-around, arithmetic shifts, ``trunci`` to the low 8 bits).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from vta_mlir import compile as vta_compile
from vta_mlir import parse, print_ir, run_pipeline
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.dialects.vta import set_module_config

from .mlir_programs import function, generic, memref
from .numerics import ArgLike, dtype_bounds, random_args, run_and_compare, trunc8, wrap32

CONFIGS = {name: VTAConfig.shipped(name) for name in SHIPPED_CONFIGS}


def leaky(v: np.ndarray, k: int) -> np.ndarray:
    return np.maximum(v, v >> k)


# --------------------------------------------------------------------------------------------
# Programs

#: Epilogue bodies on ``%in0`` (the accumulator) and ``%in1`` (a second input), computing
#: ``%r``, and their numpy.
EPILOGUES = {
    # max(x, x >> 3)
    "leaky": (
        """    %ck = arith.constant 3 : i32
    %s = arith.shrsi %in0, %ck : i32
    %r = arith.maxsi %in0, %s : i32""",
        lambda v, b: leaky(v, 3),
    ),
    # x = (acc + bias) >> 4; max(x, x >> 2): the shared value is itself computed
    "bias_leaky": (
        """    %c4 = arith.constant 4 : i32
    %c2 = arith.constant 2 : i32
    %sum = arith.addi %in0, %in1 : i32
    %e = arith.shrsi %sum, %c4 : i32
    %l = arith.shrsi %e, %c2 : i32
    %r = arith.maxsi %e, %l : i32""",
        lambda v, b: leaky(wrap32(v + b) >> 4, 2),
    ),
    # min((x << 1) + 7, x >> 1) with x = acc - 3: an immediate chain on each side
    "two_chains": (
        """    %c3 = arith.constant 3 : i32
    %c1 = arith.constant 1 : i32
    %c7 = arith.constant 7 : i32
    %e = arith.subi %in0, %c3 : i32
    %p = arith.shli %e, %c1 : i32
    %q = arith.addi %p, %c7 : i32
    %h = arith.shrsi %e, %c1 : i32
    %r = arith.minsi %q, %h : i32""",
        lambda v, b: np.minimum(wrap32(wrap32((v - 3) << 1) + 7), (v - 3) >> 1),
    ),
    # (acc >> 2) + (bias * 3): the second operand a chain on a function argument
    "argument_chain": (
        """    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %e = arith.shrsi %in0, %c2 : i32
    %m = arith.muli %in1, %c3 : i32
    %r = arith.addi %e, %m : i32""",
        lambda v, b: wrap32((v >> 2) + wrap32(b * 3)),
    ),
}


def dense(m: int, k: int, n: int, epilogue: str) -> str:
    """``y = trunci(epilogue(x @ w, bias))`` with ``linalg.matmul`` (K × N weights) and a
    per-column bias."""
    acc_t = memref((m, n), "i32")
    ops = f"""
  %acc = memref.alloc() : {acc_t}
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : {acc_t})
  linalg.matmul ins(%x, %w : {memref((m, k), "i8")}, {memref((k, n), "i8")})
      outs(%acc : {acc_t})"""
    ops += generic(
        (m, n),
        [("acc", (m, n), "i32", (0, 1)), ("bias", (n,), "i32", (1,))],
        EPILOGUES[epilogue][0],
    )
    params = [("x", (m, k), "i8"), ("w", (k, n), "i8"), ("bias", (n,), "i32"), ("y", (m, n), "i8")]
    return function("dense", params, ops)


def conv(n: int, c: int, h: int, f: int, kh: int, stride: int, pad: int, epilogue: str) -> str:
    """``y = trunci(epilogue(conv2d(pad(x), w), bias))`` on NCHW data, a per-channel bias."""
    hp = h + 2 * pad
    oh = (hp - kh) // stride + 1
    x_t = memref((n, c, h, h), "i8")
    w_t = memref((f, c, kh, kh), "i8")
    acc_t = memref((n, f, oh, oh), "i32")
    if pad:
        xp_t = memref((n, c, hp, hp), "i8")
        view_t = (
            f"memref<{n}x{c}x{h}x{h}xi8, strided<[{c * hp * hp}, {hp * hp}, {hp}, 1], "
            f"offset: {pad * hp + pad}>>"
        )
        ops = f"""
  %z8 = arith.constant 0 : i8
  %xp = memref.alloc() : {xp_t}
  linalg.fill ins(%z8 : i8) outs(%xp : {xp_t})
  %xi = memref.subview %xp[0, 0, {pad}, {pad}] [{n}, {c}, {h}, {h}] [1, 1, 1, 1]
      : {xp_t} to {view_t}
  memref.copy %x, %xi : {x_t} to {view_t}"""
        src, src_t = "%xp", xp_t
    else:
        ops, src, src_t = "", "%x", x_t
    ops += f"""
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : {acc_t}
  linalg.fill ins(%c0 : i32) outs(%acc : {acc_t})
  linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>,
                            strides = dense<{stride}> : tensor<2xi64>}}
      ins({src}, %w : {src_t}, {w_t}) outs(%acc : {acc_t})"""
    y = (n, f, oh, oh)
    ops += generic(
        y, [("acc", y, "i32", (0, 1, 2, 3)), ("bias", (f,), "i32", (1,))], EPILOGUES[epilogue][0]
    )
    params = [
        ("x", (n, c, h, h), "i8"),
        ("w", (f, c, kh, kh), "i8"),
        ("bias", (f,), "i32"),
        ("y", y, "i8"),
    ]
    return function("conv", params, ops)


def elementwise(shape: tuple[int, ...], epilogue: str) -> str:
    """``y = trunci(epilogue(a, b))`` of two i32 tensors of any rank."""
    full = tuple(range(len(shape)))
    ops = generic(
        shape, [("a", shape, "i32", full), ("bb", shape, "i32", full)], EPILOGUES[epilogue][0]
    )
    return function("ew", [("a", shape, "i32"), ("bb", shape, "i32"), ("y", shape, "i8")], ops)


# --------------------------------------------------------------------------------------------
# numpy references of the layers


def conv_numpy(x: np.ndarray, w: np.ndarray, stride: int, pad: int) -> np.ndarray:
    x = np.pad(x.astype(np.int64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    f, _, kh, kw = w.shape
    n, _, hp, wp = x.shape
    oh, ow = (hp - kh) // stride + 1, (wp - kw) // stride + 1
    out = np.zeros((n, f, oh, ow), np.int64)
    for i in range(kh):
        for j in range(kw):
            window = x[:, :, i : i + stride * oh : stride, j : j + stride * ow : stride]
            out += np.einsum("nchw,fc->nfhw", window, w[:, :, i, j].astype(np.int64))
    return wrap32(out)


def check(
    text: str, cfg: VTAConfig, layer, epilogue: str, seed: int = 0, small: bool = True
) -> np.ndarray:
    """Compile ``text`` and compare it with numpy on full-range inputs; ``small`` keeps i32
    operands near the accumulated values so that both sides of the epilogue matter."""

    def bounds(spec: ArgLike) -> tuple[int, int]:
        return (-5000, 5000) if small and spec.dtype == "int32" else dtype_bounds(spec.dtype)

    mod = vta_compile(text, config=cfg)
    values = random_args(mod.inputs, seed, bounds)
    v = {k: a.astype(np.int64) for k, a in values.items()}
    acc, other = layer(v)
    y = run_and_compare(mod, values, trunc8(EPILOGUES[epilogue][1](acc, other)))
    # Both operands of the final op win somewhere (the inputs do not make it trivial).
    assert len(np.unique(y)) > 16
    return y


# --------------------------------------------------------------------------------------------
# Tests


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize(
    "shape", [(1, 64, 32), (5, 40, 24), (16, 32, 48)], ids=lambda s: "x".join(map(str, s))
)
@pytest.mark.parametrize("epilogue", sorted(EPILOGUES))
def test_after_dense(epilogue: str, shape: tuple[int, int, int], name: str) -> None:
    m, k, n = shape
    check(
        dense(m, k, n, epilogue),
        CONFIGS[name],
        lambda v: (wrap32(v["x"] @ v["w"]), v["bias"]),
        epilogue,
        seed=m + n,
    )


CONVS = [
    # n, c, h, f, kh, stride, pad
    (1, 16, 8, 32, 3, 1, 0),
    (1, 32, 8, 16, 3, 2, 1),
    (2, 16, 6, 16, 1, 1, 0),
]


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("geometry", CONVS, ids=lambda g: "-".join(map(str, g)))
@pytest.mark.parametrize("epilogue", ["leaky", "bias_leaky", "two_chains"])
def test_after_conv(epilogue: str, geometry: tuple[int, ...], name: str) -> None:
    n, c, h, f, kh, stride, pad = geometry

    def layer(v: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        return conv_numpy(v["x"], v["w"], stride, pad), v["bias"][None, :, None, None]

    check(
        conv(n, c, h, f, kh, stride, pad, epilogue),
        CONFIGS[name],
        layer,
        epilogue,
        seed=sum(geometry),
    )


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize(
    "shape", [(1024,), (8, 128), (3, 5, 7), (1, 64, 1, 16)], ids=lambda s: "x".join(map(str, s))
)
@pytest.mark.parametrize("epilogue", sorted(EPILOGUES))
def test_elementwise(epilogue: str, shape: tuple[int, ...], name: str) -> None:
    check(
        elementwise(shape, epilogue),
        CONFIGS[name],
        lambda v: (v["a"], v["bb"]),
        epilogue,
        seed=len(shape),
        small=False,
    )


def test_the_copy_is_a_reset_and_an_add() -> None:
    """After a contraction, ``max(x, x >> 3)`` copies the accumulator into a second one (VTA
    has no copy between accumulator buffers), shifts the copy and takes the maximum."""
    module = parse(dense(4, 32, 32, "leaky"))
    set_module_config(module, CONFIGS["default"])
    run_pipeline(module, "vta-pack")
    text = print_ir(module)
    lines = [line.strip() for line in text.splitlines()]
    copy = lines.index("%acc_copy = memref.alloc() : memref<4x2x1x16xi32>")
    assert lines[copy + 1].startswith("linalg.fill ins(%c0 : i32) outs(%acc_copy")
    assert "ins(%acc_copy, %acc :" in lines[copy + 2]
    assert "arith.addi" in text.split("ins(%acc_copy, %acc :")[1].split("linalg.yield")[0]
    assert "arith.shrsi" in text.split("ins(%acc_copy :")[1].split("linalg.yield")[0]
    assert "arith.maxsi" in text.split("ins(%acc, %acc_copy :")[1].split("linalg.yield")[0]


def acc_tiles(text: str, cfg: VTAConfig) -> list[int]:
    """The element counts of the accumulator SRAM buffers ``vta-tile`` allocates."""
    module = parse(text)
    set_module_config(module, cfg)
    run_pipeline(module, "vta-pack,vta-tile")
    sizes = []
    for line in print_ir(module).splitlines():
        if "memref.alloc()" in line and "#vta.sram<acc>" in line:
            shape = line.split("memref<")[1].split("xi32")[0].split("x")
            sizes.append(math.prod(int(d) for d in shape[:-2]))
    return sizes


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_tiles_leave_room_for_the_copy(name: str) -> None:
    """A dense layer whose whole output fills the accumulator SRAM: with the leaky ReLU the
    tiler plans two accumulator tiles and both fit."""
    cfg = CONFIGS[name]
    depth = cfg.sram_depth("acc")
    m = 4 * cfg.batch
    n = depth // (m // cfg.batch) * cfg.block_out
    leaky_text = dense(m, 16, n, "leaky")
    tiles = acc_tiles(leaky_text, cfg)
    # The output's tile and its copy (the bias is added as the accumulator's initial value).
    assert len(tiles) == 2 and tiles[0] == tiles[1]
    assert sum(tiles) <= depth
    # And the result is still right.
    check(leaky_text, cfg, lambda v: (wrap32(v["x"] @ v["w"]), v["bias"]), "leaky")


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_conv_tiles_leave_room_for_the_copy(name: str) -> None:
    """A convolution whose accumulator tiles with the copy exceed half the accumulator SRAM
    unless the planner counts the copy."""
    cfg = CONFIGS[name]
    geometry = (cfg.batch, 16, 30, 64, 3, 1, 1)
    text = conv(*geometry, "leaky")
    tiles = acc_tiles(text, cfg)
    assert sum(tiles) <= cfg.sram_depth("acc")
    n, c, h, f, kh, stride, pad = geometry

    def layer(v: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        return conv_numpy(v["x"], v["w"], stride, pad), v["bias"][None, :, None, None]

    check(text, cfg, layer, "leaky")
