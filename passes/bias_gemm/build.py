"""What ``vta-bias-gemm`` builds: the constant globals, SRAM buffers and views of ``x`` and the
bias weights, and the contraction accumulating their product."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    DenseIntOrFPElementsAttr,
    MemRefType,
    ModuleOp,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta_positions import Sram

from ..analysis.contraction import mac_region
from ..analysis.sram_alloc import alloc as sram_alloc
from ..analysis.sram_alloc import new_global
from .encoding import BiasEncoding, encode_bias

__all__ = ["alloc", "bias_encoding", "bias_weights", "broadcast_channel", "channel_dim",
           "constant_global", "contraction", "subview_like"]

_PAR = linalg.IteratorTypeAttr.parallel()
_RED = linalg.IteratorTypeAttr.reduction()


def constant_global(value: SSAValue, module: ModuleOp) -> memref.GlobalOp | None:
    """The dense constant ``memref.global`` that ``value`` (a read of it or a subview of one)
    reads, else ``None``."""
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


def channel_dim(shape: Sequence[int]) -> int | None:
    """The one leading dimension of a packed bias buffer that is not 1 (its channel blocks),
    or the second when all are 1."""
    lead = [d for d, n in enumerate(shape[:-2]) if n != 1]
    if len(lead) > 1 or len(shape) < 4:
        return None
    return lead[0] if lead else 1


def alloc(shape: Sequence[int], space: Sram, offset: int, before: Operation) -> SSAValue:
    """An int8 buffer of ``space`` at element ``offset``, inserted before ``before``."""
    return sram_alloc(shape, space, offset, before, f"bias_{space.value}")


def subview_like(src: SSAValue, like: memref.SubviewOp, channel: int, sizes: Sequence[int],
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


def contraction(x: SSAValue, w: SSAValue, acc: SSAValue, channel: int) -> linalg.GenericOp:
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
    return linalg.GenericOp(
        [x, w], [acc], mac_region(),
        [AffineMapAttr(x_map), AffineMapAttr(w_map), AffineMapAttr(acc_map)],
        [_RED, *([_PAR] * (lead + 2)), _RED],
    )



def bias_encoding(glob: memref.GlobalOp, cfg: VTAConfig) -> BiasEncoding | None:
    """The encoding of a packed bias constant (every channel repeated over the BATCH lanes,
    second-innermost), ``None`` when its lanes differ or it is out of range."""
    gt = glob.type
    assert isinstance(gt, MemRefType) and isinstance(glob.initial_value,
                                                     DenseIntOrFPElementsAttr)
    values = np.frombuffer(glob.initial_value.data.data, dtype=np.int32).reshape(gt.get_shape())
    lanes = np.moveaxis(values, -2, 0)
    if not all(np.array_equal(lanes[0], lane) for lane in lanes):
        return None
    return encode_bias(lanes[0].reshape(-1), cfg)


def bias_weights(module: ModuleOp, glob: memref.GlobalOp, encoding: BiasEncoding, lead: int,
                 cfg: VTAConfig) -> tuple[memref.GlobalOp, memref.GlobalOp]:
    """The constant globals of the bias weights ``(channel blocks, k, 1.., BLOCK_OUT,
    BLOCK_IN)`` and of ``x`` ``(1.., BATCH, BLOCK_IN)``, for accumulators of ``lead`` leading
    dimensions, placed after the packed bias ``glob``."""
    k = encoding.elements
    blocks = encoding.weights.shape[0] // cfg.block_out
    weights = encoding.weights.reshape(blocks, cfg.block_out, k, cfg.block_in).transpose(
        0, 2, 1, 3)
    w_data = weights.reshape(blocks, k, *([1] * (lead - 2)), cfg.block_out, cfg.block_in)
    x_data = np.broadcast_to(encoding.x, (cfg.batch, cfg.block_in)).reshape(
        *([1] * lead), cfg.batch, cfg.block_in)
    stem = glob.sym_name.data
    w_glob = new_global(module, glob, f"{stem}_gemm_weights", w_data)
    x_glob = new_global(module, glob, f"{stem}_gemm_input", x_data)
    return w_glob, x_glob


def broadcast_channel(m: AffineMap, rank: int) -> int | None:
    """The accumulator dimension a bias's broadcast map ``(0.., d_c, 0.., [d_bb,] d_oo)``
    keeps (the packed bias repeats every channel over the BATCH lanes)."""
    kept = []
    for j, e in enumerate(m.results):
        if isinstance(e, AffineDimExpr) and e.position == j:
            kept.append(j)
        elif not (isinstance(e, AffineConstantExpr) and e.value == 0):
            return None
    if kept[-2:-1] == [rank - 2]:
        kept.pop(-2)
    if m.num_dims != rank or len(m.results) != rank or len(kept) != 2 or kept[1] != rank - 1:
        return None
    return kept[0]
