"""Planning the regions of batched products and of layers read as weights (``vta-pack``).

A region whose value holds a :class:`~.match_batch.BatchGemm` of ``H`` batches of ``M × N``
results is planned by :class:`BatchPlan` (``passes/pack/match_batch.py``):

* *collapsed*, when the right operand is one matrix for every batch and ``BATCH`` divides
  ``M``: one 2-D region of ``H·M`` rows; every ``H × M × ...`` operand is packed as the matrix
  of ``H·M`` rows (:func:`~.match_batch.collapsed_packing`), but an output stored in the
  weight layout of a later batched product batch by batch, the same bytes in whole weight
  tiles, which the region's store writes through a ``memref.collapse_shape``;
* *looped* otherwise: the 2-D region of one batch, ``M × N``, inside a host loop over the
  batches (the steps :class:`BatchLoop` and :class:`EndBatchLoop`); every ``H × ...``
  operand is packed batch by batch (:func:`~.match_batch.batched_packing`) and each
  iteration reads its batch's slice.

A per-column bias ``(h, m, n) -> (n)`` is the 2-D region's bias in both.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import BlockArgument, Operation

from vta_mlir.config import VTAConfig
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.passes.pack.expr import Alu, Expr, Gemm, Narrow, label
from vta_mlir.passes.pack.match_batch import BatchGemm, batched_packing, collapsed_packing
from vta_mlir.passes.pack.normal_form import Packing, Role, packing_for
from vta_mlir.passes.pack.wide_outputs import wide_packing

__all__ = ["BatchPlan", "batch_plan"]


def _batch_gemm(e: Expr | Narrow) -> BatchGemm | None:
    if isinstance(e, Narrow):
        return _batch_gemm(e.value)
    if isinstance(e, BatchGemm):
        return e
    if isinstance(e, Gemm):
        return _batch_gemm(e.init)
    if isinstance(e, Alu):
        return _batch_gemm(e.lhs) or _batch_gemm(e.rhs)
    return None


@dataclass(frozen=True)
class BatchPlan:
    """How the region of a batched product is laid out (module doc)."""

    gemm: BatchGemm
    collapsed: bool

    @property
    def batch(self) -> int:
        return self.gemm.batch

    def acc_shape(self, out_shape: tuple[int, ...]) -> tuple[int, int]:
        """The 2-D accumulator: ``H·M × N`` collapsed, one batch's ``M × N`` looped."""
        _, rows, cols = out_shape
        return (self.batch * rows, cols) if self.collapsed else (rows, cols)

    def packing(self, arg: BlockArgument, role: Role, op: Operation, dtype: str,
                cfg: VTAConfig, planes: int = 0) -> Packing:
        """The packing of the ``H × ...`` operand ``arg`` in ``role``; ``planes`` (not 0):
        an i32 result, each batch's byte planes (``passes/pack/wide_outputs.py``)."""
        shape = tuple(arg.type.get_shape())  # type: ignore[attr-defined]
        if shape[0] != self.batch:
            report_error(op, f"reads {label(arg)} ({arg.type}) in a region of {self.batch} "
                             "batches: its first dimension is the batch")
        if planes:
            if self.collapsed:
                report_error(op, f"writes {label(arg)}, an i32 result, with one right operand "
                                 "for every batch: byte planes are stored batch by batch "
                                 "(give the product a right operand per batch)")
            matrix = packing_for(role, shape[1:], dtype, cfg)
            return batched_packing(wide_packing(matrix, planes, cfg), self.batch)
        if self.collapsed and role != Role.WEIGHT:
            matrix = packing_for(role, (shape[0] * shape[1], *shape[2:]), dtype, cfg)
            return collapsed_packing(matrix, shape)
        return batched_packing(packing_for(role, shape[1:], dtype, cfg), self.batch)


def batch_plan(value: Narrow, cfg: VTAConfig) -> BatchPlan | None:
    """The plan of a region computing ``value``; None without a batched product."""
    g = _batch_gemm(value)
    if g is None:
        return None
    return BatchPlan(g, not g.wgt_batched and (g.rows % cfg.batch == 0 or g.batch == 1))


def batched_arg(arg: BlockArgument) -> bool:
    """``arg`` has the rank of a batch of matrices."""
    t = arg.type
    return isinstance(t, MemRefType) and t.get_num_dims() == 3
