"""``vta-inject-dma``: copies between DRAM views and SRAM buffers become ``vta.dma_copy`` (stage
2 → 3).

The contract is ``docs/pipeline.md``, stage 3.  A copy is one of

* ``memref.copy %dram_view, %sram`` (or ``linalg.copy``): LOAD INP / WGT from ``i8`` DRAM, LOAD
  ACC from ``i32`` DRAM;
* ``linalg.generic ins(%dram_view) outs(%acc)`` whose body yields its input (LOAD ACC) or
  ``arith.extsi`` of an ``i8`` input (LOAD ACC_8BIT, sign-extending), with any input map: a
  broadcasting one (``(b, o, bb, oo) -> (0, o, 0, oo)``, a per-channel bias repeated over the
  rows) reads DRAM rows with stride 0;
* ``linalg.generic ins(%acc) outs(%dram_view)`` whose body is ``arith.trunci`` to ``i8``: a
  STORE (truncating, never padded).

Either side may be a ``memref.subview`` chain (static sizes and strides, offsets that are
constants or host index values: loop variables, ``affine.apply`` of them, ...) of a buffer with
the identity layout; rank-reducing subviews are fine.  The SRAM side may be a subview too (the
copy ``i mod 2`` of a double-buffered tile, any static-size window of a larger buffer).

How a copy becomes DMAs.  Every iteration point of the copy is an address on each side
(scalars, from the views' strides and the indexing maps).  The dimensions of the SRAM tensor
element (``BATCH x BLOCK_IN`` for inp, ...) must be dense on both sides and in the same order:
a DMA moves whole elements.  Over the remaining dimensions, counted in elements and ordered by
their SRAM stride (outermost first), the innermost ones contiguous on both sides form the row
(``x``), the next ones dense in SRAM after the row and evenly spaced in DRAM form the rows
(``y``, with the DRAM pitch ``stride``; 0 when DRAM repeats a row), within the 16-bit fields of
the configuration.  Any dimension left over — a third level of non-contiguity, an SRAM window
that is not dense, a pitch wider than the field — gets one DMA per index: written out one by
one up to ``unroll-limit`` DMAs, else as a host ``affine.for`` nest around one DMA.  The
positions are the views' offsets in elements, one ``affine.apply`` of the host values plus a
constant.  Subviews and index arithmetic left without users are erased.

Before (stage 2, default configuration, the weight tile of ``matrix_multiply_opt``)::

    %wgt = memref.alloc() : memref<16x16x16x16xi8, #vta.sram<wgt>>
    affine.for %oc = 0 to 4 {
      affine.for %ic = 0 to 4 {
        %o = affine.apply affine_map<(d0) -> (d0 * 16)> (%oc)
        %i = affine.apply affine_map<(d0) -> (d0 * 16)> (%ic)
        %ws = memref.subview %w[%o, %i, 0, 0] [16, 16, 16, 16] [1, 1, 1, 1]
            : memref<64x64x16x16xi8> to memref<16x16x16x16xi8, strided<...>>
        memref.copy %ws, %wgt : memref<16x16x16x16xi8, strided<...>>
            to memref<16x16x16x16xi8, #vta.sram<wgt>>
        ...
        linalg.generic {...} ins(%acc : ...) outs(%ys : ...) { arith.trunci }

After::

        %0 = affine.apply affine_map<(d0, d1) -> (d0 * 1024 + d1 * 16)> (%oc, %ic)
        vta.dma_copy %w[%0] -> %wgt[0] y 16 x 16 stride 64
            : memref<64x64x16x16xi8> -> memref<16x16x16x16xi8, #vta.sram<wgt>>
        ...
        vta.dma_copy %acc[0] -> %y[%1] y 1 x 16 stride 16 : ...

Not handled, with an error at the copy: a broadcast *within* a tensor element (a per-channel
bias with ``BATCH > 1``: the element's batch lanes would repeat one DRAM row, which no DMA
does), element dimensions that are not dense or not in the SRAM's lane order, offsets inside an
element, dynamic sizes, stores that are not ``trunci`` of the accumulator, copies between two
DRAM or two SRAM buffers.

Structure.  The analysis (:func:`~.plan.plan_inject_dma`, :mod:`.plan`, recognising copies in
:mod:`.copies`) plans every copy first, so a module is either fully rewritten or reported
untouched; then one walk applies the pattern :class:`~.patterns.InjectDmaCopy`, which emits
each copy's DMAs and erases what it leaves without users.

Padding.  Stage 2 has no way yet to say that a DRAM view is zero-padded (the halo of a conv2d
tile), so the pass emits no ``pad``.  A DRAM subview whose static offsets reach outside its
source — how a halo would show up — is reported as unsupported.  The natural extension is a
padded DRAM view whose out-of-range rows and columns map to the ``y_pad`` / ``x_pad`` fields of
a DMA whose SRAM side is the whole padded tile.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from vta_mlir.ir.diagnostics import report_error, verify_op
from vta_mlir.ir.unchanged import Untouched

from ..analysis.rewriting import apply_patterns
from .patterns import InjectDmaCopy
from .plan import DmaDim, dma_pattern, plan_inject_dma

__all__ = ["DmaDim", "InjectDmaCopy", "InjectDmaPass", "dma_pattern"]


@dataclass(frozen=True)
class InjectDmaPass(ModulePass):
    """Rewrite copies between DRAM views and SRAM buffers into ``vta.dma_copy`` (module
    docstring).

    ``unroll-limit``: a copy that needs several DMAs gets them written out one by one up to
    this many, else a host loop nest around one DMA.
    """

    name = "vta-inject-dma"

    unroll_limit: int = 4

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.unroll_limit < 0:
            report_error(op, f"vta-inject-dma: unroll-limit = {self.unroll_limit} is negative")
        plan = plan_inject_dma(op)
        untouched = Untouched(op)
        apply_patterns(op, [InjectDmaCopy(plan, self.unroll_limit)])
        verify_op(op, vouched=untouched)
