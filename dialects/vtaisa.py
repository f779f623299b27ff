"""The ``vtaisa`` dialect: VTA hardware instructions, one op each, and the linked program.

Every field of the 128-bit instruction words of ``docs/isa.md`` §2.2–§2.6 is a property of its op,
named as in §2 (``pop_prev_dep``, ``memory_type``, ``sram_base``, ``uop_bgn``, ``imm``...), so an
op and a :mod:`vta_mlir.isa` record convert into each other exactly (:func:`insn_to_op`,
:func:`op_to_insn`).  Verifiers check every field against its width in the configuration
(:meth:`~vta_mlir.config.VTAConfig.field_layouts`), the memory types each opcode accepts, the SRAM
range of loads and stores (§3.3–§3.5) and which dependency flags the executing module has a queue
for (§3.2).

``vtaisa.program`` holds one linked binary module (:class:`vta_mlir.binary.BinaryModule`): its
base address, DRAM segments (``vtaisa.segment``), argument table (``vtaisa.arg``) and runs
(``vtaisa.run``), each run with its micro-op staging image (``vtaisa.uops``, §2.7) and its
instructions, the last one ``vtaisa.finish``.  The hardware configuration is the ``vta.config``
attribute of an enclosing op (normally the module).  :func:`program_to_module` and
:func:`module_to_program` convert between a ``BinaryModule`` and this IR without loss, so
``.vtab → vtaisa → .vtab`` is byte-identical::

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

This module holds the ops and the dialect :data:`VTAISA`.  The conversion between a
``BinaryModule`` and this IR (:func:`program_op`, :func:`program_to_module`,
:func:`module_to_program`) lives in :mod:`vta_mlir.dialects.vtaisa_program` and is re-exported
here; the parse helpers shared by the ops' custom syntax live in
:mod:`vta_mlir.dialects.vtaisa_syntax`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, ClassVar, cast

import numpy as np
from xdsl.dialects.builtin import (
    I64,
    BytesAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    TensorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, Region
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, NoTerminator
from xdsl.utils.exceptions import VerifyException

from vta_mlir.abi import DIRECTIONS, DTYPE_CODES, ArgSpec
from vta_mlir.binary import BinaryModule
from vta_mlir.config import ALU_IMM_WIDTH, VTAConfig
from vta_mlir.errors import BinaryFormatError, VTAError
from vta_mlir.isa import (
    COMPUTE_MODULE,
    DEP_FLAGS,
    LOAD_MODULE,
    STORE_MODULE,
    AluInsn,
    AluOp,
    FinishInsn,
    GemmInsn,
    Insn,
    MemInsn,
    MemType,
    Uop,
    encode_uops,
)
from vta_mlir.program import Program, Run, Segment

from .vta_config_attr import get_config
from .vtaisa_syntax import as_region, parse_int, parse_int_list, parse_pair, parse_region

if TYPE_CHECKING:
    from .vtaisa_program import module_to_program, program_op, program_to_module

__all__ = [
    "VTAISA",
    "AluInsnOp",
    "ArgOp",
    "FinishInsnOp",
    "GemmInsnOp",
    "LoadInsnOp",
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

#: Names defined in :mod:`vta_mlir.dialects.vtaisa_program` (which imports this module), loaded
#: on first access.
_PROGRAM_NAMES = ("module_to_program", "program_op", "program_to_module")


def __getattr__(name: str) -> object:
    if name not in _PROGRAM_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import vtaisa_program

    value = getattr(vtaisa_program, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PROGRAM_NAMES))


#: Field names of each instruction kind after the common header (docs/isa.md §2.3–§2.5).
MEM_FIELDS = ("memory_type", "sram_base", "dram_base", "y_size", "x_size", "x_stride",
              "y_pad_0", "y_pad_1", "x_pad_0", "x_pad_1")
LOOP_FIELDS = ("reset_reg", "uop_bgn", "uop_end", "iter_out", "iter_in",
               "dst_factor_out", "dst_factor_in", "src_factor_out", "src_factor_in")
GEMM_FIELDS = (*LOOP_FIELDS, "wgt_factor_out", "wgt_factor_in")
ALU_FIELDS = (*LOOP_FIELDS, "alu_opcode", "use_imm", "imm")

_FLAG_TEXT = {"pop_prev_dep": "pop_prev", "pop_next_dep": "pop_next",
              "push_prev_dep": "push_prev", "push_next_dep": "push_next"}
_FLAG_FIELD = {v: k for k, v in _FLAG_TEXT.items()}
#: Dependency flags a module has no queue for (docs/isa.md §3.2 step 2).
_ILLEGAL_FLAGS = {
    LOAD_MODULE: ("pop_prev_dep", "push_prev_dep"),
    COMPUTE_MODULE: (),
    STORE_MODULE: ("pop_next_dep", "push_next_dep"),
}
_MEM_NAMES = {t: t.name.lower() for t in MemType}
_MEM_FROM_NAME = {v: k for k, v in _MEM_NAMES.items()}
_ALU_NAMES = {op: op.name.lower() for op in AluOp}
_ALU_FROM_NAME = {v: k for k, v in _ALU_NAMES.items()}

_IMM_MIN = -(1 << (ALU_IMM_WIDTH - 1))
_IMM_MAX = (1 << (ALU_IMM_WIDTH - 1)) - 1
_ZERO = IntegerAttr(0, i64)


@lru_cache(maxsize=8192)
def _int(value: int) -> IntegerAttr:
    # Attributes are immutable values: one instance per value serves every field of every
    # instruction (a program has tens of thousands of fields, mostly small repeated values).
    return IntegerAttr(int(value), i64)


def _get(op: Operation, name: str) -> int:
    attr = op.properties[name]
    assert isinstance(attr, IntegerAttr)
    return int(attr.value.data)


def _check_width(value: int, width: int, name: str) -> None:
    hi = (1 << width) - 1
    if not 0 <= value <= hi:
        raise VerifyException(f"{name} = {value} does not fit its {width}-bit field (0..{hi})")


# ---------------------------------------------------------------------------------------------
# Instructions


class _InsnOp(IRDLOperation):
    """Common header of every instruction: the four dependency flags (docs/isa.md §2.2)."""

    pop_prev_dep = prop_def(IntegerAttr[I64], default_value=_ZERO)
    pop_next_dep = prop_def(IntegerAttr[I64], default_value=_ZERO)
    push_prev_dep = prop_def(IntegerAttr[I64], default_value=_ZERO)
    push_next_dep = prop_def(IntegerAttr[I64], default_value=_ZERO)

    #: Names of the fields after the header, in printing order.
    FIELDS: ClassVar[tuple[str, ...]] = ()
    #: Name of the field layout in :meth:`VTAConfig.field_layouts`.
    LAYOUT: ClassVar[str] = "gemm"

    def __init__(self, **values: int) -> None:
        names = (*DEP_FLAGS, *self.FIELDS)
        unknown = sorted(set(values) - set(names))
        if unknown:
            raise TypeError(f"{self.__class__.__name__}: unknown field(s) {', '.join(unknown)}")
        super().__init__(properties={n: _int(values.get(n, 0)) for n in names})

    def field(self, name: str) -> int:
        """The value of field ``name`` (a dependency flag or one of :attr:`FIELDS`)."""
        return _get(self, name)

    def values(self) -> dict[str, int]:
        """All fields of the instruction by name."""
        return {n: self.field(n) for n in (*DEP_FLAGS, *self.FIELDS)}

    @property
    def module(self) -> str:
        """The module that executes the instruction (docs/isa.md §3.2 step 1)."""
        return COMPUTE_MODULE

    # ---- verification --------------------------------------------------------------------
    def verify_(self) -> None:
        cfg = get_config(self)
        layout = cfg.field_layouts()[self.LAYOUT]
        for name in (*DEP_FLAGS, *self.FIELDS):
            value = self.field(name)
            if name == "imm":
                if not _IMM_MIN <= value <= _IMM_MAX:
                    raise VerifyException(
                        f"imm = {value} does not fit its signed {ALU_IMM_WIDTH}-bit field "
                        f"({_IMM_MIN}..{_IMM_MAX})"
                    )
                continue
            _check_width(value, layout[name].width, name)
        for name in _ILLEGAL_FLAGS[self.module]:
            if self.field(name):
                raise VerifyException(
                    f"{_FLAG_TEXT[name]} is set but the {self.module} module has no such "
                    "dependency queue"
                )
        self._verify_fields(cfg)

    def _verify_fields(self, cfg: VTAConfig) -> None:
        pass

    # ---- syntax --------------------------------------------------------------------------
    @staticmethod
    def _parse_deps(parser: Parser, values: dict[str, int]) -> None:
        if parser.parse_optional_keyword("deps") is None:
            return

        def one() -> None:
            name = parser.parse_keyword_in(tuple(_FLAG_FIELD), " (a dependency flag)")
            values[_FLAG_FIELD[name]] = 1

        parser.parse_comma_separated_list(parser.Delimiter.SQUARE, one)

    def _print_deps(self, printer: Printer) -> None:
        on = [_FLAG_TEXT[f] for f in DEP_FLAGS if self.field(f)]
        if on:
            printer.print_string(" deps [" + ", ".join(on) + "]")

    @classmethod
    def _finish_parse(cls, parser: Parser, values: dict[str, int]) -> _InsnOp:
        cls._parse_deps(parser, values)
        attrs = parser.parse_optional_attr_dict()
        op = cls(**values)
        op.attributes.update(attrs)
        return op

    def _print_attrs(self, printer: Printer) -> None:
        self._print_deps(printer)
        if self.attributes:
            printer.print_op_attributes(self.attributes)


class _MemInsnOp(_InsnOp):
    memory_type = prop_def(IntegerAttr[I64], default_value=_ZERO)
    sram_base = prop_def(IntegerAttr[I64], default_value=_ZERO)
    dram_base = prop_def(IntegerAttr[I64], default_value=_ZERO)
    y_size = prop_def(IntegerAttr[I64], default_value=_ZERO)
    x_size = prop_def(IntegerAttr[I64], default_value=_ZERO)
    x_stride = prop_def(IntegerAttr[I64], default_value=_ZERO)
    y_pad_0 = prop_def(IntegerAttr[I64], default_value=_ZERO)
    y_pad_1 = prop_def(IntegerAttr[I64], default_value=_ZERO)
    x_pad_0 = prop_def(IntegerAttr[I64], default_value=_ZERO)
    x_pad_1 = prop_def(IntegerAttr[I64], default_value=_ZERO)

    FIELDS: ClassVar[tuple[str, ...]] = MEM_FIELDS
    LAYOUT: ClassVar[str] = "mem"
    IS_STORE: ClassVar[bool] = False

    @property
    def is_nop(self) -> bool:
        """``x_size == 0``: the instruction only carries dependency flags (docs/isa.md §3.3)."""
        return self.field("x_size") == 0

    @property
    def pads(self) -> tuple[int, int, int, int]:
        y0, y1, x0, x1 = (self.field(n) for n in ("y_pad_0", "y_pad_1", "x_pad_0", "x_pad_1"))
        return y0, y1, x0, x1

    @classmethod
    def parse(cls, parser: Parser) -> _InsnOp:
        values: dict[str, int] = {}
        name = parser.parse_keyword_in(tuple(_MEM_FROM_NAME), " (a memory type)")
        values["memory_type"] = int(_MEM_FROM_NAME[name])
        for key, field in (("sram", "sram_base"), ("dram", "dram_base"), ("y", "y_size"),
                           ("x", "x_size"), ("stride", "x_stride")):
            parser.parse_keyword(key)
            values[field] = parse_int(parser, key)
        if parser.parse_optional_keyword("pad") is not None:
            pads = parse_int_list(parser, "pad")
            if len(pads) != 4:
                parser.raise_error("pad takes four values [y_pad_0, y_pad_1, x_pad_0, x_pad_1]")
            for n, v in zip(("y_pad_0", "y_pad_1", "x_pad_0", "x_pad_1"), pads, strict=True):
                values[n] = v
        return cls._finish_parse(parser, values)

    def print(self, printer: Printer) -> None:
        mt = self.field("memory_type")
        name = _MEM_NAMES.get(cast(MemType, mt), str(mt))
        printer.print_string(
            f" {name} sram {self.field('sram_base')} dram {self.field('dram_base'):#x} "
            f"y {self.field('y_size')} x {self.field('x_size')} stride {self.field('x_stride')}"
        )
        if any(self.pads):
            printer.print_string(" pad [" + ", ".join(map(str, self.pads)) + "]")
        self._print_attrs(printer)

    def _check_memory_type(self) -> MemType:
        mt = self.field("memory_type")
        if mt not in MemType._value2member_map_:
            raise VerifyException(f"memory_type {mt} is not a memory id (0..5)")
        return MemType(mt)


@irdl_op_definition
class LoadInsnOp(_MemInsnOp):
    """LOAD (docs/isa.md §2.3, §3.3–§3.4): DRAM → SRAM with zero padding; ``x 0`` is a NOP::

        vtaisa.load inp sram 0 dram 0x100 y 16 x 16 stride 14 pad [1, 1, 1, 1] deps [pop_next]
    """

    name = "vtaisa.load"

    @property
    def module(self) -> str:
        if self.field("memory_type") in (MemType.INP, MemType.WGT):
            return LOAD_MODULE
        return COMPUTE_MODULE

    def _verify_fields(self, cfg: VTAConfig) -> None:
        mt = self._check_memory_type()
        if mt == MemType.OUT:
            raise VerifyException("memory_type out cannot be loaded (out is only stored)")
        if self.is_nop:
            return
        sram = "acc" if mt == MemType.ACC_8BIT else mt.name.lower()
        depth = cfg.sram_depth(sram)
        y0, y1, x0, x1 = self.pads
        total = (y0 + self.field("y_size") + y1) * (x0 + self.field("x_size") + x1)
        base = self.field("sram_base")
        if base + total > depth:
            raise VerifyException(
                f"the load writes {sram.upper()} SRAM elements [{base}, {base + total}) beyond its "
                f"depth {depth}"
            )


@irdl_op_definition
class StoreInsnOp(_MemInsnOp):
    """STORE (docs/isa.md §2.3, §3.5): accumulator → DRAM, truncated to the output width;
    memory type ``out``, no padding; ``x 0`` is a NOP::

        vtaisa.store out sram 0 dram 0x10 y 1 x 16 stride 16 deps [pop_prev, push_prev]
    """

    name = "vtaisa.store"
    IS_STORE: ClassVar[bool] = True

    @property
    def module(self) -> str:
        return STORE_MODULE

    def _verify_fields(self, cfg: VTAConfig) -> None:
        mt = self._check_memory_type()
        if self.is_nop:
            return
        if mt != MemType.OUT:
            raise VerifyException(f"a store has memory_type out, got {_MEM_NAMES[mt]}")
        if any(self.pads):
            raise VerifyException("a store has no padding: every pad field must be 0")
        total = self.field("y_size") * self.field("x_size")
        base, depth = self.field("sram_base"), cfg.acc_buff_depth
        if base + total > depth:
            raise VerifyException(
                f"the store reads ACC SRAM elements [{base}, {base + total}) beyond its depth "
                f"{depth}"
            )


class _LoopInsnOp(_InsnOp):
    reset_reg = prop_def(IntegerAttr[I64], default_value=_ZERO)
    uop_bgn = prop_def(IntegerAttr[I64], default_value=_ZERO)
    uop_end = prop_def(IntegerAttr[I64], default_value=_ZERO)
    iter_out = prop_def(IntegerAttr[I64], default_value=_ZERO)
    iter_in = prop_def(IntegerAttr[I64], default_value=_ZERO)
    dst_factor_out = prop_def(IntegerAttr[I64], default_value=_ZERO)
    dst_factor_in = prop_def(IntegerAttr[I64], default_value=_ZERO)
    src_factor_out = prop_def(IntegerAttr[I64], default_value=_ZERO)
    src_factor_in = prop_def(IntegerAttr[I64], default_value=_ZERO)

    KINDS: ClassVar[tuple[str, ...]] = ("dst", "src")

    def _verify_fields(self, cfg: VTAConfig) -> None:
        bgn, end = self.field("uop_bgn"), self.field("uop_end")
        if bgn > end:
            raise VerifyException(f"uop_bgn {bgn} is after uop_end {end}")
        if end > cfg.uop_buff_depth:
            raise VerifyException(
                f"uop_end {end} is beyond the UOP SRAM depth {cfg.uop_buff_depth}"
            )

    @classmethod
    def _parse_loops(cls, parser: Parser, values: dict[str, int]) -> None:
        parser.parse_keyword("uop")
        values["uop_bgn"] = parse_int(parser, "uop_bgn")
        parser.parse_keyword("to")
        values["uop_end"] = parse_int(parser, "uop_end")
        parser.parse_keyword("iter")
        values["iter_out"], values["iter_in"] = parse_pair(parser, "iter")
        for kind in cls.KINDS:
            parser.parse_keyword(kind)
            values[f"{kind}_factor_out"], values[f"{kind}_factor_in"] = parse_pair(parser, kind)

    def _print_loops(self, printer: Printer) -> None:
        if self.field("reset_reg"):
            printer.print_string(" reset")
        printer.print_string(
            f" uop {self.field('uop_bgn')} to {self.field('uop_end')} "
            f"iter [{self.field('iter_out')}, {self.field('iter_in')}]"
        )
        for kind in self.KINDS:
            printer.print_string(
                f" {kind} [{self.field(f'{kind}_factor_out')}, {self.field(f'{kind}_factor_in')}]"
            )


@irdl_op_definition
class GemmInsnOp(_LoopInsnOp):
    """GEMM (docs/isa.md §2.4, §3.6): micro-ops ``[uop_bgn, uop_end)`` in two loops
    ``iter [out, in]`` with index factors ``[out, in]`` per operand::

        vtaisa.gemm reset uop 0 to 1 iter [16, 1] dst [1, 0] src [0, 0] wgt [0, 0]
    """

    name = "vtaisa.gemm"

    wgt_factor_out = prop_def(IntegerAttr[I64], default_value=_ZERO)
    wgt_factor_in = prop_def(IntegerAttr[I64], default_value=_ZERO)

    FIELDS: ClassVar[tuple[str, ...]] = GEMM_FIELDS
    LAYOUT: ClassVar[str] = "gemm"
    KINDS: ClassVar[tuple[str, ...]] = ("dst", "src", "wgt")

    @classmethod
    def parse(cls, parser: Parser) -> _InsnOp:
        values: dict[str, int] = {}
        if parser.parse_optional_keyword("reset") is not None:
            values["reset_reg"] = 1
        cls._parse_loops(parser, values)
        return cls._finish_parse(parser, values)

    def print(self, printer: Printer) -> None:
        self._print_loops(printer)
        self._print_attrs(printer)


@irdl_op_definition
class AluInsnOp(_LoopInsnOp):
    """ALU (docs/isa.md §2.5, §3.7): like GEMM with an ALU opcode and an optional signed 16-bit
    immediate (``imm``); without it the second operand is the source accumulator element::

        vtaisa.alu shr uop 3 to 4 iter [1, 1] dst [0, 0] src [0, 0] imm -3
        vtaisa.alu add uop 0 to 1 iter [1, 64] dst [0, 1] src [0, 1] deps [push_next]

    An immediate stored while ``use_imm`` is 0 prints as ``imm_unused``.
    """

    name = "vtaisa.alu"

    alu_opcode = prop_def(IntegerAttr[I64], default_value=_ZERO)
    use_imm = prop_def(IntegerAttr[I64], default_value=_ZERO)
    imm = prop_def(IntegerAttr[I64], default_value=_ZERO)

    FIELDS: ClassVar[tuple[str, ...]] = ALU_FIELDS
    LAYOUT: ClassVar[str] = "alu"

    def _verify_fields(self, cfg: VTAConfig) -> None:
        code = self.field("alu_opcode")
        if code not in AluOp._value2member_map_:
            raise VerifyException(f"alu_opcode {code} is not an ALU operation (0..4)")
        super()._verify_fields(cfg)

    @classmethod
    def parse(cls, parser: Parser) -> _InsnOp:
        values: dict[str, int] = {}
        name = parser.parse_keyword_in(tuple(_ALU_FROM_NAME), " (an ALU operation)")
        values["alu_opcode"] = int(_ALU_FROM_NAME[name])
        if parser.parse_optional_keyword("reset") is not None:
            values["reset_reg"] = 1
        cls._parse_loops(parser, values)
        if parser.parse_optional_keyword("imm") is not None:
            values["use_imm"] = 1
            values["imm"] = parse_int(parser, "imm")
        elif parser.parse_optional_keyword("imm_unused") is not None:
            values["imm"] = parse_int(parser, "imm_unused")
        return cls._finish_parse(parser, values)

    def print(self, printer: Printer) -> None:
        code = self.field("alu_opcode")
        printer.print_string(" " + _ALU_NAMES.get(cast(AluOp, code), str(code)))
        self._print_loops(printer)
        if self.field("use_imm"):
            printer.print_string(f" imm {self.field('imm')}")
        elif self.field("imm"):
            printer.print_string(f" imm_unused {self.field('imm')}")
        self._print_attrs(printer)


@irdl_op_definition
class FinishInsnOp(_InsnOp):
    """FINISH (docs/isa.md §2.6, §3.8): ends a run; executes on the compute module::

        vtaisa.finish
    """

    name = "vtaisa.finish"

    @classmethod
    def parse(cls, parser: Parser) -> _InsnOp:
        return cls._finish_parse(parser, {})

    def print(self, printer: Printer) -> None:
        self._print_attrs(printer)


INSN_OPS: tuple[type[_InsnOp], ...] = (LoadInsnOp, StoreInsnOp, GemmInsnOp, AluInsnOp,
                                       FinishInsnOp)


def insn_to_op(insn: Insn) -> _InsnOp:
    """The ``vtaisa`` op of a :mod:`vta_mlir.isa` instruction record (every field copied)."""
    if isinstance(insn, MemInsn):
        values = insn.field_values()
        del values["opcode"]
        cls: type[_InsnOp] = StoreInsnOp if insn.is_store else LoadInsnOp
        return cls(**values)
    if isinstance(insn, GemmInsn | AluInsn | FinishInsn):
        values = insn.field_values()
        del values["opcode"]
        cls = {GemmInsn: GemmInsnOp, AluInsn: AluInsnOp, FinishInsn: FinishInsnOp}[type(insn)]
        return cls(**values)
    raise TypeError(f"not a VTA instruction record: {insn!r}")


def op_to_insn(op: Operation) -> Insn:
    """The :mod:`vta_mlir.isa` record of a ``vtaisa`` instruction op (inverse of
    :func:`insn_to_op`)."""
    if not isinstance(op, _InsnOp):
        raise TypeError(f"{op.name} is not a vtaisa instruction")
    values = op.values()
    if isinstance(op, _MemInsnOp):
        return MemInsn(is_store=int(op.IS_STORE), **values)
    if isinstance(op, GemmInsnOp):
        return GemmInsn(**values)
    if isinstance(op, AluInsnOp):
        return AluInsn(**values)
    return FinishInsn(**values)


# ---------------------------------------------------------------------------------------------
# The micro-op table


@irdl_op_definition
class UopsOp(IRDLOperation):
    """A run's micro-op staging image (docs/isa.md §2.7, §4.5), as ``(dst, src, wgt)`` index
    triples in DRAM order; it must be the first op of its ``vtaisa.run``::

        vtaisa.uops [(0, 0, 0), (1, 0, 16)]
    """

    name = "vtaisa.uops"

    table = prop_def(DenseArrayBase.constr(i32))

    traits = lazy_traits_def(lambda: (HasParent(RunOp),))

    def __init__(self, uops: Sequence[Uop] | Sequence[tuple[int, int, int]]) -> None:
        flat: list[int] = []
        for u in uops:
            if isinstance(u, Uop):
                flat += [u.dst_idx, u.src_idx, u.wgt_idx]
            else:
                flat += [int(u[0]), int(u[1]), int(u[2])]
        super().__init__(properties={"table": DenseArrayBase.from_list(i32, flat)})

    @property
    def uops(self) -> list[Uop]:
        """The micro-op records."""
        values = cast(tuple[int, ...], self.table.get_values())
        return [Uop(*values[i:i + 3]) for i in range(0, len(values), 3)]

    def __len__(self) -> int:
        return len(self.table) // 3

    def verify_(self) -> None:
        n = len(self.table)
        if n % 3:
            raise VerifyException(f"the table holds {n} values, not (dst, src, wgt) triples")
        cfg = get_config(self)
        values = cast(tuple[int, ...], self.table.get_values())
        for i in range(0, n, 3):
            for j, name in enumerate(("dst_idx", "src_idx", "wgt_idx")):
                f = cfg.uop_fields[name]
                v = values[i + j]
                if not 0 <= v <= f.mask:
                    raise VerifyException(
                        f"micro-op {i // 3}: {name} = {v} does not fit its {f.width}-bit field "
                        f"(0..{f.mask})"
                    )

    @classmethod
    def parse(cls, parser: Parser) -> UopsOp:
        def triple() -> tuple[int, int, int]:
            v = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, lambda: parse_int(parser, "a micro-op index")
            )
            if len(v) != 3:
                parser.raise_error("a micro-op is (dst, src, wgt)")
            return v[0], v[1], v[2]

        uops = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, triple)
        op = cls(uops)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        values = cast(tuple[int, ...], self.table.get_values())
        text = ", ".join(
            f"({values[i]}, {values[i + 1]}, {values[i + 2]})" for i in range(0, len(values), 3)
        )
        printer.print_string(f" [{text}]")
        if self.attributes:
            printer.print_op_attributes(self.attributes)


# ---------------------------------------------------------------------------------------------
# Runs, segments, arguments and the program


@irdl_op_definition
class RunOp(IRDLOperation):
    """One device run (:class:`vta_mlir.program.Run`): the micro-op table its ``LOAD UOP``
    instructions read at physical byte address ``uop_base``, then the instructions, the last
    one ``vtaisa.finish`` (docs/isa.md §3.2, §4.7)::

        vtaisa.run uop_base 0x41000 {
          vtaisa.uops [(0, 0, 0)]
          vtaisa.load uop sram 0 dram 0x10400 y 1 x 1 stride 1
          ...
          vtaisa.finish
        }
    """

    name = "vtaisa.run"

    uop_base = prop_def(IntegerAttr[I64], default_value=_ZERO)
    body = region_def("single_block")

    traits = lazy_traits_def(lambda: (NoTerminator(), HasParent(ProgramOp)))

    def __init__(self, body: Region | Sequence[Operation] | None = None,
                 uop_base: int = 0) -> None:
        super().__init__(properties={"uop_base": _int(uop_base)}, regions=[as_region(body)])

    @property
    def uops_op(self) -> UopsOp | None:
        first = self.body.block.first_op
        return first if isinstance(first, UopsOp) else None

    @property
    def instructions(self) -> list[_InsnOp]:
        return [op for op in self.body.block.ops if isinstance(op, _InsnOp)]

    def verify_(self) -> None:
        ops = list(self.body.block.ops)
        for i, op in enumerate(ops):
            if isinstance(op, UopsOp):
                if i != 0:
                    raise VerifyException("vtaisa.uops must be the first op of its vtaisa.run")
            elif not isinstance(op, _InsnOp):
                raise VerifyException(
                    f"a vtaisa.run holds a vtaisa.uops table and instructions, not {op.name}"
                )
        insns = [op for op in ops if isinstance(op, _InsnOp)]
        if not insns or not isinstance(insns[-1], FinishInsnOp):
            raise VerifyException("a vtaisa.run must end with vtaisa.finish")
        if any(isinstance(op, FinishInsnOp) for op in insns[:-1]):
            raise VerifyException("vtaisa.finish must be the last instruction of its run")

    @classmethod
    def parse(cls, parser: Parser) -> RunOp:
        uop_base = 0
        if parser.parse_optional_keyword("uop_base") is not None:
            uop_base = parse_int(parser, "uop_base")
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(parse_region(parser), uop_base)
        if attrs is not None:
            op.attributes.update(attrs.data)
        return op

    def print(self, printer: Printer) -> None:
        base = _get(self, "uop_base")
        if base:
            printer.print_string(f" uop_base {base:#x}")
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


_U8 = IntegerType(8, Signedness.UNSIGNED)


@irdl_op_definition
class SegmentOp(IRDLOperation):
    """A DRAM segment (:class:`vta_mlir.program.Segment`): name, physical byte address, size and,
    for constants, the initial bytes (a ``ui8`` tensor, printed in hex)::

        vtaisa.segment "w" phys 0x41000 size 4 data "0x01020304"
        vtaisa.segment "scratch" phys 0x42000 size 8192
    """

    name = "vtaisa.segment"

    sym_name = prop_def(StringAttr, prop_name="name")
    phys = prop_def(IntegerAttr[I64])
    size = prop_def(IntegerAttr[I64])
    data = opt_prop_def(DenseIntOrFPElementsAttr)

    traits = lazy_traits_def(lambda: (HasParent(ProgramOp),))

    def __init__(self, name: str, phys: int, size: int,
                 data: bytes | np.ndarray | None = None) -> None:
        props: dict[str, Attribute] = {
            "name": StringAttr(name), "phys": _int(phys), "size": _int(size),
        }
        if data is not None:
            raw = bytes(np.ascontiguousarray(data).tobytes()) if isinstance(data, np.ndarray) \
                else bytes(data)
            props["data"] = DenseIntOrFPElementsAttr(TensorType(_U8, [len(raw)]), BytesAttr(raw))
        super().__init__(properties=props)

    @property
    def segment_name(self) -> str:
        return self.sym_name.data

    @property
    def contents(self) -> bytes | None:
        """The initial bytes, ``None`` for an uninitialized segment."""
        return None if self.data is None else self.data.data.data

    def to_segment(self) -> Segment:
        raw = self.contents
        return Segment(
            self.segment_name,
            _get(self, "phys"),
            _get(self, "size"),
            None if raw is None else np.frombuffer(raw, dtype=np.uint8).copy(),
        )

    def verify_(self) -> None:
        size = _get(self, "size")
        if size < 1:
            raise VerifyException(f"segment '{self.segment_name}' has size {size}, must be >= 1")
        if self.data is not None:
            t = self.data.type
            if not isinstance(t, TensorType) or t.element_type != _U8 or t.get_num_dims() != 1:
                raise VerifyException(
                    f"segment '{self.segment_name}' contents must be a 1-D ui8 tensor, got {t}"
                )
            n = len(self.data.data.data)
            if n != size:
                raise VerifyException(
                    f"segment '{self.segment_name}' has {n} bytes of contents for size {size}"
                )

    @classmethod
    def parse(cls, parser: Parser) -> SegmentOp:
        name = parser.parse_str_literal(" (the segment name)")
        parser.parse_keyword("phys")
        phys = parse_int(parser, "phys")
        parser.parse_keyword("size")
        size = parse_int(parser, "size")
        data = None
        if parser.parse_optional_keyword("data") is not None:
            pos = parser.pos
            text = parser.parse_str_literal(" (hex contents \"0x...\")")
            try:
                if not text.startswith("0x"):
                    raise ValueError
                data = bytes.fromhex(text[2:])
            except ValueError:
                parser.raise_error("segment contents must be a hex string \"0x...\"", pos)
        op = cls(name, phys, size, data)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.segment_name)
        printer.print_string(f" phys {_get(self, 'phys'):#x} size {_get(self, 'size')}")
        raw = self.contents
        if raw is not None:
            printer.print_string(f' data "0x{raw.hex().upper()}"')
        if self.attributes:
            printer.print_op_attributes(self.attributes)


def _dims_attr(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, [int(v) for v in values])


@irdl_op_definition
class ArgOp(IRDLOperation):
    """An entry of the argument table (:class:`vta_mlir.abi.ArgSpec`): name, direction
    (``in``/``out``/``inout``), dtype, logical shape, the repeat dimensions it is broadcast over
    (printed only when there are any), padded shape, the split shape and permutation that pack
    it, the packed dtype, and the segment and address of its buffer::

        vtaisa.arg "x" in int8 [1, 1024] padded [1, 1024] split [1, 1, 64, 16]
            perm [0, 2, 1, 3] packed int8 segment "x" phys 0x40000
        vtaisa.arg "bias" in int32 [48] repeat [2] padded [48] split [1, 2, 3, 16]
            perm [0, 2, 1, 3] packed int32 segment "bias" phys 0x42000
    """

    name = "vtaisa.arg"

    sym_name = prop_def(StringAttr, prop_name="name")
    direction = prop_def(StringAttr)
    dtype = prop_def(StringAttr)
    shape = prop_def(DenseArrayBase.constr(i64))
    padded_shape = prop_def(DenseArrayBase.constr(i64))
    split_shape = prop_def(DenseArrayBase.constr(i64))
    perm = prop_def(DenseArrayBase.constr(i64))
    packed_dtype = prop_def(StringAttr)
    segment = prop_def(StringAttr)
    phys = prop_def(IntegerAttr[I64])
    repeat = opt_prop_def(DenseArrayBase.constr(i64))

    traits = lazy_traits_def(lambda: (HasParent(ProgramOp),))

    def __init__(
        self,
        name: str,
        direction: str,
        dtype: str,
        shape: Sequence[int],
        padded_shape: Sequence[int],
        split_shape: Sequence[int],
        perm: Sequence[int],
        packed_dtype: str,
        segment: str,
        phys: int,
        repeat: Sequence[int] = (),
    ) -> None:
        props: dict[str, Attribute] = {
            "name": StringAttr(name),
            "direction": StringAttr(direction),
            "dtype": StringAttr(dtype),
            "shape": _dims_attr(shape),
            "padded_shape": _dims_attr(padded_shape),
            "split_shape": _dims_attr(split_shape),
            "perm": _dims_attr(perm),
            "packed_dtype": StringAttr(packed_dtype),
            "segment": StringAttr(segment),
            "phys": _int(phys),
        }
        # Left out when empty: most arguments are not repeated, and their ops stay minimal.
        if repeat:
            props["repeat"] = _dims_attr(repeat)
        super().__init__(properties=props)

    @classmethod
    def from_spec(cls, spec: ArgSpec) -> ArgOp:
        """The op of an :class:`~vta_mlir.abi.ArgSpec`."""
        return cls(spec.name, spec.direction, spec.dtype, spec.shape, spec.padded_shape,
                   spec.split_shape, spec.perm, spec.packed_dtype, spec.segment, spec.phys,
                   spec.repeat)

    def to_spec(self) -> ArgSpec:
        """The :class:`~vta_mlir.abi.ArgSpec` (raises ``BinaryFormatError`` if inconsistent)."""

        def dims(a: DenseArrayBase) -> tuple[int, ...]:
            return cast(tuple[int, ...], a.get_values())

        return ArgSpec(
            self.sym_name.data, self.direction.data, self.dtype.data, dims(self.shape),
            dims(self.padded_shape), dims(self.split_shape), dims(self.perm),
            self.packed_dtype.data, self.segment.data, _get(self, "phys"),
            () if self.repeat is None else dims(self.repeat),
        )

    def verify_(self) -> None:
        try:
            self.to_spec()
        except (BinaryFormatError, TypeError, ValueError) as e:
            raise VerifyException(str(e)) from None

    @classmethod
    def parse(cls, parser: Parser) -> ArgOp:
        name = parser.parse_str_literal(" (the argument name)")
        direction = parser.parse_keyword_in(DIRECTIONS, " (the argument direction)")
        dtype = parser.parse_keyword_in(tuple(DTYPE_CODES), " (the argument dtype)")
        shape = parse_int_list(parser, "shape")
        repeat: list[int] = []
        if parser.parse_optional_keyword("repeat") is not None:
            repeat = parse_int_list(parser, "repeat")
        parser.parse_keyword("padded")
        padded = parse_int_list(parser, "padded")
        parser.parse_keyword("split")
        split = parse_int_list(parser, "split")
        parser.parse_keyword("perm")
        perm = parse_int_list(parser, "perm")
        parser.parse_keyword("packed")
        packed = parser.parse_keyword_in(tuple(DTYPE_CODES), " (the packed dtype)")
        parser.parse_keyword("segment")
        segment = parser.parse_str_literal(" (the segment name)")
        parser.parse_keyword("phys")
        phys = parse_int(parser, "phys")
        op = cls(name, direction, dtype, shape, padded, split, perm, packed, segment, phys,
                 repeat)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        def dims(a: DenseArrayBase) -> str:
            return "[" + ", ".join(str(v) for v in a.get_values()) + "]"

        printer.print_string(" ")
        printer.print_string_literal(self.sym_name.data)
        repeat = "" if self.repeat is None else f"repeat {dims(self.repeat)} "
        printer.print_string(
            f" {self.direction.data} {self.dtype.data} {dims(self.shape)} {repeat}"
            f"padded {dims(self.padded_shape)} split {dims(self.split_shape)} "
            f"perm {dims(self.perm)} packed {self.packed_dtype.data} segment "
        )
        printer.print_string_literal(self.segment.data)
        printer.print_string(f" phys {_get(self, 'phys'):#x}")
        if self.attributes:
            printer.print_op_attributes(self.attributes)


@irdl_op_definition
class ProgramOp(IRDLOperation):
    """One linked program (:class:`vta_mlir.binary.BinaryModule` without its configuration,
    which is the ``vta.config`` attribute of an enclosing op): base physical address, then
    segments, arguments (in signature order) and runs.  The verifier applies every consistency
    check of the ``.vtab`` format (segments, argument buffers, DRAM ranges, staging images)::

        vtaisa.program base 0x40000 {
          vtaisa.segment ...
          vtaisa.arg ...
          vtaisa.run ... { ... }
        }
    """

    name = "vtaisa.program"

    base = prop_def(IntegerAttr[I64])
    body = region_def("single_block")

    traits = traits_def(NoTerminator())

    def __init__(self, base: int, body: Region | Sequence[Operation] | None = None) -> None:
        super().__init__(properties={"base": _int(base)}, regions=[as_region(body)])

    @property
    def base_address(self) -> int:
        return _get(self, "base")

    def to_binary(self) -> BinaryModule:
        """The :class:`~vta_mlir.binary.BinaryModule` this op describes (not validated)."""
        cfg = get_config(self)
        segments: list[Segment] = []
        args: list[ArgSpec] = []
        runs: list[Run] = []
        for op in self.body.block.ops:
            if isinstance(op, SegmentOp):
                segments.append(op.to_segment())
            elif isinstance(op, ArgOp):
                args.append(op.to_spec())
            elif isinstance(op, RunOp):
                table = op.uops_op
                words = encode_uops(table.uops, cfg) if table is not None and len(table) \
                    else np.zeros(0, dtype=np.uint32)
                runs.append(Run([op_to_insn(i) for i in op.instructions],
                                np.asarray(words, dtype=np.uint32), _get(op, "uop_base")))
        return BinaryModule(cfg, Program(runs, segments), args, self.base_address)

    def verify_(self) -> None:
        for op in self.body.block.ops:
            if not isinstance(op, SegmentOp | ArgOp | RunOp):
                raise VerifyException(
                    f"a vtaisa.program holds vtaisa.segment, vtaisa.arg and vtaisa.run ops, not "
                    f"{op.name}"
                )
        try:
            self.to_binary().validate()
        except VTAError as e:
            raise VerifyException(str(e)) from None

    @classmethod
    def parse(cls, parser: Parser) -> ProgramOp:
        parser.parse_keyword("base")
        base = parse_int(parser, "base")
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(base, parse_region(parser))
        if attrs is not None:
            op.attributes.update(attrs.data)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" base {self.base_address:#x}")
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


VTAISA = Dialect(
    "vtaisa",
    [LoadInsnOp, StoreInsnOp, GemmInsnOp, AluInsnOp, FinishInsnOp, UopsOp, RunOp, SegmentOp,
     ArgOp, ProgramOp],
    [],
)
