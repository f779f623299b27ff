"""``vta-lower-to-isa``: run the ``vta`` host program and replace it with its instructions.

The last pass of ``vta-to-isa`` (``docs/pipeline.md``).  It assigns SRAM addresses and DRAM
segments, executes the host loops against the command builder (the JIT runtime's rules of
``docs/isa.md`` §4) and replaces the module body with the linked ``vtaisa.program`` the host
lowering emits, keeping the ``vta.config`` attribute.  All the work is done by
:func:`vta_mlir.host.lower_to_isa`, through which the driver lowers ``vta`` IR too, so the two
cannot disagree.

Options: ``function`` (the ``func.func`` to lower when there are several), ``base`` (the link
address of the first segment, default ``0x1000000``), ``config`` (a shipped configuration name
or a ``vta_config.json`` path; an error if the module carries a different one).

Input (TVM's ``vta_get_started``, ``examples/vta/vector_add.mlir``)::

    func.func @vector_add(%A: memref<1x64x1x16xi32>, %B: memref<1x64x1x16xi32>,
                          %C: memref<1x64x1x16xi8>) {
      %a = memref.alloc() : memref<64x1x16xi32, #vta.sram<acc>>
      %b = memref.alloc() : memref<64x1x16xi32, #vta.sram<acc>>
      vta.stage compute {
        vta.dma_copy %A[0] -> %a[0] y 1 x 64 stride 64 : ...
        vta.dma_copy %B[0] -> %b[0] y 1 x 64 stride 64 : ...
        vta.uop_loop 64 dst 1 src 1 {
          vta.alu add %a[0], %b[0] : ...
        }
        vta.dep_push compute -> store
      }
      vta.stage store {
        vta.dep_pop compute -> store
        vta.dma_copy %a[0] -> %C[0] y 1 x 64 stride 64 : ...
      }
      func.return
    }

Output of ``vta-lower-to-isa{base=4096}``::

    builtin.module attributes {vta.config = #vta.config<...>} {
      vtaisa.program base 0x1000 {
        vtaisa.segment "A" phys 0x1000 size 4096
        vtaisa.segment "B" phys 0x2000 size 4096
        vtaisa.segment "C" phys 0x3000 size 1024
        vtaisa.segment "uops" phys 0x4000 size 4
        vtaisa.arg "A" in int32 [1, 64, 1, 16] ... segment "A" phys 0x1000
        ...
        vtaisa.run uop_base 0x4000 {
          vtaisa.uops [(0, 64, 0)]
          vtaisa.load acc sram 0 dram 0x40 y 1 x 64 stride 64
          vtaisa.load acc sram 64 dram 0x80 y 1 x 64 stride 64
          vtaisa.load uop sram 0 dram 0x1000 y 1 x 1 stride 1
          vtaisa.alu add uop 0 to 1 iter [1, 64] dst [0, 1] src [0, 1] deps [push_next]
          vtaisa.store out sram 0 dram 0x300 y 1 x 64 stride 64 deps [pop_prev, push_prev]
          vtaisa.load inp sram 0 dram 0x0 y 0 x 0 stride 0 deps [push_next]
          vtaisa.load uop sram 0 dram 0x0 y 0 x 0 stride 0 deps [pop_prev, pop_next]
          vtaisa.finish
        }
      }
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import VerifyException

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta_config_attr import set_module_config
from vta_mlir.dialects.vtaisa_insns import InsnOp
from vta_mlir.host import lower_to_isa
from vta_mlir.ir.diagnostics import report_error, verify_op

__all__ = ["LowerToIsaPass", "verify_lowered"]


@dataclass(frozen=True)
class LowerToIsaPass(ModulePass):
    """Lower the module's host program to a ``vtaisa.program`` (module docstring)."""

    name = "vta-lower-to-isa"

    function: str | None = None
    base: int | None = None
    config: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        cfg = None if self.config is None else VTAConfig.load(self.config)
        program, cfg = lower_to_isa(op, cfg, function=self.function, base=self.base)
        block = op.body.block
        for old in reversed(list(block.ops)):
            block.erase_op(old, safe_erase=False)
        block.add_op(program)
        set_module_config(op, cfg)
        verify_lowered(op, cfg)


def verify_lowered(module: ModuleOp, cfg: VTAConfig) -> None:
    """Verify the module the lowering wrote.  Its instructions are built from the command
    builder's records (``insn_to_op``), so every property has its declared type by
    construction: of each, only the instruction's own checks run (field widths, queues, SRAM
    ranges), without xDSL's generic constraint checks, which cost most of the time of
    verifying a network's tens of thousands of instructions.  Every other op is verified
    whole."""
    # The instructions first, as the verifier takes nested ops before the program.
    for insn in module.walk():
        if isinstance(insn, InsnOp):
            try:
                insn.check(cfg)
            except VerifyException as exc:
                report_error(insn, str(exc))
    verify_op(module, vouched=lambda o: isinstance(o, InsnOp))
