"""``vta-to-isa``: the whole lowering, input-level IR to ``vtaisa``, as one named pipeline.

It runs, in order and verifying the module after each (``docs/pipeline.md``)::

    [vta-bufferize, when the input has tensors,] [vta-narrow-integers, when it has i64
    buffers,] [vta-integerize, when it has float layers,] [vta-raise-loops, when a function holds
    loops,] vta-pack, vta-tile, vta-inject-dma,
    vta-tensorize, vta-fold-uop-loops, vta-coproc-sync, vta-lower-to-isa

with their default options, except the tiling choices, which pass through to ``vta-tile``
(``tile=``, ``double-buffer=``).  ``vta-run FILE.mlir``, ``vta-translate --emit=bin FILE.mlir``
and ``vta_mlir.compile`` use it for input-level IR.

Input (upstream MLIR)::

    func.func @dense(%x: memref<1x1024xi8>, %w: memref<1024x1024xi8>, %y: memref<1x1024xi8>) {
      ... linalg.fill / linalg.matmul / linalg.generic { shrsi, maxsi, minsi, trunci } ...
    }

Output: ``builtin.module attributes {vta.config = ...} { vtaisa.program ... }`` — the linked
instruction stream, micro-op table, DRAM segments and argument table.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from vta_mlir.ir.diagnostics import verify_op

#: The passes that verify the whole module before they return: verifying it again after them
#: would only double the time (a network's module has tens of thousands of ops).
SELF_VERIFYING = frozenset({"vta-tile", "vta-inject-dma", "vta-tensorize", "vta-fold-uop-loops",
                            "vta-coproc-sync"})


@dataclass(frozen=True)
class VtaToIsaPass(ModulePass):
    """The named pipeline ``vta-to-isa``; see the module docstring."""

    name = "vta-to-isa"

    tile: tuple[int, ...] = ()
    double_buffer: bool | None = None
    function: str | None = None
    requant: str = "none"

    def passes(self) -> tuple[ModulePass, ...]:
        from .coproc_sync import CoprocSyncPass
        from .fold_uop_loops import FoldUopLoopsPass
        from .inject_dma import InjectDmaPass
        from .lower_to_isa import LowerToIsaPass
        from .pack import PackPass
        from .tensorize import TensorizePass
        from .tile import TilePass

        return (
            PackPass(),
            TilePass(tile=self.tile, double_buffer=self.double_buffer),
            InjectDmaPass(),
            TensorizePass(),
            FoldUopLoopsPass(),
            CoprocSyncPass(),
            LowerToIsaPass(function=self.function),
        )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from .bufferize import BufferizePass, has_tensors
        from .integerize import IntegerizePass, has_float_layers
        from .narrow_integers import NarrowIntegersPass, has_wide_integers
        from .raise_loops import RaiseLoopsPass, has_loops

        # linalg on tensors becomes the memref form in destination-passing style.
        if has_tensors(op):
            BufferizePass().apply(ctx, op)
        # Sign extensions of their own and i64 accumulators (torch-mlir's FX importer) narrow.
        if has_wide_integers(op):
            NarrowIntegersPass().apply(ctx, op)
        # Quantized layers requantizing in float become integer layers (requant=fixed-point).
        if has_float_layers(op):
            IntegerizePass(requant=self.requant).apply(ctx, op)
        # Loop nests in the input are raised to the structured ops vta-pack takes.
        if has_loops(op):
            RaiseLoopsPass().apply(ctx, op)
        for p in self.passes():
            p.apply(ctx, op)
            if p.name not in SELF_VERIFYING:
                verify_op(op)
