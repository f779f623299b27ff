"""``vta-pack`` on zero-padded convolutions and residual adds.

A padded convolution is the usual memref idiom: a buffer of the padded shape filled with 0, the
data argument copied into its interior ``memref.subview``, the buffer read by the convolution.
The packed function keeps the idiom in the packed layout (``docs/pipeline.md``, stage 1,
"Convolutions"), and computes what the original computes: the numpy reference evaluator runs
both, as in ``tests/test_pack_conv.py``.  A residual (an i8 tensor shaped like the output,
added in the epilogue) is loaded into a second accumulator by an ``extsi`` copy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.dialects.linalg import ops as linalg

from tests.test_pack import functions, pack
from tests.test_pack_conv import check_packed, conv2d
from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import set_module_config
from vta_mlir.ir.context import make_context, parse_module, print_module
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.passes.pack import PackPass
from vta_mlir.reference import run_function

from .mlir_programs import BIAS, bias_epilogue, mac_region
from .numerics import random_memref_args, wrap

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "conv"

_NAMED = """
  linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>,
                            strides = dense<{s}> : tensor<2xi64>}}
      ins(%xp, %w : memref<{xp}xi8>, memref<{w}xi8>) outs(%acc : memref<{y}xi32>)"""

_GENERIC = """
  linalg.generic {{indexing_maps = [
        affine_map<(n, f, oh, ow, c, kh, kw) -> (n, c, oh * {s} + kh, ow * {s} + kw)>,
        affine_map<(n, f, oh, ow, c, kh, kw) -> (f, c, kh, kw)>,
        affine_map<(n, f, oh, ow, c, kh, kw) -> (n, f, oh, ow)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel",
                        "reduction", "reduction", "reduction"]}}
      ins(%xp, %w : memref<{xp}xi8>, memref<{w}xi8>) outs(%acc : memref<{y}xi32>) {{
""" + mac_region(acc="%sum") + """
  }}"""

_MEMREF_COPY = "  memref.copy %x, %xi : memref<{x}xi8> to {view}"
_LINALG_COPY = "  linalg.copy ins(%x : memref<{x}xi8>) outs(%xi : {view})"

_PADDED = """
func.func @{name}(%x: memref<{x}xi8>, %w: memref<{w}xi8>, %bias: memref<{o}xi32>,
                  %y: memref<{y}xi8>) {{
  %z8 = arith.constant {fill} : i8
  %c0 = arith.constant 0 : i32
  %xp = memref.alloc() : memref<{xp}xi8>
  linalg.fill ins(%z8 : i8) outs(%xp : memref<{xp}xi8>)
  %xi = memref.subview %xp[{offsets}] [{sizes}] [1, 1, 1, 1] : memref<{xp}xi8> to {view}
{copy}
  %acc = memref.alloc() : memref<{y}xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<{y}xi32>)
{conv}
{epilogue}
  memref.dealloc %acc : memref<{y}xi32>
  memref.dealloc %xp : memref<{xp}xi8>
  return
}}
"""


def _dims(shape: tuple[int, ...]) -> str:
    return "x".join(map(str, shape))


def padded_conv(
    name: str,
    x: tuple[int, int, int, int],
    f: int,
    k: int,
    stride: int,
    pads: tuple[int, int, int, int],
    *,
    generic: bool = False,
    linalg_copy: bool = False,
    fill: int = 0,
    offsets: tuple[int, int, int, int] | None = None,
) -> str:
    """A ``k×k`` convolution of ``x`` (NCHW) into ``f`` channels, reading a copy of ``x``
    padded by ``pads`` = (top, bottom, left, right); ``offsets`` override the subview's."""
    n, c, h, w = x
    top, bottom, left, right = pads
    xp = (n, c, h + top + bottom, w + left + right)
    if offsets is None:
        offsets = (0, 0, top, left)
    oh, ow = (xp[2] - k) // stride + 1, (xp[3] - k) // stride + 1
    y = (n, f, oh, ow)
    strides = (xp[1] * xp[2] * xp[3], xp[2] * xp[3], xp[3], 1)
    offset = sum(o * s for o, s in zip(offsets, strides, strict=True))
    view = (f"memref<{_dims(x)}xi8, strided<[{', '.join(map(str, strides))}], "
            f"offset: {offset}>>")
    fields = {"x": _dims(x), "xp": _dims(xp), "w": _dims((f, c, k, k)), "y": _dims(y),
              "o": str(f), "s": stride, "view": view}
    conv = (_GENERIC if generic else _NAMED).format(**fields)
    epilogue = bias_epilogue(y, [("shrsi", 8), ("addi", BIAS), ("minsi", 127), ("maxsi", 0)])
    copy = (_LINALG_COPY if linalg_copy else _MEMREF_COPY).format(**fields)
    return _PADDED.format(name=name, fill=fill, offsets=", ".join(map(str, offsets)),
                          sizes=", ".join(map(str, x)), copy=copy, conv=conv, epilogue=epilogue,
                          **fields)


PADDED_FORMS = {
    "3x3_pad1_stride1": padded_conv("c3", (1, 16, 6, 6), 32, 3, 1, (1, 1, 1, 1)),
    "3x3_pad1_stride2": padded_conv("c3s2", (1, 32, 7, 7), 16, 3, 2, (1, 1, 1, 1)),
    "7x7_pad3_stride2_c3": padded_conv("c1", (1, 3, 10, 10), 16, 7, 2, (3, 3, 3, 3),
                                       generic=True),
    "asymmetric": padded_conv("asym", (2, 16, 5, 6), 16, 3, 1, (0, 2, 1, 3)),
    "linalg_copy": padded_conv("lcopy", (1, 16, 5, 5), 16, 3, 1, (1, 1, 1, 1),
                               linalg_copy=True),
    "named": padded_conv("named", (1, 16, 6, 5), 16, 3, 2, (1, 2, 2, 1)),
    "generic": padded_conv("generic", (1, 16, 6, 5), 16, 3, 2, (1, 2, 2, 1), generic=True),
    "pad15": padded_conv("p15", (1, 16, 2, 2), 16, 1, 1, (15, 0, 0, 15)),
}


def pad_nchw(x: np.ndarray, pads: tuple[int, int, int, int]) -> np.ndarray:
    top, bottom, left, right = pads
    return np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))


# --------------------------------------------------------------------------------------------
# Packed vs original
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PADDED_FORMS))
def test_padded_forms_match_original(name: str, cfg: VTAConfig) -> None:
    check_packed(PADDED_FORMS[name], cfg, seed=5)


def test_original_matches_numpy() -> None:
    """The evaluator runs the stage-0 idiom as a padded convolution."""
    (f,) = functions(parse_module(PADDED_FORMS["asymmetric"]))
    x, w, bias, y = random_memref_args(f, np.random.default_rng(2))
    arrays = [x, w, bias, y]
    run_function(f, arrays)
    v = wrap((conv2d(pad_nchw(x, (0, 2, 1, 3)), w, 1) >> 8)
             + bias.astype(np.int64)[None, :, None, None], 32)
    np.testing.assert_array_equal(arrays[3], np.clip(v, 0, 127).astype(np.int8))


def test_examples_match_original(cfg: VTAConfig) -> None:
    check_packed((EXAMPLES / "conv2d_padded.mlir").read_text(), cfg)
    check_packed((EXAMPLES / "conv2d_residual.mlir").read_text(), cfg)


# --------------------------------------------------------------------------------------------
# The stage-1 form
# --------------------------------------------------------------------------------------------


def test_padded_form(cfg: VTAConfig) -> None:
    """alloc, fill 0, subview, copy of the packed argument, right before the convolution,
    which is the only reader of the padded buffer; its dealloc where it was."""
    b, bi = cfg.batch, cfg.block_in
    (f,) = functions(pack(PADDED_FORMS["asymmetric"], cfg))
    ops = list(f.body.block.ops)
    allocs = [op for op in ops if isinstance(op, memref.AllocOp)
              and op.memref.name_hint == "xp"]
    assert len(allocs) == 1
    alloc = allocs[0]
    i = ops.index(alloc)
    fill, view, copy, conv = ops[i + 1:i + 5]
    x = f.body.block.args[0]
    assert isinstance(x.type, MemRefType)
    packed_x = (-(-2 // b), -(-16 // bi), 5, 6, b, bi)
    assert x.type.get_shape() == packed_x
    assert alloc.memref.type.get_shape() == (packed_x[0], packed_x[1], 7, 10, b, bi)
    assert isinstance(fill, linalg.FillOp) and fill.outputs[0] is alloc.memref
    zero = fill.inputs[0].owner
    assert isinstance(zero, arith.ConstantOp) and zero.value.value.data == 0  # type: ignore
    assert isinstance(view, memref.SubviewOp) and view.source is alloc.memref
    assert tuple(view.static_offsets.get_values()) == (0, 0, 0, 1, 0, 0)
    assert tuple(view.static_sizes.get_values()) == packed_x
    assert tuple(view.static_strides.get_values()) == (1,) * 6
    assert isinstance(copy, memref.CopyOp)
    assert copy.source is x and copy.destination is view.result
    assert isinstance(conv, linalg.GenericOp) and len(conv.iterator_types) == 10
    assert conv.inputs[0] is alloc.memref
    readers = {use.operation for use in alloc.memref.uses}
    assert readers == {fill, view, conv, ops[-2]}
    assert isinstance(ops[-2], memref.DeallocOp) and isinstance(ops[-1], func.ReturnOp)


def test_dealloc_keeps_its_place(default_cfg: VTAConfig) -> None:
    """A dealloc right after the convolution stays before the epilogue."""
    text = PADDED_FORMS["3x3_pad1_stride1"]
    dealloc = "  memref.dealloc %xp : memref<1x16x8x8xi8>\n"
    assert dealloc in text
    epilogue = "\n  linalg.generic {indexing_maps = [affine_map<(a, b, c, d)"
    assert text.count(epilogue) == 1
    text = text.replace(dealloc, "").replace(epilogue, "\n" + dealloc + epilogue[1:])
    (f,) = functions(pack(text, default_cfg))
    ops = list(f.body.block.ops)
    conv = next(op for op in ops if isinstance(op, linalg.GenericOp)
                and len(op.iterator_types) == 10)
    assert isinstance(ops[ops.index(conv) + 1], memref.DeallocOp)
    check_packed(text, default_cfg)


# --------------------------------------------------------------------------------------------
# Residual add
# --------------------------------------------------------------------------------------------

_RESIDUAL = """
func.func @res(%x: memref<2x16x4x5xi8>, %w: memref<24x16x1x1xi8>, %bias: memref<24xi32>,
               %r: memref<2x24x4x5xi8>, %y: memref<2x24x4x5xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<2x24x4x5xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<2x24x4x5xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>,
                            strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<2x16x4x5xi8>, memref<24x16x1x1xi8>) outs(%acc : memref<2x24x4x5xi32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (c)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %bias, %r : memref<2x24x4x5xi32>, memref<24xi32>, memref<2x24x4x5xi8>)
      outs(%y : memref<2x24x4x5xi8>) {
  ^bb0(%v: i32, %b: i32, %re: i8, %out: i8):
    %c4 = arith.constant 4 : i32
    %c127 = arith.constant 127 : i32
    %zero = arith.constant 0 : i32
    %a = arith.addi %v, %b : i32
    %s = arith.shrsi %a, %c4 : i32
    %rx = arith.extsi %re : i8 to i32
    %sum = arith.addi %s, %rx : i32
    %hi = arith.minsi %sum, %c127 : i32
    %lo = arith.maxsi %hi, %zero : i32
    %t = arith.trunci %lo : i32 to i8
    linalg.yield %t : i8
  }
  return
}
"""

_MATMUL_RESIDUAL = """
func.func @mres(%x: memref<3x40xi8>, %w: memref<40x20xi8>, %r: memref<3x20xi8>,
                %y: memref<3x20xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<3x20xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<3x20xi32>)
  linalg.matmul ins(%x, %w : memref<3x40xi8>, memref<40x20xi8>) outs(%acc : memref<3x20xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>,
                                   affine_map<(m, n) -> (m, n)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%r, %acc : memref<3x20xi8>, memref<3x20xi32>) outs(%y : memref<3x20xi8>) {
  ^bb0(%re: i8, %v: i32, %out: i8):
    %c6 = arith.constant 6 : i32
    %s = arith.shrsi %v, %c6 : i32
    %rx = arith.extsi %re : i8 to i32
    %sum = arith.addi %rx, %s : i32
    %t = arith.trunci %sum : i32 to i8
    linalg.yield %t : i8
  }
  return
}
"""


@pytest.mark.parametrize("text", [_RESIDUAL, _MATMUL_RESIDUAL], ids=["conv", "matmul"])
def test_residual_matches_original(text: str, cfg: VTAConfig) -> None:
    check_packed(text, cfg, seed=11)


def test_residual_form(cfg: VTAConfig) -> None:
    """The residual is packed like the output, loaded by an ``extsi`` copy into a second
    accumulator and added in place after the shift, before the clip."""
    b, bo = cfg.batch, cfg.block_out
    (f,) = functions(pack(_RESIDUAL, cfg))
    r = f.body.block.args[3]
    y = f.body.block.args[4]
    assert isinstance(r.type, MemRefType) and isinstance(y.type, MemRefType)
    assert r.type == y.type
    assert r.type.get_shape() == (-(-2 // b), -(-24 // bo), 4, 5, b, bo)
    generics = [op for op in f.body.block.ops if isinstance(op, linalg.GenericOp)]
    load = next(g for g in generics if g.inputs and g.inputs[0] is r)
    body = [type(op) for op in load.body.block.ops]
    assert body == [arith.ExtSIOp, linalg.YieldOp]
    res_acc = load.outputs[0]
    assert res_acc.type.get_shape() == r.type.get_shape()  # type: ignore[attr-defined]
    add = next(g for g in generics if len(g.inputs) == 2 and g.inputs[1] is res_acc)
    acc = add.inputs[0]
    assert add.outputs[0] is acc
    # The bias the convolution accumulates onto is added right after it (a tensor add of the
    # broadcast bias buffer), then the shift, the residual and the clip.
    kinds = [type(g.body.block.ops.first) for g in generics
             if g.outputs[0] is acc and g.inputs and g.inputs[0] is acc]
    assert kinds == [arith.AddiOp, arith.ConstantOp, arith.AddiOp, arith.ConstantOp,
                     arith.ConstantOp]
    order = [type(list(g.body.block.ops)[-2]) for g in generics
             if g.outputs[0] is acc and g.inputs and g.inputs[0] is acc]
    assert order == [arith.AddiOp, arith.ShRSIOp, arith.AddiOp, arith.MinSIOp, arith.MaxSIOp]


# --------------------------------------------------------------------------------------------
# Diagnostics
# --------------------------------------------------------------------------------------------


def _replace(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


_BASE = PADDED_FORMS["3x3_pad1_stride1"]
_VIEW = "memref<1x16x6x6xi8, strided<[1024, 64, 8, 1], offset: 9>>"
_READER = """
  %other = memref.alloc() : memref<1x16x8x8xi8>
  memref.copy %xp, %other : memref<1x16x8x8xi8> to memref<1x16x8x8xi8>
"""

ERRORS = {
    "nonzero_fill": (padded_conv("f", (1, 16, 6, 6), 32, 3, 1, (1, 1, 1, 1), fill=3),
                     "linalg.fill", "fills the zero-padded buffer %xp with 3"),
    "pad_over_15": (padded_conv("f", (1, 16, 2, 2), 16, 1, 1, (16, 0, 0, 0)),
                    "memref.subview", "pads %xp by 16 on the top"),
    "channel_padding": (padded_conv("f", (1, 16, 6, 6), 32, 3, 1, (1, 1, 1, 1))
                        .replace("memref<1x16x8x8xi8>", "memref<1x18x8x8xi8>")
                        .replace("memref<32x16x3x3xi8>", "memref<32x18x3x3xi8>")
                        .replace("[0, 0, 1, 1]", "[0, 1, 1, 1]")
                        .replace("[1024, 64, 8, 1], offset: 9", "[1152, 64, 8, 1], offset: 73"),
                        "memref.subview", "pads the batch or channel dimension of %xp"),
    "extra_reader": (_replace(_BASE, "  %acc = memref.alloc()", _READER + "  %acc = "
                              "memref.alloc()"),
                     "memref.copy", "reads the zero-padded buffer %xp"),
    "reader_after_conv": (_replace(_BASE, "  memref.dealloc %acc", _READER + "  memref.dealloc"
                                   " %acc"),
                          "memref.copy", "reads the zero-padded buffer %xp"),
    "second_conv": (_replace(_BASE, "  memref.dealloc %acc", """
  %acc2 = memref.alloc() : memref<1x32x6x6xi32>
  linalg.fill ins(%c0 : i32) outs(%acc2 : memref<1x32x6x6xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>,
                            strides = dense<1> : tensor<2xi64>}
      ins(%xp, %w : memref<1x16x8x8xi8>, memref<32x16x3x3xi8>) outs(%acc2 : memref<1x32x6x6xi32>)
  memref.dealloc %acc"""), "linalg.conv_2d_nchw_fchw", "which another convolution reads"),
    "extra_writer": (_replace(_BASE, "  %acc = memref.alloc()", """
  %c1 = arith.constant 1 : i8
  linalg.fill ins(%c1 : i8) outs(%xp : memref<1x16x8x8xi8>)
  %acc = memref.alloc()"""), "linalg.fill", "after its interior was copied"),
    "view_read": (_replace(_BASE, "  %acc = memref.alloc()", f"""
  %other = memref.alloc() : memref<1x16x6x6xi8>
  memref.copy %xi, %other : {_VIEW} to memref<1x16x6x6xi8>
  %acc = memref.alloc()"""), "memref.copy", "uses %xi, the interior of the zero-padded"),
    "copy_before_fill": (_replace(_replace(
        _BASE, "  linalg.fill ins(%z8 : i8) outs(%xp : memref<1x16x8x8xi8>)\n", ""),
        "  %acc = memref.alloc()",
        "  linalg.fill ins(%z8 : i8) outs(%xp : memref<1x16x8x8xi8>)\n  %acc = memref.alloc()"),
        "memref.copy", "before the buffer is filled"),
    "strided_view": (_replace(_BASE, "[1, 16, 6, 6] [1, 1, 1, 1]", "[1, 16, 3, 3] [1, 1, 2, 2]")
                     .replace(_VIEW, "memref<1x16x3x3xi8, strided<[1024, 64, 16, 2], "
                                     "offset: 9>>"),
                     "memref.subview", "has strides [1, 1, 2, 2]"),
    "dealloc_before_conv": (_replace(_replace(
        _BASE, "  memref.dealloc %xp : memref<1x16x8x8xi8>\n", ""),
        "  %acc = memref.alloc()", "  memref.dealloc %xp : memref<1x16x8x8xi8>\n"
        "  %acc = memref.alloc()"), "linalg.conv_2d_nchw_fchw", "after it is deallocated"),
    "view_of_argument": (_replace(_BASE, "%xi = memref.subview %xp[0, 0, 1, 1] [1, 16, 6, 6] "
                                  "[1, 1, 1, 1] : memref<1x16x8x8xi8> to",
                                  "%xi = memref.subview %x[0, 0, 0, 0] [1, 16, 6, 6] [1, 1, 1, 1]"
                                  " : memref<1x16x6x6xi8> to"),
                         "memref.subview", "takes a view of %x"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_diagnostics(name: str, default_cfg: VTAConfig) -> None:
    """Every unsupported use of a padded buffer is reported at its op, and the module is left
    as it was."""
    text, op_name, message = ERRORS[name]
    module = parse_module(text)
    set_module_config(module, default_cfg)
    before = print_module(module)
    with pytest.raises(DiagnosticError) as info:
        PackPass().apply(make_context(), module)
    diagnostic = info.value.diagnostic
    assert diagnostic.message.startswith(f"'{op_name}' op"), diagnostic.message
    if message is not None:
        assert message in diagnostic.message, diagnostic.message
    assert print_module(module) == before
