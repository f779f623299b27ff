"""The bias loads and adds ``vta-bias-gemm`` rewrites (see the package docstring)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    i8,
    i32,
    i64,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta_positions import SRAM_OFFSET_ATTR, Sram, SramAttr, sram_space
from vta_mlir.ir.locations import copy_location

from .encoding import BiasEncoding, encode_bias

__all__ = ["BiasLoad", "find_biases", "rewrite_bias"]

_PAR = linalg.IteratorTypeAttr.parallel()
_RED = linalg.IteratorTypeAttr.reduction()


@dataclass(frozen=True)
class BiasLoad:
    """A constant bias copied into the accumulator SRAM buffer ``buffer`` by ``copy`` and added
    by ``adds`` through the subviews ``views`` (one per add, the add's second input)."""

    buffer: memref.AllocOp
    copy: memref.CopyOp
    glob: memref.GlobalOp
    channel_dim: int
    adds: tuple[linalg.GenericOp, ...]
    views: tuple[memref.SubviewOp, ...]
    encoding: BiasEncoding


def _elements(t: MemRefType) -> int:
    return math.prod(t.get_shape()[:-2])


def _trips(op: Operation, stop: Operation) -> int:
    """How many times ``op`` runs per run of ``stop`` (the product of the static trip counts of
    the ``affine.for`` loops between them)."""
    from xdsl.dialects import affine

    n = 1
    parent = op.parent_op()
    while parent is not None and parent is not stop:
        if isinstance(parent, affine.ForOp):
            lo, hi = parent.lowerBoundMap.data, parent.upperBoundMap.data
            if lo.num_dims or hi.num_dims or lo.num_symbols or hi.num_symbols:
                return 1
            step = parent.step.value.data
            n *= max(0, -(-(hi.eval([], [])[0] - lo.eval([], [])[0]) // step))
        parent = parent.parent_op()
    return n


def _constant_global(value: SSAValue, module: ModuleOp) -> memref.GlobalOp | None:
    owner = value.owner
    if isinstance(owner, memref.SubviewOp):
        owner = owner.source.owner
    if not isinstance(owner, memref.GetGlobalOp):
        return None
    name = owner.name_.root_reference.data
    for op in module.ops:
        if isinstance(op, memref.GlobalOp) and op.sym_name.data == name:
            if op.constant is None or not isinstance(op.initial_value, DenseIntOrFPElementsAttr):
                return None
            return op
    return None


def _is_broadcast_add(op: Operation, view: SSAValue) -> bool:
    if not isinstance(op, linalg.GenericOp) or len(op.inputs) != 2 or len(op.outputs) != 1:
        return False
    if op.inputs[1] is not view or op.inputs[0] is not op.outputs[0]:
        return False
    maps = [m.data for m in op.indexing_maps.data]
    if maps[0] != AffineMap.identity(maps[0].num_dims) or maps[2] != maps[0]:
        return False
    body = list(op.body.block.ops)
    if len(body) != 2 or not isinstance(body[0], arith.AddiOp):
        return False
    args = op.body.block.args
    return {body[0].lhs, body[0].rhs} == {args[0], args[1]}


def _channel_dim(shape: Sequence[int]) -> int | None:
    """The one leading dimension of a packed bias buffer that is not 1 (its channel blocks),
    or the second when all are 1."""
    lead = [d for d, n in enumerate(shape[:-2]) if n != 1]
    if len(lead) > 1 or len(shape) < 4:
        return None
    return lead[0] if lead else 1


def _match(alloc: memref.AllocOp, module: ModuleOp, cfg: VTAConfig) -> BiasLoad | None:
    t = alloc.memref.type
    assert isinstance(t, MemRefType)
    shape = t.get_shape()
    channel = _channel_dim(shape)
    if channel is None or t.element_type != i32:
        return None
    copies = [u.operation for u in alloc.memref.uses if isinstance(u.operation, memref.CopyOp)]
    if len(copies) != 1 or copies[0].destination is not alloc.memref:
        return None
    copy = copies[0]
    glob = _constant_global(copy.source, module)
    if glob is None:
        return None
    adds: list[linalg.GenericOp] = []
    views: list[memref.SubviewOp] = []
    for use in alloc.memref.uses:
        user = use.operation
        if user is copy:
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
    gt = glob.type
    assert isinstance(gt, MemRefType)
    values = np.frombuffer(glob.initial_value.data.data, dtype=np.int32).reshape(gt.get_shape())
    # The packed bias repeats every channel over the BATCH lanes: lane 0 is the bias.
    lanes = np.moveaxis(values, -2, 0)
    if not all(np.array_equal(lanes[0], lane) for lane in lanes):
        return None
    encoding = encode_bias(lanes[0].reshape(-1), cfg)
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
        saved += _elements(t) * _trips(add, f)
    timing = cfg.timing
    k = bias.encoding.elements
    bt = bias.buffer.memref.type
    assert isinstance(bt, MemRefType)
    wgt_bytes = _elements(bt) * k * cfg.block_out * cfg.block_in * cfg.wgt_width // 8
    inp_bytes = cfg.batch * cfg.block_in * cfg.inp_width // 8
    per_load = sum(timing.dma_latency + -(-n // timing.dram_bytes_per_cycle)
                   for n in (wgt_bytes, inp_bytes))
    acc_bytes = _elements(bt) * cfg.batch * cfg.block_out * 4
    saved += (timing.dma_latency + -(-acc_bytes // timing.dram_bytes_per_cycle)) * _trips(
        bias.copy, f)
    return saved > per_load * _trips(bias.copy, f)


def _sram_end(f: func.FuncOp, space: Sram) -> int:
    end = 0
    for op in f.walk():
        if isinstance(op, memref.AllocOp) and sram_space(op.memref.type) == space:
            offset = op.attributes.get(SRAM_OFFSET_ATTR)
            start = offset.value.data if isinstance(offset, IntegerAttr) else 0
            t = op.memref.type
            assert isinstance(t, MemRefType)
            end = max(end, start + _elements(t))
    return end


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


def _new_global(module: ModuleOp, after: memref.GlobalOp, stem: str, data: np.ndarray
                ) -> memref.GlobalOp:
    taken = {op.sym_name.data for op in module.ops if isinstance(op, memref.GlobalOp)}
    name, n = stem, 1
    while name in taken:
        name, n = f"{stem}_{n}", n + 1
    t = MemRefType(i8, data.shape)
    glob = memref.GlobalOp.get(
        StringAttr(name), t,
        DenseIntOrFPElementsAttr(TensorType(i8, data.shape),
                                 BytesAttr(data.astype(np.int8).tobytes())),
        constant=UnitAttr(),
    )
    copy_location(after, [glob])
    Rewriter.insert_op(glob, InsertPoint.after(after))
    return glob


def _alloc(shape: Sequence[int], space: Sram, offset: int, before: Operation) -> SSAValue:
    op = memref.AllocOp.get(i8, shape=list(shape), memory_space=SramAttr(space))
    op.attributes[SRAM_OFFSET_ATTR] = IntegerAttr(offset, i64)
    op.memref.name_hint = f"bias_{space.value}"
    Rewriter.insert_op(op, InsertPoint.before(before))
    return op.memref


def _subview_like(src: SSAValue, like: memref.SubviewOp, channel: int, sizes: Sequence[int],
                  before: Operation) -> SSAValue:
    """A subview of ``src`` whose first dimension starts where ``like``'s ``channel``
    dimension does (static or dynamic), the others at 0."""
    static = list(like.static_offsets.get_values())
    dynamic = list(like.offsets)
    k = sum(1 for v in static[:channel] if v == DYNAMIC_INDEX)
    first: SSAValue | int = (dynamic[k] if static[channel] == DYNAMIC_INDEX
                             else static[channel])
    offsets = [first] + [0] * (len(sizes) - 1)
    t = src.type
    assert isinstance(t, MemRefType)
    rt = memref.SubviewOp.infer_result_type(t, offsets, list(sizes), [1] * len(sizes))
    op = memref.SubviewOp.get(src, offsets, list(sizes), [1] * len(sizes), rt)
    op.result.name_hint = "bias_weights"
    Rewriter.insert_op(op, InsertPoint.before(before))
    return op.result


def _contraction(x: SSAValue, w: SSAValue, acc: SSAValue, channel: int) -> linalg.GenericOp:
    """``acc[lead, bb, oo] += Σ_{j, ii} x[0.., bb, ii] · w[o, j, 0.., oo, ii]``; dims ``(j,
    lead..., bb, oo, ii)``: the weight elements outermost, so consecutive micro-ops write
    different accumulator elements."""
    t = acc.type
    assert isinstance(t, MemRefType)
    lead = t.get_num_dims() - 2
    n = lead + 4
    d = [AffineDimExpr(i) for i in range(n)]
    zero = AffineConstantExpr(0)
    bb, oo, ii = d[lead + 1], d[lead + 2], d[lead + 3]
    x_map = AffineMap(n, 0, (*([zero] * lead), bb, ii))
    w_lead: list[AffineExpr] = [d[1 + channel], d[0], *([zero] * (lead - 2))]
    w_map = AffineMap(n, 0, (*w_lead, oo, ii))
    acc_map = AffineMap(n, 0, (*d[1 : lead + 1], bb, oo))
    block = Block(arg_types=[i8, i8, i32])
    xe = arith.ExtSIOp(block.args[0], i32)
    we = arith.ExtSIOp(block.args[1], i32)
    p = arith.MuliOp(xe, we)
    s = arith.AddiOp(block.args[2], p)
    block.add_ops([xe, we, p, s, linalg.YieldOp(s)])
    return linalg.GenericOp(
        [x, w], [acc], Region(block),
        [AffineMapAttr(x_map), AffineMapAttr(w_map), AffineMapAttr(acc_map)],
        [_RED, *([_PAR] * (lead + 2)), _RED],
    )


def rewrite_bias(module: ModuleOp, f: func.FuncOp, bias: BiasLoad, cfg: VTAConfig) -> None:
    """Replace the bias load by loads of ``x`` and the bias weights, and each add by a
    contraction, when the two buffers fit after every buffer of their SRAMs."""
    bt = bias.buffer.memref.type
    assert isinstance(bt, MemRefType)
    shape = bt.get_shape()
    lead = len(shape) - 2
    blocks = shape[bias.channel_dim]
    k = bias.encoding.elements
    x_shape = (*([1] * lead), cfg.batch, cfg.block_in)
    w_tail = (*([1] * (lead - 2)), cfg.block_out, cfg.block_in)
    w_shape = (blocks, k, *w_tail)
    inp_at, wgt_at = _sram_end(f, Sram.INP), _sram_end(f, Sram.WGT)
    if (inp_at + 1 > cfg.sram_depth("inp")
            or wgt_at + blocks * k > cfg.sram_depth("wgt")):
        return
    gt = bias.glob.type
    assert isinstance(gt, MemRefType)
    channels = gt.get_shape()[bias.channel_dim] * cfg.block_out
    weights = bias.encoding.weights.reshape(channels // cfg.block_out, cfg.block_out, k,
                                            cfg.block_in).transpose(0, 2, 1, 3)
    all_w = weights.reshape(channels // cfg.block_out, k, *w_tail)
    x_data = np.broadcast_to(bias.encoding.x, (cfg.batch, cfg.block_in)).reshape(x_shape)
    stem = bias.glob.sym_name.data
    w_glob = _new_global(module, bias.glob, f"{stem}_gemm_weights", all_w)
    x_glob = _new_global(module, bias.glob, f"{stem}_gemm_input", x_data)

    copy = bias.copy
    first = f.body.block.first_op
    assert first is not None
    x_alloc = _alloc(x_shape, Sram.INP, inp_at, bias.buffer)
    w_alloc = _alloc(w_shape, Sram.WGT, wgt_at, bias.buffer)
    reads = []
    for glob in (w_glob, x_glob):
        read = memref.GetGlobalOp(glob.sym_name.data, glob.type)
        Rewriter.insert_op(read, InsertPoint.before(first))
        reads.append(read.memref)
    w_read, x_read = reads
    src = copy.source.owner
    if isinstance(src, memref.SubviewOp):
        w_src = _subview_like(w_read, src, bias.channel_dim, w_shape, copy)
    else:
        w_src = w_read
    Rewriter.insert_op(memref.CopyOp(x_read, x_alloc), InsertPoint.before(copy))
    Rewriter.insert_op(memref.CopyOp(w_src, w_alloc), InsertPoint.before(copy))
    for add, view in zip(bias.adds, bias.views, strict=True):
        vt = view.result.type
        assert isinstance(vt, MemRefType)
        sizes = (vt.get_shape()[bias.channel_dim], k, *w_tail)
        w_view = _subview_like(w_alloc, view, bias.channel_dim, sizes, add)
        gemm = _contraction(x_alloc, w_view, add.outputs[0], bias.channel_dim)
        copy_location(add, [gemm])
        Rewriter.replace_op(add, gemm)
    Rewriter.erase_op(copy)
    for value in (src.results[0] if isinstance(src, memref.SubviewOp) else None,):
        if value is not None and not value.uses:
            source = src.source
            Rewriter.erase_op(src)
            if isinstance(source.owner, memref.GetGlobalOp) and not source.uses:
                Rewriter.erase_op(source.owner)
    for view in bias.views:
        if not view.result.uses:
            Rewriter.erase_op(view)
    if not bias.buffer.memref.uses:
        Rewriter.erase_op(bias.buffer)
