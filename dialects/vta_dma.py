"""``vta.dma_copy``: a 2-D strided copy between DRAM and SRAM (``docs/isa.md`` §2.3,
§3.3–§3.5, §4.7), one ``VTALoadBuffer2D`` / ``VTAStoreBuffer2D`` call of TVM's VTA runtime.
Part of the ``vta`` dialect (:mod:`vta_mlir.dialects.vta`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar, cast

from xdsl.dialects.builtin import I64, IndexType, IntegerAttr, IntegerType, MemRefType, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from vta_mlir.isa import MemType

from .vta_attrs import Module
from .vta_config_attr import get_config
from .vta_positions import (
    Position,
    Sram,
    check_field,
    check_sram_buffer,
    int_prop,
    integer_type,
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

__all__ = ["DmaCopyOp"]


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
            acc_type = integer_type(get_config(self).acc_width)
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
            dram_elem = integer_type(cfg.out_width)
            dram_lanes = cfg.batch * cfg.block_out
            dram_what = "store destination"
            footprint = y * x
            sram_val, sram_off = self.src_index, self.field("src_offset")
        else:
            space = cast(Sram, dst_space)
            sram_count = check_sram_buffer(self.dst, space, cfg, "load destination")
            src_t = cast(MemRefType, self.src.type)
            if space == Sram.ACC:
                accepted = (integer_type(cfg.acc_width), integer_type(cfg.inp_width))
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
