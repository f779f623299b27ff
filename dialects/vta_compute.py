"""The micro-ops of the ``vta`` dialect (:mod:`vta_mlir.dialects.vta`): ``vta.gemm`` and
``vta.alu``, each one ``VTAUopPush`` of TVM's VTA runtime (``docs/isa.md`` §2.7, §3.6–§3.7,
§4.4).  Micro-ops outside a ``vta.uop_loop`` are micro-kernels of their own; the kernels
themselves are in :mod:`vta_mlir.dialects.vta_kernels`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, IndexType, IntegerAttr, MemRefType, UnitAttr, i64
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
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from vta_mlir.config import ALU_IMM_WIDTH

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

__all__ = ["AluOp", "GemmOp"]


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
