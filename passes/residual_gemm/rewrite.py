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
from .match import ResidualLoad

__all__ = ["IDENTITY_GLOBAL", "identity_contraction", "rewrite_residual"]

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


def _identity_global(module: ModuleOp, f: func.FuncOp, cfg: VTAConfig) -> memref.GlobalOp:
    """The module's identity weight tile ``(1, 1, BLOCK_OUT, BLOCK_IN)``, made once."""
    for op in module.ops:
        if isinstance(op, memref.GlobalOp) and op.sym_name.data == IDENTITY_GLOBAL:
            return op
    globs = [op for op in module.ops if isinstance(op, memref.GlobalOp)]
    data = np.eye(cfg.block_out, cfg.block_in, dtype=np.int8).reshape(
        1, 1, cfg.block_out, cfg.block_in)
    if globs:
        return new_global(module, globs[-1], IDENTITY_GLOBAL, data)
    glob = new_global(module, f, IDENTITY_GLOBAL, data)
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
