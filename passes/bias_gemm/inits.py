"""The bias *initialisations* ``vta-bias-gemm`` rewrites: a constant bias broadcast from DRAM
into an accumulator tile before its contraction (``linalg.generic ins(%bias_tile)
outs(%acc)``, a LOAD ACC reading one bias row per output vector) becomes a reset of the tile
and the contraction of ``x`` with the bias weights into it."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, i32
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation
from xdsl.ir.affine import AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta_positions import Sram, sram_space
from vta_mlir.ir.locations import copy_location

from ..analysis.sram_alloc import elements, place
from .build import (
    alloc,
    bias_encoding,
    bias_weights,
    broadcast_channel,
    constant_global,
    contraction,
    subview_like,
)
from .encoding import BiasEncoding

__all__ = ["BiasInit", "find_inits", "rewrite_init"]


@dataclass(frozen=True)
class BiasInit:
    """``init`` copies the constant ``glob`` (through the subview ``tile``, or whole) into an
    accumulator tile, broadcast over its ``channel_dim``-th dimension's positions."""

    init: linalg.GenericOp
    tile: memref.SubviewOp | None
    glob: memref.GlobalOp
    channel_dim: int
    encoding: BiasEncoding


def _match(op: linalg.GenericOp, module: ModuleOp, cfg: VTAConfig) -> BiasInit | None:
    if len(op.inputs) != 1 or len(op.outputs) != 1:
        return None
    src, acc = op.inputs[0], op.outputs[0]
    at = acc.type
    if sram_space(at) != Sram.ACC or sram_space(src.type) is not None:
        return None
    assert isinstance(at, MemRefType)
    body = list(op.body.block.ops)
    if len(body) != 1 or not isinstance(body[0], linalg.YieldOp) or (
            body[0].operands[0] is not op.body.block.args[0]):
        return None
    maps = [m.data for m in op.indexing_maps.data]
    if maps[1] != AffineMap.identity(at.get_num_dims()):
        return None
    channel = broadcast_channel(maps[0], at.get_num_dims())
    glob = constant_global(src, module)
    if channel is None or channel == 0 or glob is None:
        return None
    encoding = bias_encoding(glob, cfg)
    if encoding is None:
        return None
    tile = src.owner if isinstance(src.owner, memref.SubviewOp) else None
    return BiasInit(op, tile, glob, channel, encoding)


def _saves_cycles(init: BiasInit, f: func.FuncOp, cfg: VTAConfig) -> bool:
    """The LOAD ACC of a bias row per output vector (compute module) against a reset and ``k``
    GEMM micro-ops per output vector, and the loads of the bias weights (load module)."""
    t = init.init.outputs[0].type
    assert isinstance(t, MemRefType)
    vectors = elements(t)
    timing = cfg.timing
    k = init.encoding.elements
    load_acc = timing.dma_latency + -(-(vectors * cfg.batch * cfg.block_out * 4)
                                      // timing.dram_bytes_per_cycle)
    gemms = 2 * timing.pipeline_depth + (1 + k) * vectors
    blocks = t.get_shape()[init.channel_dim]
    wgt_bytes = blocks * k * cfg.block_out * cfg.block_in * cfg.wgt_width // 8
    load_wgt = timing.dma_latency + -(-wgt_bytes // timing.dram_bytes_per_cycle)
    return load_acc - gemms > load_wgt


def find_inits(f: func.FuncOp, cfg: VTAConfig) -> list[BiasInit]:
    module = f.parent_op()
    assert isinstance(module, ModuleOp)
    found = []
    for op in f.walk():
        if isinstance(op, linalg.GenericOp):
            init = _match(op, module, cfg)
            if init is not None and _saves_cycles(init, f, cfg):
                found.append(init)
    return found


def _top(f: func.FuncOp, op: Operation) -> Operation:
    while op.parent_op() is not f:
        parent = op.parent_op()
        assert parent is not None
        op = parent
    return op


def rewrite_init(module: ModuleOp, f: func.FuncOp, init: BiasInit, cfg: VTAConfig) -> None:
    """Reset the tile and accumulate ``x`` times the bias weights into it, loaded before it
    (``x`` once, before the region's loop nest), when the two buffers fit."""
    acc = init.init.outputs[0]
    at = acc.type
    assert isinstance(at, MemRefType)
    lead = at.get_num_dims() - 2
    blocks = at.get_shape()[init.channel_dim]
    k = init.encoding.elements
    x_shape = (*([1] * lead), cfg.batch, cfg.block_in)
    w_shape = (blocks, k, *([1] * (lead - 2)), cfg.block_out, cfg.block_in)
    inp_at = place(f, [init.init], Sram.INP, 1, cfg.sram_depth("inp"))
    wgt_at = place(f, [init.init], Sram.WGT, blocks * k, cfg.sram_depth("wgt"))
    if inp_at is None or wgt_at is None:
        return
    w_glob, x_glob = bias_weights(module, init.glob, init.encoding, lead, cfg)
    first = f.body.block.first_op
    assert first is not None
    x_alloc = alloc(x_shape, Sram.INP, inp_at, first)
    w_alloc = alloc(w_shape, Sram.WGT, wgt_at, first)
    w_read = memref.GetGlobalOp(w_glob.sym_name.data, w_glob.type)
    x_read = memref.GetGlobalOp(x_glob.sym_name.data, x_glob.type)
    Rewriter.insert_op([w_read, x_read], InsertPoint.before(first))
    Rewriter.insert_op(memref.CopyOp(x_read.memref, x_alloc),
                       InsertPoint.before(_top(f, init.init)))
    here = InsertPoint.before(init.init)
    if init.tile is not None:
        w_src = subview_like(w_read.memref, init.tile, init.channel_dim, w_shape, init.init)
    else:
        w_src = w_read.memref
    zero = arith.ConstantOp(IntegerAttr(0, i32))
    Rewriter.insert_op([memref.CopyOp(w_src, w_alloc), zero,
                        linalg.FillOp((zero.result,), (acc,), ())], here)
    gemm = contraction(x_alloc, w_alloc, acc, init.channel_dim)
    copy_location(init.init, [gemm])
    Rewriter.replace_op(init.init, gemm)
    tile = init.tile
    if tile is not None and not tile.result.uses:
        source = tile.source
        Rewriter.erase_op(tile)
        if isinstance(source.owner, memref.GetGlobalOp) and not source.uses:
            Rewriter.erase_op(source.owner)
