"""Convolutions with few input channels folded into 1×1 convolutions of their data's patches
(``passes/pack/fold_window.py``): the ``window`` of ``ArgSpec`` (im2col on the host), its
argument-table and ``vta.arg`` / ``vtaisa.arg`` forms, and stem-like convolutions end to end on
every shipped configuration, compared bit for bit with a direct convolution in numpy.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, MemRefType

from vta_mlir import compile as vta_compile
from vta_mlir import parse, run_pipeline
from vta_mlir.abi import ArgSpec, ArgumentError, window_patches, windowed_shape
from vta_mlir.binary import BinaryModule, from_bytes, to_bytes
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.errors import BinaryFormatError
from vta_mlir.passes.pack.fold_window import reduction_blocks
from vta_mlir.program import Segment
from vta_mlir.tools import vta_run

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from resnet18_layers import Layer, conv_mlir  # noqa: E402

from .binary_helpers import small_module  # noqa: E402

CONFIGS = {name: VTAConfig.shipped(name) for name in SHIPPED_CONFIGS}


# --------------------------------------------------------------------------------------------
# numpy, written out independently of the compiler and of the benchmark's reference


def padded_image(x: np.ndarray, pads: tuple[int, int, int, int]) -> np.ndarray:
    top, bottom, left, right = pads
    n, c, h, w = x.shape
    out = np.zeros((n, c, h + top + bottom, w + left + right), dtype=x.dtype)
    out[:, :, top : top + h, left : left + w] = x
    return out


def direct_conv(
    x: np.ndarray, w: np.ndarray, strides: tuple[int, int], pads: tuple[int, int, int, int]
) -> np.ndarray:
    """``conv2d`` of NCHW ``x`` with OIHW ``w``, int32 accumulation, loops over the kernel
    window and the input channels."""
    xp = padded_image(x.astype(np.int32), pads)
    o, c, kh, kw = w.shape
    sh, sw = strides
    oh = (xp.shape[2] - kh) // sh + 1
    ow = (xp.shape[3] - kw) // sw + 1
    acc = np.zeros((x.shape[0], o, oh, ow), dtype=np.int32)
    for ch in range(c):
        for i in range(kh):
            for j in range(kw):
                rows = xp[:, ch, i : i + (oh - 1) * sh + 1 : sh, j : j + (ow - 1) * sw + 1 : sw]
                acc += rows[:, None, :, :] * w[:, ch, i, j].astype(np.int32)[None, :, None, None]
    return acc


def layer_epilogue(acc: np.ndarray, bias: np.ndarray, res: np.ndarray | None) -> np.ndarray:
    """``conv_mlir``'s epilogue: ``clip((acc >> 8) + bias [+ res], 0, 127)``."""
    v = (acc >> 8) + bias.astype(np.int32)[None, :, None, None]
    if res is not None:
        v = v + res.astype(np.int32)
    return np.clip(v, 0, 127).astype(np.int8)


# --------------------------------------------------------------------------------------------
# The host transform


@pytest.mark.parametrize(
    "window",
    [
        (3, 3, 1, 1, 1, 1, 1, 1),
        (7, 7, 2, 2, 3, 3, 3, 3),
        (5, 3, 2, 1, 0, 2, 1, 3),
        (2, 2, 3, 2, 0, 0, 0, 0),
    ],
)
def test_window_patches_are_im2col(window: tuple[int, ...]) -> None:
    rng = np.random.default_rng(sum(window))
    x = rng.integers(-128, 128, size=(2, 3, 11, 9), dtype=np.int8)
    kh, kw, sh, sw, *pads = window
    xp = padded_image(x, tuple(pads))  # type: ignore[arg-type]
    got = window_patches(x, window)
    n, c = x.shape[:2]
    oh, ow = (xp.shape[2] - kh) // sh + 1, (xp.shape[3] - kw) // sw + 1
    assert got.shape == windowed_shape(x.shape, window) == (n, c * kh * kw, oh, ow)
    for ch in range(c):
        for i in range(kh):
            for j in range(kw):
                for r in range(oh):
                    for s in range(ow):
                        np.testing.assert_array_equal(
                            got[:, ch * kh * kw + i * kw + j, r, s],
                            xp[:, ch, r * sh + i, s * sw + j],
                        )


def test_windowed_argument_packs_the_patches(default_cfg: VTAConfig) -> None:
    window = (3, 3, 2, 2, 1, 1, 1, 1)
    spec = ArgSpec.for_layout("x", "in", "int8", (1, 3, 8, 8), "NCHW", default_cfg, window=window)
    assert spec.padded_shape == (1, 32, 4, 4) and spec.window == window
    x = np.random.default_rng(0).integers(-128, 128, size=(1, 3, 8, 8), dtype=np.int8)
    plain = ArgSpec.for_layout("p", "in", "int8", (1, 27, 4, 4), "NCHW", default_cfg)
    assert spec.pack(x) == plain.pack(np.ascontiguousarray(window_patches(x, window)))
    assert "windowed 3x3/2x2 pad 1x1x1x1" in spec.describe()
    with pytest.raises(ArgumentError, match="set of patches and cannot be unpacked"):
        spec.unpack(spec.pack(x))


def _module_with(spec: ArgSpec, cfg: VTAConfig) -> BinaryModule:
    """The small module of ``tests/binary_helpers.py`` with ``spec`` as one more argument."""
    mod = small_module(cfg)
    top = max(s.phys + s.nbytes for s in mod.program.segments)
    phys = -(-top // 4096) * 4096
    mod.program.segments.append(Segment("xw", phys, spec.packed_nbytes))
    mod.args.append(dataclasses.replace(spec, name="xw").placed("xw", phys))
    return mod


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_window_round_trips_through_the_binary(name: str) -> None:
    cfg = CONFIGS[name]
    spec = ArgSpec.for_layout(
        "xw", "in", "int8", (cfg.batch, 3, 12, 10), "NCHW", cfg, window=(7, 7, 2, 2, 3, 3, 3, 3)
    )
    mod = _module_with(spec, cfg)
    data = to_bytes(mod)
    back = from_bytes(data, cfg)
    assert back.args == mod.args and back.args[-1].window == (7, 7, 2, 2, 3, 3, 3, 3)
    assert to_bytes(back) == data


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"window": (3, 3, 1, 1)}, "does not have the 8 fields"),
        ({"window": (3, 0, 1, 1, 0, 0, 0, 0)}, "kernel size or stride of 0"),
        ({"window": (9, 3, 1, 1, 0, 0, 0, 0)}, "larger than the padded image"),
        ({"window": (3, 3, 1, 1, 0, 0, 0, 0), "direction": "inout"}, "only allowed for 'in'"),
        (
            {"window": (3, 3, 1, 1, 0, 0, 0, 0), "shape": (8, 8), "padded": (8, 8)},
            r"needs the axes \(C, H, W\)",
        ),
        (
            {"window": (3, 3, 1, 1, 0, 0, 0, 0), "padded": (1, 3, 8, 8)},
            r"smaller than windowed shape \(1, 27, 6, 6\)",
        ),
    ],
)
def test_bad_windows_are_rejected(kwargs: dict, match: str) -> None:
    shape = kwargs.get("shape", (1, 3, 8, 8))
    padded = kwargs.get("padded", (1, 32, 6, 6))
    with pytest.raises(BinaryFormatError, match=match):
        ArgSpec(
            "x",
            kwargs.get("direction", "in"),
            "int8",
            shape,
            padded,
            padded,
            tuple(range(len(padded))),
            window=kwargs["window"],
        )


def test_vtaisa_arg_prints_and_parses_its_window(default_cfg: VTAConfig) -> None:
    text = conv_mlir(Layer("t", 1, 8, 8, 3, 16, 3, 3, 1, 1, 1, 1))
    out = run_pipeline(parse(text, config=default_cfg), "vta-to-isa")
    printed = str(out)
    assert "window [3, 3, 1, 1, 1, 1, 1, 1]" in printed
    assert "window [3, 3, 1, 1, 0, 0, 0, 0]" in printed
    assert str(parse(printed, config=default_cfg)) == printed


# --------------------------------------------------------------------------------------------
# The folding decision


def packed_args(text: str, cfg: VTAConfig) -> list[tuple[MemRefType, DictionaryAttr]]:
    module = run_pipeline(parse(text, config=cfg), "vta-pack")
    (f,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    assert f.arg_attrs is not None
    return [
        (a.type, attrs.data["vta.arg"])  # type: ignore[misc]
        for a, attrs in zip(f.body.block.args, f.arg_attrs.data, strict=True)
    ]


def test_reduction_blocks() -> None:
    assert reduction_blocks(3, 7, 7, 16) == (49, 10)  # ResNet-18's C1: folded
    assert reduction_blocks(16, 3, 3, 16) == (9, 9)  # a whole block: kept
    assert reduction_blocks(8, 3, 3, 16) == (9, 5)  # less than twice cheaper: kept
    assert reduction_blocks(3, 7, 7, 32) == (49, 5)


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_stem_is_folded(name: str) -> None:
    cfg = CONFIGS[name]
    layer = Layer("stem", cfg.batch, 16, 16, 3, 24, 7, 7, 3, 3, 2, 2)
    (x_t, x_arg), (w_t, w_arg), _, (y_t, _) = packed_args(conv_mlir(layer), cfg)
    b, bi, bo = cfg.batch, cfg.block_in, cfg.block_out
    folded = -(-147 // bi)
    assert x_t.get_shape() == (1, folded, 8, 8, b, bi)
    assert w_t.get_shape() == (-(-24 // bo), folded, 1, 1, bo, bi)
    assert y_t.get_shape() == (1, -(-24 // bo), 8, 8, b, bo)
    assert tuple(x_arg.data["window"].get_values()) == (7, 7, 2, 2, 3, 3, 3, 3)  # type: ignore
    assert tuple(w_arg.data["window"].get_values()) == (7, 7, 1, 1, 0, 0, 0, 0)  # type: ignore


@pytest.mark.parametrize(
    "layer",
    [
        Layer("whole_block", 1, 8, 8, 16, 16, 3, 3, 1, 1, 1, 1),
        Layer("half_block", 1, 8, 8, 8, 16, 3, 3, 1, 1, 1, 1),
        Layer("pointwise", 1, 8, 8, 3, 16, 1, 1, 0, 0, 1, 1),
    ],
    ids=lambda layer: layer.name,
)
def test_convolutions_not_worth_folding_keep_their_layout(
    layer: Layer, default_cfg: VTAConfig
) -> None:
    (x_t, x_arg), (w_t, w_arg), *_ = packed_args(conv_mlir(layer), default_cfg)
    assert "window" not in x_arg.data and "window" not in w_arg.data
    assert x_t.get_shape()[2:4] == (layer.height, layer.width)
    assert w_t.get_shape()[2:4] == (layer.hkernel, layer.wkernel)


def test_data_read_elsewhere_is_not_folded(default_cfg: VTAConfig) -> None:
    """A stride-1 'same' convolution whose output adds its own input (a residual of the data):
    the data needs its plain layout too, so the convolution stays direct."""
    layer = Layer("self_residual", 1, 8, 8, 3, 3, 3, 3, 1, 1, 1, 1)
    text = conv_mlir(layer, residual=True).replace("%res", "%x")
    text = text.replace(", %x: memref<1x3x8x8xi8>, %y", ", %y")
    module = vta_compile(text, config=default_cfg)
    rng = np.random.default_rng(2)
    x = rng.integers(-128, 128, size=(1, 3, 8, 8), dtype=np.int8)
    w = rng.integers(-128, 128, size=(3, 3, 3, 3), dtype=np.int8)
    bias = rng.integers(-64, 64, size=(3,), dtype=np.int32)
    (y,) = module(x, w, bias)
    np.testing.assert_array_equal(
        y, layer_epilogue(direct_conv(x, w, (1, 1), (1, 1, 1, 1)), bias, x)
    )


# --------------------------------------------------------------------------------------------
# End to end

#: Stem-like convolutions (batch filled in per configuration): 1, 3 and 4 channels; 3×3, 5×5
#: and 7×7 kernels (and a 5×3 one); strides 1 and 2; padding 0 to 3.
STEMS = (
    Layer("c1_3x3_s1_p1", 0, 10, 10, 1, 16, 3, 3, 1, 1, 1, 1),
    Layer("c3_5x5_s2_p2", 0, 13, 11, 3, 24, 5, 5, 2, 2, 2, 2),
    Layer("c4_3x3_s1_p0", 0, 9, 8, 4, 32, 3, 3, 0, 0, 1, 1),
    Layer("c3_7x7_s2_p3", 0, 20, 20, 3, 16, 7, 7, 3, 3, 2, 2),
    Layer("c1_7x7_s2_p0", 0, 17, 15, 1, 20, 7, 7, 0, 0, 2, 2),
    Layer("c4_5x3_s21_p21", 0, 12, 9, 4, 16, 5, 3, 2, 1, 2, 1),
)


def run_stem(
    layer: Layer, cfg: VTAConfig, *, residual: bool = False, generic: bool = False, seed: int = 0
) -> None:
    text = conv_mlir(layer, residual=residual, generic=generic)
    (x_t, x_arg), *_ = packed_args(text, cfg)
    assert "window" in x_arg.data  # the convolution is folded
    module = vta_compile(text, config=cfg)
    rng = np.random.default_rng(seed)
    x = rng.integers(-128, 128, size=layer.x_shape, dtype=np.int8)
    w = rng.integers(-128, 128, size=layer.w_shape, dtype=np.int8)
    bias = rng.integers(-64, 64, size=(layer.out_filter,), dtype=np.int32)
    res = rng.integers(-128, 128, size=layer.y_shape, dtype=np.int8) if residual else None
    (y,) = module(x, w, bias, *([] if res is None else [res]))
    acc = direct_conv(
        x, w, (layer.hstride, layer.wstride), (layer.hpad, layer.hpad, layer.wpad, layer.wpad)
    )
    expected = layer_epilogue(acc, bias, res)
    np.testing.assert_array_equal(y, expected)
    assert module.last_run.warnings == []
    assert len(np.unique(expected)) > 4  # results spread over [0, 127]


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("layer", STEMS, ids=lambda layer: layer.name)
def test_folded_convolutions_match_numpy(layer: Layer, name: str) -> None:
    cfg = CONFIGS[name]
    run_stem(dataclasses.replace(layer, batch=cfg.batch), cfg, seed=len(layer.name))


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_folded_generic_form_and_residual(name: str) -> None:
    cfg = CONFIGS[name]
    layer = Layer("stem_res", cfg.batch, 11, 11, 3, 16, 3, 3, 1, 1, 1, 1)
    run_stem(layer, cfg, generic=True, seed=1)
    run_stem(layer, cfg, residual=True, seed=2)


def asymmetric_mlir(
    n: int,
    c: int,
    h: int,
    w: int,
    o: int,
    kh: int,
    kw: int,
    pads: tuple[int, int, int, int],
    strides: tuple[int, int],
) -> str:
    """A convolution padded differently on each side, with an epilogue ``>> 6``, ``+ 5``,
    ``clip [-20, 90]`` and no bias."""
    top, bottom, left, right = pads
    hp, wp = h + top + bottom, w + left + right
    oh, ow = (hp - kh) // strides[0] + 1, (wp - kw) // strides[1] + 1
    x_t, xp_t = f"memref<{n}x{c}x{h}x{w}xi8>", f"memref<{n}x{c}x{hp}x{wp}xi8>"
    w_t = f"memref<{o}x{c}x{kh}x{kw}xi8>"
    acc_t, y_t = f"memref<{n}x{o}x{oh}x{ow}xi32>", f"memref<{n}x{o}x{oh}x{ow}xi8>"
    view_t = (
        f"memref<{n}x{c}x{h}x{w}xi8, strided<[{c * hp * wp}, {hp * wp}, {wp}, 1], "
        f"offset: {top * wp + left}>>"
    )
    ident = "affine_map<(n, c, h, w) -> (n, c, h, w)>"
    return f"""
func.func @asym(%x: {x_t}, %w: {w_t}, %y: {y_t}) {{
  %c0_i8 = arith.constant 0 : i8
  %c0 = arith.constant 0 : i32
  %xp = memref.alloc() : {xp_t}
  linalg.fill ins(%c0_i8 : i8) outs(%xp : {xp_t})
  %xi = memref.subview %xp[0, 0, {top}, {left}] [{n}, {c}, {h}, {w}] [1, 1, 1, 1]
      : {xp_t} to {view_t}
  memref.copy %x, %xi : {x_t} to {view_t}
  %acc = memref.alloc() : {acc_t}
  linalg.fill ins(%c0 : i32) outs(%acc : {acc_t})
  linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>,
                            strides = dense<[{strides[0]}, {strides[1]}]> : tensor<2xi64>}}
      ins(%xp, %w : {xp_t}, {w_t}) outs(%acc : {acc_t})
  linalg.generic {{indexing_maps = [{ident}, {ident}],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}}
      ins(%acc : {acc_t}) outs(%y : {y_t}) {{
  ^bb0(%v: i32, %out: i8):
    %c6 = arith.constant 6 : i32
    %c5 = arith.constant 5 : i32
    %lo = arith.constant -20 : i32
    %hi = arith.constant 90 : i32
    %s = arith.shrsi %v, %c6 : i32
    %a = arith.addi %s, %c5 : i32
    %m = arith.minsi %a, %hi : i32
    %r = arith.maxsi %m, %lo : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }}
  memref.dealloc %xp : {xp_t}
  return
}}
"""


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_folded_asymmetric_padding(name: str) -> None:
    cfg = CONFIGS[name]
    n, c, h, w, o = cfg.batch, 3, 9, 10, 20
    pads, strides = (0, 3, 2, 1), (2, 1)
    text = asymmetric_mlir(n, c, h, w, o, 5, 5, pads, strides)
    (_, x_arg), *_ = packed_args(text, cfg)
    assert tuple(x_arg.data["window"].get_values()) == (5, 5, 2, 1, 0, 3, 2, 1)  # type: ignore
    module = vta_compile(text, config=cfg)
    rng = np.random.default_rng(6)
    x = rng.integers(-128, 128, size=(n, c, h, w), dtype=np.int8)
    wgt = rng.integers(-128, 128, size=(o, c, 5, 5), dtype=np.int8)
    (y,) = module(x, wgt)
    acc = direct_conv(x, wgt, strides, pads)
    expected = np.clip((acc >> 6) + 5, -20, 90).astype(np.int8)
    np.testing.assert_array_equal(y, expected)
    assert len(np.unique(expected)) > 4


def test_vta_run_checks_a_folded_stem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "stem.mlir"
    path.write_text(conv_mlir(Layer("stem", 1, 24, 24, 3, 32, 7, 7, 3, 3, 2, 2)))
    assert vta_run.main([str(path), "--random-inputs", "--check", "--check-hazards"]) == 0, (
        capsys.readouterr().err
    )
    out = capsys.readouterr().out
    assert "check: PASS" in out and "hazards: 0 found" in out
