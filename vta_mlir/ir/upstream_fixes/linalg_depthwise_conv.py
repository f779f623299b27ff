"""The depthwise convolutions xDSL 0.74's linalg dialect lacks, as MLIR defines them:

* ``linalg.depthwise_conv_2d_nchw_chw``: ``out[n, c, oh, ow] += cast(x[n, c, oh * sh + kh * dh,
  ow * sw + kw * dw]) * cast(w[c, kh, kw])``;
* ``linalg.depthwise_conv_2d_nhwc_hwc``: the same on NHWC data and an HWC kernel,
  ``out[n, oh, ow, c] += cast(x[n, oh * sh + kh * dh, ow * sw + kw * dw, c]) * cast(w[kh, kw, c])``;
* ``linalg.depthwise_conv_2d_nhwc_hwc_q``: the NHWC form with the two scalar zero points,
  ``out[n, oh, ow, c] += (cast(x[...]) - cast(x_zp)) * (cast(w[kh, kw, c]) - cast(w_zp))``;
* ``linalg.conv_2d_ngchw_gfchw_q``: the grouped convolution with zero points (torch-mlir's form
  of a quantized grouped ``Conv``), ``out[n, g, f, oh, ow] += (cast(x[n, g, c, oh * sh + kh * dh,
  ow * sw + kw * dw]) - cast(x_zp)) * (cast(w[g, f, c, kh, kw]) - cast(w_zp))``.

Each iterates over MLIR's domain — ``(n, oh, ow, c, kh, kw)`` for the depthwise ones, only
``kh`` and ``kw`` reduced — and has the named-op syntax of ``linalg.conv_2d_nchw_fchw``::

    linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>,
                                       strides = dense<2> : vector<2xi64>}
      ins(%x, %w : memref<1x16x9x9xi8>, memref<16x3x3xi8>) outs(%acc : memref<1x16x4x4xi32>)

They are added to xDSL's ``linalg`` dialect with their indexing maps, iterators and hidden
bodies (every term cast to the output's element type), so they parse, print and verify like the
other convolutions, and passes and the reference evaluator read their bodies.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects import linalg as linalg_dialect
from xdsl.dialects.builtin import AnyFloat, ArrayAttr, IntegerType, ShapedType
from xdsl.dialects.linalg import abstract_ops as linalg_abstract
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.irdl import irdl_op_definition
from xdsl.utils.exceptions import VerifyException

from vta_mlir.ir.upstream_fixes.linalg import convert_scalar
from vta_mlir.ir.upstream_fixes.linalg_quantized_conv import check_static_shapes, element_type

__all__ = [
    "LINALG_DEPTHWISE_CONV_OPS",
    "Conv2DNgchwGfchwQOp",
    "DepthwiseConv2DNchwChwOp",
    "DepthwiseConv2DNhwcHwcOp",
    "DepthwiseConv2DNhwcHwcQOp",
    "add_depthwise_conv_ops",
]


def _window(op: linalg_abstract.ConvOperation) -> tuple[int, int, int, int]:
    """The strides and dilations of ``op``: ``(sh, sw, dh, dw)``."""
    sh, sw = op.strides.get_values()
    dh, dw = op.dilations.get_values()
    return sh, sw, dh, dw


def _zero_point_region(inputs: Sequence[SSAValue], outputs: Sequence[SSAValue],
                       count: int) -> Region:
    """``out + (cast(x) - cast(x_zp)) * (cast(w) - cast(w_zp))``, every term cast to the
    output's element type; a body yielding nothing (for the verifier to report) when the
    operands are not ``count`` integer inputs and one output."""
    types = [element_type(value) for value in (*inputs, *outputs)]

    @Builder.implicit_region(types)
    def region(args: tuple[BlockArgument, ...]) -> None:
        if len(inputs) != count or len(outputs) != 1 or not all(
            isinstance(t, IntegerType) for t in types
        ):
            linalg.YieldOp()
            return
        out = types[-1]
        data = arith.SubiOp(convert_scalar(args[0], out), convert_scalar(args[2], out))
        weight = arith.SubiOp(convert_scalar(args[1], out), convert_scalar(args[3], out))
        linalg.YieldOp(arith.AddiOp(args[4], arith.MuliOp(data, weight)))

    return region


def _verify(op: linalg_abstract.ConvOperation, count: int, zero_points: bool) -> None:
    """``count`` inputs (the last two scalar zero points when ``zero_points``), one output,
    integer elements (integer or float ones without zero points, as torch-mlir writes a
    convolution of dequantized data), two strides and dilations, static shapes."""
    if len(op.inputs) != count or len(op.outputs) != 1:
        raise VerifyException(f"expected {count} inputs and 1 output, got {len(op.inputs)} "
                              f"and {len(op.outputs)}")
    allowed: tuple[type, ...] = (IntegerType,) if zero_points else (IntegerType, AnyFloat)
    kind = "integer" if zero_points else "integer or float"
    for index, operand in enumerate(op.operands):
        if not isinstance(element_type(operand), allowed):
            raise VerifyException(f"operand #{index} must have {kind} elements, got "
                                  f"{operand.type}")
    if zero_points:
        for index in (2, 3):
            if isinstance(op.operands[index].type, ShapedType):
                raise VerifyException(f"operand #{index} (a zero point) must be a scalar, "
                                      f"got {op.operands[index].type}")
    for name, attr in (("strides", op.strides), ("dilations", op.dilations)):
        if len(attr.get_values()) != 2:
            raise VerifyException(f"expected 2 {name}, got {len(attr.get_values())}")
    check_static_shapes(op)


class _DepthwiseConv(linalg_abstract.ConvOperation):
    """The depthwise convolutions: domain ``(n, oh, ow, c, kh, kw)``, ``kh`` and ``kw``
    reduced."""

    def get_iterator_types(self) -> ArrayAttr[IteratorTypeAttr]:
        return ArrayAttr((IteratorTypeAttr.parallel(),) * 4 + (IteratorTypeAttr.reduction(),) * 2)

    def verify_(self) -> None:
        _verify(self, 2, False)
        super().verify_()


@irdl_op_definition
class DepthwiseConv2DNchwChwOp(_DepthwiseConv):
    """Depthwise 2-D convolution of NCHW data with a CHW kernel (MLIR's
    ``linalg.depthwise_conv_2d_nchw_chw``)."""

    name = "linalg.depthwise_conv_2d_nchw_chw"

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        n, oh, ow, c, kh, kw = (AffineDimExpr(dim) for dim in range(6))
        sh, sw, dh, dw = _window(self)
        return (
            AffineMap(6, 0, (n, c, oh * sh + kh * dh, ow * sw + kw * dw)),
            AffineMap(6, 0, (c, kh, kw)),
            AffineMap(6, 0, (n, c, oh, ow)),
        )


@irdl_op_definition
class DepthwiseConv2DNhwcHwcOp(_DepthwiseConv):
    """Depthwise 2-D convolution of NHWC data with an HWC kernel (MLIR's
    ``linalg.depthwise_conv_2d_nhwc_hwc``)."""

    name = "linalg.depthwise_conv_2d_nhwc_hwc"

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        n, oh, ow, c, kh, kw = (AffineDimExpr(dim) for dim in range(6))
        sh, sw, dh, dw = _window(self)
        return (
            AffineMap(6, 0, (n, oh * sh + kh * dh, ow * sw + kw * dw, c)),
            AffineMap(6, 0, (kh, kw, c)),
            AffineMap(6, 0, (n, oh, ow, c)),
        )


@irdl_op_definition
class DepthwiseConv2DNhwcHwcQOp(_DepthwiseConv):
    """``linalg.depthwise_conv_2d_nhwc_hwc`` with the data and kernel zero points (MLIR's
    ``linalg.depthwise_conv_2d_nhwc_hwc_q``)."""

    name = "linalg.depthwise_conv_2d_nhwc_hwc_q"

    @classmethod
    def get_hidden_region(
        cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]
    ) -> Region:
        return _zero_point_region(inputs, outputs, 4)

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        n, oh, ow, c, kh, kw = (AffineDimExpr(dim) for dim in range(6))
        sh, sw, dh, dw = _window(self)
        return (
            AffineMap(6, 0, (n, oh * sh + kh * dh, ow * sw + kw * dw, c)),
            AffineMap(6, 0, (kh, kw, c)),
            AffineMap(6, 0, ()),
            AffineMap(6, 0, ()),
            AffineMap(6, 0, (n, oh, ow, c)),
        )

    def verify_(self) -> None:
        _verify(self, 4, True)
        linalg_abstract.ConvOperation.verify_(self)


@irdl_op_definition
class Conv2DNgchwGfchwQOp(linalg_abstract.ConvOperation):
    """Grouped 2-D convolution with zero points (MLIR's ``linalg.conv_2d_ngchw_gfchw_q``)."""

    name = "linalg.conv_2d_ngchw_gfchw_q"

    @classmethod
    def get_hidden_region(
        cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]
    ) -> Region:
        return _zero_point_region(inputs, outputs, 4)

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        n, g, f, oh, ow, c, kh, kw = (AffineDimExpr(dim) for dim in range(8))
        sh, sw, dh, dw = _window(self)
        return (
            AffineMap(8, 0, (n, g, c, oh * sh + kh * dh, ow * sw + kw * dw)),
            AffineMap(8, 0, (g, f, c, kh, kw)),
            AffineMap(8, 0, ()),
            AffineMap(8, 0, ()),
            AffineMap(8, 0, (n, g, f, oh, ow)),
        )

    def verify_(self) -> None:
        _verify(self, 4, True)
        super().verify_()


#: The ops this module adds to xDSL's ``linalg`` dialect.
LINALG_DEPTHWISE_CONV_OPS: tuple[type[Operation], ...] = (
    DepthwiseConv2DNchwChwOp,
    DepthwiseConv2DNhwcHwcOp,
    DepthwiseConv2DNhwcHwcQOp,
    Conv2DNgchwGfchwQOp,
)


def add_depthwise_conv_ops() -> None:
    """Add :data:`LINALG_DEPTHWISE_CONV_OPS` to xDSL's ``linalg`` dialect (before any context
    loads it)."""
    operations = linalg_dialect.Linalg._operations  # pyright: ignore[reportPrivateUsage]
    for op in LINALG_DEPTHWISE_CONV_OPS:
        if op not in operations:
            operations.append(op)
