"""What ``vta-residual-gemm`` builds in place of a residual's accumulator buffer: an input SRAM
buffer of the same tensor elements, the identity weight tile, and the contraction adding one
to the other."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import AffineMapAttr, MemRefType, ModuleOp, i8, i32
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta_positions import Sram, SramAttr
from vta_mlir.ir.locations import copy_location

from ..analysis.sram_alloc import alloc, elements, first_fit, new_global
from .match import RescaledResidual, ResidualLoad

__all__ = ["IDENTITY_GLOBAL", "identity_contraction", "rewrite_rescaled", "rewrite_residual"]

#: The name of the constant identity weight tile every rewritten residual reads.
IDENTITY_GLOBAL = "residual_identity_weights"

_PAR = linalg.IteratorTypeAttr.parallel()
_RED = linalg.IteratorTypeAttr.reduction()


def identity_contraction(x: SSAValue, w: SSAValue, acc: SSAValue) -> linalg.GenericOp:
    """``acc[lead, bb, oo] += Σ_ii x[lead, bb, ii] · w[0, 0, oo, ii]``; dims ``(lead..., bb,
    oo, ii)``."""
    t = acc.type
    assert isinstance(t, MemRefType)
    lead = t.get_num_dims() - 2
    n = lead + 3
    d = [AffineDimExpr(i) for i in range(n)]
    zero = AffineConstantExpr(0)
    bb, oo, ii = d[lead], d[lead + 1], d[lead + 2]
    x_map = AffineMap(n, 0, (*d[:lead], bb, ii))
    w_map = AffineMap(n, 0, (zero, zero, oo, ii))
    acc_map = AffineMap(n, 0, (*d[:lead], bb, oo))
    block = Block(arg_types=[i8, i8, i32])
    xe = arith.ExtSIOp(block.args[0], i32)
    we = arith.ExtSIOp(block.args[1], i32)
    p = arith.MuliOp(xe, we)
    s = arith.AddiOp(block.args[2], p)
    block.add_ops([xe, we, p, s, linalg.YieldOp(s)])
    return linalg.GenericOp(
        [x, w], [acc], Region(block),
        [AffineMapAttr(x_map), AffineMapAttr(w_map), AffineMapAttr(acc_map)],
        [*([_PAR] * (lead + 2)), _RED],
    )


def _identity_global(module: ModuleOp, f: func.FuncOp, cfg: VTAConfig,
                     factor: int = 1) -> memref.GlobalOp:
    """The module's identity weight tile ``(1, 1, BLOCK_OUT, BLOCK_IN)`` times ``factor``, made
    once."""
    name = IDENTITY_GLOBAL if factor == 1 else f"{IDENTITY_GLOBAL}_x{factor}".replace("-", "m")
    for op in module.ops:
        if isinstance(op, memref.GlobalOp) and op.sym_name.data == name:
            return op
    globs = [op for op in module.ops if isinstance(op, memref.GlobalOp)]
    data = (factor * np.eye(cfg.block_out, cfg.block_in, dtype=np.int64)).astype(np.int8).reshape(
        1, 1, cfg.block_out, cfg.block_in)
    if globs:
        return new_global(module, globs[-1], name, data)
    glob = new_global(module, f, name, data)
    # Globals come before the functions that read them.
    glob.detach()
    Rewriter.insert_op(glob, InsertPoint.before(f))
    return glob


def _retyped(t: MemRefType) -> MemRefType:
    """The type of ``t``'s tensor elements as int8 input SRAM elements (same shape, layout)."""
    return MemRefType(i8, t.get_shape(), t.layout, SramAttr(Sram.INP))


def rewrite_residual(module: ModuleOp, f: func.FuncOp, res: ResidualLoad,
                     cfg: VTAConfig) -> bool:
    """Replace the accumulator buffer of ``res`` by an input SRAM buffer loaded by the load
    module, and each add by a contraction with the identity weight tile; ``False`` (nothing
    changed) when the two buffers find no place (:func:`~..analysis.sram_alloc.first_fit`)."""
    bt = res.buffer.memref.type
    assert isinstance(bt, MemRefType)
    # The region from the buffer's allocation on: the convolution's own buffers are avoided.
    region = [res.buffer, *res.loads, *res.adds]
    inp_at = first_fit(f, region, Sram.INP, elements(bt), cfg.sram_depth("inp"))
    wgt_at = first_fit(f, region, Sram.WGT, 1, cfg.sram_depth("wgt"))
    if inp_at is None or wgt_at is None:
        return False
    glob = _identity_global(module, f, cfg)
    first = f.body.block.first_op
    assert first is not None
    read = memref.GetGlobalOp(glob.sym_name.data, glob.type)
    Rewriter.insert_op(read, InsertPoint.before(first))

    anchor = res.buffer
    x_buffer = alloc(bt.get_shape(), Sram.INP, inp_at, anchor, "residual_inp")
    w_buffer = alloc((1, 1, cfg.block_out, cfg.block_in), Sram.WGT, wgt_at, anchor,
                     "identity_wgt")
    load_w = memref.CopyOp(read.memref, w_buffer)
    copy_location(res.loads[0], [load_w])
    Rewriter.insert_op(load_w, InsertPoint.before(anchor))

    # Each subview of the accumulator buffer becomes the same subview of the input buffer.
    retyped: dict[SSAValue, SSAValue] = {res.buffer.memref: x_buffer}
    for view in res.views:
        vt = view.result.type
        assert isinstance(vt, MemRefType)
        new = memref.SubviewOp(x_buffer, view.offsets, view.sizes, view.strides,
                               view.static_offsets, view.static_sizes, view.static_strides,
                               _retyped(vt))
        new.result.name_hint = "residual_view"
        Rewriter.insert_op(new, InsertPoint.before(view))
        retyped[view.result] = new.result
    for load in res.loads:
        copy = memref.CopyOp(load.inputs[0], retyped[load.outputs[0]])
        copy_location(load, [copy])
        Rewriter.replace_op(load, copy)
    for add in res.adds:
        acc = add.outputs[0]
        x = next(v for v in add.inputs if v is not acc)
        gemm = identity_contraction(retyped[x], w_buffer, acc)
        copy_location(add, [gemm])
        Rewriter.replace_op(add, gemm)
    for view in res.views:
        Rewriter.erase_op(view)
    Rewriter.erase_op(res.buffer)
    return True


def rewrite_rescaled(module: ModuleOp, f: func.FuncOp, res: RescaledResidual,
                     cfg: VTAConfig) -> bool:
    """Load the residual of ``res`` into an input SRAM buffer instead (the load module's LOAD
    INP), and make each load and the multiplication after it a reset of the accumulator view
    and a contraction with the identity weight tile times the factor: two compute cycles per
    output vector instead of a LOAD ACC_8BIT's two and the multiplication's one.  ``False``
    (nothing changed) when the buffers find no place."""
    bt = res.buffer.memref.type
    assert isinstance(bt, MemRefType)
    region = [res.buffer, *res.loads, *res.scales]
    inp_at = first_fit(f, region, Sram.INP, elements(bt), cfg.sram_depth("inp"))
    factors = sorted(set(res.factors))
    wgt_at = first_fit(f, region, Sram.WGT, len(factors), cfg.sram_depth("wgt"))
    if inp_at is None or wgt_at is None:
        return False
    first = f.body.block.first_op
    assert first is not None
    anchor = res.buffer
    x_buffer = alloc(bt.get_shape(), Sram.INP, inp_at, anchor, "residual_inp")
    w_buffer = alloc((len(factors), 1, cfg.block_out, cfg.block_in), Sram.WGT, wgt_at, anchor,
                     "identity_wgt")
    tiles: dict[int, SSAValue] = {}
    for k, factor in enumerate(factors):
        glob = _identity_global(module, f, cfg, factor)
        read = memref.GetGlobalOp(glob.sym_name.data, glob.type)
        Rewriter.insert_op(read, InsertPoint.before(first))
        tile = memref.SubviewOp.get(w_buffer, [k, 0, 0, 0],
                                    [1, 1, cfg.block_out, cfg.block_in], [1, 1, 1, 1],
                                    _tile_type(w_buffer, k, cfg))
        Rewriter.insert_op(tile, InsertPoint.before(anchor))
        load_w = memref.CopyOp(read.memref, tile.result)
        copy_location(res.loads[0], [load_w])
        Rewriter.insert_op(load_w, InsertPoint.before(anchor))
        tiles[factor] = tile.result
    retyped: dict[SSAValue, SSAValue] = {res.buffer.memref: x_buffer}
    for view in res.views:
        vt = view.result.type
        assert isinstance(vt, MemRefType)
        new = memref.SubviewOp(x_buffer, view.offsets, view.sizes, view.strides,
                               view.static_offsets, view.static_sizes, view.static_strides,
                               _retyped(vt))
        new.result.name_hint = "residual_view"
        Rewriter.insert_op(new, InsertPoint.after(view))
        retyped[view.result] = new.result
    for load, scale, factor in zip(res.loads, res.scales, res.factors, strict=True):
        acc = load.outputs[0]
        x = retyped[acc]
        copy = memref.CopyOp(load.inputs[0], x)
        zero = arith.ConstantOp.from_int_and_width(0, 32)
        reset = linalg.FillOp((zero.result,), (acc,), ())
        gemm = identity_contraction(x, tiles[factor], acc)
        copy_location(load, [copy, zero, reset])
        copy_location(scale, [gemm])
        Rewriter.replace_op(load, [copy, zero, reset, gemm])
        Rewriter.erase_op(scale)
    return True


def _tile_type(w_buffer: SSAValue, k: int, cfg: VTAConfig) -> MemRefType:
    """The type of tile ``k`` of the weight buffer ``w_buffer``."""
    t = w_buffer.type
    assert isinstance(t, MemRefType)
    return memref.SubviewOp.infer_result_type(t, [k, 0, 0, 0],
                                              [1, 1, cfg.block_out, cfg.block_in],
                                              [1, 1, 1, 1])
