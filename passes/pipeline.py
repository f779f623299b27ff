"""``vta-to-isa``: the whole lowering, input-level IR to ``vtaisa``, as one named pipeline.

It runs, in order and verifying the module after each (``docs/pipeline.md``)::

    [vta-bufferize, when the input has tensors,] [vta-narrow-integers, when it has i64
    buffers,] [vta-integerize, when it has float layers,] [vta-raise-loops, when a function holds
    loops,] vta-normalize, vta-outline-host-steps, vta-pack, vta-merge-alu-immediates,
    vta-tile, vta-bias-gemm, vta-residual-gemm, vta-inject-dma, vta-tensorize,
    vta-fold-uop-loops, vta-coproc-sync, vta-lower-to-isa

with their default options, except the tiling choices, which pass through to ``vta-tile``
(``tile=``, ``double-buffer=``, ``carry-rows=``).  ``vta-run FILE.mlir``, ``vta-translate
--emit=bin FILE.mlir`` and ``vta_mlir.compile`` use it for input-level IR.

``insert-after=STAGE:PASS`` (repeatable as a list, ``insert-after=vta-pack:a,vta-tile:b{x=1}``)
runs a registered pass after one of the stages (:data:`STAGES`), the prepasses included: the
pass runs at that point of the pipeline whether or not the prepass had anything to do, so a
pass inserted after ``vta-bufferize`` always sees the memref form.  Each stage that runs, and
each inserted pass, is reported to :func:`vta_mlir.ir.stages.observe_stages` (``vta-opt
--mlir-print-ir-after-all`` prints the IR after each).

Input (upstream MLIR)::

    func.func @dense(%x: memref<1x1024xi8>, %w: memref<1024x1024xi8>, %y: memref<1x1024xi8>) {
      ... linalg.fill / linalg.matmul / linalg.generic { shrsi, maxsi, minsi, trunci } ...
    }

Output: ``builtin.module attributes {vta.config = ...} { vtaisa.program ... }`` — the linked
instruction stream, micro-op table, DRAM segments and argument table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from vta_mlir.errors import VTAError
from vta_mlir.ir.diagnostics import verify_op
from vta_mlir.ir.stages import parse_insertions, report_stage

#: The passes that verify the whole module before they return: verifying it again after them
#: would only double the time (a network's module has tens of thousands of ops).
SELF_VERIFYING = frozenset({"vta-tile", "vta-bias-gemm", "vta-residual-gemm", "vta-inject-dma",
                            "vta-tensorize", "vta-fold-uop-loops", "vta-coproc-sync",
                            "vta-lower-to-isa"})
#: The stages that run only when the input needs them, in order.
PREPASSES: tuple[str, ...] = ("vta-bufferize", "vta-narrow-integers", "vta-integerize",
                              "vta-raise-loops")
#: The stages that always run after them, in order (:meth:`VtaToIsaPass.passes` from vta-pack).
LOWERING: tuple[str, ...] = ("vta-normalize", "vta-outline-host-steps", "vta-pack",
                             "vta-merge-alu-immediates", "vta-tile", "vta-bias-gemm",
                             "vta-residual-gemm", "vta-inject-dma",
                             "vta-tensorize", "vta-fold-uop-loops", "vta-coproc-sync",
                             "vta-lower-to-isa")
#: Every stage, in order: what ``insert-after=STAGE:PASS`` may name.
STAGES: tuple[str, ...] = (*PREPASSES, *LOWERING)


@dataclass(frozen=True)
class VtaToIsaPass(ModulePass):
    """The named pipeline ``vta-to-isa``; see the module docstring."""

    name = "vta-to-isa"

    tile: tuple[int, ...] = ()
    double_buffer: bool | None = None
    carry_rows: bool | None = None
    function: str | None = None
    requant: str = "none"
    insert_after: tuple[str, ...] = ()
    host_fallback: str = "float"

    def __post_init__(self) -> None:
        from .integerize import REQUANT_MODES

        if self.host_fallback not in ("float", "any"):
            raise VTAError(f"{self.name}: host-fallback is 'float' or 'any', not "
                           f"'{self.host_fallback}'")
        if self.requant not in REQUANT_MODES:
            raise VTAError(f"{self.name}: requant is {' or '.join(map(repr, REQUANT_MODES))}, "
                           f"not '{self.requant}'")
        # A misspelt stage or pass is reported when the pipeline is built, before any input
        # is read.
        self.insertions()

    def insertions(self) -> dict[str, list[ModulePass]]:
        """The passes of ``insert_after`` by the stage they follow."""
        return parse_insertions(self.name, self.insert_after, STAGES)

    def passes(self) -> tuple[ModulePass, ...]:
        """The lowering stages from ``vta-pack`` on, with this pipeline's options."""
        from .bias_gemm import BiasGemmPass
        from .coproc_sync import CoprocSyncPass
        from .fold_uop_loops import FoldUopLoopsPass
        from .inject_dma import InjectDmaPass
        from .lower_to_isa import LowerToIsaPass
        from .merge_alu_immediates import MergeAluImmediatesPass
        from .pack import PackPass
        from .residual_gemm import ResidualGemmPass
        from .tensorize import TensorizePass
        from .tile import TilePass

        return (
            PackPass(),
            MergeAluImmediatesPass(),
            TilePass(tile=self.tile, double_buffer=self.double_buffer,
                     carry_rows=self.carry_rows),
            BiasGemmPass(),
            ResidualGemmPass(),
            InjectDmaPass(),
            TensorizePass(),
            FoldUopLoopsPass(),
            CoprocSyncPass(),
            LowerToIsaPass(function=self.function),
        )

    def prepasses(self) -> tuple[tuple[ModulePass, Callable[[ModuleOp], bool]], ...]:
        """The prepasses, each with the test of whether the module needs it."""
        from .bufferize import BufferizePass, has_tensors
        from .integerize import IntegerizePass, has_float_layers
        from .narrow_integers import NarrowIntegersPass, has_wide_integers
        from .raise_loops import RaiseLoopsPass, has_loops

        return (
            # linalg on tensors becomes the memref form in destination-passing style.
            (BufferizePass(), has_tensors),
            # Sign extensions of their own and i64 accumulators (torch-mlir's FX importer)
            # narrow.
            (NarrowIntegersPass(), has_wide_integers),
            # Quantized layers requantizing in float become integer layers
            # (requant=fixed-point).
            (IntegerizePass(requant=self.requant), has_float_layers),
            # Loop nests in the input are raised to the structured ops vta-pack takes.
            (RaiseLoopsPass(), has_loops),
        )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from .normalize import NormalizePass
        from .outline_host_steps import OutlineHostStepsPass

        inserted = self.insertions()

        def run(p: ModulePass, verify: bool) -> None:
            report_stage(None, op, p)
            p.apply(ctx, op)
            if verify:
                verify_op(op)
            report_stage(p, op, None)

        def stage(p: ModulePass, needed: bool = True, verify: bool = False) -> None:
            if needed:
                run(p, verify)
            # User passes are verified after: the lowering's own checks expect valid IR.
            for user in inserted.get(p.name, ()):
                run(user, True)

        for p, needs in self.prepasses():
            stage(p, needs(op))
        # Patterns only: the ops they write verify by construction.
        stage(NormalizePass())
        stage(OutlineHostStepsPass(fallback=self.host_fallback), verify=True)
        for p in self.passes():
            stage(p, verify=p.name not in SELF_VERIFYING)
