"""The ``vta`` dialect: a host program that drives the VTA accelerator.

This is the mid level of vta-mlir (``docs/architecture.md`` §1).  Loops and index arithmetic run
on the CPU; every ``vta`` op is one command the host pushes to the accelerator, exactly as TVM's
VTA runtime calls do (``docs/isa.md`` §4.4–§4.7):

==========================  ===================================================================
op                          runtime call / meaning
==========================  ===================================================================
``vta.dma_copy``            ``VTALoadBuffer2D`` / ``VTAStoreBuffer2D``: one 2-D strided copy
                            between a DRAM buffer and an SRAM buffer (§2.3, §3.3–§3.5, §4.7)
``vta.gemm``                ``VTAUopPush`` of one GEMM micro-op (§2.7, §3.6, §4.4)
``vta.alu``                 ``VTAUopPush`` of one ALU micro-op (§3.7, §4.4)
``vta.uop_loop``            ``VTAUopLoopBegin`` / ``VTAUopLoopEnd``: a micro-kernel loop (§4.4)
``vta.dep_push``            ``VTADepPush(from, to)`` (§3.2, §4.6)
``vta.dep_pop``             ``VTADepPop(from, to)`` (§3.2, §4.6)
``vta.stage``               the ops one module (load / compute / store) executes (§3.2)
==========================  ===================================================================

SRAM buffers are memrefs in the ``#vta.sram<inp|wgt|acc|uop>`` memory space whose trailing
dimensions are one tensor element (``docs/isa.md`` §1.6) and whose leading dimensions count
elements, e.g. ``memref<64x1x16xi8, #vta.sram<inp>>``.  DRAM buffers are ordinary memrefs.  A
position in a buffer is an element offset written ``%buf[%i]``, ``%buf[%i + 4]`` or ``%buf[4]``:
an optional ``index`` SSA value plus a constant.

The hardware configuration is the module attribute ``vta.config`` (:class:`VTAConfigAttr`);
verifiers read it with :func:`get_config` and check every size, factor and index against it.

This module holds the ops and the dialect :data:`VTA`.  The ``#vta.config`` attribute and its
helpers live in :mod:`vta_mlir.dialects.vta_config_attr`; the ``#vta.sram`` memory space, the
buffer and position helpers and the micro-op list-loop analysis in
:mod:`vta_mlir.dialects.vta_positions`.  Both are re-exported here.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar, cast

from xdsl.dialects import affine
from xdsl.dialects.builtin import (
    I64,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    UnitAttr,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    Region,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from vta_mlir.config import ALU_IMM_WIDTH, LOOP_ITER_WIDTH, VTAConfig
from vta_mlir.ir.index_arith import is_index_op
from vta_mlir.isa import AluOp as IsaAluOp
from vta_mlir.isa import MemType

from .vta_config_attr import CONFIG_ATTR_NAME, VTAConfigAttr, get_config, set_module_config
from .vta_positions import (
    Linearizer,
    LinearPosition,
    OperandPosition,
    Position,
    Sram,
    SramAttr,
    check_field,
    check_sram_buffer,
    check_static_in,
    constant_index,
    int_prop,
    list_loop_bounds,
    list_loop_trip,
    parse_position,
    print_attr_dict,
    print_position,
    prop_value,
    resolve_index,
    space_text,
    split_position,
    sram_element_shape,
    sram_element_type,
    sram_space,
    static_position,
    static_shape,
)

__all__ = [
    "CONFIG_ATTR_NAME",
    "VTA",
    "IMM_MAX",
    "IMM_MIN",
    "AluKernel",
    "AluKind",
    "AluKindAttr",
    "AluOp",
    "DepPopOp",
    "DepPushOp",
    "DmaCopyOp",
    "GemmOp",
    "LinearPosition",
    "Module",
    "ModuleAttr",
    "Sram",
    "SramAttr",
    "StageOp",
    "UopLoopOp",
    "VTAConfigAttr",
    "constant_index",
    "enclosing_list_loops",
    "get_config",
    "kernel_uops",
    "linear_position",
    "list_loop_bounds",
    "list_loop_trip",
    "module_of",
    "set_module_config",
    "sram_element_shape",
    "sram_element_type",
    "sram_space",
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


class AluKind(StrEnum):
    """ALU operations (docs/isa.md §2.2, §3.7).  ``shr`` by a negative amount shifts left."""

    MIN = "min"
    MAX = "max"
    ADD = "add"
    SHR = "shr"
    MUL = "mul"

    @property
    def opcode(self) -> IsaAluOp:
        """The ``alu_opcode`` field value."""
        return IsaAluOp[self.name]


@irdl_attr_definition
class ModuleAttr(EnumAttribute[Module], SpacedOpaqueSyntaxAttribute):
    """A module of the accelerator: ``#vta<module load>`` (``compute``, ``store``)."""

    name = "vta.module"


@irdl_attr_definition
class AluKindAttr(EnumAttribute[AluKind], SpacedOpaqueSyntaxAttribute):
    """An ALU operation: ``#vta<alu_op shr>`` (``min``, ``max``, ``add``, ``mul``)."""

    name = "vta.alu_op"


# ---------------------------------------------------------------------------------------------
# vta.dma_copy


@irdl_op_definition
class DmaCopyOp(IRDLOperation):
    """A 2-D strided copy between DRAM and SRAM (docs/isa.md §2.3, §3.3–§3.5, §4.7).

    DRAM → SRAM is a LOAD into inp, wgt, acc (``i32`` DRAM, or ``i8`` DRAM as ACC_8BIT with sign
    extension) or uop; SRAM acc → ``i8`` DRAM is a STORE (truncating, no padding).  Sizes and the
    DRAM row stride count tensor elements; the SRAM position of a load is the top-left corner of
    the padded block::

        vta.dma_copy %x[%i] -> %inp[0] y 4 x 4 stride 16 pad [1, 1, 1, 1]
            : memref<1x16x16x1x16xi8> -> memref<36x1x16xi8, #vta.sram<inp>>
    """

    name = "vta.dma_copy"

    src = operand_def(MemRefType)
    src_index = opt_operand_def(IndexType)
    dst = operand_def(MemRefType)
    dst_index = opt_operand_def(IndexType)

    src_offset = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    dst_offset = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    y_size = prop_def(IntegerAttr[I64])
    x_size = prop_def(IntegerAttr[I64])
    x_stride = prop_def(IntegerAttr[I64])
    y_pad_0 = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    y_pad_1 = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    x_pad_0 = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    x_pad_1 = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    PADS: ClassVar[tuple[str, ...]] = ("y_pad_0", "y_pad_1", "x_pad_0", "x_pad_1")

    def __init__(
        self,
        src: SSAValue | Operation,
        dst: SSAValue | Operation,
        *,
        x_size: int,
        y_size: int = 1,
        x_stride: int | None = None,
        src_pos: Position = None,
        dst_pos: Position = None,
        pad: Sequence[int] = (0, 0, 0, 0),
        attributes: dict[str, Attribute] | None = None,
    ) -> None:
        src_value, src_offset = split_position(src_pos)
        dst_value, dst_offset = split_position(dst_pos)
        if len(pad) != 4:
            raise ValueError("pad is (y_pad_0, y_pad_1, x_pad_0, x_pad_1)")
        props: dict[str, Attribute] = {
            "src_offset": int_prop(src_offset),
            "dst_offset": int_prop(dst_offset),
            "y_size": int_prop(y_size),
            "x_size": int_prop(x_size),
            "x_stride": int_prop(x_size if x_stride is None else x_stride),
        }
        props.update({n: int_prop(p) for n, p in zip(self.PADS, pad, strict=True)})
        super().__init__(
            operands=[
                src,
                [src_value] if src_value is not None else [],
                dst,
                [dst_value] if dst_value is not None else [],
            ],
            properties=props,
            attributes=attributes or {},
        )

    # ---- accessors -----------------------------------------------------------------------
    def field(self, name: str) -> int:
        """The integer value of a property (``x_size``, ``y_pad_0``, ...)."""
        return prop_value(self, name)

    @property
    def pads(self) -> tuple[int, int, int, int]:
        """``(y_pad_0, y_pad_1, x_pad_0, x_pad_1)``."""
        y0, y1, x0, x1 = (self.field(n) for n in self.PADS)
        return y0, y1, x0, x1

    @property
    def is_store(self) -> bool:
        """True for SRAM → DRAM."""
        return sram_space(self.src.type) is not None

    @property
    def sram(self) -> SSAValue:
        """The SRAM operand."""
        return self.src if self.is_store else self.dst

    @property
    def dram(self) -> SSAValue:
        """The DRAM operand."""
        return self.dst if self.is_store else self.src

    @property
    def sram_position(self) -> tuple[SSAValue | None, int]:
        """(index value or ``None``, constant) of the SRAM element offset."""
        if self.is_store:
            return self.src_index, self.field("src_offset")
        return self.dst_index, self.field("dst_offset")

    @property
    def dram_position(self) -> tuple[SSAValue | None, int]:
        """(index value or ``None``, constant) of the DRAM element offset."""
        if self.is_store:
            return self.dst_index, self.field("dst_offset")
        return self.src_index, self.field("src_offset")

    @property
    def memory_type(self) -> MemType:
        """The ``memory_type`` field of the instruction this copy becomes."""
        if self.is_store:
            return MemType.OUT
        space = sram_space(self.dst.type)
        if space == Sram.ACC:
            src_t = self.src.type
            acc_type = IntegerType(get_config(self).acc_width)
            if isinstance(src_t, MemRefType) and src_t.element_type != acc_type:
                return MemType.ACC_8BIT
            return MemType.ACC
        return {Sram.INP: MemType.INP, Sram.WGT: MemType.WGT, Sram.UOP: MemType.UOP}[
            cast(Sram, space)
        ]

    @property
    def module(self) -> Module:
        """The module that executes this copy (docs/isa.md §3.2)."""
        if self.is_store:
            return Module.STORE
        if sram_space(self.dst.type) in (Sram.INP, Sram.WGT):
            return Module.LOAD
        return Module.COMPUTE

    # ---- verification --------------------------------------------------------------------
    def verify_(self) -> None:
        cfg = get_config(self)
        src_space, dst_space = sram_space(self.src.type), sram_space(self.dst.type)
        if src_space is not None and dst_space is not None:
            raise VerifyException(
                "vta.dma_copy moves data between DRAM and SRAM, but both operands are in SRAM"
            )
        if src_space is None and dst_space is None:
            raise VerifyException(
                "vta.dma_copy moves data between DRAM and SRAM, but neither operand is in a "
                "#vta.sram memory space"
            )
        fields = cfg.mem_fields
        for name in ("y_size", "x_size", "x_stride", *self.PADS):
            check_field(self.field(name), fields[name].width, name)
        for name in ("y_size", "x_size"):
            if self.field(name) == 0:
                raise VerifyException(f"{name} must be at least 1 (a copy moves data)")
        y0, y1, x0, x1 = self.pads
        y, x, stride = self.field("y_size"), self.field("x_size"), self.field("x_stride")

        if src_space is not None:  # store
            if src_space != Sram.ACC:
                raise VerifyException(
                    f"a store reads the accumulator: source must be in {space_text(Sram.ACC)}, "
                    f"got {space_text(src_space)}"
                )
            if any(self.pads):
                raise VerifyException(
                    "a store (SRAM -> DRAM) has no padding: y_pad_0, y_pad_1, x_pad_0, x_pad_1 "
                    "must be 0"
                )
            sram_count = check_sram_buffer(self.src, Sram.ACC, cfg, "store source")
            dram_elem = IntegerType(cfg.out_width)
            dram_lanes = cfg.batch * cfg.block_out
            dram_what = "store destination"
            footprint = y * x
            sram_val, sram_off = self.src_index, self.field("src_offset")
        else:
            space = cast(Sram, dst_space)
            sram_count = check_sram_buffer(self.dst, space, cfg, "load destination")
            src_t = cast(MemRefType, self.src.type)
            if space == Sram.ACC:
                accepted = (IntegerType(cfg.acc_width), IntegerType(cfg.inp_width))
                if src_t.element_type not in accepted:
                    raise VerifyException(
                        f"a load into {space_text(Sram.ACC)} reads i{cfg.acc_width} DRAM (ACC) "
                        f"or i{cfg.inp_width} DRAM (ACC_8BIT), got {src_t.element_type}"
                    )
                dram_elem = cast(IntegerType, src_t.element_type)
                dram_lanes = cfg.batch * cfg.block_out
            else:
                dram_elem = sram_element_type(space, cfg)
                dram_lanes = math.prod(sram_element_shape(space, cfg))
            dram_what = "load source"
            footprint = (y0 + y + y1) * (x0 + x + x1)
            sram_val, sram_off = self.dst_index, self.field("dst_offset")

        dram_t = self.dram.type
        assert isinstance(dram_t, MemRefType)
        if dram_t.element_type != dram_elem:
            raise VerifyException(
                f"{dram_what} in DRAM must have element type {dram_elem}, got "
                f"{dram_t.element_type}"
            )
        if footprint > sram_count:
            raise VerifyException(
                f"the copy covers {footprint} SRAM elements but the buffer holds {sram_count}"
            )
        sram_pos = static_position(sram_val, sram_off)
        if sram_pos is not None:
            if sram_pos < 0:
                raise VerifyException(f"SRAM offset {sram_pos} is negative")
            if sram_pos + footprint > sram_count:
                raise VerifyException(
                    f"the copy covers SRAM elements [{sram_pos}, {sram_pos + footprint}) but the "
                    f"buffer holds {sram_count}"
                )
        dram_val, dram_off = self.dram_position
        dram_pos = static_position(dram_val, dram_off)
        if dram_pos is not None and dram_pos < 0:
            raise VerifyException(f"DRAM offset {dram_pos} is negative")
        shape = static_shape(dram_t)
        if shape is not None:
            scalars = math.prod(shape)
            if scalars % dram_lanes:
                raise VerifyException(
                    f"{dram_what} holds {scalars} scalars, not a whole number of "
                    f"{dram_lanes}-scalar tensor elements"
                )
            dram_count = scalars // dram_lanes
            extent = (y - 1) * stride + x
            start = dram_pos if dram_pos is not None else 0
            if start + extent > dram_count:
                where = f"[{start}, {start + extent})" if dram_pos is not None \
                    else f"{extent} elements"
                raise VerifyException(
                    f"the copy reaches DRAM elements {where} but the buffer holds {dram_count}"
                )

    # ---- syntax --------------------------------------------------------------------------
    @classmethod
    def parse(cls, parser: Parser) -> DmaCopyOp:
        src = parser.parse_unresolved_operand()
        src_idx, src_off = parse_position(parser)
        parser.parse_punctuation("->")
        dst = parser.parse_unresolved_operand()
        dst_idx, dst_off = parse_position(parser)
        values: dict[str, int] = {}
        parser.parse_keyword("y")
        values["y_size"] = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("x")
        values["x_size"] = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("stride")
        values["x_stride"] = parser.parse_integer(allow_boolean=False)
        pad = (0, 0, 0, 0)
        if parser.parse_optional_keyword("pad") is not None:
            pads = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
            )
            if len(pads) != 4:
                parser.raise_error("pad takes four values [y_pad_0, y_pad_1, x_pad_0, x_pad_1]")
            pad = tuple(pads)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_t = parser.parse_type()
        parser.parse_punctuation("->")
        dst_t = parser.parse_type()
        src_v = parser.resolve_operand(src, src_t)
        dst_v = parser.resolve_operand(dst, dst_t)
        src_i = resolve_index(parser, src_idx)
        dst_i = resolve_index(parser, dst_idx)
        return cls(
            src_v,
            dst_v,
            x_size=values["x_size"],
            y_size=values["y_size"],
            x_stride=values["x_stride"],
            src_pos=(src_i, src_off) if src_i is not None else src_off,
            dst_pos=(dst_i, dst_off) if dst_i is not None else dst_off,
            pad=pad,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        print_position(printer, self.src_index, self.field("src_offset"))
        printer.print_string(" -> ")
        printer.print_operand(self.dst)
        print_position(printer, self.dst_index, self.field("dst_offset"))
        printer.print_string(
            f" y {self.field('y_size')} x {self.field('x_size')} "
            f"stride {self.field('x_stride')}"
        )
        if any(self.pads):
            printer.print_string(" pad [" + ", ".join(map(str, self.pads)) + "]")
        print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.dst.type)


# ---------------------------------------------------------------------------------------------
# Micro-ops: vta.gemm and vta.alu


@irdl_op_definition
class GemmOp(IRDLOperation):
    """One GEMM micro-op (docs/isa.md §2.7, §3.6): ``acc[d] += inp[s] · wgt[w]ᵀ`` on tensor
    elements, or with ``reset`` ``acc[d] = 0``::

        vta.gemm %acc[%o] += %inp[0] * %wgt[%o + 16]
            : memref<16x1x16xi32, #vta.sram<acc>>, memref<16x1x16xi8, #vta.sram<inp>>,
              memref<256x16x16xi8, #vta.sram<wgt>>
        vta.gemm reset %acc[0] : memref<16x1x16xi32, #vta.sram<acc>>
    """

    name = "vta.gemm"

    acc = operand_def(MemRefType)
    acc_index = opt_operand_def(IndexType)
    inp = opt_operand_def(MemRefType)
    inp_index = opt_operand_def(IndexType)
    wgt = opt_operand_def(MemRefType)
    wgt_index = opt_operand_def(IndexType)

    acc_offset = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    inp_offset = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    wgt_offset = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    reset = opt_prop_def(UnitAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        acc: SSAValue | Operation,
        acc_pos: Position = None,
        inp: SSAValue | Operation | None = None,
        inp_pos: Position = None,
        wgt: SSAValue | Operation | None = None,
        wgt_pos: Position = None,
        *,
        reset: bool = False,
        attributes: dict[str, Attribute] | None = None,
    ) -> None:
        acc_v, acc_off = split_position(acc_pos)
        inp_v, inp_off = split_position(inp_pos)
        wgt_v, wgt_off = split_position(wgt_pos)
        props: dict[str, Attribute] = {
            "acc_offset": int_prop(acc_off),
            "inp_offset": int_prop(inp_off),
            "wgt_offset": int_prop(wgt_off),
        }
        if reset:
            props["reset"] = UnitAttr()
        super().__init__(
            operands=[
                acc,
                [acc_v] if acc_v is not None else [],
                [inp] if inp is not None else [],
                [inp_v] if inp_v is not None else [],
                [wgt] if wgt is not None else [],
                [wgt_v] if wgt_v is not None else [],
            ],
            properties=props,
            attributes=attributes or {},
        )

    @property
    def is_reset(self) -> bool:
        return self.reset is not None

    def position(self, which: str) -> tuple[SSAValue | None, int]:
        """(index value or ``None``, constant) of ``'acc'``, ``'inp'`` or ``'wgt'``."""
        return getattr(self, f"{which}_index"), prop_value(self, f"{which}_offset")

    def operand_positions(self) -> list[OperandPosition]:
        """``(kind, buffer, index, constant, sram)`` of each addressed operand; kind is the uop
        field it feeds (``dst``, ``src``, ``wgt``)."""
        out: list[OperandPosition] = [("dst", self.acc, *self.position("acc"), Sram.ACC)]
        if self.inp is not None:
            out.append(("src", self.inp, *self.position("inp"), Sram.INP))
        if self.wgt is not None:
            out.append(("wgt", self.wgt, *self.position("wgt"), Sram.WGT))
        return out

    def verify_(self) -> None:
        cfg = get_config(self)
        acc_count = check_sram_buffer(self.acc, Sram.ACC, cfg, "gemm accumulator")
        check_static_in(static_position(*self.position("acc")), acc_count, "accumulator")
        if self.is_reset:
            for name in ("inp", "wgt"):
                if getattr(self, name) is not None or getattr(self, f"{name}_index") is not None \
                        or prop_value(self, f"{name}_offset"):
                    raise VerifyException(f"a reset gemm takes no {name} operand")
            return
        for name, space in (("inp", Sram.INP), ("wgt", Sram.WGT)):
            buf = getattr(self, name)
            if buf is None:
                raise VerifyException(f"a gemm without reset needs an {name} operand")
            count = check_sram_buffer(buf, space, cfg, f"gemm {name}")
            check_static_in(static_position(*self.position(name)), count, name)

    @classmethod
    def parse(cls, parser: Parser) -> GemmOp:
        reset = parser.parse_optional_keyword("reset") is not None
        acc = parser.parse_unresolved_operand()
        acc_idx, acc_off = parse_position(parser)
        inp = wgt = inp_idx = wgt_idx = None
        inp_off = wgt_off = 0
        if not reset:
            parser.parse_punctuation("+")
            parser.parse_punctuation("=")
            inp = parser.parse_unresolved_operand()
            inp_idx, inp_off = parse_position(parser)
            parser.parse_punctuation("*")
            wgt = parser.parse_unresolved_operand()
            wgt_idx, wgt_off = parse_position(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        acc_v = parser.resolve_operand(acc, parser.parse_type())
        inp_v = wgt_v = None
        if not reset:
            assert inp is not None and wgt is not None
            parser.parse_punctuation(",")
            inp_v = parser.resolve_operand(inp, parser.parse_type())
            parser.parse_punctuation(",")
            wgt_v = parser.resolve_operand(wgt, parser.parse_type())

        def pos(idx: UnresolvedOperand | None, off: int) -> Position:
            value = resolve_index(parser, idx)
            return (value, off) if value is not None else off

        return cls(
            acc_v,
            pos(acc_idx, acc_off),
            inp_v,
            pos(inp_idx, inp_off),
            wgt_v,
            pos(wgt_idx, wgt_off),
            reset=reset,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        if self.is_reset:
            printer.print_string("reset ")
        printer.print_operand(self.acc)
        print_position(printer, *self.position("acc"))
        types = [self.acc.type]
        if not self.is_reset and self.inp is not None and self.wgt is not None:
            printer.print_string(" += ")
            printer.print_operand(self.inp)
            print_position(printer, *self.position("inp"))
            printer.print_string(" * ")
            printer.print_operand(self.wgt)
            print_position(printer, *self.position("wgt"))
            types += [self.inp.type, self.wgt.type]
        print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_list(types, printer.print_attribute)


@irdl_op_definition
class AluOp(IRDLOperation):
    """One ALU micro-op (docs/isa.md §3.7) on accumulator elements, in place:
    ``acc[d] = op(acc[d], imm)`` or ``op(acc[d], src[s])``.  ``shr`` by a negative amount shifts
    left; the immediate is a signed 16-bit value::

        vta.alu shr %acc[%o], 8 : memref<16x1x16xi32, #vta.sram<acc>>
        vta.alu add %acc[0], %bias[%o] : memref<16x1x16xi32, #vta.sram<acc>>,
            memref<16x1x16xi32, #vta.sram<acc>>
    """

    name = "vta.alu"

    dst = operand_def(MemRefType)
    dst_index = opt_operand_def(IndexType)
    src = opt_operand_def(MemRefType)
    src_index = opt_operand_def(IndexType)

    alu_op = prop_def(AluKindAttr, prop_name="op")
    dst_offset = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    src_offset = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    imm = opt_prop_def(IntegerAttr[I64])

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        op: AluKind | str,
        dst: SSAValue | Operation,
        dst_pos: Position = None,
        *,
        imm: int | None = None,
        src: SSAValue | Operation | None = None,
        src_pos: Position = None,
        attributes: dict[str, Attribute] | None = None,
    ) -> None:
        dst_v, dst_off = split_position(dst_pos)
        src_v, src_off = split_position(src_pos)
        props: dict[str, Attribute] = {
            "op": AluKindAttr(AluKind(op)),
            "dst_offset": int_prop(dst_off),
            "src_offset": int_prop(src_off),
        }
        if imm is not None:
            props["imm"] = int_prop(imm)
        super().__init__(
            operands=[
                dst,
                [dst_v] if dst_v is not None else [],
                [src] if src is not None else [],
                [src_v] if src_v is not None else [],
            ],
            properties=props,
            attributes=attributes or {},
        )

    @property
    def kind(self) -> AluKind:
        return self.alu_op.data

    @property
    def use_imm(self) -> bool:
        return self.imm is not None

    @property
    def imm_value(self) -> int:
        """The immediate (0 for a tensor operand)."""
        return 0 if self.imm is None else int(self.imm.value.data)

    def position(self, which: str) -> tuple[SSAValue | None, int]:
        """(index value or ``None``, constant) of ``'dst'`` or ``'src'``."""
        return getattr(self, f"{which}_index"), prop_value(self, f"{which}_offset")

    def operand_positions(self) -> list[OperandPosition]:
        """``(kind, buffer, index, constant, sram)`` of each addressed operand."""
        out: list[OperandPosition] = [("dst", self.dst, *self.position("dst"), Sram.ACC)]
        if self.src is not None:
            out.append(("src", self.src, *self.position("src"), Sram.ACC))
        return out

    def verify_(self) -> None:
        cfg = get_config(self)
        count = check_sram_buffer(self.dst, Sram.ACC, cfg, "alu destination")
        check_static_in(static_position(*self.position("dst")), count, "alu destination")
        if self.imm is not None:
            if self.src is not None or self.src_index is not None \
                    or prop_value(self, "src_offset"):
                raise VerifyException("vta.alu takes an immediate or a source tensor, not both")
            value = self.imm_value
            if not IMM_MIN <= value <= IMM_MAX:
                raise VerifyException(
                    f"immediate {value} does not fit a signed {ALU_IMM_WIDTH}-bit field "
                    f"({IMM_MIN}..{IMM_MAX})"
                )
            return
        if self.src is None:
            raise VerifyException("vta.alu needs an immediate or a source tensor")
        count = check_sram_buffer(self.src, Sram.ACC, cfg, "alu source")
        check_static_in(static_position(*self.position("src")), count, "alu source")

    @classmethod
    def parse(cls, parser: Parser) -> AluOp:
        kind = parser.parse_str_enum(AluKind)
        dst = parser.parse_unresolved_operand()
        dst_idx, dst_off = parse_position(parser)
        parser.parse_punctuation(",")
        src = parser.parse_optional_unresolved_operand()
        src_idx, src_off, imm = None, 0, None
        if src is not None:
            src_idx, src_off = parse_position(parser)
        else:
            imm = parser.parse_integer(
                allow_boolean=False, context_msg=" (an immediate or a source tensor)"
            )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        dst_v = parser.resolve_operand(dst, parser.parse_type())
        src_v = None
        if src is not None:
            parser.parse_punctuation(",")
            src_v = parser.resolve_operand(src, parser.parse_type())
        dst_i = resolve_index(parser, dst_idx)
        src_i = resolve_index(parser, src_idx)
        return cls(
            kind,
            dst_v,
            (dst_i, dst_off) if dst_i is not None else dst_off,
            imm=imm,
            src=src_v,
            src_pos=(src_i, src_off) if src_i is not None else src_off,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.value} ")
        printer.print_operand(self.dst)
        print_position(printer, *self.position("dst"))
        printer.print_string(", ")
        types = [self.dst.type]
        if self.imm is not None or self.src is None:
            printer.print_string(str(self.imm_value))
        else:
            printer.print_operand(self.src)
            print_position(printer, *self.position("src"))
            types.append(self.src.type)
        print_attr_dict(printer, self)
        printer.print_string(" : ")
        printer.print_list(types, printer.print_attribute)


# ---------------------------------------------------------------------------------------------
# vta.uop_loop


def _kernel_root(op: Operation) -> UopLoopOp | None:
    """The outermost ``vta.uop_loop`` around ``op`` (``op`` excluded), if any."""
    found: UopLoopOp | None = None
    cur = op.parent_op()
    while cur is not None:
        if isinstance(cur, UopLoopOp):
            found = cur
        cur = cur.parent_op()
    return found


def enclosing_list_loops(op: Operation) -> list[affine.ForOp]:
    """The micro-op list loops (``affine.for`` inside a micro-kernel) around ``op``, outermost
    first; empty for an op that is not inside one."""
    loops: list[affine.ForOp] = []
    cur = op.parent_op()
    while cur is not None and not isinstance(cur, UopLoopOp):
        if isinstance(cur, affine.ForOp):
            loops.append(cur)
        cur = cur.parent_op()
    if cur is None:
        return []
    loops.reverse()
    return loops


def linear_position(uop: GemmOp | AluOp, value: SSAValue | None, constant: int,
                    kernel: Operation | None = None) -> LinearPosition | None:
    """The position ``value + constant`` of an operand of ``uop`` as a :class:`LinearPosition`
    over the induction variables of the micro-op's list loops (:func:`enclosing_list_loops`);
    ``None`` when it is not linear in them.  ``kernel`` (default: the outermost ``vta.uop_loop``
    around ``uop``) bounds the index arithmetic that is looked through."""
    ivs = [lp.body.block.args[0] for lp in enclosing_list_loops(uop)]
    if value is None:
        return LinearPosition(constant, (0,) * len(ivs), frozenset())
    root = kernel if kernel is not None else _kernel_root(uop)
    if root is None:
        c = constant_index(value)
        if c is not None:
            return LinearPosition(c + constant, (), frozenset())
        return LinearPosition(constant, (), frozenset({(value, 1)}))
    form = Linearizer(root, ivs).value(value)
    if form is None:
        return None
    inner = set(ivs)
    return LinearPosition(form.const + constant, tuple(form.coeff(iv) for iv in ivs),
                          frozenset((k, c) for k, c in form.terms.items() if k not in inner))


#: A kernel's innermost body as a tree: micro-op numbers, and ``(lower bound, trip count,
#: subtree)`` of list loops.
_ListTree = list["int | tuple[int, int, _ListTree]"]


@irdl_op_definition
class UopLoopOp(IRDLOperation):
    """A micro-kernel loop (``VTAUopLoopBegin``/``End``, docs/isa.md §4.4): ``extent`` iterations,
    each adding ``dst_factor``/``src_factor``/``wgt_factor`` to the micro-ops' indices.  Its body
    holds gemm or alu micro-ops, or one nested loop (at most two levels).  The outermost
    ``vta.uop_loop`` is one micro-kernel, i.e. one GEMM/ALU instruction::

        vta.uop_loop 16 dst 1 wgt 16 {
          vta.uop_loop 16 src 1 wgt 1 {
            vta.gemm %acc[0] += %inp[0] * %wgt[0] : ...
          }
        }

    The innermost body may also hold *micro-op list loops*: ``affine.for`` nests with constant
    bounds and step 1 (with index arithmetic) around micro-ops.  They are host loops of the
    kernel's recording closure (docs/isa.md §4.4): every iteration appends its micro-ops to the
    kernel's micro-op list, in program order.

    Zero factors are not printed.
    """

    name = "vta.uop_loop"

    extent = prop_def(IntegerAttr[I64])
    dst_factor = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    src_factor = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    wgt_factor = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    body = region_def("single_block")

    traits = traits_def(NoTerminator())

    FACTORS: ClassVar[tuple[str, ...]] = ("dst", "src", "wgt")

    def __init__(
        self,
        extent: int,
        dst_factor: int = 0,
        src_factor: int = 0,
        wgt_factor: int = 0,
        body: Region | Sequence[Operation] | None = None,
        attributes: dict[str, Attribute] | None = None,
    ) -> None:
        if body is None:
            body = Region(Block())
        elif not isinstance(body, Region):
            body = Region(Block(body))
        super().__init__(
            properties={
                "extent": int_prop(extent),
                "dst_factor": int_prop(dst_factor),
                "src_factor": int_prop(src_factor),
                "wgt_factor": int_prop(wgt_factor),
            },
            regions=[body],
            attributes=attributes or {},
        )

    def field(self, name: str) -> int:
        """``extent``, ``dst_factor``, ``src_factor`` or ``wgt_factor`` as an integer."""
        return prop_value(self, name)

    @property
    def is_kernel(self) -> bool:
        """True for the outermost loop of a micro-kernel."""
        return _kernel_root(self) is None

    def loops(self) -> list[UopLoopOp]:
        """The loop levels of this kernel from this loop inwards."""
        out: list[UopLoopOp] = [self]
        for op in self.body.block.ops:
            if isinstance(op, UopLoopOp):
                out += op.loops()
        return out

    def micro_ops(self) -> list[GemmOp | AluOp]:
        """The kernel's micro-op ops in program order, those inside list loops included (each
        once: :meth:`micro_op_sequence` enumerates the list they record)."""
        out: list[GemmOp | AluOp] = []
        for op in self.body.block.ops:
            if isinstance(op, GemmOp | AluOp):
                out.append(op)
            elif isinstance(op, UopLoopOp):
                out += op.micro_ops()
            elif isinstance(op, affine.ForOp):
                out += [o for o in op.walk() if isinstance(o, GemmOp | AluOp)]
        return out

    def list_loops(self) -> list[affine.ForOp]:
        """Every micro-op list loop of the kernel (``affine.for`` in its innermost body)."""
        return [o for o in self.walk() if isinstance(o, affine.ForOp)]

    def _tree(self) -> _ListTree:
        """The innermost body as a tree: micro-op numbers (in :meth:`micro_ops` order) and
        ``(lower bound, trip count, subtree)`` of list loops."""
        counter = iter(range(1 << 62))

        def build(block: Block) -> _ListTree:
            out: _ListTree = []
            for op in block.ops:
                if isinstance(op, GemmOp | AluOp):
                    out.append(next(counter))
                elif isinstance(op, UopLoopOp):
                    out += build(op.body.block)
                elif isinstance(op, affine.ForOp):
                    lb, ub = list_loop_bounds(op) or (0, 0)
                    out.append((lb, max(0, ub - lb), build(op.body.block)))
            return out

        return build(self.body.block)

    def micro_op_count(self) -> int:
        """The length of the kernel's micro-op list: each micro-op times the trip counts of
        its list loops."""

        def count(tree: _ListTree) -> int:
            return sum(1 if isinstance(e, int) else e[1] * count(e[2]) for e in tree)

        return count(self._tree())

    def micro_op_sequence(self) -> Iterator[tuple[int, tuple[int, ...]]]:
        """The kernel's micro-op list in push order: for each entry, the number of the micro-op
        (in :meth:`micro_ops` order) and the values of its list loops' induction variables
        (outermost first)."""

        def walk(tree: _ListTree,
                 ivals: tuple[int, ...]) -> Iterator[tuple[int, tuple[int, ...]]]:
            for e in tree:
                if isinstance(e, int):
                    yield e, ivals
                else:
                    lb, trip, sub = e
                    for v in range(lb, lb + trip):
                        yield from walk(sub, (*ivals, v))

        return walk(self._tree(), ())

    def verify_(self) -> None:
        extent = self.field("extent")
        if not 1 <= extent <= EXTENT_MAX:
            raise VerifyException(
                f"extent {extent} does not fit the {LOOP_ITER_WIDTH}-bit iteration field "
                f"(1..{EXTENT_MAX})"
            )
        for kind in self.FACTORS:
            if self.field(f"{kind}_factor") < 0:
                raise VerifyException(f"{kind}_factor {self.field(f'{kind}_factor')} is negative")
        nested = [op for op in self.body.block.ops if isinstance(op, UopLoopOp)]
        uops = [op for op in self.body.block.ops if isinstance(op, GemmOp | AluOp)]
        lists = [op for op in self.body.block.ops if isinstance(op, affine.ForOp)]
        for op in self.body.block.ops:
            if not isinstance(op, UopLoopOp | GemmOp | AluOp | affine.ForOp) \
                    and not is_index_op(op):
                raise VerifyException(
                    f"a vta.uop_loop body holds vta.gemm / vta.alu micro-ops, micro-op list "
                    f"loops (affine.for), one nested vta.uop_loop and index arithmetic, not "
                    f"{op.name}"
                )
        if nested and (uops or lists or len(nested) > 1):
            raise VerifyException(
                "a vta.uop_loop body holds either micro-ops or exactly one nested vta.uop_loop"
            )
        for lp in lists:
            _verify_list_loop(lp)
        if not nested and not uops and not any(
                isinstance(o, GemmOp | AluOp) for lp in lists for o in lp.walk()):
            raise VerifyException("a vta.uop_loop body needs at least one vta.gemm or vta.alu")
        if not self.is_kernel:
            if nested:
                raise VerifyException(
                    f"vta.uop_loop nests more than {MAX_UOP_LOOP_DEPTH} levels"
                )
            return
        _verify_kernel(self, get_config(self))

    @classmethod
    def parse(cls, parser: Parser) -> UopLoopOp:
        extent = parser.parse_integer(allow_boolean=False, context_msg=" (the loop extent)")
        factors = {"dst": 0, "src": 0, "wgt": 0}
        while (kind := parser.parse_optional_keyword_in(("dst", "src", "wgt"))) is not None:
            factors[kind] = parser.parse_integer(allow_boolean=False)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        return cls(
            extent,
            factors["dst"],
            factors["src"],
            factors["wgt"],
            region,
            attributes=attrs.data if attrs is not None else None,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.field('extent')}")
        for kind in self.FACTORS:
            value = self.field(f"{kind}_factor")
            if value:
                printer.print_string(f" {kind} {value}")
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


def _verify_list_loop(loop: affine.ForOp) -> None:
    """A micro-op list loop: constant bounds, step 1, at least one iteration, no carried
    values; its body holds micro-ops, nested list loops and index arithmetic."""
    trip = list_loop_trip(loop)
    if trip is None:
        raise VerifyException(
            "a micro-op list loop (affine.for in a vta.uop_loop) has constant bounds and step 1"
        )
    if trip < 1:
        raise VerifyException("a micro-op list loop (affine.for in a vta.uop_loop) runs at "
                              "least once")
    if loop.results:
        raise VerifyException("a micro-op list loop (affine.for in a vta.uop_loop) carries no "
                              "values")
    for op in loop.body.block.ops:
        if isinstance(op, affine.ForOp):
            _verify_list_loop(op)
        elif not isinstance(op, GemmOp | AluOp | affine.YieldOp) and not is_index_op(op):
            raise VerifyException(
                f"a micro-op list loop (affine.for in a vta.uop_loop) holds vta.gemm / vta.alu "
                f"micro-ops, nested list loops and index arithmetic, not {op.name}"
            )


def kernel_uops(op: GemmOp | AluOp | UopLoopOp) -> list[GemmOp | AluOp]:
    """The micro-op ops of a micro-kernel (a lone gemm/alu or an outermost uop_loop), each
    once, in program order."""
    return op.micro_ops() if isinstance(op, UopLoopOp) else [op]


@dataclass(frozen=True)
class AluKernel:
    """A micro-kernel whose micro-op list is one ALU micro-op: a ``vta.uop_loop`` nest holding a
    single ``vta.alu`` (no list loops), or a lone ``vta.alu`` outside any loop.  This is how
    ``vta-fold-uop-loops`` leaves each element-wise step of an epilogue, so it is what a pass
    rewriting the pipeline's ALU work matches (``docs/python-api.md``)."""

    #: The outermost ``vta.uop_loop`` (``None`` for a lone micro-op).
    loop: UopLoopOp | None
    #: The kernel's one micro-op.
    alu: AluOp

    @classmethod
    def of(cls, op: Operation | None) -> AluKernel | None:
        """The ALU kernel ``op`` is, if it is one (an op inside a kernel is not)."""
        if isinstance(op, AluOp):
            return cls(None, op) if _kernel_root(op) is None else None
        if not isinstance(op, UopLoopOp) or not op.is_kernel or op.list_loops():
            return None
        uops = op.micro_ops()
        if len(uops) != 1 or not isinstance(uops[0], AluOp):
            return None
        return cls(op, uops[0])

    @property
    def kind(self) -> AluKind:
        return self.alu.kind

    @property
    def imm(self) -> int | None:
        """The immediate operand, ``None`` for a tensor operand."""
        return self.alu.imm_value if self.alu.use_imm else None

    @property
    def dst(self) -> SSAValue:
        """The accumulator buffer written."""
        return self.alu.dst

    def position(self, which: str = "dst") -> tuple[SSAValue | None, int]:
        """(index value or ``None``, constant) of the micro-op's ``'dst'`` or ``'src'``."""
        return self.alu.position(which)

    def loop_nest(self) -> tuple[tuple[int, int, int, int], ...]:
        """``(extent, dst_factor, src_factor, wgt_factor)`` of each loop level, outermost
        first: two kernels with the same nest and position touch the same elements in the
        same order."""
        if self.loop is None:
            return ()
        return tuple(
            (lp.field("extent"), *(lp.field(f"{kind}_factor") for kind in UopLoopOp.FACTORS))
            for lp in self.loop.loops()
        )


def _verify_kernel(kernel: UopLoopOp, cfg: VTAConfig) -> None:
    uops = kernel.micro_ops()
    first = uops[0]
    if isinstance(first, GemmOp):
        for u in uops[1:]:
            if not isinstance(u, GemmOp):
                raise VerifyException(
                    "a micro-kernel holds one kind of micro-op: vta.gemm and vta.alu are mixed"
                )
            if u.is_reset != first.is_reset:
                raise VerifyException(
                    "all vta.gemm micro-ops of a kernel must agree on reset"
                )
        layout = cfg.gemm_fields
    else:
        for u in uops[1:]:
            if not isinstance(u, AluOp):
                raise VerifyException(
                    "a micro-kernel holds one kind of micro-op: vta.gemm and vta.alu are mixed"
                )
            if (u.kind, u.use_imm, u.imm_value) != (first.kind, first.use_imm, first.imm_value):
                raise VerifyException(
                    "all vta.alu micro-ops of a kernel must share the operation and the "
                    "immediate (or all use a source tensor)"
                )
        layout = cfg.alu_fields
    count = kernel.micro_op_count()
    if count > cfg.uop_buff_depth:
        raise VerifyException(
            f"the micro-kernel has {count} micro-ops, more than the UOP SRAM depth "
            f"{cfg.uop_buff_depth}"
        )
    loops = kernel.loops()
    for loop in loops:
        for kind in UopLoopOp.FACTORS:
            value = loop.field(f"{kind}_factor")
            if kind == "wgt" and isinstance(first, AluOp):
                if value:
                    raise VerifyException(
                        f"wgt_factor {value} is meaningless in an ALU kernel (must be 0)"
                    )
                continue
            check_field(value, layout[f"{kind}_factor_out"].width, f"{kind}_factor")
    # Per micro-op and operand: (kind, buffer, position, SRAM element count, uop-loop reach).
    operands: list[list[tuple[str, SSAValue, LinearPosition | None, Sram, int]]] = []
    for u in uops:
        row = []
        for kind, buf, index, offset, space in u.operand_positions():
            reach = sum((lp.field("extent") - 1) * lp.field(f"{kind}_factor") for lp in loops)
            row.append((kind, buf, linear_position(u, index, offset, kernel), space, reach))
        operands.append(row)
    counts: dict[tuple[SSAValue, Sram], int] = {}
    # (buffer, host-value part) and value of the destinations of the last two micro-ops
    window: list[tuple[tuple[SSAValue, frozenset[tuple[Hashable, int]]] | None, int]] = []
    for i, (k, ivals) in enumerate(kernel.micro_op_sequence()):
        for n, (kind, buf, pos, space, reach) in enumerate(operands[k]):
            if pos is None:
                if n == 0:
                    window.append((None, 0))
                continue
            at = pos.constant + sum(c * v for c, v in zip(pos.inner, ivals, strict=True))
            if n == 0:
                key = (buf, pos.outer)
                if any(prev_key == key and prev == at for prev_key, prev in window):
                    raise VerifyException(
                        f"write hazard: micro-op {i} writes the same accumulator element as one "
                        f"of the {WRITE_HAZARD_WINDOW} micro-ops before it"
                    )
                window.append((key, at))
            if pos.outer:
                continue
            size = counts.get((buf, space))
            if size is None:
                size = counts[(buf, space)] = check_sram_buffer(buf, space, cfg,
                                                                f"{kind} buffer")
            if at < 0:
                raise VerifyException(
                    f"the kernel reaches {space.value} element {at} (micro-op {i}, {kind}), "
                    f"before the start of the buffer"
                )
            if at + reach >= size:
                raise VerifyException(
                    f"the kernel reaches {space.value} element {at + reach} (micro-op {i}, "
                    f"{kind}) but the buffer holds {size}"
                )
        del window[:-WRITE_HAZARD_WINDOW]


# ---------------------------------------------------------------------------------------------
# Synchronisation: vta.dep_push, vta.dep_pop, vta.stage


def _verify_pair(src: Module, dst: Module) -> None:
    if src == dst:
        raise VerifyException(f"a dependency token goes between two modules, got {src} -> {dst}")
    if {src, dst} == {Module.LOAD, Module.STORE}:
        raise VerifyException(
            f"no dependency queue connects {src} and {dst} (only load <-> compute and "
            "compute <-> store)"
        )


class _DepOp(IRDLOperation):
    from_module = prop_def(ModuleAttr, prop_name="from")
    to_module = prop_def(ModuleAttr, prop_name="to")

    def __init__(
        self,
        src: Module | str,
        dst: Module | str,
        attributes: dict[str, Attribute] | None = None,
    ) -> None:
        super().__init__(
            properties={"from": ModuleAttr(Module(src)), "to": ModuleAttr(Module(dst))},
            attributes=attributes or {},
        )

    @property
    def src(self) -> Module:
        """The module that pushes the token."""
        return self.from_module.data

    @property
    def dst(self) -> Module:
        """The module that pops the token."""
        return self.to_module.data

    def verify_(self) -> None:
        _verify_pair(self.src, self.dst)

    @classmethod
    def parse(cls, parser: Parser) -> _DepOp:
        src = parser.parse_str_enum(Module)
        parser.parse_punctuation("->")
        dst = parser.parse_str_enum(Module)
        attrs = parser.parse_optional_attr_dict()
        return cls(src, dst, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.src.value} -> {self.dst.value}")
        print_attr_dict(printer, self)


@irdl_op_definition
class DepPushOp(_DepOp):
    """Send a token from module ``from`` to module ``to`` (``VTADepPush``, docs/isa.md §4.6); the
    push executes on ``from`` after its preceding commands::

        vta.dep_push load -> compute
    """

    name = "vta.dep_push"


@irdl_op_definition
class DepPopOp(_DepOp):
    """Wait on module ``to`` for a token from ``from`` (``VTADepPop``, docs/isa.md §4.6); the pop
    executes on ``to`` before its next command::

        vta.dep_pop load -> compute
    """

    name = "vta.dep_pop"


def module_of(op: Operation) -> Module | None:
    """The module executing a ``vta`` command, ``None`` for host ops and stages
    (a push executes on its ``from`` module, a pop on its ``to`` module)."""
    if isinstance(op, DmaCopyOp):
        return op.module
    if isinstance(op, GemmOp | AluOp | UopLoopOp):
        return Module.COMPUTE
    if isinstance(op, DepPushOp):
        return op.src
    if isinstance(op, DepPopOp):
        return op.dst
    return None


_STAGE_CONTENTS = {
    Module.LOAD: "DMA loads into inp/wgt",
    Module.COMPUTE: "gemm, alu, uop_loop and DMA loads into acc/uop",
    Module.STORE: "DMA stores",
}


@irdl_op_definition
class StageOp(IRDLOperation):
    """The commands one module executes (docs/isa.md §3.2), with any host code around them::

        vta.stage load {
          vta.dep_pop compute -> load
          vta.dma_copy %x[%i] -> %inp[0] y 1 x 16 stride 64 : ...
          vta.dep_push load -> compute
        }
    """

    name = "vta.stage"

    module = prop_def(ModuleAttr)
    body = region_def("single_block")

    traits = traits_def(NoTerminator())

    def __init__(
        self,
        module: Module | str,
        body: Region | Sequence[Operation] | None = None,
        attributes: dict[str, Attribute] | None = None,
    ) -> None:
        if body is None:
            body = Region(Block())
        elif not isinstance(body, Region):
            body = Region(Block(body))
        super().__init__(
            properties={"module": ModuleAttr(Module(module))},
            regions=[body],
            attributes=attributes or {},
        )

    @property
    def kind(self) -> Module:
        return self.module.data

    def _nested(self) -> Iterator[Operation]:
        for region in self.regions:
            yield from region.walk()

    def verify_(self) -> None:
        stage = self.kind
        for op in self._nested():
            if isinstance(op, StageOp):
                raise VerifyException("vta.stage scopes do not nest")
            if isinstance(op, DepPushOp) and op.src != stage:
                raise VerifyException(
                    f"vta.dep_push {op.src} -> {op.dst} executes on the {op.src} module, not "
                    f"in a {stage} stage"
                )
            if isinstance(op, DepPopOp) and op.dst != stage:
                raise VerifyException(
                    f"vta.dep_pop {op.src} -> {op.dst} executes on the {op.dst} module, not "
                    f"in a {stage} stage"
                )
            if isinstance(op, DmaCopyOp | GemmOp | AluOp | UopLoopOp):
                if isinstance(op, GemmOp | AluOp) and isinstance(op.parent_op(), UopLoopOp):
                    continue
                if module_of(op) != stage:
                    what = op.name
                    if isinstance(op, DmaCopyOp):
                        what = "DMA store" if op.is_store else \
                            f"DMA load into {sram_space(op.dst.type)}"
                    raise VerifyException(
                        f"a {stage} stage holds {_STAGE_CONTENTS[stage]}, not a {what} "
                        f"(executed by the {module_of(op)} module)"
                    )

    @classmethod
    def parse(cls, parser: Parser) -> StageOp:
        module = parser.parse_str_enum(Module)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        return cls(module, region, attributes=attrs.data if attrs is not None else None)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.value}")
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


VTA = Dialect(
    "vta",
    [DmaCopyOp, GemmOp, AluOp, UopLoopOp, DepPushOp, DepPopOp, StageOp],
    [SramAttr, ModuleAttr, AluKindAttr, VTAConfigAttr],
)
