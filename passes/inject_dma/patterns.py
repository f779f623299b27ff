"""The rewrite pattern of ``vta-inject-dma``: :class:`InjectDmaCopy` replaces each planned copy
(:func:`~.plan.plan_inject_dma`) by its ``vta.dma_copy`` ops."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from xdsl.dialects import affine, memref
from xdsl.dialects.builtin import IndexType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from vta_mlir.dialects.vta import DmaCopyOp
from vta_mlir.ir.locations import copy_location

from ..analysis.sram_views import HostIndex, LinearForm, erase_dead_views
from .plan import DmaPlan, InjectDmaPlan

__all__ = ["InjectDmaCopy"]


def _emit(
    plan: DmaPlan, index: HostIndex, unroll_limit: int, rewriter: PatternRewriter
) -> None:
    op = plan.op
    new_ops: list[Operation] = []
    cache: dict[LinearForm, SSAValue] = {}

    def dma(dram: LinearForm, sram: LinearForm, point: InsertPoint) -> None:
        def insert(new: Operation) -> None:
            rewriter.insert(new, point)
            new_ops.append(new)

        dram_pos = index.materialise(dram, insert, cache)
        sram_pos = index.materialise(sram, insert, cache)
        src, dst = (plan.sram, plan.dram) if plan.is_store else (plan.dram, plan.sram)
        src_pos, dst_pos = (sram_pos, dram_pos) if plan.is_store else (dram_pos, sram_pos)
        insert(
            DmaCopyOp(
                src,
                dst,
                x_size=plan.x,
                y_size=plan.y,
                x_stride=plan.stride,
                src_pos=src_pos,
                dst_pos=dst_pos,
            )
        )

    count = math.prod(d.extent for d in plan.outer)
    if plan.empty:
        pass
    elif count <= max(unroll_limit, 1):
        for idx in itertools.product(*(range(d.extent) for d in plan.outer)):
            step_d = sum(i * d.dram for i, d in zip(idx, plan.outer, strict=True))
            step_s = sum(i * d.sram for i, d in zip(idx, plan.outer, strict=True))
            dma(
                plan.dram_offset + LinearForm(const=step_d),
                plan.sram_offset + LinearForm(const=step_s),
                InsertPoint.before(op),
            )
    else:
        # Many DMAs: a host loop nest around one, so the program stays small.
        point = InsertPoint.before(op)
        dram, sram = plan.dram_offset, plan.sram_offset
        for d in plan.outer:
            terminator = affine.YieldOp.get()
            block = Block([terminator], arg_types=[IndexType()])
            loop = affine.ForOp.from_region([], [], [], [], 0, d.extent, Region(block))
            rewriter.insert(loop, point)
            new_ops += [loop, terminator]
            iv = index.form(block.args[0])
            dram, sram = dram + iv * d.dram, sram + iv * d.sram
            point = InsertPoint.before(terminator)
        # Positions inside the loops depend on their variables: no sharing with the outside.
        cache = {}
        dma(dram, sram, point)
    copy_location(op, new_ops)



@dataclass(frozen=True)
class InjectDmaCopy(RewritePattern):
    """A planned copy between DRAM and SRAM -> its DMAs: written out one by one up to
    ``unroll_limit``, else a host loop nest around one; the subviews it leaves without users
    are erased."""

    plan: InjectDmaPlan
    unroll_limit: int

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: memref.CopyOp | linalg.CopyOp | linalg.GenericOp, rewriter: PatternRewriter
    ) -> None:
        plan = self.plan.copies.get(op)
        if plan is None:
            return
        _emit(plan, self.plan.index, self.unroll_limit, rewriter)
        views = [v.owner for v in op.operands if isinstance(v.owner, memref.SubviewOp)]
        rewriter.erase(op)
        erase_dead_views(views, rewriter)
