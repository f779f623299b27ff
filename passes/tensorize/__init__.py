"""``vta-tensorize``: linalg ops on SRAM buffers become loops of VTA micro-ops (stage 3 → 4).

The contract is ``docs/pipeline.md``, stage 4.  Every ``linalg`` op with an operand in a
``#vta.sram<...>`` memory space is rewritten into ``affine.for`` loops with constant bounds (one
per element-level iteration dimension of extent > 1, the innermost loop being the last such
dimension) around one micro-op whose buffer positions are the operands' element indices,
linearised row-major over the leading (element) dimensions of each buffer:

* ``linalg.fill ins(%c : i32) outs(%acc)`` → ``vta.gemm_reset %acc[d]`` (a nonzero ``c`` that fits
  the ALU immediate adds a second nest of ``vta.alu add %acc[d], c``);
* a GEMM contraction ``linalg.generic`` — maps whose trailing results are the tensor intrinsic
  ``Acc(.., bb, oo) += X(.., bb, ii) * W(.., oo, ii)`` over ``BATCH x BLOCK_IN x BLOCK_OUT`` and
  body ``extsi, extsi, muli, addi`` — → ``vta.gemm %acc[d] += %inp[s] * %wgt[w]``;
* an element-wise ``linalg.generic`` in place on an accumulator buffer whose body is one of
  ``arith.minsi / maxsi / addi / muli / shrsi`` (also ``subi`` and ``shli`` by a constant, as
  ``add -c`` and ``shr -c``) → ``vta.alu <op> %acc[d], imm`` or ``vta.alu <op> %acc[d], %src[s]``.

A **convolution** contraction (input subscripts ``oh * S + kh``, ``ow * S + kw``, the stage-1
form) gets its loops ordered for one micro-kernel: output rows and columns outermost, then the
micro-op list — reduction dimensions ``i, kh, kw`` and the output channels ``o`` innermost — whose
loops carry the unit attribute ``vta.uop_list`` (``vta-fold-uop-loops`` keeps them inside the
kernel).  The order must keep the write-hazard rule (checked by enumerating the list and the
steps between row / column iterations, :func:`write_hazard_free`): with fewer than three
channel blocks the columns (else the rows, else both) move into the list, innermost.  A list
longer than half the micro-op SRAM gives its outermost loops to the host.  Without a legal order
the loops keep the iteration order, unmarked::

    // ins(%iv, %wv) outs(%acc), TI = 2, 3x3, TO = 4, TH = OW = 8, WT = 10
    affine.for %oh = 0 to 8 {
      affine.for %ow = 0 to 8 {
        affine.for %i = 0 to 2 {
          affine.for %kh = 0 to 3 {
            affine.for %kw = 0 to 3 {
              affine.for %o = 0 to 4 {
                %d = affine.apply affine_map<(d0, d1, d2) -> (d0 * 8 + d1 + d2 * 64)> (%oh, %ow, %o)
                ...
                vta.gemm %acc[%d] += %inp[%s] * %wgt[%w] : ...
              } {vta.uop_list}
            } {vta.uop_list}
          } {vta.uop_list}
        } {vta.uop_list}
      }
    }

An element-wise source read with a broadcasting map (the bias ``(0, o, 0, 0, bb, oo)``; a batch
lane of size 1 may be written ``0``) is addressed without the broadcast dimensions.

An operand may be a ``memref.subview`` (a chain of them, rank-reducing or not) of an SRAM
buffer with static sizes and strides and constant or host-computed offsets: the double-buffer
copy ``i mod 2`` of a tile, a window of a larger buffer.  The micro-op then addresses the
buffer itself: the subscripts are linearised with the view's element strides in that buffer,
and the view's first element is added.  That offset is the same for every micro-op of the
nest, so it is computed once before the loops (one ``affine.apply`` of the host values it
depends on, looked through their own index arithmetic); ``vta-fold-uop-loops`` folds the loops
around it and it stays the kernel's base position, evaluated per host iteration by
``vta-lower-to-isa``.  Subviews left without users are erased.  The view analysis
(:class:`~vta_mlir.passes.analysis.sram_views.HostIndex`,
:func:`~vta_mlir.passes.analysis.sram_views.buffer_view`) is in
:mod:`vta_mlir.passes.analysis.sram_views`, shared with ``vta-inject-dma``; the convolution loop
order in :mod:`.conv`.

Any other linalg op touching SRAM is reported at the op; everything else (DMA copies, host
loops and arithmetic) is left as it is.  The new ops carry the location of the linalg op.

Structure.  The analysis (:func:`~.match.plan_tensorize`, :mod:`.match`, :mod:`.elementwise`)
recognises every linalg op on SRAM first, so a module is either fully rewritten or reported
untouched; then one walk applies the rewrite patterns (:mod:`.patterns`), one per form:
:class:`~.patterns.TensorizeFill`, :class:`~.patterns.TensorizeContraction`,
:class:`~.patterns.TensorizeConv` and :class:`~.patterns.TensorizeElementwise`.  The nests and
their emission are in :mod:`.nest`.

Before (default configuration, BATCH 1, BLOCK 16)::

    linalg.fill ins(%c0 : i32) outs(%acc : memref<1x16x1x16xi32, #vta.sram<acc>>)
    linalg.generic {indexing_maps = [(b, o, i, bb, oo, ii) -> (b, i, bb, ii),
                                     (b, o, i, bb, oo, ii) -> (o, i, oo, ii),
                                     (b, o, i, bb, oo, ii) -> (b, o, bb, oo)], ...}
        ins(%inp, %wgt : memref<1x16x1x16xi8, #vta.sram<inp>>,
                         memref<16x16x16x16xi8, #vta.sram<wgt>>)
        outs(%acc : memref<1x16x1x16xi32, #vta.sram<acc>>) { extsi, extsi, muli, addi }
    linalg.generic {...} ins(%acc : ...) outs(%acc : ...) { arith.shrsi %in, %c8 }

After::

    affine.for %o = 0 to 16 {
      vta.gemm_reset %acc[%o] : memref<1x16x1x16xi32, #vta.sram<acc>>
    }
    affine.for %o = 0 to 16 {
      affine.for %i = 0 to 16 {
        %w = affine.apply affine_map<(d0, d1) -> (((d0 * 16) + d1))> (%o, %i)
        vta.gemm %acc[%o] += %inp[%i] * %wgt[%w] : ...
      }
    }
    affine.for %o = 0 to 16 {
      vta.alu shr %acc[%o], 8 : memref<1x16x1x16xi32, #vta.sram<acc>>
    }

A double-buffered input tile, ``%ib = memref.subview %inp2[%p, 0, 0, 0, 0] [1, 1, 16, 1, 16]
[1, 1, 1, 1, 1]`` with ``%p = affine.apply (d0 mod 2) (%ic)``, read by the contraction::

    %b = affine.apply affine_map<(d0) -> (((d0 mod 2) * 16))> (%ic)
    affine.for %o = 0 to 16 {
      affine.for %i = 0 to 16 {
        %s = affine.apply affine_map<(d0, d1) -> ((d0 + d1))> (%i, %b)
        ...
        vta.gemm %acc[%o] += %inp2[%s] * %wgt[%w] : ...
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from vta_mlir.ir.diagnostics import verify_op
from vta_mlir.ir.unchanged import Untouched

from ..analysis.rewriting import apply_patterns
from .match import plan_tensorize
from .patterns import (
    TENSORIZE_PATTERNS,
    TensorizeContraction,
    TensorizeConv,
    TensorizeElementwise,
    TensorizeFill,
)

__all__ = [
    "TensorizeContraction",
    "TensorizeConv",
    "TensorizeElementwise",
    "TensorizeFill",
    "TensorizePass",
]


@dataclass(frozen=True)
class TensorizePass(ModulePass):
    """Rewrite the linalg ops on SRAM buffers into loops of ``vta.gemm`` / ``vta.alu``."""

    name = "vta-tensorize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        plan = plan_tensorize(op)
        untouched = Untouched(op)
        apply_patterns(op, [pattern(plan) for pattern in TENSORIZE_PATTERNS])
        verify_op(op, vouched=untouched)
