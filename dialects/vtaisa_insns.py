"""The instruction ops of the ``vtaisa`` dialect (:mod:`vta_mlir.dialects.vtaisa`), one per
VTA instruction (``docs/isa.md`` §2.2–§2.6): ``vtaisa.load``, ``vtaisa.store``, ``vtaisa.gemm``,
``vtaisa.alu`` and ``vtaisa.finish``, every field a property named as in §2, and the exact
conversion between an op and a :mod:`vta_mlir.isa` record lives in
:mod:`vta_mlir.dialects.vtaisa_records`.

Their syntax is an ``assembly_format``: the memory type and the ALU operation are enum
attributes printed as their keyword (``inp``, ``shr``; :mod:`vta_mlir.dialects.vtaisa_attrs`),
the other fields ``i64`` properties, and the custom directives of
:mod:`vta_mlir.dialects.vtaisa_directives` print what the declarative format does not express:
the dependency flags as one list (``deps [pop_prev, push_next]``), ``reset``, DRAM addresses in
hexadecimal, loop pairs and paddings as lists, and ``imm`` / ``imm_unused`` by ``use_imm``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import ClassVar

from xdsl.dialects.builtin import I64, IntegerAttr
from xdsl.ir import Attribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
)
from xdsl.utils.exceptions import VerifyException

from vta_mlir.config import ALU_IMM_WIDTH, VTAConfig
from vta_mlir.isa import DEP_FLAGS, MemType

from .vta_attrs import Module
from .vta_config_attr import get_config
from .vtaisa_attrs import AluKindAttr, MemTypeAttr, alu_opcode_attr, enum_code, mem_type_attr
from .vtaisa_directives import Deps, Flag, Hex, Imm, Pads, Pair
from .vtaisa_syntax import int_attr

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
#: Dependency flags a module has no queue for (docs/isa.md §3.2 step 2).
_ILLEGAL_FLAGS = {
    Module.LOAD: ("pop_prev_dep", "push_prev_dep"),
    Module.COMPUTE: (),
    Module.STORE: ("pop_next_dep", "push_next_dep"),
}
_MEM_NAMES = {t: t.name.lower() for t in MemType}
#: The attribute of each enumerated field, from its code (every other field is an integer).
_ENUM_FIELDS: dict[str, Callable[[int], Attribute]] = {
    "memory_type": mem_type_attr, "alu_opcode": alu_opcode_attr,
}
#: The syntax of the dependency flags, the end of every instruction's format.
_DEPS = "custom<Deps>($pop_prev_dep, $pop_next_dep, $push_prev_dep, $push_next_dep) attr-dict"
#: The loop fields shared by GEMM and ALU.
_LOOPS = ("custom<Flag>(`reset`, $reset_reg) `uop` $uop_bgn `to` $uop_end "
          "`iter` custom<Pair>($iter_out, $iter_in) `dst` custom<Pair>($dst_factor_out, "
          "$dst_factor_in) `src` custom<Pair>($src_factor_out, $src_factor_in)")

_IMM_MIN = -(1 << (ALU_IMM_WIDTH - 1))
_IMM_MAX = (1 << (ALU_IMM_WIDTH - 1)) - 1


@lru_cache(maxsize=64)
def _field_widths(cfg: VTAConfig, layout: str, fields: tuple[str, ...]
                  ) -> tuple[tuple[str, int], ...]:
    """``(name, width)`` of the dependency flags and ``fields`` of an instruction laid out as
    ``layout`` on ``cfg`` (the ALU immediate's width is its own: signed)."""
    widths = cfg.field_layouts()[layout]
    return tuple((name, 0 if name == "imm" else widths[name].width)
                 for name in (*DEP_FLAGS, *fields))


def _check_width(value: int, width: int, name: str) -> None:
    hi = (1 << width) - 1
    if not 0 <= value <= hi:
        raise VerifyException(f"{name} = {value} does not fit its {width}-bit field (0..{hi})")


# ---------------------------------------------------------------------------------------------
# Instructions


class InsnOp(IRDLOperation):
    """Common header of every instruction: the four dependency flags (docs/isa.md §2.2)."""

    pop_prev_dep = prop_def(IntegerAttr[I64])
    pop_next_dep = prop_def(IntegerAttr[I64])
    push_prev_dep = prop_def(IntegerAttr[I64])
    push_next_dep = prop_def(IntegerAttr[I64])

    #: Names of the fields after the header, in printing order.
    FIELDS: ClassVar[tuple[str, ...]] = ()
    #: Name of the field layout in :meth:`VTAConfig.field_layouts`.
    LAYOUT: ClassVar[str] = "gemm"
    #: Every property: the flags, then :attr:`FIELDS` (set per class below).
    PROPS: ClassVar[tuple[str, ...]] = DEP_FLAGS

    #: ``(name, attribute of a code)`` of every property, in :attr:`PROPS` order.
    CONVERTERS: ClassVar[tuple[tuple[str, Callable[[int], Attribute]], ...]] = ()

    def __init__(self, **values: int) -> None:
        unknown = sorted(set(values) - set(self.PROPS))
        if unknown:
            raise TypeError(f"{self.__class__.__name__}: unknown field(s) {', '.join(unknown)}")
        super().__init__(properties=self.properties_of(values))

    @classmethod
    def properties_of(cls, values: Mapping[str, int]) -> dict[str, Attribute]:
        """The properties of an instruction with field values ``values`` (0 for a missing
        field); ``VerifyException`` for a memory type or ALU opcode that names none."""
        return {n: attr(values.get(n, 0)) for n, attr in cls.CONVERTERS}

    def field(self, name: str) -> int:
        """The value of field ``name`` (a dependency flag or one of :attr:`FIELDS`)."""
        attr = self.properties[name]
        if isinstance(attr, IntegerAttr):
            return attr.value.data
        return enum_code(attr)

    def values(self) -> dict[str, int]:
        """All fields of the instruction by name."""
        return {n: self.field(n) for n in (*DEP_FLAGS, *self.FIELDS)}

    @property
    def module(self) -> Module:
        """The module that executes the instruction (docs/isa.md §3.2 step 1)."""
        return Module.COMPUTE

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
        props = self.properties
        for name, width in _field_widths(cfg, self.LAYOUT, self.FIELDS):
            attr = props[name]
            value = attr.value.data if isinstance(attr, IntegerAttr) else enum_code(attr)
            if name == "imm":
                if not _IMM_MIN <= value <= _IMM_MAX:
                    raise VerifyException(
                        f"imm = {value} does not fit its signed {ALU_IMM_WIDTH}-bit field "
                        f"({_IMM_MIN}..{_IMM_MAX})"
                    )
                continue
            if not 0 <= value < 1 << width:
                _check_width(value, width, name)
        for name in _ILLEGAL_FLAGS[self.module]:
            if self.field(name):
                raise VerifyException(
                    f"{_FLAG_TEXT[name]} is set but the {self.module} module has no such "
                    "dependency queue"
                )
        self._verify_fields(cfg, sram_bounds)

    def _verify_fields(self, cfg: VTAConfig, sram_bounds: bool) -> None:
        pass


class _MemInsnOp(InsnOp):
    memory_type = prop_def(MemTypeAttr)
    sram_base = prop_def(IntegerAttr[I64])
    dram_base = prop_def(IntegerAttr[I64])
    y_size = prop_def(IntegerAttr[I64])
    x_size = prop_def(IntegerAttr[I64])
    x_stride = prop_def(IntegerAttr[I64])
    y_pad_0 = prop_def(IntegerAttr[I64])
    y_pad_1 = prop_def(IntegerAttr[I64])
    x_pad_0 = prop_def(IntegerAttr[I64])
    x_pad_1 = prop_def(IntegerAttr[I64])

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

    assembly_format = (
        "$memory_type `sram` $sram_base `dram` custom<Hex>($dram_base) `y` $y_size `x` $x_size "
        "`stride` $x_stride custom<Pads>($y_pad_0, $y_pad_1, $x_pad_0, $x_pad_1) " + _DEPS
    )
    custom_directives = (Hex, Pads, Deps)

    def _check_memory_type(self) -> MemType:
        return MemType(self.field("memory_type"))


@irdl_op_definition
class LoadInsnOp(_MemInsnOp):
    """LOAD (docs/isa.md §2.3, §3.3–§3.4): DRAM → SRAM with zero padding; ``x 0`` is a NOP::

        vtaisa.load inp sram 0 dram 0x100 y 16 x 16 stride 14 pad [1, 1, 1, 1] deps [pop_next]
    """

    name = "vtaisa.load"

    @property
    def module(self) -> Module:
        if self.field("memory_type") in (MemType.INP, MemType.WGT):
            return Module.LOAD
        return Module.COMPUTE

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
    def module(self) -> Module:
        return Module.STORE

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
    reset_reg = prop_def(IntegerAttr[I64])
    uop_bgn = prop_def(IntegerAttr[I64])
    uop_end = prop_def(IntegerAttr[I64])
    iter_out = prop_def(IntegerAttr[I64])
    iter_in = prop_def(IntegerAttr[I64])
    dst_factor_out = prop_def(IntegerAttr[I64])
    dst_factor_in = prop_def(IntegerAttr[I64])
    src_factor_out = prop_def(IntegerAttr[I64])
    src_factor_in = prop_def(IntegerAttr[I64])

    def _verify_fields(self, cfg: VTAConfig, sram_bounds: bool) -> None:
        bgn, end = self.field("uop_bgn"), self.field("uop_end")
        if bgn > end and sram_bounds:
            raise VerifyException(f"uop_bgn {bgn} is after uop_end {end}")
        if end > cfg.uop_buff_depth and sram_bounds:
            raise VerifyException(
                f"uop_end {end} is beyond the UOP SRAM depth {cfg.uop_buff_depth}"
            )



@irdl_op_definition
class GemmInsnOp(_LoopInsnOp):
    """GEMM (docs/isa.md §2.4, §3.6): micro-ops ``[uop_bgn, uop_end)`` in two loops
    ``iter [out, in]`` with index factors ``[out, in]`` per operand::

        vtaisa.gemm reset uop 0 to 1 iter [16, 1] dst [1, 0] src [0, 0] wgt [0, 0]
    """

    name = "vtaisa.gemm"

    wgt_factor_out = prop_def(IntegerAttr[I64])
    wgt_factor_in = prop_def(IntegerAttr[I64])

    FIELDS: ClassVar[tuple[str, ...]] = GEMM_FIELDS
    LAYOUT: ClassVar[str] = "gemm"

    assembly_format = (
        f"{_LOOPS} `wgt` custom<Pair>($wgt_factor_out, $wgt_factor_in) {_DEPS}"
    )
    custom_directives = (Flag, Pair, Deps)


@irdl_op_definition
class AluInsnOp(_LoopInsnOp):
    """ALU (docs/isa.md §2.5, §3.7): like GEMM with an ALU opcode and an optional signed 16-bit
    immediate (``imm``); without it the second operand is the source accumulator element::

        vtaisa.alu shr uop 3 to 4 iter [1, 1] dst [0, 0] src [0, 0] imm -3
        vtaisa.alu add uop 0 to 1 iter [1, 64] dst [0, 1] src [0, 1] deps [push_next]

    An immediate stored while ``use_imm`` is 0 prints as ``imm_unused``.
    """

    name = "vtaisa.alu"

    alu_opcode = prop_def(AluKindAttr)
    use_imm = prop_def(IntegerAttr[I64])
    imm = prop_def(IntegerAttr[I64])

    FIELDS: ClassVar[tuple[str, ...]] = ALU_FIELDS
    LAYOUT: ClassVar[str] = "alu"

    assembly_format = f"$alu_opcode {_LOOPS} custom<Imm>($use_imm, $imm) {_DEPS}"
    custom_directives = (Flag, Pair, Imm, Deps)


@irdl_op_definition
class FinishInsnOp(InsnOp):
    """FINISH (docs/isa.md §2.6, §3.8): ends a run; executes on the compute module::

        vtaisa.finish
    """

    name = "vtaisa.finish"

    assembly_format = _DEPS
    custom_directives = (Deps,)


INSN_OPS: tuple[type[InsnOp], ...] = (LoadInsnOp, StoreInsnOp, GemmInsnOp, AluInsnOp,
                                       FinishInsnOp)
for _cls in INSN_OPS:
    _cls.PROPS = (*DEP_FLAGS, *_cls.FIELDS)
    _cls.CONVERTERS = tuple((n, _ENUM_FIELDS.get(n, int_attr)) for n in _cls.PROPS)
