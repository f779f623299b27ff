"""``vta-fold-uop-loops``: host loops around micro-ops become micro-kernel loops (stage 4 → 5).

The contract is ``docs/pipeline.md``, stage 5.  A micro-kernel is one GEMM or ALU instruction:
a list of micro-ops of one kind (all ``vta.gemm``, all ``vta.gemm_reset``, or all ``vta.alu``
with the same operation and immediate) inside at most two ``vta.uop_loop`` levels, each adding
a constant factor to the destination / source / weight index per iteration (``docs/isa.md``
§4.4).  Starting from every innermost ``affine.for`` whose body holds only micro-ops of one
kernel (plus index arithmetic), the pass folds the enclosing loops from the inside out while

* the loop counts from 0 to a constant with step 1 (no ``iter_args``);
* every micro-op position is affine in the loop variable with the same coefficient for all
  micro-ops of the kernel per operand (the coefficient is the level's factor, the position
  without the loop variable the micro-op's new base) and no other value it uses is computed
  inside the loop;
* the factors are non-negative and fit their instruction fields, and the extent fits 14 bits;
* the micro-op list keeps the runtime's write-hazard rule: no micro-op writes an accumulator
  element that one of the two before it may write (positions must differ by a nonzero
  constant), and it fits the micro-op SRAM.

A loop whose factors are the inner level's factors times its extent is merged into that level
(one level, extent multiplied: the same iterations in the same order) instead of taking a new
one; a loop of extent 1 is folded away.  At most ``max-levels`` levels are made; loops further
out stay host loops.  The ALU ignores the source of an immediate micro-op but still computes it
(``docs/isa.md`` §3.7), so an immediate kernel's ``src`` factor follows its ``dst`` factor as in
TVM.  Positions that remain are rebuilt before the kernel as ``affine.apply`` of values defined
outside the folded loops, so no micro-op depends on a folded loop variable.  This is how
micro-ops on SRAM subviews fold: ``vta-tensorize`` gives them the view's offset as a value
computed before their loops (for the double-buffer copy ``(%ic mod 2) * tile``, not affine in
``%ic``), a term the folded loops leave alone; it becomes the kernel's base position, and the
host loop it depends on stays on the host.

**Micro-op list loops.**  Innermost loops marked ``vta.uop_list`` (by ``vta-tensorize``, for a
convolution) enumerate the kernel's micro-op list: they stay ``affine.for`` loops, unmarked,
inside the innermost ``vta.uop_loop`` (each iteration pushes micro-ops, as TVM's kernel closure
does), the micro-op's positions rebuilt inside them as ``affine.apply`` of the list variables
with host values as symbols.  The loops around them fold into levels as above.  The list must
fit the micro-op SRAM and keep the write-hazard rule, enumerated over the list loops and across
level iterations; otherwise the marks are dropped and the loops fold like any other::

    affine.for %oh = 0 to 8 {                     vta.uop_loop 8 dst 8 src 10 {
      affine.for %ow = 0 to 8 {                     vta.uop_loop 8 dst 1 src 1 {
        affine.for %i = 0 to 2 {                      affine.for %i = 0 to 2 {
          ...                              →            ...
            affine.for %o = 0 to 4 {                      affine.for %o = 0 to 4 {
              vta.gemm ...                                  %d = affine.apply (d0 * 64) (%o)
            } {vta.uop_list}                                vta.gemm %acc[%d] += ...
          ...                                             }
                                                      ...

Unrolling (``unroll-limit``): when the innermost loop has a constant trip count of at most
``unroll-limit``, the pass also considers unrolling it into that many micro-ops of the one
kernel (the iterations in order, so execution order is unchanged) and folding the loops around
it instead.  It does so only when that leaves strictly fewer host loop iterations, i.e. fewer
GEMM/ALU instructions, and the unrolled list obeys the write-hazard rule (a reduction loop,
whose micro-ops all write one element, is never unrolled).  ``unroll-limit=0`` disables it.

Structure.  One walk applies the pattern :class:`~.patterns.FoldUopLoops` to every
``affine.for`` in program order: at a loop whose body is the micro-ops of one kernel it plans
the kernel with the analysis of :mod:`.kernel` (folding, micro-op lists, unrolling) and
replaces the loops it folds.  The kernels' loop chains are disjoint, so the order does not
matter, and a loop is looked at once: the kernels the pattern makes are not folded again.

Before::

    affine.for %o = 0 to 16 {
      affine.for %i = 0 to 16 {
        %w = affine.apply affine_map<(d0, d1) -> (d0 * 16 + d1)> (%o, %i)
        vta.gemm %acc[%o] += %inp[%i] * %wgt[%w] : ...
      }
    }
    affine.for %o = 0 to 16 {
      vta.alu shr %acc[%o], 8 : memref<1x16x1x16xi32, #vta.sram<acc>>
    }

After::

    vta.uop_loop 16 dst 1 wgt 16 {
      vta.uop_loop 16 src 1 wgt 1 {
        vta.gemm %acc[0] += %inp[0] * %wgt[0] : ...
      }
    }
    vta.uop_loop 16 dst 1 src 1 {
      vta.alu shr %acc[0], 8 : memref<1x16x1x16xi32, #vta.sram<acc>>
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from vta_mlir.dialects.vta import MAX_UOP_LOOP_DEPTH
from vta_mlir.ir.diagnostics import report_error, verify_op
from vta_mlir.ir.unchanged import Untouched

from ..analysis.rewriting import apply_patterns
from .kernel import PositionForms
from .patterns import FoldUopLoops

__all__ = ["FoldUopLoops", "FoldUopLoopsPass"]


@dataclass(frozen=True)
class FoldUopLoopsPass(ModulePass):
    """Fold the innermost host loops around micro-ops into ``vta.uop_loop`` levels.

    ``max-levels``: at most this many levels per kernel (0..2; 0 folds nothing).
    ``unroll-limit``: unroll an innermost loop of at most this many iterations into the kernel
    when that saves instructions (0: never).
    """

    name = "vta-fold-uop-loops"

    max_levels: int = MAX_UOP_LOOP_DEPTH
    unroll_limit: int = 16

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not 0 <= self.max_levels <= MAX_UOP_LOOP_DEPTH:
            report_error(
                op,
                f"vta-fold-uop-loops: max-levels = {self.max_levels} is out of range "
                f"(0..{MAX_UOP_LOOP_DEPTH}: a micro-kernel has at most {MAX_UOP_LOOP_DEPTH} "
                "loop levels)",
            )
        if self.unroll_limit < 0:
            report_error(
                op, f"vta-fold-uop-loops: unroll-limit = {self.unroll_limit} is negative"
            )
        if not self.max_levels:
            return
        untouched = Untouched(op)
        apply_patterns(op, [FoldUopLoops(self.max_levels, self.unroll_limit, PositionForms())])
        verify_op(op, vouched=untouched)
