"""NHWC functions for ``vta-pack``: a function holding ``linalg.depthwise_conv_2d_nhwc_hwc``
read in the NCHW form the rest of the pass takes.

VTA's packed tensor layout ``(N/B, C/BI, H, W, B, BI)`` is as far from NHWC as from NCHW: only
the host's packing transform of each argument knows the logical order
(``vta_mlir.abi.ArgSpec``).  :func:`nchw_view` therefore rewrites such a function, before
anything is recognized, into the NCHW function computing the same values on transposed
buffers, and returns the arguments it transposed; ``vta-pack`` then gives each of them the
packing of its NHWC array (:func:`nhwc_packing`: the same packed layout, the transpose folded
into ``split_shape`` and ``perm``), so callers keep passing and receiving NHWC arrays.

* every rank-4 argument and ``memref.alloc`` becomes ``N × C × H × W``;
* ``linalg.depthwise_conv_2d_nhwc_hwc`` becomes the equivalent ``linalg.generic`` on NCHW data,
  ``X(n, c, oh*sh + kh, ow*sw + kw)``, ``W(kh, kw, c)`` (the constant ``KH × KW × C`` kernel,
  packed block-diagonal as any depthwise kernel), ``Y(n, c, oh, ow)``;
* an element-wise ``linalg.generic`` over ``(n, h, w, c)`` is the same generic over
  ``(n, c, h, w)``: its loops and its rank-4 operands' subscripts permuted, so an identity map
  stays one and a per-channel bias ``(n, h, w, c) -> (c)`` becomes ``(n, c, h, w) -> (c)``;
* the interior ``memref.subview`` of a zero-padded buffer, offsets ``[0, p, q, 0]``, becomes
  ``[0, 0, p, q]``; fills, copies and deallocs are unchanged.

Any other op on a rank-4 buffer of such a function (a dense convolution, a pooling op, the
quantized ``_q`` form, a reshape, a rank-4 constant) is reported at the op: the function is
NHWC because of its depthwise convolution, and only these ops are read in that layout.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, MemRefType, i32
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.abi import tiled_packing
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.locations import copy_location
from vta_mlir.ir.upstream_fixes.linalg_depthwise_conv import DepthwiseConv2DNhwcHwcOp
from vta_mlir.passes.pack.normal_form import Packing

__all__ = ["is_nhwc", "nchw_view", "nhwc_packing"]

#: NHWC → NCHW: the NCHW dimension ``k`` is the NHWC dimension ``TO_NCHW[k]``.
TO_NCHW = (0, 3, 1, 2)
_NHWC_FUNCTION = ("is in a function holding linalg.depthwise_conv_2d_nhwc_hwc, which vta-pack "
                  "reads in NCHW: on its NHWC buffers it takes depthwise convolutions, "
                  "element-wise linalg.generic ops, fills, copies and the padding idiom")


def is_nhwc(f: func.FuncOp) -> bool:
    """Whether ``f`` holds an NHWC depthwise convolution."""
    return any(isinstance(op, DepthwiseConv2DNhwcHwcOp) for op in f.body.block.ops)


def _rank4(value: SSAValue) -> bool:
    t = value.type
    return isinstance(t, MemRefType) and t.get_num_dims() == 4


def _nchw_type(t: MemRefType) -> MemRefType:
    shape = t.get_shape()
    return MemRefType(t.element_type, [shape[k] for k in TO_NCHW])


def nchw_view(f: func.FuncOp) -> set[int]:
    """Rewrite the NHWC function ``f`` into NCHW (module doc); the indices of the arguments
    it transposed."""
    block = f.body.block
    transposed: set[int] = set()
    for arg in list(block.args):
        if _rank4(arg):
            assert isinstance(arg.type, MemRefType)
            transposed.add(arg.index)
            Rewriter.replace_value_with_new_type(arg, _nchw_type(arg.type))
    for op in list(block.ops):
        if isinstance(op, memref.AllocOp | memref.AllocaOp) and _rank4(op.memref):
            assert isinstance(op.memref.type, MemRefType)
            Rewriter.replace_value_with_new_type(op.memref, _nchw_type(op.memref.type))
    for op in list(block.ops):
        if not any(_rank4(v) for v in (*op.operands, *op.results)):
            continue
        match op:
            case memref.AllocOp() | memref.AllocaOp() | memref.DeallocOp() | memref.CopyOp() \
                    | linalg.FillOp():
                continue
            case memref.SubviewOp():
                _subview(op)
            case DepthwiseConv2DNhwcHwcOp():
                _depthwise(op)
            case linalg.GenericOp():
                _generic(op)
            case _:
                report_error(op, _NHWC_FUNCTION)
    return transposed


def _subview(op: memref.SubviewOp) -> None:
    """The interior of a padded buffer, its static offsets and sizes in NCHW."""
    source = op.source.type
    if op.offsets or op.sizes or op.strides or not isinstance(source, MemRefType):
        report_error(op, "has dynamic offsets, sizes or strides: the padding of a "
                         "convolution is static")
    offsets, sizes, strides = (list(a.get_values()) for a in (
        op.static_offsets, op.static_sizes, op.static_strides))
    result = op.result.type
    if len(offsets) != 4 or not isinstance(result, MemRefType) or result.get_num_dims() != 4:
        report_error(op, _NHWC_FUNCTION)
    new = memref.SubviewOp.from_static_parameters(
        op.source, source, [offsets[k] for k in TO_NCHW], [sizes[k] for k in TO_NCHW],
        [strides[k] for k in TO_NCHW])
    new.result.name_hint = op.result.name_hint
    copy_location(op, [new])
    Rewriter.replace_op(op, new)


def _depthwise(op: DepthwiseConv2DNhwcHwcOp) -> None:
    """The NHWC depthwise convolution as a generic on NCHW data and the HWC kernel."""
    sh, sw = op.strides.get_values()
    dh, dw = op.dilations.get_values()
    n, c, oh, ow, kh, kw = (AffineExpr.dimension(d) for d in range(6))
    maps = [AffineMap(6, 0, (n, c, oh * sh + kh * dh, ow * sw + kw * dw)),
            AffineMap(6, 0, (kh, kw, c)), AffineMap(6, 0, (n, c, oh, ow))]
    par, red = IteratorTypeAttr.parallel(), IteratorTypeAttr.reduction()
    data, kernel = op.inputs
    out = op.outputs[0]
    types = [v.type.element_type for v in (data, kernel, out)]  # type: ignore[attr-defined]
    body = Block(arg_types=types)
    x = arith.ExtSIOp(body.args[0], i32)
    w = arith.ExtSIOp(body.args[1], i32)
    product = arith.MuliOp(x, w)
    total = arith.AddiOp(body.args[2], product)
    body.add_ops([x, w, product, total, linalg.YieldOp(total)])
    new = linalg.GenericOp([data, kernel], [out], Region(body),
                           [AffineMapAttr(m) for m in maps], [par] * 4 + [red] * 2)
    copy_location(op, [new])
    Rewriter.insert_op(new, InsertPoint.before(op))
    Rewriter.erase_op(op)


def _generic(op: linalg.GenericOp) -> None:
    """A generic on NHWC buffers: the subscripts of its rank-4 operands permuted, and the loops
    of an element-wise one over ``(n, h, w, c)`` permuted to ``(n, c, h, w)``."""
    maps = [m.data for m in op.indexing_maps.data]
    parallel = all(str(it.data.value) == "parallel" for it in op.iterator_types.data)
    loops = maps[0].num_dims
    if op.res or (parallel and loops != 4):
        report_error(op, _NHWC_FUNCTION)
    dims: Sequence[AffineExpr] = [AffineExpr.dimension(d) for d in range(loops)]
    if parallel:
        # Loop (n, h, w, c)[k] is the NCHW loop TO_NHWC[k]: n, h, w, c -> d0, d2, d3, d1.
        dims = [AffineExpr.dimension(d) for d in (0, 2, 3, 1)]
    new_maps = []
    for value, m in zip(op.operands, maps, strict=True):
        results = [r.replace_dims_and_symbols(dims, []) for r in m.results]
        if _rank4(value):
            results = [results[k] for k in TO_NCHW]
        new_maps.append(AffineMapAttr(AffineMap(loops, 0, tuple(results))))
    op.properties["indexing_maps"] = ArrayAttr(new_maps)


def nhwc_packing(packing: Packing) -> Packing:
    """The packing of the NHWC array of an argument ``nchw_view`` transposed, whose NCHW
    packing is ``packing`` (the ``data`` or ``tensor`` layout, ``(N/B, C/BI, H, W, B, BI)``):
    the same packed layout, the transpose folded into the split and the permutation."""
    n, c, h, w = packing.shape
    lanes, block = packing.split_shape[1], packing.split_shape[3]
    shape = (n, h, w, c)
    padded, split, perm = tiled_packing(shape, (lanes, None, None, block),
                                        outer_order=TO_NCHW, inner_order=(0, 3))
    return Packing(shape, packing.dtype, padded, split, perm, packing.repeat,
                   packing.memref_shape)

