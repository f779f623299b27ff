"""The enumerated fields of the ``vtaisa`` instruction ops (:mod:`vta_mlir.dialects.vtaisa_insns`):
the memory type of a LOAD / STORE (:class:`MemTypeAttr`, ``#vtaisa<memory_type inp>``) and the
operation of an ALU instruction (the ``vta`` dialect's :class:`~vta_mlir.dialects.vta.AluKindAttr`,
``#vta<alu_op shr>``: the same enumeration, :class:`vta_mlir.isa.AluKind`).  In the custom syntax
both print as their keyword (``vtaisa.load inp ...``, ``vtaisa.alu shr ...``).

An op stores the attribute, a :mod:`vta_mlir.isa` record the field's code: :func:`mem_type_attr`,
:func:`alu_opcode_attr` and :func:`enum_code` convert.  Attributes are immutable values, so one
shared instance per member serves every instruction (a network has tens of thousands).
"""

from __future__ import annotations

from functools import cache

from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from vta_mlir.isa import AluKind, MemType

from .vta_attrs import AluKindAttr

__all__ = [
    "AluKindAttr",
    "MemKind",
    "MemTypeAttr",
    "alu_opcode_attr",
    "enum_code",
    "mem_type_attr",
]


class MemKind(StrEnum):
    """The memory types of a LOAD / STORE by keyword (docs/isa.md §2.3); :attr:`code` is the
    ``memory_type`` field, :class:`vta_mlir.isa.MemType`."""

    UOP = "uop"
    WGT = "wgt"
    INP = "inp"
    ACC = "acc"
    OUT = "out"
    ACC_8BIT = "acc_8bit"

    @property
    def code(self) -> MemType:
        return MemType[self.name]


@irdl_attr_definition
class MemTypeAttr(EnumAttribute[MemKind], SpacedOpaqueSyntaxAttribute):
    """A memory type: ``#vtaisa<memory_type inp>`` (``uop``, ``wgt``, ``acc``, ``out``,
    ``acc_8bit``)."""

    name = "vtaisa.memory_type"

    @property
    def code(self) -> int:
        return int(self.data.code)


_MEM_ATTRS: dict[int, MemTypeAttr] = {int(k.code): MemTypeAttr(k) for k in MemKind}
_ALU_ATTRS: dict[int, AluKindAttr] = {k.opcode: AluKindAttr(k) for k in AluKind}
_ALU_CODES: dict[AluKind, int] = {k: k.opcode for k in AluKind}


@cache  # a C-level lookup after the first call: one per field of every LOAD / STORE built
def mem_type_attr(code: int) -> MemTypeAttr:
    """The shared attribute of memory type ``code``; ``VerifyException`` for a code that is no
    memory type (a field decoded from a binary can hold any 3-bit value)."""
    attr = _MEM_ATTRS.get(code)
    if attr is None:
        raise VerifyException(f"memory_type {code} is not a memory id (0..{len(_MEM_ATTRS) - 1})")
    return attr


@cache
def alu_opcode_attr(code: int) -> AluKindAttr:
    """The shared attribute of ALU opcode ``code``; ``VerifyException`` for a code that is no
    ALU operation."""
    attr = _ALU_ATTRS.get(code)
    if attr is None:
        raise VerifyException(
            f"alu_opcode {code} is not an ALU operation (0..{len(_ALU_ATTRS) - 1})"
        )
    return attr


def enum_code(attr: Attribute) -> int:
    """The field code of a memory type or ALU operation attribute."""
    if isinstance(attr, MemTypeAttr):
        return attr.code
    assert isinstance(attr, AluKindAttr)
    return _ALU_CODES[attr.data]
