"""Enumerations, attributes and limits of the ``vta`` dialect (re-exported by
:mod:`vta_mlir.dialects.vta`): the accelerator's modules (``#vta<module load>``), the ALU
operations (``#vta<alu_op shr>``; the enumeration itself, :class:`AluKind`, is the ISA's,
:class:`vta_mlir.isa.AluKind`), and the field limits the op verifiers check.

They live apart from the ops so that every op module can import them without an import cycle
through :mod:`vta_mlir.dialects.vta`, which imports the op modules to build the dialect.
"""

from __future__ import annotations

from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.str_enum import StrEnum

from vta_mlir.config import ALU_IMM_WIDTH, LOOP_ITER_WIDTH
from vta_mlir.isa import AluKind

__all__ = [
    "EXTENT_MAX",
    "IMM_MAX",
    "IMM_MIN",
    "MAX_UOP_LOOP_DEPTH",
    "WRITE_HAZARD_WINDOW",
    "AluKind",
    "AluKindAttr",
    "Module",
    "ModuleAttr",
]

#: Largest ALU immediate and smallest (signed 16-bit field, docs/isa.md §2.5).
IMM_MAX = (1 << (ALU_IMM_WIDTH - 1)) - 1
IMM_MIN = -(1 << (ALU_IMM_WIDTH - 1))
#: Largest micro-kernel loop extent (14-bit iteration fields, docs/isa.md §2.4).
EXTENT_MAX = (1 << LOOP_ITER_WIDTH) - 1
#: A micro-kernel has at most this many loop levels (docs/isa.md §4.4).
MAX_UOP_LOOP_DEPTH = 2
#: A micro-op's destination must differ from that of this many preceding ones (docs/isa.md §4.4).
WRITE_HAZARD_WINDOW = 2


# ---------------------------------------------------------------------------------------------
# Enumerations and attributes


class Module(StrEnum):
    """The three modules of the accelerator, in pipeline order (docs/isa.md §3.2)."""

    LOAD = "load"
    COMPUTE = "compute"
    STORE = "store"


@irdl_attr_definition
class ModuleAttr(EnumAttribute[Module], SpacedOpaqueSyntaxAttribute):
    """A module of the accelerator: ``#vta<module load>`` (``compute``, ``store``)."""

    name = "vta.module"


@irdl_attr_definition
class AluKindAttr(EnumAttribute[AluKind], SpacedOpaqueSyntaxAttribute):
    """An ALU operation: ``#vta<alu_op shr>`` (``min``, ``max``, ``add``, ``mul``)."""

    name = "vta.alu_op"
