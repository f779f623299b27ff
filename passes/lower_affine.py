"""``lower-affine``: ``affine`` loops, accesses and index maps to ``scf``, ``memref`` and
``arith``, as MLIR's pass of that name does.

It takes the place of xDSL 0.74's pass of the same name in the project's tools: the stock
patterns evaluate access maps as if they had no operands and loop bounds as single constants
(they index out of range on ``affine.load %m[%i + 1]`` or ``affine.for %j = max(...)``), and
have no pattern for ``affine.min`` (xDSL 0.74 has no ``affine.max``).  Here every map is
evaluated on its dims and symbols; a multi-result lower bound is the maximum of its results
and an upper bound the minimum, as MLIR defines them.  ``affine.yield`` and ``affine.apply``
lower with xDSL's patterns, which handle operands correctly.

Before::

    affine.for %i = 0 to min affine_map<(d0) -> (d0, 8)>(%n) {
      %v = affine.load %m[%i + 1] : memref<9xi32>
    }

After (constants abbreviated)::

    %ub = arith.minsi %n, %c8 : index
    scf.for %i = %c0 to %ub step %c1 {
      %p = arith.addi %i, %c1_0 : index
      %v = memref.load %m[%p] : memref<9xi32>
    }
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, arith, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.transforms.lower_affine import LowerAffineApply, LowerAffineYield, affine_expr_ops

__all__ = [
    "LowerAffineFor",
    "LowerAffineLoad",
    "LowerAffineMin",
    "LowerAffinePass",
    "LowerAffineStore",
    "expand_affine_map",
]


def expand_affine_map(
    rewriter: PatternRewriter, amap: AffineMap, operands: Sequence[SSAValue]
) -> list[SSAValue]:
    """Insert, before the matched op, the ``arith`` ops computing each result of ``amap`` on
    ``operands`` (its dims, then its symbols); return the results."""
    dims = list(operands[: amap.num_dims])
    syms = list(operands[amap.num_dims :])
    values: list[SSAValue] = []
    for expr in amap.results:
        ops, value = affine_expr_ops(expr, dims, syms)
        rewriter.insert(ops)
        values.append(value)
    return values


def _reduce(
    rewriter: PatternRewriter,
    values: Sequence[SSAValue],
    combine: type[arith.MinSIOp] | type[arith.MaxSIOp],
) -> SSAValue:
    result = values[0]
    for value in values[1:]:
        op = combine(result, value)
        rewriter.insert(op)
        result = op.result
    return result


class LowerAffineMin(RewritePattern):
    """``affine.min`` -> a chain of ``arith.minsi`` over the map's results."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: affine.MinOp, rewriter: PatternRewriter) -> None:
        values = expand_affine_map(rewriter, op.map.data, op.arguments)
        rewriter.replace(op, [], new_results=[_reduce(rewriter, values, arith.MinSIOp)])


class LowerAffineStore(RewritePattern):
    """``affine.store`` -> ``memref.store`` at the map's results."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: affine.StoreOp, rewriter: PatternRewriter) -> None:
        indices = expand_affine_map(rewriter, op.map.data, op.indices)
        rewriter.replace(op, memref.StoreOp.get(op.value, op.memref, indices))


class LowerAffineLoad(RewritePattern):
    """``affine.load`` -> ``memref.load`` at the map's results."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: affine.LoadOp, rewriter: PatternRewriter) -> None:
        indices = expand_affine_map(rewriter, op.map.data, op.indices)
        rewriter.replace(op, memref.LoadOp.get(op.memref, indices))


class LowerAffineFor(RewritePattern):
    """``affine.for`` -> ``scf.for`` from the maximum of the lower bound's results to the
    minimum of the upper bound's."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: affine.ForOp, rewriter: PatternRewriter) -> None:
        lower = _reduce(
            rewriter,
            expand_affine_map(rewriter, op.lowerBoundMap.data, op.lowerBoundOperands),
            arith.MaxSIOp,
        )
        upper = _reduce(
            rewriter,
            expand_affine_map(rewriter, op.upperBoundMap.data, op.upperBoundOperands),
            arith.MinSIOp,
        )
        step = arith.ConstantOp(IntegerAttr(op.step.value.data, IndexType()))
        rewriter.insert(step)
        body = rewriter.move_region_contents_to_new_regions(op.body)
        rewriter.replace(op, scf.ForOp(lower, upper, step.result, op.inits, body))


@dataclass(frozen=True)
class LowerAffinePass(ModulePass):
    """Lower ``affine`` to ``scf``/``memref``/``arith`` (MLIR's ``lower-affine``)."""

    name = "lower-affine"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # `affine.min` first: loop bounds computed by it must be plain values before the loops
        # around them lower.
        PatternRewriteWalker(LowerAffineMin()).rewrite_module(op)
        PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [
                    LowerAffineStore(),
                    LowerAffineLoad(),
                    LowerAffineFor(),
                    LowerAffineYield(),
                    LowerAffineApply(),
                ]
            )
        ).rewrite_module(op)
