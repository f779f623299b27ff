"""Fixes of xDSL's ``affine`` dialect: access maps whose SSA ids are dims (``symbol(%x)`` marks
a symbol), as in MLIR, and MLIR's custom syntax of ``affine.if``."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import affine
from xdsl.dialects.builtin import AffineMapAttr, AffineSetAttr, IndexType
from xdsl.ir import Attribute, Region, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.parser.affine_parser import AffineParser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator
from xdsl.utils.mlir_lexer import MLIRTokenKind

from vta_mlir.ir.upstream_fixes.memref import parse_memref_type

__all__ = [
    "fix_affine_if_syntax",
    "fix_affine_syntax",
    "parse_affine_map_of_ssa_ids",
    "print_affine_expr_of_ssa_ids",
]


def parse_affine_map_of_ssa_ids(parser: Parser) -> tuple[AffineMap, list[SSAValue]]:
    """Parse ``[expr, ...]`` over SSA ids: a bare ``%x`` is a dimension, ``symbol(%x)`` a
    symbol.  Returns the map and its operands (dims first, then symbols)."""
    dims: dict[str, int] = {}
    syms: dict[str, int] = {}
    dim_ops: list[UnresolvedOperand] = []
    sym_ops: list[UnresolvedOperand] = []
    affine_parser = AffineParser(parser._parser_state)  # pyright: ignore[reportPrivateUsage]

    def ssa_id(table: dict[str, int], operands: list[UnresolvedOperand]) -> int:
        operand = parser.parse_unresolved_operand("SSA value expected in affine expression")
        key = operand.span.text
        if key not in table:
            table[key] = len(table)
            operands.append(operand)
        return table[key]

    def parse_optional_id() -> AffineExpr | None:
        token = affine_parser._current_token  # pyright: ignore[reportPrivateUsage]
        if token.kind == MLIRTokenKind.PERCENT_IDENT:
            return AffineExpr.dimension(ssa_id(dims, dim_ops))
        if token.kind == MLIRTokenKind.BARE_IDENT and token.text == "symbol":
            parser.parse_keyword("symbol")
            parser.parse_punctuation("(")
            index = ssa_id(syms, sym_ops)
            parser.parse_punctuation(")")
            return AffineExpr.symbol(index)
        return None

    exprs = parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE,
        lambda: affine_parser._parse_affine_expr(parse_optional_id),  # pyright: ignore[reportPrivateUsage]
    )
    operands = [parser.resolve_operand(o, IndexType()) for o in (*dim_ops, *sym_ops)]
    return AffineMap(len(dims), len(syms), tuple(exprs)), operands


_PRECEDENCE = {
    AffineBinaryOpKind.Add: 10,
    AffineBinaryOpKind.Mul: 20,
    AffineBinaryOpKind.Mod: 20,
    AffineBinaryOpKind.FloorDiv: 20,
    AffineBinaryOpKind.CeilDiv: 20,
}


def _negated_term(expr: AffineExpr) -> AffineExpr | None:
    """``x`` when ``expr`` is ``x * -1``, ``x * c`` when it is ``x * -c``, ``c`` for ``-c``;
    lets ``a + b * -1`` print as MLIR's ``a - b``."""
    if isinstance(expr, AffineConstantExpr) and expr.value < 0:
        return AffineExpr.constant(-expr.value)
    if (
        isinstance(expr, AffineBinaryOpExpr)
        and expr.kind == AffineBinaryOpKind.Mul
        and isinstance(expr.rhs, AffineConstantExpr)
        and expr.rhs.value < 0
    ):
        if expr.rhs.value == -1:
            return expr.lhs
        return AffineBinaryOpExpr(
            AffineBinaryOpKind.Mul, expr.lhs, AffineExpr.constant(-expr.rhs.value)
        )
    return None


def print_affine_expr_of_ssa_ids(
    printer: Printer,
    expr: AffineExpr,
    operands: Sequence[SSAValue],
    num_dims: int,
    min_precedence: int = 0,
) -> None:
    """Print ``expr`` with ``%x`` for dims and ``symbol(%x)`` for symbols, MLIR-style."""
    match expr:
        case AffineConstantExpr(value=value):
            printer.print_string(str(value))
        case AffineDimExpr(position=position):
            printer.print_ssa_value(operands[position])
        case AffineSymExpr(position=position):
            printer.print_string("symbol(")
            printer.print_ssa_value(operands[num_dims + position])
            printer.print_string(")")
        case AffineBinaryOpExpr(kind=kind, lhs=lhs, rhs=rhs):
            precedence = _PRECEDENCE[kind]
            parens = precedence < min_precedence
            if parens:
                printer.print_string("(")
            print_affine_expr_of_ssa_ids(printer, lhs, operands, num_dims, precedence)
            token = kind.get_token()
            if kind == AffineBinaryOpKind.Add and (negated := _negated_term(rhs)) is not None:
                token, rhs = "-", negated
            printer.print_string(f" {token} ")
            print_affine_expr_of_ssa_ids(printer, rhs, operands, num_dims, precedence + 1)
            if parens:
                printer.print_string(")")
        case _:
            raise ValueError(f"unexpected affine expression {expr}")


def _print_access(
    printer: Printer, memref_value: SSAValue, amap: AffineMap, indices: Sequence[SSAValue]
) -> None:
    printer.print_ssa_value(memref_value)
    printer.print_string("[")
    printer.print_list(
        amap.results,
        lambda e: print_affine_expr_of_ssa_ids(printer, e, indices, amap.num_dims),
    )
    printer.print_string("]")


def fix_affine_syntax() -> None:
    def parse_load(cls: type[affine.LoadOp], parser: Parser) -> affine.LoadOp:
        unresolved = parser.parse_unresolved_operand()
        amap, indices = parse_affine_map_of_ssa_ids(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        memref_type = parse_memref_type(parser)
        source = parser.resolve_operand(unresolved, memref_type)
        op = cls(source, indices, AffineMapAttr(amap), memref_type.get_element_type())
        op.attributes.update(attrs)
        return op

    def print_load(self: affine.LoadOp, printer: Printer) -> None:
        printer.print_string(" ")
        _print_access(printer, self.memref, self.map.data, self.indices)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.memref.type)

    def parse_store(cls: type[affine.StoreOp], parser: Parser) -> affine.StoreOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        unresolved = parser.parse_unresolved_operand()
        amap, indices = parse_affine_map_of_ssa_ids(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        memref_type = parse_memref_type(parser)
        target = parser.resolve_operand(unresolved, memref_type)
        stored = parser.resolve_operand(value, memref_type.get_element_type())
        op = cls(stored, target, indices, AffineMapAttr(amap))
        op.attributes.update(attrs)
        return op

    def print_store(self: affine.StoreOp, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.value)
        printer.print_string(", ")
        _print_access(printer, self.memref, self.map.data, self.indices)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.memref.type)

    def parse_vector_load(cls: type[affine.VectorLoadOp], parser: Parser) -> affine.VectorLoadOp:
        unresolved = parser.parse_unresolved_operand()
        amap, indices = parse_affine_map_of_ssa_ids(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        memref_type = parse_memref_type(parser)
        parser.parse_punctuation(",")
        result_type = parser.parse_type()
        source = parser.resolve_operand(unresolved, memref_type)
        op = cls.build(
            operands=[source, indices],
            result_types=[result_type],
            properties={"map": AffineMapAttr(amap)},
            attributes=attrs,
        )
        return op

    def print_vector_load(self: affine.VectorLoadOp, printer: Printer) -> None:
        printer.print_string(" ")
        _print_access(printer, self.memref, self.map.data, self.indices)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.memref.type)
        printer.print_string(", ")
        printer.print_attribute(self.result.type)

    def parse_vector_store(cls: type[affine.VectorStoreOp], parser: Parser) -> affine.VectorStoreOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        unresolved = parser.parse_unresolved_operand()
        amap, indices = parse_affine_map_of_ssa_ids(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        memref_type = parse_memref_type(parser)
        parser.parse_punctuation(",")
        value_type = parser.parse_type()
        op = cls.build(
            operands=[
                parser.resolve_operand(value, value_type),
                parser.resolve_operand(unresolved, memref_type),
                indices,
            ],
            properties={"map": AffineMapAttr(amap)},
            attributes=attrs,
        )
        return op

    def print_vector_store(self: affine.VectorStoreOp, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.value)
        printer.print_string(", ")
        _print_access(printer, self.memref, self.map.data, self.indices)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.memref.type)
        printer.print_string(", ")
        printer.print_attribute(self.value.type)

    affine.LoadOp.parse = classmethod(parse_load)  # type: ignore[method-assign, assignment]
    affine.LoadOp.print = print_load  # type: ignore[method-assign]
    affine.StoreOp.parse = classmethod(parse_store)  # type: ignore[method-assign, assignment]
    affine.StoreOp.print = print_store  # type: ignore[method-assign]
    affine.VectorLoadOp.parse = classmethod(parse_vector_load)  # type: ignore[method-assign, assignment]
    affine.VectorLoadOp.print = print_vector_load  # type: ignore[method-assign]
    affine.VectorStoreOp.parse = classmethod(parse_vector_store)  # type: ignore[method-assign, assignment]
    affine.VectorStoreOp.print = print_vector_store  # type: ignore[method-assign]


def _with_terminator(region: Region) -> Region:
    """Add the implicit ``affine.yield`` MLIR lets ``affine.if`` bodies without results omit."""
    for block in region.blocks:
        last = block.last_op
        if last is None or not last.has_trait(IsTerminator):
            block.add_op(affine.YieldOp.get())
    return region


def fix_affine_if_syntax() -> None:
    # %r = affine.if #set(%dims)[%syms] (-> types)? {then} (else {else})? attr-dict
    def parse_if(cls: type[affine.IfOp], parser: Parser) -> affine.IfOp:
        pos = parser.pos
        condition = parser.parse_attribute()
        if not isinstance(condition, AffineSetAttr):
            parser.raise_error("expected an integer set (affine_set<...>)", pos, parser.pos)

        def operand() -> SSAValue:
            return parser.parse_operand(IndexType())

        dims = parser.parse_optional_comma_separated_list(parser.Delimiter.PAREN, operand)
        syms = parser.parse_optional_comma_separated_list(parser.Delimiter.SQUARE, operand)
        dims, syms = dims or [], syms or []
        cond = condition.data
        if len(dims) != cond.num_dims or len(syms) != cond.num_symbols:
            parser.raise_error(
                f"the integer set takes {cond.num_dims} dim(s) and {cond.num_symbols} "
                f"symbol(s), got {len(dims)} and {len(syms)}",
                pos,
                parser.pos,
            )
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            listed = parser.parse_optional_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_type
            )
            result_types = list(listed) if listed is not None else [parser.parse_type()]
        then_region = _with_terminator(parser.parse_region())
        else_region = Region()
        if parser.parse_optional_keyword("else") is not None:
            else_region = _with_terminator(parser.parse_region())
        attrs = parser.parse_optional_attr_dict()
        return cls.build(
            operands=[[*dims, *syms]],
            result_types=[result_types],
            properties={"condition": condition},
            attributes=attrs,
            regions=[then_region, else_region],
        )

    def print_if(self: affine.IfOp, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.condition)
        cond = self.condition.data
        args = list(self.args)
        printer.print_string("(")
        printer.print_list(args[: cond.num_dims], printer.print_operand)
        printer.print_string(")")
        if cond.num_symbols:
            printer.print_string("[")
            printer.print_list(args[cond.num_dims :], printer.print_operand)
            printer.print_string("]")
        if self.res:
            printer.print_string(" -> (")
            printer.print_list(self.result_types, printer.print_attribute)
            printer.print_string(")")
        yields = bool(self.res)
        printer.print_string(" ")
        printer.print_region(
            self.then_region, print_entry_block_args=False, print_block_terminators=yields
        )
        if self.else_region.blocks:
            printer.print_string(" else ")
            printer.print_region(
                self.else_region, print_entry_block_args=False, print_block_terminators=yields
            )
        printer.print_op_attributes(self.attributes)

    affine.IfOp.parse = classmethod(parse_if)  # type: ignore[method-assign, assignment]
    affine.IfOp.print = print_if  # type: ignore[method-assign]
