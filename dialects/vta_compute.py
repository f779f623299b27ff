"""The micro-ops of the ``vta`` dialect (:mod:`vta_mlir.dialects.vta`): ``vta.gemm``,
``vta.gemm_reset`` and ``vta.alu``, each one ``VTAUopPush`` of TVM's VTA runtime
(``docs/isa.md`` §2.7, §3.6–§3.7, §4.4).  Micro-ops outside a ``vta.uop_loop`` are
micro-kernels of their own; the kernels themselves are in :mod:`vta_mlir.dialects.vta_kernels`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, IndexType, IntegerAttr, MemRefType, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from vta_mlir.config import ALU_IMM_WIDTH

from .directives import BufferPosition
from .vta_attrs import IMM_MAX, IMM_MIN, AluKind, AluKindAttr
from .vta_config_attr import get_config
from .vta_positions import (
    OperandPosition,
    Position,
    Sram,
    check_sram_buffer,
    check_static_in,
    int_prop,
    parse_position,
    print_attr_dict,
    print_position,
    prop_value,
    resolve_index,
    split_position,
    static_position,
)

__all__ = ["AluOp", "GemmOp", "GemmResetOp", "MicroOp"]


@irdl_op_definition
class GemmOp(IRDLOperation):
    """One GEMM micro-op (docs/isa.md §2.7, §3.6): ``acc[d] += inp[s] · wgt[w]ᵀ`` on tensor
    elements::

        vta.gemm %acc[%o] += %inp[0] * %wgt[%o + 16]
            : memref<16x1x16xi32, #vta.sram<acc>>, memref<16x1x16xi8, #vta.sram<inp>>,
              memref<256x16x16xi8, #vta.sram<wgt>>
    """

    name = "vta.gemm"

    acc = operand_def(MemRefType)
    acc_index = opt_operand_def(IndexType)
    inp = operand_def(MemRefType)
    inp_index = opt_operand_def(IndexType)
    wgt = operand_def(MemRefType)
    wgt_index = opt_operand_def(IndexType)

    acc_offset = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    inp_offset = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    wgt_offset = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    # The empty literal glues ``+`` and ``=`` into ``+=``.
    assembly_format = (
        "$acc custom<BufferPosition>($acc_index, $acc_offset) `+` `` `=` "
        "$inp custom<BufferPosition>($inp_index, $inp_offset) `*` "
        "$wgt custom<BufferPosition>($wgt_index, $wgt_offset) "
        "attr-dict `:` type($acc) `,` type($inp) `,` type($wgt)"
    )
    custom_directives = (BufferPosition,)

    def __init__(
        self,
        acc: SSAValue | Operation,
        acc_pos: Position,
        inp: SSAValue | Operation,
        inp_pos: Position,
        wgt: SSAValue | Operation,
        wgt_pos: Position,
        *,
        attributes: dict[str, Attribute] | None = None,
    ) -> None:
        acc_v, acc_off = split_position(acc_pos)
        inp_v, inp_off = split_position(inp_pos)
        wgt_v, wgt_off = split_position(wgt_pos)
        super().__init__(
            operands=[
                acc,
                [acc_v] if acc_v is not None else [],
                inp,
                [inp_v] if inp_v is not None else [],
                wgt,
                [wgt_v] if wgt_v is not None else [],
            ],
            properties={
                "acc_offset": int_prop(acc_off),
                "inp_offset": int_prop(inp_off),
                "wgt_offset": int_prop(wgt_off),
            },
            attributes=attributes or {},
        )

    def position(self, which: str) -> tuple[SSAValue | None, int]:
        """(index value or ``None``, constant) of ``'acc'``, ``'inp'`` or ``'wgt'``."""
        return getattr(self, f"{which}_index"), prop_value(self, f"{which}_offset")

    def operand_positions(self) -> list[OperandPosition]:
        """``(kind, buffer, index, constant, sram)`` of each addressed operand; kind is the uop
        field it feeds (``dst``, ``src``, ``wgt``)."""
        return [
            ("dst", self.acc, *self.position("acc"), Sram.ACC),
            ("src", self.inp, *self.position("inp"), Sram.INP),
            ("wgt", self.wgt, *self.position("wgt"), Sram.WGT),
        ]

    def verify_(self) -> None:
        cfg = get_config(self)
        for name, space, what in (
            ("acc", Sram.ACC, "accumulator"), ("inp", Sram.INP, "inp"), ("wgt", Sram.WGT, "wgt")
        ):
            count = check_sram_buffer(getattr(self, name), space, cfg, f"gemm {what}")
            check_static_in(static_position(*self.position(name)), count, what)


@irdl_op_definition
class GemmResetOp(IRDLOperation):
    """One reset micro-op: a GEMM instruction with its reset flag (docs/isa.md §2.7, §3.6),
    ``acc[d] = 0``::

        vta.gemm_reset %acc[%o] : memref<16x1x16xi32, #vta.sram<acc>>
    """

    name = "vta.gemm_reset"

    acc = operand_def(MemRefType)
    acc_index = opt_operand_def(IndexType)

    acc_offset = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))

    assembly_format = (
        "$acc custom<BufferPosition>($acc_index, $acc_offset) attr-dict `:` type($acc)"
    )
    custom_directives = (BufferPosition,)

    def __init__(
        self,
        acc: SSAValue | Operation,
        acc_pos: Position = None,
        *,
        attributes: dict[str, Attribute] | None = None,
    ) -> None:
        acc_v, acc_off = split_position(acc_pos)
        super().__init__(
            operands=[acc, [acc_v] if acc_v is not None else []],
            properties={"acc_offset": int_prop(acc_off)},
            attributes=attributes or {},
        )

    def position(self, which: str) -> tuple[SSAValue | None, int]:
        """(index value or ``None``, constant) of ``'acc'``."""
        assert which == "acc", which
        return self.acc_index, prop_value(self, "acc_offset")

    def operand_positions(self) -> list[OperandPosition]:
        """``(kind, buffer, index, constant, sram)`` of the accumulator, the ``dst`` field."""
        return [("dst", self.acc, *self.position("acc"), Sram.ACC)]

    def verify_(self) -> None:
        count = check_sram_buffer(self.acc, Sram.ACC, get_config(self), "gemm accumulator")
        check_static_in(static_position(*self.position("acc")), count, "accumulator")


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


#: Every micro-op, the contents of a micro-kernel.
MicroOp = GemmOp | GemmResetOp | AluOp
