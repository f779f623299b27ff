"""The instruction ops of the ``vtaisa`` dialect (:mod:`vta_mlir.dialects.vtaisa`), one per
VTA instruction (``docs/isa.md`` §2.2–§2.6): ``vtaisa.load``, ``vtaisa.store``, ``vtaisa.gemm``,
``vtaisa.alu`` and ``vtaisa.finish``, every field a property named as in §2, and the exact
conversion between an op and a :mod:`vta_mlir.isa` record lives in
:mod:`vta_mlir.dialects.vtaisa_records`.

Their syntax is hand-written rather than an ``assembly_format``: the memory type and the ALU
operation are integer fields printed as keywords (``inp``, ``shr``), the dependency flags four
integer fields printed as one list (``deps [pop_prev, push_next]``), ``reset`` an integer field
printed as a keyword, DRAM addresses are printed in hexadecimal, and ``imm`` / ``imm_unused``
depend on ``use_imm`` -- none of which xDSL's declarative format expresses.
"""

from __future__ import annotations

from typing import ClassVar, cast

from xdsl.dialects.builtin import (
    I64,
    IntegerAttr,
    i64,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from vta_mlir.config import ALU_IMM_WIDTH, VTAConfig
from vta_mlir.isa import (
    COMPUTE_MODULE,
    DEP_FLAGS,
    LOAD_MODULE,
    STORE_MODULE,
    AluKind,
    MemType,
)

from .vta_config_attr import get_config
from .vtaisa_syntax import (
    int_attr,
    int_field,
    parse_int,
    parse_int_list,
    parse_pair,
)

__all__ = [
    "ALU_FIELDS",
    "GEMM_FIELDS",
    "INSN_OPS",
    "LOOP_FIELDS",
    "MEM_FIELDS",
    "AluInsnOp",
    "FinishInsnOp",
    "GemmInsnOp",
    "InsnOp",
    "LoadInsnOp",
    "StoreInsnOp",
]

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
_ALU_KEYWORDS = tuple(kind.value for kind in AluKind)

_IMM_MIN = -(1 << (ALU_IMM_WIDTH - 1))
_IMM_MAX = (1 << (ALU_IMM_WIDTH - 1)) - 1
_ZERO = IntegerAttr(0, i64)


def _check_width(value: int, width: int, name: str) -> None:
    hi = (1 << width) - 1
    if not 0 <= value <= hi:
        raise VerifyException(f"{name} = {value} does not fit its {width}-bit field (0..{hi})")


# ---------------------------------------------------------------------------------------------
# Instructions


class InsnOp(IRDLOperation):
    """Common header of every instruction: the four dependency flags (docs/isa.md §2.2)."""

    pop_prev_dep = prop_def(IntegerAttr[I64], default_value=_ZERO)
    pop_next_dep = prop_def(IntegerAttr[I64], default_value=_ZERO)
    push_prev_dep = prop_def(IntegerAttr[I64], default_value=_ZERO)
    push_next_dep = prop_def(IntegerAttr[I64], default_value=_ZERO)

    #: Names of the fields after the header, in printing order.
    FIELDS: ClassVar[tuple[str, ...]] = ()
    #: Name of the field layout in :meth:`VTAConfig.field_layouts`.
    LAYOUT: ClassVar[str] = "gemm"
    #: Every property: the flags, then :attr:`FIELDS` (set per class below).
    PROPS: ClassVar[tuple[str, ...]] = DEP_FLAGS

    def __init__(self, **values: int) -> None:
        names = (*DEP_FLAGS, *self.FIELDS)
        unknown = sorted(set(values) - set(names))
        if unknown:
            raise TypeError(f"{self.__class__.__name__}: unknown field(s) {', '.join(unknown)}")
        super().__init__(properties={n: int_attr(values.get(n, 0)) for n in names})

    def field(self, name: str) -> int:
        """The value of field ``name`` (a dependency flag or one of :attr:`FIELDS`)."""
        return int_field(self, name)

    def values(self) -> dict[str, int]:
        """All fields of the instruction by name."""
        return {n: self.field(n) for n in (*DEP_FLAGS, *self.FIELDS)}

    @property
    def module(self) -> str:
        """The module that executes the instruction (docs/isa.md §3.2 step 1)."""
        return COMPUTE_MODULE

    # ---- verification --------------------------------------------------------------------
    def verify_(self) -> None:
        self.check(get_config(self))

    def check(self, cfg: VTAConfig, *, sram_bounds: bool = True) -> None:
        """Raise :class:`VerifyException` unless the instruction is valid on ``cfg``: every field
        fits its width, the executing module has a queue for every flag set, and the fields of
        the kind (memory types, micro-op range) make sense.  ``sram_bounds=False`` leaves out
        whether the SRAM range of a LOAD / STORE and the micro-op range stay inside their
        SRAMs: a binary may hold such an instruction (``vta-run`` refuses it, the
        ``sram_index_problems`` analysis of :mod:`vta_mlir.binary_checks` names it)."""
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
        self._verify_fields(cfg, sram_bounds)

    def _verify_fields(self, cfg: VTAConfig, sram_bounds: bool) -> None:
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
    def _finish_parse(cls, parser: Parser, values: dict[str, int]) -> InsnOp:
        cls._parse_deps(parser, values)
        attrs = parser.parse_optional_attr_dict()
        op = cls(**values)
        op.attributes.update(attrs)
        return op

    def _print_attrs(self, printer: Printer) -> None:
        self._print_deps(printer)
        if self.attributes:
            printer.print_op_attributes(self.attributes)


class _MemInsnOp(InsnOp):
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
    def parse(cls, parser: Parser) -> InsnOp:
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

    def _verify_fields(self, cfg: VTAConfig, sram_bounds: bool) -> None:
        mt = self._check_memory_type()
        if mt == MemType.OUT:
            raise VerifyException("memory_type out cannot be loaded (out is only stored)")
        if self.is_nop or not sram_bounds:
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

    def _verify_fields(self, cfg: VTAConfig, sram_bounds: bool) -> None:
        mt = self._check_memory_type()
        if self.is_nop:
            return
        if mt != MemType.OUT:
            raise VerifyException(f"a store has memory_type out, got {_MEM_NAMES[mt]} (only OUT "
                                  "can be stored)")
        if any(self.pads):
            raise VerifyException("a store has no padding: every pad field must be 0")
        if not sram_bounds:
            return
        total = self.field("y_size") * self.field("x_size")
        base, depth = self.field("sram_base"), cfg.acc_buff_depth
        if base + total > depth:
            raise VerifyException(
                f"the store reads ACC SRAM elements [{base}, {base + total}) beyond its depth "
                f"{depth}"
            )


class _LoopInsnOp(InsnOp):
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

    def _verify_fields(self, cfg: VTAConfig, sram_bounds: bool) -> None:
        bgn, end = self.field("uop_bgn"), self.field("uop_end")
        if bgn > end and sram_bounds:
            raise VerifyException(f"uop_bgn {bgn} is after uop_end {end}")
        if end > cfg.uop_buff_depth and sram_bounds:
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
    def parse(cls, parser: Parser) -> InsnOp:
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

    def _verify_fields(self, cfg: VTAConfig, sram_bounds: bool) -> None:
        code = self.field("alu_opcode")
        if AluKind.from_opcode(code) is None:
            raise VerifyException(f"alu_opcode {code} is not an ALU operation (0..4)")
        super()._verify_fields(cfg, sram_bounds)

    @classmethod
    def parse(cls, parser: Parser) -> InsnOp:
        values: dict[str, int] = {}
        name = parser.parse_keyword_in(_ALU_KEYWORDS, " (an ALU operation)")
        values["alu_opcode"] = AluKind(name).opcode
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
        kind = AluKind.from_opcode(code)
        printer.print_string(f" {kind.value if kind is not None else code}")
        self._print_loops(printer)
        if self.field("use_imm"):
            printer.print_string(f" imm {self.field('imm')}")
        elif self.field("imm"):
            printer.print_string(f" imm_unused {self.field('imm')}")
        self._print_attrs(printer)


@irdl_op_definition
class FinishInsnOp(InsnOp):
    """FINISH (docs/isa.md §2.6, §3.8): ends a run; executes on the compute module::

        vtaisa.finish
    """

    name = "vtaisa.finish"

    @classmethod
    def parse(cls, parser: Parser) -> InsnOp:
        return cls._finish_parse(parser, {})

    def print(self, printer: Printer) -> None:
        self._print_attrs(printer)


INSN_OPS: tuple[type[InsnOp], ...] = (LoadInsnOp, StoreInsnOp, GemmInsnOp, AluInsnOp,
                                       FinishInsnOp)
for _cls in INSN_OPS:
    _cls.PROPS = (*DEP_FLAGS, *_cls.FIELDS)
