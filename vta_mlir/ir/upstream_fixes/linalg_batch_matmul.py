"""``linalg.batch_matmul`` and ``linalg.quantized_batch_matmul``, which xDSL 0.74's linalg
dialect lacks: a batch of matrix products, as MLIR defines them —

    out[b, m, n] += cast(a[b, m, k]) * cast(w[b, k, n])
    out[b, m, n] += (cast(a[b, m, k]) - cast(a_zp)) * (cast(w[b, k, n]) - cast(w_zp))

over ``k``, every term cast to the output element type.  Their syntax is that of
``linalg.matmul``; ``linalg.batch_matmul`` takes MLIR's optional ``indexing_maps = [...]``
prefix too, with which a right operand of rank 2 is broadcast over the batch
(``(b, m, n, k) -> (k, n)``) or read transposed::

    linalg.batch_matmul ins(%q, %k : memref<2x32x16xi8>, memref<2x16x32xi8>)
                        outs(%acc : memref<2x32x32xi32>)
    linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                                         affine_map<(b, m, n, k) -> (k, n)>,
                                         affine_map<(b, m, n, k) -> (b, m, n)>]
                        ins(%x, %w : memref<2x32x64xi8>, memref<64x16xi8>)
                        outs(%acc : memref<2x32x16xi32>)
    linalg.quantized_batch_matmul ins(%a, %w, %a_zp, %w_zp : memref<2x4x8xi8>,
                                      memref<2x8x4xi8>, i32, i32) outs(%acc : memref<2x4x4xi32>)

The ops are added to xDSL's ``linalg`` dialect with their indexing maps and hidden bodies, so
they parse, print and verify like ``linalg.matmul``, and passes and the reference evaluator read
their maps and bodies like any structured op's.  The verifier requires static shapes and
operand shapes that agree along every loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, cast

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects import linalg as linalg_dialect
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    IntegerType,
    ShapedType,
)
from xdsl.dialects.linalg import abstract_ops as linalg_abstract
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Attribute, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.irdl import irdl_op_definition, prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from vta_mlir.ir.upstream_fixes.linalg import convert_scalar
from vta_mlir.ir.upstream_fixes.linalg_quantized_conv import check_static_shapes, element_type

__all__ = [
    "LINALG_BATCH_MATMUL_OPS",
    "BatchMatmulOp",
    "QuantizedBatchMatmulOp",
    "add_batch_matmul_ops",
    "batch_matmul_default_indexing_maps",
]


def batch_matmul_default_indexing_maps() -> ArrayAttr[AffineMapAttr]:
    """``[(b, m, n, k) -> (b, m, k), (b, m, n, k) -> (b, k, n), (b, m, n, k) -> (b, m, n)]``."""
    b, m, n, k = (AffineExpr.dimension(i) for i in range(4))
    return ArrayAttr([AffineMapAttr(AffineMap(4, 0, results))
                      for results in ((b, m, k), (b, k, n), (b, m, n))])


def _iterators() -> ArrayAttr[IteratorTypeAttr]:
    par, red = IteratorTypeAttr.parallel(), IteratorTypeAttr.reduction()
    return ArrayAttr([par, par, par, red])


def _is_float(t: Attribute) -> bool:
    return not isinstance(t, IntegerType)


def _product_body(types: Sequence[Attribute], zero_points: bool) -> Region:
    """``acc + cast(a) · cast(w)``, or with the zero points subtracted first."""

    @Builder.implicit_region(list(types))
    def region(args: tuple[BlockArgument, ...]) -> None:
        out = types[-1]
        a, w = convert_scalar(args[0], out), convert_scalar(args[1], out)
        if zero_points and len(args) == 5 and not _is_float(out):
            a = arith.SubiOp(a, convert_scalar(args[2], out)).result
            w = arith.SubiOp(w, convert_scalar(args[3], out)).result
        if _is_float(out):
            linalg.YieldOp(arith.AddfOp(args[-1], arith.MulfOp(a, w)))
        else:
            linalg.YieldOp(arith.AddiOp(args[-1], arith.MuliOp(a, w)))

    return region


def _check_loop_sizes(op: Operation, maps: Sequence[AffineMap]) -> None:
    """Every operand has its map's rank, and the operands agree on the size of each loop."""
    sizes: dict[int, int] = {}
    shaped = [(v, m) for v, m in zip(op.operands, maps, strict=True)
              if isinstance(v.type, ShapedType)]
    for index, (value, m) in enumerate(shaped):
        shape = cast(ShapedType, value.type).get_shape()
        if len(shape) != len(m.results):
            raise VerifyException(f"operand #{index} has rank {len(shape)}, but its indexing "
                                  f"map {m} has {len(m.results)} results")
        for expr, size in zip(m.results, shape, strict=True):
            if not isinstance(expr, type(AffineExpr.dimension(0))):
                raise VerifyException(f"indexing map {m} is not a projection of the loops")
            position = expr.position  # type: ignore[attr-defined]
            if sizes.setdefault(position, size) != size:
                raise VerifyException(f"operand #{index} has size {size} along loop d{position}, "
                                      f"other operands {sizes[position]}")


@irdl_op_definition
class BatchMatmulOp(linalg_abstract.NamedOperation):
    """A batch of matrix products (MLIR's ``linalg.batch_matmul``)."""

    name = "linalg.batch_matmul"

    PRINT_ATTRS_IN_FRONT: ClassVar[bool] = True

    indexing_maps = prop_def(ArrayAttr[AffineMapAttr],
                             default_value=batch_matmul_default_indexing_maps())

    def __init__(self, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue] = (),
                 res: Sequence[Attribute] | None = None,
                 attributes: dict[str, Attribute] | None = None) -> None:
        super().__init__(ins=inputs, outs=outputs, result_types=res or (),
                         attributes=attributes,
                         hidden_region=self.get_hidden_region(inputs, outputs))

    @classmethod
    def get_hidden_region(cls, inputs: Sequence[SSAValue],
                          outputs: Sequence[SSAValue]) -> Region:
        return _product_body([element_type(v) for v in (*inputs, *outputs)], False)

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        return tuple(m.data for m in self.indexing_maps.data)

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        return self.indexing_maps

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return _iterators()

    @classmethod
    def parse(cls, parser: Parser) -> BatchMatmulOp:
        maps: Attribute | None = None
        if parser.parse_optional_keyword("indexing_maps") is not None:
            parser.parse_punctuation("=", " after 'indexing_maps'")
            pos = parser.pos
            maps = parser.parse_attribute()
            if not isinstance(maps, ArrayAttr) or not all(
                    isinstance(m, AffineMapAttr) for m in cast(ArrayAttr[Attribute], maps).data):
                parser.raise_error("expected an array of affine maps", pos, parser.pos)
        op = cast(BatchMatmulOp, super().parse(parser))
        if maps is not None:
            op.indexing_maps = cast(ArrayAttr[AffineMapAttr], maps)
        return op

    def print(self, printer: Printer) -> None:
        if self.indexing_maps != batch_matmul_default_indexing_maps():
            printer.print_string(" indexing_maps = ")
            printer.print_attribute(self.indexing_maps)
        super().print(printer)

    def verify_(self) -> None:
        if len(self.inputs) != 2 or len(self.outputs) != 1:
            raise VerifyException(f"expected 2 inputs and 1 output, got {len(self.inputs)} and "
                                  f"{len(self.outputs)}")
        maps = [m.data for m in self.indexing_maps.data]
        if len(maps) != 3 or any(m.num_dims != 4 or m.num_symbols for m in maps):
            raise VerifyException("expected 3 indexing maps of the loops (b, m, n, k)")
        check_static_shapes(self)
        _check_loop_sizes(self, maps)


@irdl_op_definition
class QuantizedBatchMatmulOp(linalg_abstract.NamedOperation):
    """A batch of matrix products with zero points (MLIR's ``linalg.quantized_batch_matmul``)."""

    name = "linalg.quantized_batch_matmul"

    PRINT_ATTRS_IN_FRONT: ClassVar[bool] = True

    def __init__(self, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue] = (),
                 res: Sequence[Attribute] | None = None,
                 attributes: dict[str, Attribute] | None = None) -> None:
        super().__init__(ins=inputs, outs=outputs, result_types=res or (),
                         attributes=attributes,
                         hidden_region=self.get_hidden_region(inputs, outputs))

    @classmethod
    def get_hidden_region(cls, inputs: Sequence[SSAValue],
                          outputs: Sequence[SSAValue]) -> Region:
        return _product_body([element_type(v) for v in (*inputs, *outputs)], True)

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        b, m, n, k = (AffineExpr.dimension(i) for i in range(4))
        return (AffineMap(4, 0, (b, m, k)), AffineMap(4, 0, (b, k, n)), AffineMap(4, 0, ()),
                AffineMap(4, 0, ()), AffineMap(4, 0, (b, m, n)))

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        return ArrayAttr([AffineMapAttr(m) for m in self.get_default_indexing_maps()])

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return _iterators()

    def verify_(self) -> None:
        if len(self.inputs) != 4 or len(self.outputs) != 1:
            raise VerifyException("expected 4 inputs (lhs, rhs, lhs zero point, rhs zero "
                                  f"point) and 1 output, got {len(self.inputs)} and "
                                  f"{len(self.outputs)}")
        for index, operand in enumerate(self.operands):
            if not isinstance(element_type(operand), IntegerType):
                raise VerifyException(f"operand #{index} must have integer elements, got "
                                      f"{operand.type}")
        for index in (2, 3):
            if isinstance(self.operands[index].type, ShapedType):
                raise VerifyException(f"operand #{index} (a zero point) must be a scalar, "
                                      f"got {self.operands[index].type}")
        check_static_shapes(self)
        _check_loop_sizes(self, self.get_default_indexing_maps())


#: The ops this module adds to xDSL's ``linalg`` dialect.
LINALG_BATCH_MATMUL_OPS: tuple[type[Operation], ...] = (BatchMatmulOp, QuantizedBatchMatmulOp)


def add_batch_matmul_ops() -> None:
    """Add :data:`LINALG_BATCH_MATMUL_OPS` to xDSL's ``linalg`` dialect (before any context
    loads it)."""
    operations = linalg_dialect.Linalg._operations  # pyright: ignore[reportPrivateUsage]
    for op in LINALG_BATCH_MATMUL_OPS:
        if op not in operations:
            operations.append(op)
