"""``linalg.conv_2d_nchw_fchw_q``, which xDSL 0.74's linalg dialect lacks: the 2-D convolution
of NCHW data with FCHW filters, with zero points, as MLIR defines it —

    out[n, f, oh, ow] += (cast(x[n, c, oh * sh + kh * dh, ow * sw + kw * dw]) - cast(x_zp))
                       * (cast(w[f, c, kh, kw]) - cast(w_zp))

over ``(c, kh, kw)``, every term cast to the output element type (i8 data, i32 zero points and
accumulator in torch-mlir's output).  Its syntax is the named-op form of
``linalg.conv_2d_nchw_fchw`` with four inputs (data, filter and the two scalar zero points)::

    %r = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>,
                                     strides = dense<2> : vector<2xi64>}
           ins(%x, %w, %x_zp, %w_zp : tensor<1x3x12x12xi8>, tensor<16x3x3x3xi8>, i32, i32)
           outs(%acc : tensor<1x16x5x5xi32>) -> tensor<1x16x5x5xi32>

The op is added to xDSL's ``linalg`` dialect with its indexing maps and hidden body, so it
parses, prints and verifies like the other convolutions, and passes and the reference evaluator
can read its body.  The verifier also requires static shapes (vta-mlir compiles static shapes
only) and integer elements.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects import linalg as linalg_dialect
from xdsl.dialects.builtin import IntegerType, MemRefType, ShapedType, TensorType
from xdsl.dialects.linalg import abstract_ops as linalg_abstract
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.irdl import irdl_op_definition
from xdsl.utils.exceptions import VerifyException

from vta_mlir.ir.upstream_fixes.linalg import convert_scalar

__all__ = ["LINALG_QUANTIZED_CONV_OPS", "Conv2DNchwFchwQOp", "add_quantized_conv_ops"]

#: Operands of ``linalg.conv_2d_nchw_fchw_q``: data, filter, data zero point, filter zero point.
INPUT_COUNT = 4


def element_type(value: SSAValue) -> Attribute:
    """The element type of a shaped value, else the value's own type."""
    value_type = value.type
    if isinstance(value_type, MemRefType | TensorType):
        return value_type.get_element_type()
    return value_type


def check_static_shapes(op: Operation) -> None:
    """Raise ``VerifyException`` for a shaped operand with a dynamic dimension: the project
    compiles static shapes only, and the shape checks below need them."""
    for index, operand in enumerate(op.operands):
        if isinstance(operand.type, ShapedType) and any(d < 0 for d in operand.type.get_shape()):
            raise VerifyException(
                f"operand #{index} has a dynamic shape ({operand.type}); "
                "only static shapes are supported"
            )


@irdl_op_definition
class Conv2DNchwFchwQOp(linalg_abstract.ConvOperation):
    """2-D convolution with zero points (MLIR's ``linalg.conv_2d_nchw_fchw_q``)."""

    name = "linalg.conv_2d_nchw_fchw_q"

    @classmethod
    def get_hidden_region(
        cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]
    ) -> Region:
        operands = (*inputs, *outputs)
        types = [element_type(value) for value in operands]

        @Builder.implicit_region(types)
        def region(args: tuple[BlockArgument, ...]) -> None:
            if len(inputs) != INPUT_COUNT or len(outputs) != 1 or not all(
                isinstance(t, IntegerType) for t in types
            ):
                # Not a valid op: a body yielding nothing, and the verifier says what is wrong.
                linalg.YieldOp()
                return
            out = types[-1]
            data = arith.SubiOp(convert_scalar(args[0], out), convert_scalar(args[2], out))
            weight = arith.SubiOp(convert_scalar(args[1], out), convert_scalar(args[3], out))
            linalg.YieldOp(arith.AddiOp(args[4], arith.MuliOp(data, weight)))

        return region

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        n, f, oh, ow, c, kh, kw = (AffineDimExpr(dim) for dim in range(7))
        stride_h, stride_w = self.strides.get_values()
        dilation_h, dilation_w = self.dilations.get_values()
        return (
            AffineMap(7, 0, (n, c, oh * stride_h + kh * dilation_h,
                             ow * stride_w + kw * dilation_w)),
            AffineMap(7, 0, (f, c, kh, kw)),
            AffineMap(7, 0, ()),
            AffineMap(7, 0, ()),
            AffineMap(7, 0, (n, f, oh, ow)),
        )

    def verify_(self) -> None:
        if len(self.inputs) != INPUT_COUNT or len(self.outputs) != 1:
            raise VerifyException(
                f"expected {INPUT_COUNT} inputs (data, filter, data zero point, filter zero "
                f"point) and 1 output, got {len(self.inputs)} and {len(self.outputs)}"
            )
        for index, operand in enumerate(self.operands):
            if not isinstance(element_type(operand), IntegerType):
                raise VerifyException(
                    f"operand #{index} must have integer elements, got {operand.type}"
                )
        for index in (2, 3):
            if isinstance(self.operands[index].type, ShapedType):
                raise VerifyException(
                    f"operand #{index} (a zero point) must be a scalar, "
                    f"got {self.operands[index].type}"
                )
        for name, attr in (("strides", self.strides), ("dilations", self.dilations)):
            if len(attr.get_values()) != 2:
                raise VerifyException(f"expected 2 {name}, got {len(attr.get_values())}")
        check_static_shapes(self)
        super().verify_()


#: The ops this module adds to xDSL's ``linalg`` dialect.
LINALG_QUANTIZED_CONV_OPS: tuple[type[Operation], ...] = (Conv2DNchwFchwQOp,)


def add_quantized_conv_ops() -> None:
    """Add :data:`LINALG_QUANTIZED_CONV_OPS` to xDSL's ``linalg`` dialect (before any context
    loads it)."""
    operations = linalg_dialect.Linalg._operations  # pyright: ignore[reportPrivateUsage]
    for op in LINALG_QUANTIZED_CONV_OPS:
        if op not in operations:
            operations.append(op)
