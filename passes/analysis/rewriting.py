"""How the pattern-based passes apply their patterns: one walk over the module.

The passes plan every op first (their analyses report what cannot be lowered before anything
changes) and then rewrite with :func:`apply_patterns`: xDSL's :class:`PatternRewriteWalker`
over a :class:`GreedyRewritePatternApplier`, in one forward walk that does not revisit the ops
a pattern creates (none of them matches again) and without the applier's dead-code elimination,
which would erase every unused pure op of the module — an unused ``memref.alloc`` included,
which moves the buffers after it — where the patterns erase only what their own rewrite left
without users (:func:`~vta_mlir.passes.analysis.sram_views.erase_dead_views`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriteWalker,
    RewritePattern,
)

__all__ = ["apply_patterns"]


def apply_patterns(module: ModuleOp, patterns: Sequence[RewritePattern]) -> bool:
    """Apply ``patterns`` (the first that rewrites an op wins) to every op of ``module``, in
    program order; True if anything changed."""
    applier = GreedyRewritePatternApplier(list(patterns), dce_enabled=False)
    walker = PatternRewriteWalker(applier, apply_recursively=False)
    return walker.rewrite_module(module)
