"""The ``vtaisa`` dialect: VTA hardware instructions, one op each, and the linked program.

Every field of the 128-bit instruction words of ``docs/isa.md`` §2.2–§2.6 is a property of its op,
named as in §2 (``pop_prev_dep``, ``memory_type``, ``sram_base``, ``uop_bgn``, ``imm``...), so an
op and a :mod:`vta_mlir.isa` record convert into each other exactly (:func:`insn_to_op`,
:func:`op_to_insn`).  Verifiers check every field against its width in the configuration
(:meth:`~vta_mlir.config.VTAConfig.field_layouts`), the memory types each opcode accepts, the SRAM
range of loads and stores (§3.3–§3.5) and which dependency flags the executing module has a queue
for (§3.2).

``vtaisa.program`` is one linked program — what the host lowering emits, and what its image
(:class:`vta_mlir.binary.BinaryModule`) and ``.vtab`` serialise: its base address, DRAM
segments (``vtaisa.segment``), argument table (``vtaisa.arg``) and runs (``vtaisa.run``),
each run with its micro-op staging image (``vtaisa.uops``, §2.7) and its instructions, the
last one ``vtaisa.finish``.  The hardware configuration is the ``vta.config`` attribute of an
enclosing op (normally the module).  :func:`program_to_module` reads a
``BinaryModule`` as this IR and :func:`module_to_program` serialises a verified program, without
loss, so ``.vtab → vtaisa → .vtab`` is byte-identical::

    builtin.module attributes {vta.config = #vta.config<...>} {
      vtaisa.program base 0x40000 {
        vtaisa.segment "a" phys 0x40000 size 256
        vtaisa.arg "a" in int32 [1, 64] padded [1, 64] split [1, 1, 4, 16] perm [0, 2, 1, 3]
            packed int32 segment "a" phys 0x40000
        vtaisa.run uop_base 0x41000 {
          vtaisa.uops [(0, 0, 0)]
          vtaisa.load acc sram 0 dram 0x1000 y 1 x 4 stride 4
          ...
          vtaisa.finish
        }
      }
    }

This module holds the dialect :data:`VTAISA` and re-exports its parts: the instruction ops
(:mod:`vta_mlir.dialects.vtaisa_insns`) and their conversion to and from :mod:`vta_mlir.isa`
records (:mod:`vta_mlir.dialects.vtaisa_records`), the ops of a linked program
(:mod:`vta_mlir.dialects.vtaisa_program_ops`, :mod:`vta_mlir.dialects.vtaisa_arg`; the rules
spanning a program in :mod:`vta_mlir.dialects.vtaisa_rules`), and reading a ``BinaryModule`` as
this IR and serialising it back (:func:`program_op`, :func:`program_to_module`,
:func:`module_to_program`, in :mod:`vta_mlir.dialects.vtaisa_program`; the builder and the
serialiser in :mod:`vta_mlir.dialects.vtaisa_build` and
:mod:`vta_mlir.dialects.vtaisa_serialize`).  The memory-type attribute is in
:mod:`vta_mlir.dialects.vtaisa_attrs`, the custom directives of the ops' ``assembly_format`` in
:mod:`vta_mlir.dialects.vtaisa_directives`, and the helpers they share (integer properties)
in :mod:`vta_mlir.dialects.vtaisa_syntax`.
"""

from __future__ import annotations

from xdsl.ir import Dialect

from .vtaisa_arg import ArgOp
from .vtaisa_attrs import MemKind, MemTypeAttr
from .vtaisa_host import HostStepOp
from .vtaisa_insns import (
    ALU_FIELDS,
    GEMM_FIELDS,
    INSN_OPS,
    LOOP_FIELDS,
    MEM_FIELDS,
    AluInsnOp,
    FinishInsnOp,
    GemmInsnOp,
    InsnOp,
    LoadInsnOp,
    StoreInsnOp,
)
from .vtaisa_program import module_to_program, program_op, program_to_module
from .vtaisa_program_ops import LayerOp, ProgramOp, RunOp, SegmentOp, UopsOp
from .vtaisa_records import insn_to_op, op_to_insn

__all__ = [
    "ALU_FIELDS",
    "GEMM_FIELDS",
    "INSN_OPS",
    "LOOP_FIELDS",
    "MEM_FIELDS",
    "VTAISA",
    "AluInsnOp",
    "ArgOp",
    "FinishInsnOp",
    "GemmInsnOp",
    "HostStepOp",
    "InsnOp",
    "LayerOp",
    "LoadInsnOp",
    "MemKind",
    "MemTypeAttr",
    "ProgramOp",
    "RunOp",
    "SegmentOp",
    "StoreInsnOp",
    "UopsOp",
    "insn_to_op",
    "module_to_program",
    "op_to_insn",
    "program_op",
    "program_to_module",
]

VTAISA = Dialect(
    "vtaisa",
    [LoadInsnOp, StoreInsnOp, GemmInsnOp, AluInsnOp, FinishInsnOp, UopsOp, LayerOp, RunOp,
     SegmentOp, ArgOp, ProgramOp, HostStepOp],
    [MemTypeAttr],
)
