"""The rewrite patterns of ``vta-tensorize``, one per form of linalg op (:class:`~.match.Form`).

Each pattern rewrites the ops of its own form that the analysis
(:func:`~.match.plan_tensorize`) planned, and leaves every other op as it is: it inserts the
op's nests before it, erases it and then the subviews its operands were, if nothing else uses
them (the micro-ops address the buffers themselves).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects import memref
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ..analysis.sram_views import erase_dead_views
from .match import Form, TensorizePlan
from .nest import emit_nest

__all__ = [
    "TENSORIZE_PATTERNS",
    "TensorizeContraction",
    "TensorizeConv",
    "TensorizeElementwise",
    "TensorizeFill",
    "TensorizePattern",
]


@dataclass(frozen=True)
class TensorizePattern(RewritePattern):
    """What the patterns share: the plan, and the rewrite of a planned op of ``form``."""

    plan: TensorizePlan
    form: ClassVar[Form]

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        target = self.plan.targets.get(op)
        if target is None or target.form is not self.form:
            return
        for nest in target.nests:
            emit_nest(op, nest, self.plan.index, rewriter)
        views = [v.owner for v in op.operands if isinstance(v.owner, memref.SubviewOp)]
        rewriter.erase(op)
        erase_dead_views(views, rewriter)


@dataclass(frozen=True)
class TensorizeFill(TensorizePattern):
    """``linalg.fill`` of an accumulator -> ``vta.gemm_reset`` (then ``vta.alu add`` of a
    nonzero value)."""

    form: ClassVar[Form] = Form.FILL

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.FillOp, rewriter: PatternRewriter) -> None:
        self.rewrite(op, rewriter)


@dataclass(frozen=True)
class TensorizeContraction(TensorizePattern):
    """A GEMM contraction ``linalg.generic`` -> ``vta.gemm``, loops in iteration order."""

    form: ClassVar[Form] = Form.CONTRACTION

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.GenericOp, rewriter: PatternRewriter) -> None:
        self.rewrite(op, rewriter)


@dataclass(frozen=True)
class TensorizeConv(TensorizePattern):
    """A convolution contraction -> ``vta.gemm``, loops ordered for one micro-kernel, the
    micro-op list's marked ``vta.uop_list``."""

    form: ClassVar[Form] = Form.CONV

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.GenericOp, rewriter: PatternRewriter) -> None:
        self.rewrite(op, rewriter)


@dataclass(frozen=True)
class TensorizeElementwise(TensorizePattern):
    """An element-wise ``linalg.generic`` in place on an accumulator -> ``vta.alu``."""

    form: ClassVar[Form] = Form.ELEMENTWISE

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.GenericOp, rewriter: PatternRewriter) -> None:
        self.rewrite(op, rewriter)


#: The patterns of the pass, in the order it tries them.
TENSORIZE_PATTERNS: tuple[type[TensorizePattern], ...] = (
    TensorizeFill,
    TensorizeContraction,
    TensorizeConv,
    TensorizeElementwise,
)
