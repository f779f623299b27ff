"""The bias *adds* ``vta-bias-gemm`` rewrites: a constant bias copied into an accumulator
SRAM buffer and added to accumulator tiles by broadcasting ``arith.addi`` generics (see the
package docstring)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import MemRefType, ModuleOp, i32
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta_positions import Sram, sram_space
from vta_mlir.ir.locations import copy_location

from ..analysis.sram_alloc import elements, place, trips
from .build import (
    alloc,
    bias_encoding,
    bias_weights,
    broadcast_channel,
    channel_dim,
    constant_global,
    contraction,
    subview_like,
)
from .encoding import BiasEncoding

__all__ = ["BiasLoad", "find_biases", "rewrite_bias"]


@dataclass(frozen=True)
class BiasLoad:
    """A constant bias copied into the accumulator SRAM buffer ``buffer`` by ``copy`` and added
    by ``adds``, each through its subview in ``views`` (``None``: the whole buffer)."""

    buffer: memref.AllocOp
    copy: memref.CopyOp
    glob: memref.GlobalOp
    channel_dim: int
    adds: tuple[linalg.GenericOp, ...]
    views: tuple[memref.SubviewOp | None, ...]
    encoding: BiasEncoding


def _is_broadcast_add(op: Operation, view: SSAValue) -> bool:
    if not isinstance(op, linalg.GenericOp) or len(op.inputs) != 2 or len(op.outputs) != 1:
        return False
    if op.inputs[1] is not view or op.inputs[0] is not op.outputs[0]:
        return False
    maps = [m.data for m in op.indexing_maps.data]
    if maps[0] != AffineMap.identity(maps[0].num_dims) or maps[2] != maps[0]:
        return False
    channel = broadcast_channel(maps[1], maps[0].num_dims)
    t = view.type
    assert isinstance(t, MemRefType)
    if channel is None or channel != channel_dim(t.get_shape()):
        return False
    body = list(op.body.block.ops)
    if len(body) != 2 or not isinstance(body[0], arith.AddiOp):
        return False
    args = op.body.block.args
    return {body[0].lhs, body[0].rhs} == {args[0], args[1]}


def _match(alloc: memref.AllocOp, module: ModuleOp, cfg: VTAConfig) -> BiasLoad | None:
    t = alloc.memref.type
    assert isinstance(t, MemRefType)
    shape = t.get_shape()
    channel = channel_dim(shape)
    if channel is None or t.element_type != i32:
        return None
    copies = [u.operation for u in alloc.memref.uses if isinstance(u.operation, memref.CopyOp)]
    if len(copies) != 1 or copies[0].destination is not alloc.memref:
        return None
    copy = copies[0]
    glob = constant_global(copy.source, module)
    if glob is None:
        return None
    adds: list[linalg.GenericOp] = []
    views: list[memref.SubviewOp | None] = []
    for use in alloc.memref.uses:
        user = use.operation
        if user is copy:
            continue
        if _is_broadcast_add(user, alloc.memref):
            assert isinstance(user, linalg.GenericOp)
            adds.append(user)
            views.append(None)
            continue
        if not isinstance(user, memref.SubviewOp):
            return None
        for vuse in user.result.uses:
            if not _is_broadcast_add(vuse.operation, user.result):
                return None
            assert isinstance(vuse.operation, linalg.GenericOp)
            adds.append(vuse.operation)
            views.append(user)
    if not adds:
        return None
    encoding = bias_encoding(glob, cfg)
    if encoding is None:
        return None
    return BiasLoad(alloc, copy, glob, channel, tuple(adds), tuple(views), encoding)


def _saves_cycles(bias: BiasLoad, f: func.FuncOp, cfg: VTAConfig) -> bool:
    """The compute module saves one cycle per output vector of every add and the LOAD ACC of
    the bias; the load module spends a DMA load of ``x`` and of the bias weights every time the
    bias was loaded."""
    saved = 0
    for add in bias.adds:
        t = add.outputs[0].type
        assert isinstance(t, MemRefType)
        saved += elements(t) * trips(add, f)
    timing = cfg.timing
    k = bias.encoding.elements
    bt = bias.buffer.memref.type
    assert isinstance(bt, MemRefType)
    wgt_bytes = elements(bt) * k * cfg.block_out * cfg.block_in * cfg.wgt_width // 8
    inp_bytes = cfg.batch * cfg.block_in * cfg.inp_width // 8
    per_load = sum(timing.dma_latency + -(-n // timing.dram_bytes_per_cycle)
                   for n in (wgt_bytes, inp_bytes))
    acc_bytes = elements(bt) * cfg.batch * cfg.block_out * 4
    saved += (timing.dma_latency + -(-acc_bytes // timing.dram_bytes_per_cycle)) * trips(
        bias.copy, f)
    return saved > per_load * trips(bias.copy, f)


def find_biases(f: func.FuncOp, cfg: VTAConfig) -> list[BiasLoad]:
    module = f.parent_op()
    assert isinstance(module, ModuleOp)
    found = []
    for op in f.walk():
        if isinstance(op, memref.AllocOp) and sram_space(op.memref.type) == Sram.ACC:
            bias = _match(op, module, cfg)
            if bias is not None and _saves_cycles(bias, f, cfg):
                found.append(bias)
    return found


def rewrite_bias(module: ModuleOp, f: func.FuncOp, bias: BiasLoad, cfg: VTAConfig) -> None:
    """Replace the bias load by loads of ``x`` and the bias weights, and each add by a
    contraction, when the two buffers find a place (:func:`~.build.place`)."""
    bt = bias.buffer.memref.type
    assert isinstance(bt, MemRefType)
    shape = bt.get_shape()
    lead = len(shape) - 2
    blocks = shape[bias.channel_dim]
    k = bias.encoding.elements
    x_shape = (*([1] * lead), cfg.batch, cfg.block_in)
    w_tail = (*([1] * (lead - 2)), cfg.block_out, cfg.block_in)
    w_shape = (blocks, k, *w_tail)
    region = [bias.copy, *bias.adds]
    inp_at = place(f, region, Sram.INP, 1, cfg.sram_depth("inp"))
    wgt_at = place(f, region, Sram.WGT, blocks * k, cfg.sram_depth("wgt"))
    if inp_at is None or wgt_at is None:
        return
    w_glob, x_glob = bias_weights(module, bias.glob, bias.encoding, lead, cfg)

    copy = bias.copy
    # The constants are read at the start of the function, like the packed weights.
    first = f.body.block.first_op
    assert first is not None
    x_alloc = alloc(x_shape, Sram.INP, inp_at, bias.buffer)
    w_alloc = alloc(w_shape, Sram.WGT, wgt_at, bias.buffer)
    reads = []
    for glob in (w_glob, x_glob):
        read = memref.GetGlobalOp(glob.sym_name.data, glob.type)
        Rewriter.insert_op(read, InsertPoint.before(first))
        reads.append(read.memref)
    w_read, x_read = reads
    src = copy.source.owner
    if isinstance(src, memref.SubviewOp):
        w_src = subview_like(w_read, src, bias.channel_dim, w_shape, copy)
    else:
        w_src = w_read
    Rewriter.insert_op(memref.CopyOp(x_read, x_alloc), InsertPoint.before(copy))
    Rewriter.insert_op(memref.CopyOp(w_src, w_alloc), InsertPoint.before(copy))
    for add, view in zip(bias.adds, bias.views, strict=True):
        if view is None:
            w_view = w_alloc
        else:
            vt = view.result.type
            assert isinstance(vt, MemRefType)
            sizes = (vt.get_shape()[bias.channel_dim], k, *w_tail)
            w_view = subview_like(w_alloc, view, bias.channel_dim, sizes, add)
        gemm = contraction(x_alloc, w_view, add.outputs[0], bias.channel_dim)
        copy_location(add, [gemm])
        Rewriter.replace_op(add, gemm)
    Rewriter.erase_op(copy)
    if isinstance(src, memref.SubviewOp) and not src.result.uses:
        source = src.source
        Rewriter.erase_op(src)
        if isinstance(source.owner, memref.GetGlobalOp) and not source.uses:
            Rewriter.erase_op(source.owner)
    for view in set(bias.views):
        if view is not None and not view.result.uses:
            Rewriter.erase_op(view)
    if not bias.buffer.memref.uses:
        Rewriter.erase_op(bias.buffer)
