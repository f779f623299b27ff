"""Fixes of xDSL's ``linalg`` dialect: hidden bodies of the named ops with MLIR's numeric
casts, ``linalg.matmul``'s ``indexing_maps`` syntax, MLIR's spacing of
``transpose``/``broadcast``/``reduce``, and ``linalg.transpose``'s permutation check."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    ArrayAttr,
    IndexType,
    IntegerType,
    ShapedType,
)
from xdsl.dialects.linalg import abstract_ops as linalg_abstract
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

__all__ = [
    "convert_scalar",
    "fix_elementwise_verifier",
    "fix_linalg_bodies",
    "fix_linalg_spacing",
    "fix_matmul_syntax",
    "fix_transpose_verifier",
    "matmul_default_indexing_maps",
]


# --------------------------------------------------------------------------------------------
# Scalar casts with MLIR's `cast_signed` semantics
# --------------------------------------------------------------------------------------------


def _is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def convert_scalar(value: SSAValue, to: Attribute) -> SSAValue:
    """Convert a scalar to type ``to`` as linalg's ``cast_signed`` does (sign-extend or truncate
    integers, ``sitofp``/``fptosi`` across kinds, ``extf``/``truncf`` between floats).

    The cast ops are created without an insertion point, so this must run inside an implicit
    builder (the hidden-region builders below are).
    """
    src = value.type
    if src == to:
        return value
    if isinstance(src, IndexType) or isinstance(to, IndexType):
        return arith.IndexCastOp(value, to).result
    if isinstance(src, IntegerType) and isinstance(to, IntegerType):
        if to.width.data > src.width.data:
            return arith.ExtSIOp(value, to).result
        return arith.TruncIOp(value, to).result
    if isinstance(src, IntegerType) and _is_float(to):
        return arith.SIToFPOp(value, cast(AnyFloat, to)).result
    if _is_float(src) and isinstance(to, IntegerType):
        return arith.FPToSIOp(value, to).result
    if isinstance(src, AnyFloat) and isinstance(to, AnyFloat):
        if to.bitwidth > src.bitwidth:
            return arith.ExtFOp(value, to).result
        return arith.TruncFOp(value, to).result
    raise ValueError(f"cannot convert a value of type {src} to {to}")


def _hidden_region(
    arg_types: Sequence[Attribute], build: Callable[[tuple[BlockArgument, ...]], SSAValue]
) -> Region:
    """A single-block region whose body is built by ``build`` and yields its result."""

    @Builder.implicit_region(arg_types)
    def region(args: tuple[BlockArgument, ...]) -> None:
        linalg.YieldOp(build(args))

    return region


def _add(lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    if _is_float(lhs.type):
        return arith.AddfOp(lhs, rhs).result
    return arith.AddiOp(lhs, rhs).result


def _sub(lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    if _is_float(lhs.type):
        return arith.SubfOp(lhs, rhs).result
    return arith.SubiOp(lhs, rhs).result


def _mul(lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    if _is_float(lhs.type):
        return arith.MulfOp(lhs, rhs).result
    return arith.MuliOp(lhs, rhs).result


def _max(lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    if _is_float(lhs.type):
        return arith.MaximumfOp(lhs, rhs).result
    return arith.MaxSIOp(lhs, rhs).result


# --------------------------------------------------------------------------------------------
# linalg: hidden bodies
# --------------------------------------------------------------------------------------------


def _element_types(values: Sequence[SSAValue]) -> list[Attribute]:
    return list(linalg_abstract.NamedOperation.body_arg_types(values))


def _contraction_region(
    cls: type, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]
) -> Region:
    """``acc + cast(a) * cast(b)``: the body of matmul and of every convolution."""
    types = _element_types((*inputs, *outputs))
    out = types[-1]

    def build(args: tuple[BlockArgument, ...]) -> SSAValue:
        product = _mul(convert_scalar(args[0], out), convert_scalar(args[1], out))
        return _add(args[-1], product)

    return _hidden_region(types, build)


def _quantized_matmul_region(
    cls: type, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]
) -> Region:
    """``acc + (cast(a) - cast(a_zp)) * (cast(b) - cast(b_zp))``."""
    types = _element_types((*inputs, *outputs))
    out = types[-1]

    def build(args: tuple[BlockArgument, ...]) -> SSAValue:
        a = _sub(convert_scalar(args[0], out), convert_scalar(args[2], out))
        b = _sub(convert_scalar(args[1], out), convert_scalar(args[3], out))
        return _add(args[4], _mul(a, b))

    return _hidden_region(types, build)


def _cast_copy_region(cls: type, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]) -> Region:
    """``cast(in)``: the body of fill and copy, which promote the value to the output type."""
    types = _element_types((*inputs, *outputs))
    return _hidden_region(types, lambda args: convert_scalar(args[0], types[-1]))


def _pooling_max_region(
    cls: type, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]
) -> Region:
    """``max(acc, cast(in))``; the second input only gives the window its shape."""
    types = _element_types((*inputs, *outputs))

    def build(args: tuple[BlockArgument, ...]) -> SSAValue:
        return _max(args[-1], convert_scalar(args[0], types[-1]))

    return _hidden_region(types, build)


def fix_linalg_bodies() -> None:
    linalg.MatmulOp.get_hidden_region = classmethod(_contraction_region)  # type: ignore[method-assign]
    linalg_abstract.ConvOperation.get_hidden_region = classmethod(  # type: ignore[method-assign]
        _contraction_region
    )
    linalg.QuantizedMatmulOp.get_hidden_region = classmethod(  # type: ignore[method-assign]
        _quantized_matmul_region
    )
    linalg.FillOp.get_hidden_region = classmethod(_cast_copy_region)  # type: ignore[method-assign]
    linalg.CopyOp.get_hidden_region = classmethod(_cast_copy_region)  # type: ignore[method-assign]
    linalg.PoolingNchwMaxOp.get_hidden_region = classmethod(  # type: ignore[method-assign]
        _pooling_max_region
    )


# --------------------------------------------------------------------------------------------
# linalg: syntax
# --------------------------------------------------------------------------------------------


def matmul_default_indexing_maps() -> ArrayAttr[AffineMapAttr]:
    """``[(m, n, k) -> (m, k), (m, n, k) -> (k, n), (m, n, k) -> (m, n)]``."""
    m, n, k = (AffineExpr.dimension(i) for i in range(3))
    return ArrayAttr(
        [AffineMapAttr(AffineMap(3, 0, results)) for results in ((m, k), (k, n), (m, n))]
    )


def fix_matmul_syntax() -> None:
    stock_parse = linalg_abstract.NamedOperation.parse.__func__  # type: ignore[attr-defined]
    stock_print = linalg_abstract.NamedOperation.print

    def parse(cls: type[linalg.MatmulOp], parser: Parser) -> linalg.MatmulOp:
        maps: Attribute | None = None
        if parser.parse_optional_keyword("indexing_maps") is not None:
            parser.parse_punctuation("=", " after 'indexing_maps'")
            pos = parser.pos
            maps = parser.parse_attribute()
            if not isinstance(maps, ArrayAttr) or not all(
                isinstance(m, AffineMapAttr) for m in cast(ArrayAttr[Attribute], maps).data
            ):
                parser.raise_error("expected an array of affine maps", pos, parser.pos)
        op = stock_parse(cls, parser)
        if maps is not None:
            op.indexing_maps = cast(ArrayAttr[AffineMapAttr], maps)
        return op

    def print_(self: linalg.MatmulOp, printer: Printer) -> None:
        if self.indexing_maps != matmul_default_indexing_maps():
            printer.print_string(" indexing_maps = ")
            printer.print_attribute(self.indexing_maps)
        stock_print(self, printer)

    linalg.MatmulOp.parse = classmethod(parse)  # type: ignore[method-assign, assignment]
    linalg.MatmulOp.print = print_  # type: ignore[method-assign]


def _print_ins_outs(printer: Printer, ins: SSAValue, outs: SSAValue) -> None:
    for keyword, value in (("ins", ins), ("outs", outs)):
        printer.print_string(f" {keyword}(")
        printer.print_ssa_value(value)
        printer.print_string(" : ")
        printer.print_attribute(value.type)
        printer.print_string(")")


def _print_int_list(printer: Printer, keyword: str, values: Sequence[int]) -> None:
    printer.print_string(f" {keyword} = [")
    printer.print_list(values, printer.print_int)
    printer.print_string("]")


def fix_linalg_spacing() -> None:
    def print_transpose(self: linalg.TransposeOp, printer: Printer) -> None:
        _print_ins_outs(printer, self.inputs[0], self.outputs[0])
        _print_int_list(printer, "permutation", self.permutation.get_values())

    def print_broadcast(self: linalg.BroadcastOp, printer: Printer) -> None:
        _print_ins_outs(printer, self.input, self.init)
        _print_int_list(printer, "dimensions", self.dimensions.get_values())

    def print_reduce(self: linalg.ReduceOp, printer: Printer) -> None:
        _print_ins_outs(printer, self.input, self.init)
        _print_int_list(printer, "dimensions", self.dimensions.get_values())
        printer.print_string(" (")
        printer.print_list(self.region.blocks[0].args, printer.print_block_argument)
        printer.print_string(") ")
        printer.print_region(self.region, print_entry_block_args=False)

    linalg.TransposeOp.print = print_transpose  # type: ignore[method-assign]
    linalg.BroadcastOp.print = print_broadcast  # type: ignore[method-assign]
    linalg.ReduceOp.print = print_reduce  # type: ignore[method-assign]


# --------------------------------------------------------------------------------------------
# linalg.transpose verification
# --------------------------------------------------------------------------------------------


def fix_transpose_verifier() -> None:
    stock = linalg.TransposeOp.verify_

    def verify_(self: linalg.TransposeOp) -> None:
        permutation = self.permutation.get_values()
        # MLIR's wording; the stock verifier would index the shapes with these values.
        if sorted(permutation) != list(range(len(permutation))):
            raise VerifyException(
                f"permutation [{', '.join(map(str, permutation))}] is not valid: it must list "
                f"each of 0..{len(permutation) - 1} once"
            )
        stock(self)

    linalg.TransposeOp.verify_ = verify_  # type: ignore[method-assign]


def _check_shaped_operands(op: Operation) -> None:
    # The ops' indexing maps are identities over the operands' shapes, which the stock
    # verifier builds by asserting that every operand is shaped.
    for index, operand in enumerate(op.operands):
        if not isinstance(operand.type, ShapedType):
            hint = " (linalg.fill sets a buffer to a scalar)" if op.name == "linalg.copy" else ""
            raise VerifyException(
                f"operand #{index} has type {operand.type}, but every operand must be a memref "
                f"or a tensor{hint}"
            )


def fix_elementwise_verifier() -> None:
    # irdl_op_definition gives every op class a verify_ of its own, so each one is patched.
    op_classes = [
        cls
        for cls in vars(linalg).values()
        if isinstance(cls, type)
        and issubclass(cls, linalg_abstract.ElementwiseOperation)
        and cls is not linalg_abstract.ElementwiseOperation
    ]
    for cls in op_classes:
        stock = cls.verify_

        def verify_(
            self: linalg_abstract.ElementwiseOperation, stock: Callable[[Operation], None] = stock
        ) -> None:
            _check_shaped_operands(self)
            stock(self)

        cls.verify_ = verify_  # type: ignore[method-assign]
