"""``vta-pack`` on 2-D convolutions: the packed IR computes what the original computes, on
every shipped configuration, and the packed form is the stage-1 normal form for conv
(``docs/pipeline.md``).

As in ``tests/test_pack.py``, the numpy reference evaluator runs both forms: the original on
random logical arrays, the packed function on the same arrays packed with each argument's
``vta.arg`` transform, its outputs unpacked.  A hand-written numpy convolution checks the
evaluator on the original examples.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir.affine import AffineMap

from tests.test_pack import functions, pack, run_packed
from vta_mlir.config import VTAConfig
from vta_mlir.ir.context import parse_module
from vta_mlir.reference import run_function

from .mlir_programs import BIAS, bias_epilogue, clip
from .numerics import random_memref_args, trunc8, wrap

#: The convolution examples.
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "conv"


def conv2d(x: np.ndarray, w: np.ndarray, stride: int) -> np.ndarray:
    """``y[n, f, oh, ow] = Σ x[n, c, oh*s + kh, ow*s + kw] · w[f, c, kh, kw]`` on i32."""
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    y = np.zeros((n, f, oh, ow), dtype=np.int64)
    for dy in range(kh):
        for dx in range(kw):
            patch = x[:, :, dy:dy + (oh - 1) * stride + 1:stride,
                      dx:dx + (ow - 1) * stride + 1:stride].astype(np.int64)
            y += np.einsum("nchw,fc->nfhw", patch, w[:, :, dy, dx].astype(np.int64))
    return wrap(y, 32)


def epilogue(acc: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """docs/performance.md §4.2: ``>> 8``, ``+ bias`` per output channel, ``min 127``, ``max 0``."""
    v = wrap((acc >> 8) + bias.astype(np.int64)[None, :, None, None], 32)
    return trunc8(np.maximum(np.minimum(v, 127), 0))


def check_packed(text: str, cfg: VTAConfig, seed: int = 7) -> None:
    """Every function of ``text``, packed for ``cfg``, computes what the original computes."""
    originals = functions(parse_module(text))
    for original, packed in zip(originals, functions(pack(text, cfg)), strict=True):
        inputs = random_memref_args(original, np.random.default_rng(seed))
        expected = [a.copy() for a in inputs]
        run_function(original, expected)
        got = run_packed(packed, inputs)
        for arg, want, have in zip(original.body.block.args, expected, got, strict=True):
            np.testing.assert_array_equal(have, want, err_msg=f"{original.sym_name.data}: "
                                                              f"{arg.name_hint}")


# --------------------------------------------------------------------------------------------
# The shipped example
# --------------------------------------------------------------------------------------------


def test_small_example_matches_numpy() -> None:
    module = parse_module((EXAMPLES / "conv2d_small.mlir").read_text())
    for f, stride in zip(functions(module), (1, 2), strict=True):
        x, w, bias, y = random_memref_args(f, np.random.default_rng(1))
        expected = epilogue(conv2d(x, w, stride), bias)
        arrays = [x, w, bias, y]
        run_function(f, arrays)
        np.testing.assert_array_equal(arrays[3], expected)


def test_small_example_packed_matches_original(cfg: VTAConfig) -> None:
    check_packed((EXAMPLES / "conv2d_small.mlir").read_text(), cfg)


def test_small_example_is_normal_form(cfg: VTAConfig) -> None:
    """Only normal-form ops; one contraction with the packed conv maps; every argument in the
    ``tensor``/``data``/``kernel``/``channel_bias`` layout of the configuration."""
    b, bi, bo = cfg.batch, cfg.block_in, cfg.block_out
    module = pack((EXAMPLES / "conv2d_small.mlir").read_text(), cfg)
    for f, stride in zip(functions(module), (1, 2), strict=True):
        allowed = (arith.ConstantOp, memref.AllocOp, linalg.FillOp, linalg.GenericOp,
                   func.ReturnOp)
        assert all(isinstance(op, allowed) for op in f.body.block.ops)
        generics = [op for op in f.body.block.ops if isinstance(op, linalg.GenericOp)]
        convs = [g for g in generics if len(g.iterator_types) == 10]
        assert len(convs) == 1
        x_map = convs[0].indexing_maps.data[0].data
        assert x_map.eval([0, 0, 1, 1, 0, 0, 0, 0, 0, 0], []) == (0, 0, stride, stride, 0, 0)
        assert x_map.eval([0, 0, 0, 0, 0, 1, 1, 0, 0, 0], []) == (0, 0, 1, 1, 0, 0)
        for g in generics:
            if g is not convs[0]:
                assert g.indexing_maps.data[-1].data == AffineMap.identity(6)
        shapes = [a.type.get_shape() for a in f.body.block.args]  # type: ignore[attr-defined]
        oh = 6 if stride == 1 else 3
        assert shapes == [(1, 32 // bi, 8, 8, b, bi),
                          (32 // bo, 32 // bi, 3, 3, bo, bi),
                          (1, 32 // bo, 1, 1, b, bo),
                          (1, 32 // bo, oh, oh, b, bo)]


def test_c8_example_packs_to_resnet_layouts(default_cfg: VTAConfig) -> None:
    """ResNet-18 C8 (docs/performance.md §4.2) packs onto the layouts of docs/isa.md §1.6."""
    (f,) = functions(pack((EXAMPLES / "conv2d_c8.mlir").read_text(), default_cfg))
    shapes = [a.type.get_shape() for a in f.body.block.args]  # type: ignore[attr-defined]
    assert shapes == [(1, 16, 14, 14, 1, 16), (16, 16, 3, 3, 16, 16), (1, 16, 1, 1, 1, 16),
                      (1, 16, 12, 12, 1, 16)]


# --------------------------------------------------------------------------------------------
# Other forms: padded channels, batches, strides, loop orders, bias placements
# --------------------------------------------------------------------------------------------

_GENERIC_CONV = """
func.func @{name}(%x: memref<{x}xi8>, %w: memref<{w}xi8>, %bias: memref<{o}xi32>,
                  %y: memref<{y}xi8>) {{
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<{y}xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<{y}xi32>)
  linalg.generic {{indexing_maps = [{maps}],
                  iterator_types = [{iterators}]}}
      ins(%x, %w : memref<{x}xi8>, memref<{w}xi8>) outs(%acc : memref<{y}xi32>) {{
  ^bb0(%a: i8, %b: i8, %s: i32):
    %ae = arith.extsi %a : i8 to i32
    %be = arith.extsi %b : i8 to i32
    %p = arith.muli %be, %ae : i32
    %r = arith.addi %p, %s : i32
    linalg.yield %r : i32
  }}
{epilogue}
  return
}}
"""

#: (n, f, oh, ow, c, kh, kw) in the upstream order, strides (1, 2).
_UPSTREAM_MAPS = ("affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow * 2 + kw)>, "
                  "affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>, "
                  "affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>")
_UPSTREAM_ITERATORS = ('"parallel", "parallel", "parallel", "parallel", "reduction", '
                       '"reduction", "reduction"')
#: The reductions first: (c, kh, kw, n, f, oh, ow), stride 2.
_REORDERED_MAPS = ("affine_map<(c, kh, kw, n, f, oh, ow) -> (n, c, kh + oh * 2, kw + 2 * ow)>, "
                   "affine_map<(c, kh, kw, n, f, oh, ow) -> (f, c, kh, kw)>, "
                   "affine_map<(c, kh, kw, n, f, oh, ow) -> (n, f, oh, ow)>")
_REORDERED_ITERATORS = ('"reduction", "reduction", "reduction", "parallel", "parallel", '
                        '"parallel", "parallel"')


def generic_conv(name: str, x: str, w: str, o: str, y: str, maps: str, iterators: str) -> str:
    """:data:`_GENERIC_CONV` with the epilogue ``clip((acc + bias) >> 6, 0, 127)``."""
    shape = tuple(map(int, y.split("x")))
    epilogue = bias_epilogue(shape, [("addi", BIAS), ("shrsi", 6), *clip(0, 127)])
    return _GENERIC_CONV.format(name=name, x=x, w=w, o=o, y=y, maps=maps, iterators=iterators,
                                epilogue=epilogue)


CONV_FORMS = {
    # ResNet-18 C1-like: 3 input channels, zero-padded to a block by the host.
    "three_channels": generic_conv(
        name="c1", x="2x3x7x9", w="20x3x3x3", o="20", y="2x20x5x4", maps=_UPSTREAM_MAPS,
        iterators=_UPSTREAM_ITERATORS),
    "reordered_loops": generic_conv(
        name="reordered", x="3x17x7x7", w="18x17x1x3", o="18", y="3x18x4x3",
        maps=_REORDERED_MAPS, iterators=_REORDERED_ITERATORS),
    "named_with_i32_init": """
func.func @init(%x: memref<2x16x5x5xi8>, %w: memref<16x16x2x2xi8>, %init: memref<2x16x4x4xi32>,
                %y: memref<2x16x4x4xi8>) {
  %acc = memref.alloc() : memref<2x16x4x4xi32>
  memref.copy %init, %acc : memref<2x16x4x4xi32> to memref<2x16x4x4xi32>
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>,
                            strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<2x16x5x5xi8>, memref<16x16x2x2xi8>) outs(%acc : memref<2x16x4x4xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<2x16x4x4xi32>) outs(%y : memref<2x16x4x4xi8>) {
  ^bb0(%v: i32, %out: i8):
    %c4 = arith.constant 4 : i32
    %s = arith.shrsi %v, %c4 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }
  return
}
""",
}


@pytest.mark.parametrize("name", sorted(CONV_FORMS))
def test_conv_forms_match_original(name: str, cfg: VTAConfig) -> None:
    check_packed(CONV_FORMS[name], cfg, seed=3)


def test_channels_are_zero_padded(cfg: VTAConfig) -> None:
    """3 channels with a 3×3 kernel are folded into a 1×1 convolution of the data's patches
    (27 channels, zero-padded to whole blocks: ``passes/pack/fold_window.py``)."""
    (f,) = functions(pack(CONV_FORMS["three_channels"], cfg))
    x, w, bias, y = (a.type for a in f.body.block.args)
    assert isinstance(x, MemRefType) and isinstance(w, MemRefType)
    b, bi, bo = cfg.batch, cfg.block_in, cfg.block_out
    assert x.get_shape() == (-(-2 // b), -(-27 // bi), 5, 4, b, bi)
    assert w.get_shape() == (-(-20 // bo), -(-27 // bi), 1, 1, bo, bi)
    assert y.get_shape() == (-(-2 // b), -(-20 // bo), 5, 4, b, bo)  # type: ignore[attr-defined]
    assert bias.get_shape() == (1, -(-20 // bo), 1, 1, b, bo)  # type: ignore[attr-defined]
