"""``vta-residual-gemm``: a residual added by the GEMM from the input SRAM, loaded by the load
module, instead of sign-extended into the accumulator SRAM by the compute module and added by
the ALU.

Runs after ``vta-bias-gemm`` (stage 2¾ of ``docs/pipeline.md``).  ``vta-tile`` loads a residual
— an ``i8`` DRAM tensor added to a convolution's accumulators in its epilogue, ResNet's
shortcut — into an accumulator SRAM buffer (``linalg.generic ins(%dram) outs(%acc) { extsi }``,
a LOAD ACC_8BIT, which the compute module executes) and adds it with an ALU add of a tensor
operand (two cycles per output vector).  This pass gives the residual an input SRAM buffer of
the same tensor elements instead: each load becomes a ``memref.copy`` into it (a LOAD INP, on
the load module, which overlaps the computation of the tile before), and each add a contraction
with a constant identity weight tile (one GEMM cycle per output vector).  An int8 ``x`` times a
weight of 1 accumulated into the int32 element is the sign-extended add, exactly.

A residual the epilogue rescales in place before adding it (the ONNX route's ``Add``,
``docs/onnx.md`` §4.5: each load followed first by a multiplication by an immediate ``c``
with ``-128 ≤ c ≤ 127``, ``c ≠ 0``) keeps its accumulator buffer: each load becomes the LOAD
INP, a reset of the accumulator view and a contraction with ``c`` times the identity weight
tile, and the multiplication goes: two compute cycles per output vector instead of the LOAD
ACC_8BIT's two and the multiplication's one.

A residual stays as it was when the configuration's input and output blocks differ (an
identity tile adds lane to lane only when they are equal), or when its input buffer or the
identity tile finds no room in its SRAM beside the buffers the region already uses
(:func:`~vta_mlir.passes.analysis.sram_alloc.first_fit`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from vta_mlir.dialects.vta_config_attr import get_config
from vta_mlir.ir.diagnostics import verify_op

from .match import match_rescaled, match_residual, qualifies
from .rewrite import rewrite_rescaled, rewrite_residual

__all__ = ["ResidualGemmPass"]


@dataclass(frozen=True)
class ResidualGemmPass(ModulePass):
    name = "vta-residual-gemm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        before: set[Operation] | None = None
        for f in [o for o in op.walk() if isinstance(o, func.FuncOp)]:
            cfg = get_config(f)
            if not qualifies(cfg):
                continue
            allocs = [a for a in f.walk() if isinstance(a, memref.AllocOp)]
            for alloc in allocs:
                res = match_residual(alloc)
                rescaled = match_rescaled(alloc) if res is None else None
                if (res is None and rescaled is None):
                    continue
                if before is None:
                    before = set(op.walk())
                if res is not None:
                    rewrite_residual(op, f, res, cfg)
                elif rescaled is not None:
                    rewrite_rescaled(op, f, rescaled, cfg)
        # Only the ops the rewrites made are new; the others are as the module verified them
        # (a network's module has tens of thousands of ops).
        if before is not None:
            for new in [o for o in op.walk() if o not in before]:
                verify_op(new)
