"""``vta-bias-gemm``: a per-channel constant bias accumulated by the GEMM instead of an ALU add.

Runs after ``vta-tile`` (stage 2 of ``docs/pipeline.md``).  A bias the tiler loads into the
accumulator SRAM (``memref.copy`` of a constant packed global into an ``acc`` buffer) and adds
with broadcasting ``linalg.generic``\\ s (``arith.addi``, an ALU op with a tensor operand: two
cycles per output vector) becomes a contraction accumulating ``x · W_b`` into the same
accumulator elements (one GEMM cycle per output vector and weight element), with ``x`` and
``W_b`` of :mod:`.encoding` loaded into the input and weight SRAMs once where the bias was.
Adding the same int32 values into the accumulator is exact wherever the add stands in the
epilogue.  The bias stays an ALU add when it is not a constant, when its encoding takes more
than :data:`~.encoding.MAX_ELEMENTS` weight elements per channel, when the two new buffers do
not fit after every buffer the function already places in their SRAMs, or when the cycles the
compute module saves (one per output vector and add) do not exceed those the load module
spends on the new loads.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from vta_mlir.dialects.vta_config_attr import get_config
from vta_mlir.ir.diagnostics import verify_op

from .adds import find_biases, rewrite_bias
from .inits import find_inits, rewrite_init

__all__ = ["BiasGemmPass"]


@dataclass(frozen=True)
class BiasGemmPass(ModulePass):
    name = "vta-bias-gemm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewritten: dict[str, memref.GlobalOp] = {}
        before = set(op.walk())
        for f in [o for o in op.walk() if isinstance(o, func.FuncOp)]:
            cfg = get_config(f)
            for bias in find_biases(f, cfg):
                rewrite_bias(op, f, bias, cfg)
                rewritten[bias.glob.sym_name.data] = bias.glob
            for init in find_inits(f, cfg):
                rewrite_init(op, f, init, cfg)
                rewritten[init.glob.sym_name.data] = init.glob
        # A packed bias no function reads any more is not placed in the binary.
        read = {g.name_.root_reference.data for g in op.walk()
                if isinstance(g, memref.GetGlobalOp)}
        for name, glob in rewritten.items():
            if name not in read:
                Rewriter.erase_op(glob)
        # Only the ops the rewrites made are new; the others are as the module verified them
        # (a network's module has tens of thousands of ops).
        for new in [o for o in op.walk() if o not in before]:
            verify_op(new)
