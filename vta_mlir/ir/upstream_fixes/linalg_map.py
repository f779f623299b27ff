"""``linalg.map``, which xDSL 0.74's linalg dialect lacks: an element-wise op over inputs of the
shape of its init, as MLIR defines it — ``init[i] = body(in0[i], ..., init[i])``.  The body
takes one argument per input and one for the init element (MLIR's current form; torch-mlir
prints it) and yields the new element.  Both syntaxes of MLIR parse; the short one prints when
the body is one op applied to the input elements in order, as MLIR does::

    %r = linalg.map { arith.addi } ins(%a, %b : tensor<4xi32>, tensor<4xi32>)
                                   outs(%init : tensor<4xi32>)
    %s = linalg.map ins(%a : tensor<4xi32>) outs(%init : tensor<4xi32>)
      (%in: i32, %out: i32) {
        %0 = arith.muli %in, %in : i32
        linalg.yield %0 : i32
      }

On memrefs it writes the init and has no result; on tensors its result has the init's type.
The verifier also requires static shapes (vta-mlir compiles static shapes only).  Like a
structured op it gives its identity indexing maps and parallel iterators
(``get_indexing_maps``, ``get_iterator_types``), which the reference evaluator runs it with.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import linalg as linalg_dialect
from xdsl.dialects.arith import FastMathFlagsAttr
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, ShapedType, TensorType
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from vta_mlir.ir.upstream_fixes.linalg_quantized_conv import check_static_shapes, element_type

__all__ = ["LINALG_MAP_OPS", "MapOp", "add_map_ops", "short_form_payload"]


def short_form_payload(body: Region, input_count: int) -> Operation | None:
    """The op of a body MLIR prints in ``linalg.map``'s short form ``{ op attrs }``: the only
    op before the yield, with no region, applied to the input elements in order (one at
    least), its single result yielded; None for any other body."""
    if len(body.blocks) != 1 or input_count == 0:
        return None
    block = body.blocks[0]
    ops = list(block.ops)
    if len(ops) != 2 or not isinstance(ops[1], linalg.YieldOp):
        return None
    payload, yield_op = ops
    if payload.regions or len(payload.results) != 1:
        return None
    if tuple(yield_op.operands) != (payload.results[0],):
        return None
    if len(block.args) != input_count + 1 or tuple(payload.operands) != block.args[:input_count]:
        return None
    return payload


@irdl_op_definition
class MapOp(IRDLOperation):
    """Element-wise map (MLIR's ``linalg.map``)."""

    name = "linalg.map"

    inputs = var_operand_def()
    init = operand_def(ShapedType)
    result = var_result_def(TensorType)
    mapper = region_def("single_block")

    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        inputs: Sequence[SSAValue],
        init: SSAValue,
        mapper: Region,
        attributes: dict[str, Attribute] | None = None,
    ) -> None:
        result_types = [init.type] if isinstance(init.type, TensorType) else []
        super().__init__(
            operands=[inputs, init],
            result_types=[result_types],
            regions=[mapper],
            attributes=attributes,
        )

    def get_indexing_maps(self) -> ArrayAttr[AffineMapAttr]:
        """The identity map of the init's rank for every operand (inputs, then the init)."""
        assert isinstance(self.init.type, ShapedType)
        identity = AffineMapAttr(AffineMap.identity(len(self.init.type.get_shape())))
        return ArrayAttr([identity] * len(self.operands))

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        """A parallel loop per dimension of the init."""
        assert isinstance(self.init.type, ShapedType)
        return ArrayAttr([IteratorTypeAttr.parallel()] * len(self.init.type.get_shape()))

    def verify_(self) -> None:
        init_type = self.init.type
        assert isinstance(init_type, ShapedType)
        expected_results = [init_type] if isinstance(init_type, TensorType) else []
        if [r.type for r in self.result] != expected_results:
            raise VerifyException(
                f"expected the result type to be the init type on tensors and no result on "
                f"memrefs, got ({', '.join(str(r.type) for r in self.result)}) for {init_type}"
            )
        check_static_shapes(self)
        for index, operand in enumerate(self.inputs):
            if not isinstance(operand.type, ShapedType):
                raise VerifyException(f"input #{index} must be a tensor or memref")
            if operand.type.get_shape() != init_type.get_shape():
                raise VerifyException(
                    f"expected input #{index} of the shape of the init, "
                    f"{init_type.get_shape()}, got {operand.type.get_shape()}"
                )
        args = self.mapper.blocks[0].args
        elements = [element_type(value) for value in (*self.inputs, self.init)]
        if [arg.type for arg in args] != elements:
            raise VerifyException(
                f"expected the body to take one argument per input and one for the init, of "
                f"their element types ({', '.join(map(str, elements))}), got "
                f"({', '.join(str(arg.type) for arg in args)})"
            )
        terminator = self.mapper.blocks[0].last_op
        if not isinstance(terminator, linalg.YieldOp) or [
            value.type for value in terminator.operands
        ] != [elements[-1]]:
            raise VerifyException(
                f"expected the body to end with a linalg.yield of one {elements[-1]}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> MapOp:
        payload_name: str | None = None
        payload_attrs: dict[str, Attribute] = {}
        payload_pos = parser.pos
        if parser.parse_optional_punctuation("{"):
            payload_name = parser.parse_identifier(" (the op of linalg.map's short form)")
            payload_attrs = parser.parse_optional_attr_dict()
            parser.parse_punctuation("}")
        inputs = cls.parse_operand_list(parser, "ins")
        outs_pos = parser.pos
        inits = cls.parse_operand_list(parser, "outs")
        if len(inits) != 1:
            parser.raise_error(
                f"expected one init operand in outs(...), got {len(inits)}", outs_pos
            )
        attributes = parser.parse_optional_attr_dict()
        element_types = [element_type(value) for value in (*inputs, *inits)]
        if payload_name is None:
            arguments = parser.parse_comma_separated_list(
                Parser.Delimiter.PAREN, parser.parse_argument, " in linalg.map's body arguments"
            )
            mapper = parser.parse_region(arguments)
        else:
            payload_type = parser.ctx.get_optional_op(payload_name)
            if payload_type is None:
                parser.raise_error(f"unknown operation '{payload_name}'", payload_pos)
            block = Block(arg_types=element_types)
            if isinstance(payload_type, type) and issubclass(payload_type, IRDLOperation):
                property_names = payload_type.get_irdl_definition().properties
            else:
                property_names = {}
            payload = payload_type.create(
                operands=block.args[: len(inputs)],
                result_types=[element_types[-1]],
                properties={k: v for k, v in payload_attrs.items() if k in property_names},
                attributes={k: v for k, v in payload_attrs.items() if k not in property_names},
            )
            block.add_ops([payload, linalg.YieldOp(*payload.results)])
            mapper = Region(block)
        return cls(inputs, inits[0], mapper, attributes)

    @staticmethod
    def parse_operand_list(parser: Parser, keyword: str) -> list[SSAValue]:
        """``keyword(%a, %b : T, U)``, or nothing when ``keyword`` is absent."""
        pos = parser.pos
        if parser.parse_optional_keyword(keyword) is None:
            return []
        parser.parse_punctuation("(")
        unresolved: list[UnresolvedOperand] = parser.parse_comma_separated_list(
            Parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation(")")
        return parser.resolve_operands(unresolved, types, pos)

    def print(self, printer: Printer) -> None:
        payload = short_form_payload(self.mapper, len(self.inputs))
        if payload is not None:
            # MLIR elides only a `fastmath<none>` attribute of the payload op.
            payload_attrs = {
                name: value
                for name, value in {**payload.properties, **payload.attributes}.items()
                if not (isinstance(value, FastMathFlagsAttr) and not value.data)
            }
            printer.print_string(f" {{ {payload.name}")
            printer.print_op_attributes(payload_attrs)
            printer.print_string(" }")
        for keyword, values in (("ins", self.inputs), ("outs", (self.init,))):
            if not values:
                continue
            printer.print_string(f" {keyword}(")
            printer.print_list(values, printer.print_ssa_value)
            printer.print_string(" : ")
            printer.print_list((value.type for value in values), printer.print_attribute)
            printer.print_string(")")
        printer.print_op_attributes(self.attributes)
        if payload is None:
            with printer.indented():
                printer.print_string("\n")
                printer.print_string("(")
                printer.print_list(self.mapper.blocks[0].args, printer.print_block_argument)
                printer.print_string(") ")
                printer.print_region(self.mapper, print_entry_block_args=False)


#: The ops this module adds to xDSL's ``linalg`` dialect.
LINALG_MAP_OPS: tuple[type[Operation], ...] = (MapOp,)


def add_map_ops() -> None:
    """Add :data:`LINALG_MAP_OPS` to xDSL's ``linalg`` dialect (before any context loads it)."""
    operations = linalg_dialect.Linalg._operations  # pyright: ignore[reportPrivateUsage]
    for op in LINALG_MAP_OPS:
        if op not in operations:
            operations.append(op)
