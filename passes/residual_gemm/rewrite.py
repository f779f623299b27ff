"""What ``vta-residual-gemm`` builds in place of a residual's accumulator buffer: an input SRAM
buffer of the same tensor elements, the identity weight tile, and the contraction adding one
to the other."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import AffineMapAttr, MemRefType, ModuleOp, i8
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta_positions import Sram, SramAttr
from vta_mlir.ir.locations import copy_location

from ..analysis.contraction import mac_region
from ..analysis.sram_alloc import alloc, elements, make_room, new_global
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
    return linalg.GenericOp(
        [x, w], [acc], mac_region(),
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


@dataclass(frozen=True)
class _Placed:
    """The input buffer replacing a residual's accumulator buffer, the view of it replacing
    each view of that buffer, and the loaded weight tile of each factor."""

    retyped: dict[SSAValue, SSAValue]
    tiles: dict[int, SSAValue]


def _place(module: ModuleOp, f: func.FuncOp, buffer: memref.AllocOp,
           views: tuple[memref.SubviewOp, ...], region: list[Operation],
           factors: list[int], cfg: VTAConfig) -> _Placed | None:
    """Place the input buffer and one weight tile per factor (``factor`` times the identity,
    loaded where ``buffer`` is allocated) at the lowest offsets ``region`` leaves free
    (:func:`~..analysis.sram_alloc.first_fit`), and give every view of ``buffer`` its view
    of the input buffer; ``None`` (nothing changed) when either finds no place."""
    bt = buffer.memref.type
    assert isinstance(bt, MemRefType)
    inp_at = make_room(f, region, Sram.INP, elements(bt), cfg.sram_depth("inp"))
    wgt_at = make_room(f, region, Sram.WGT, len(factors), cfg.sram_depth("wgt"))
    if inp_at is None or wgt_at is None:
        return None
    first = f.body.block.first_op
    assert first is not None
    x_buffer = alloc(bt.get_shape(), Sram.INP, inp_at, buffer, "residual_inp")
    tile_shape = [1, 1, cfg.block_out, cfg.block_in]
    w_buffer = alloc((len(factors), *tile_shape[1:]), Sram.WGT, wgt_at, buffer, "identity_wgt")
    wt = w_buffer.type
    assert isinstance(wt, MemRefType)
    tiles: dict[int, SSAValue] = {}
    for k, factor in enumerate(factors):
        glob = _identity_global(module, f, cfg, factor)
        read = memref.GetGlobalOp(glob.sym_name.data, glob.type)
        Rewriter.insert_op(read, InsertPoint.before(first))
        tile = memref.SubviewOp.get(
            w_buffer, [k, 0, 0, 0], tile_shape, [1, 1, 1, 1],
            memref.SubviewOp.infer_result_type(wt, [k, 0, 0, 0], tile_shape, [1, 1, 1, 1]))
        load = memref.CopyOp(read.memref, tile.result)
        copy_location(buffer, [tile, load])
        Rewriter.insert_op([tile, load], InsertPoint.before(buffer))
        tiles[factor] = tile.result
    retyped: dict[SSAValue, SSAValue] = {buffer.memref: x_buffer}
    for view in views:
        vt = view.result.type
        assert isinstance(vt, MemRefType)
        new = memref.SubviewOp(x_buffer, view.offsets, view.sizes, view.strides,
                               view.static_offsets, view.static_sizes, view.static_strides,
                               MemRefType(i8, vt.get_shape(), vt.layout, SramAttr(Sram.INP)))
        new.result.name_hint = "residual_view"
        Rewriter.insert_op(new, InsertPoint.after(view))
        retyped[view.result] = new.result
    return _Placed(retyped, tiles)


def rewrite_residual(module: ModuleOp, f: func.FuncOp, res: ResidualLoad,
                     cfg: VTAConfig) -> bool:
    """Replace the accumulator buffer of ``res`` by an input SRAM buffer loaded by the load
    module, and each add by a contraction with the identity weight tile; ``False`` (nothing
    changed) when the buffers find no place."""
    # The region from the buffer's allocation on: the convolution's own buffers are avoided.
    placed = _place(module, f, res.buffer, res.views, [res.buffer, *res.loads, *res.adds], [1],
                    cfg)
    if placed is None:
        return False
    for load in res.loads:
        copy = memref.CopyOp(load.inputs[0], placed.retyped[load.outputs[0]])
        copy_location(load, [copy])
        Rewriter.replace_op(load, copy)
    for add in res.adds:
        acc = add.outputs[0]
        x = next(v for v in add.inputs if v is not acc)
        gemm = identity_contraction(placed.retyped[x], placed.tiles[1], acc)
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
    placed = _place(module, f, res.buffer, res.views, [res.buffer, *res.loads, *res.scales],
                    sorted(set(res.factors)), cfg)
    if placed is None:
        return False
    for load, scale, factor in zip(res.loads, res.scales, res.factors, strict=True):
        acc = load.outputs[0]
        x = placed.retyped[acc]
        copy = memref.CopyOp(load.inputs[0], x)
        zero = arith.ConstantOp.from_int_and_width(0, 32)
        reset = linalg.FillOp((zero.result,), (acc,), ())
        gemm = identity_contraction(x, placed.tiles[factor], acc)
        copy_location(load, [copy, zero, reset])
        copy_location(scale, [gemm])
        Rewriter.replace_op(load, [copy, zero, reset, gemm])
        Rewriter.erase_op(scale)
    return True
