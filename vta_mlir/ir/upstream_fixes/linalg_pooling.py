"""``linalg.pooling_nchw_sum``, which xDSL 0.74's linalg dialect lacks (it has
``linalg.pooling_nchw_max`` only): the sum of the window of NCHW data at each output position,
accumulated onto the output, as MLIR defines it — ``out[n, c, oh, ow] += cast(x[n, c,
oh * sh + kh * dh, ow * sw + kw * dw])`` over the window ``(kh, kw)`` whose shape the second
input gives (its values are never read).  The op is added to xDSL's ``linalg`` dialect, so it
parses, prints, verifies and lowers (``convert-linalg-to-loops``, the reference evaluator) like
``linalg.pooling_nchw_max``.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects import linalg as linalg_dialect
from xdsl.dialects.builtin import AnyFloat
from xdsl.dialects.linalg import abstract_ops as linalg_abstract
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import BlockArgument, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.irdl import irdl_op_definition

from vta_mlir.ir.upstream_fixes.linalg import convert_scalar

__all__ = ["PoolingNchwSumOp", "add_pooling_ops"]


@irdl_op_definition
class PoolingNchwSumOp(linalg_abstract.PoolingOperation):
    """Sum pooling (MLIR's ``linalg.pooling_nchw_sum``)."""

    name = "linalg.pooling_nchw_sum"

    @classmethod
    def get_hidden_region(
        cls, inputs: Sequence[SSAValue], outputs: Sequence[SSAValue]
    ) -> Region:
        types = cls.body_arg_types((*inputs, *outputs))
        add_op = arith.AddfOp if isinstance(types[-1], AnyFloat) else arith.AddiOp

        @Builder.implicit_region(types)
        def region(args: tuple[BlockArgument, ...]) -> None:
            # ``out + cast(in)``; the second input only gives the window its shape.
            linalg.YieldOp(add_op(args[-1], convert_scalar(args[0], types[-1])).result)

        return region

    def get_default_indexing_maps(self) -> Sequence[AffineMap]:
        n, c, oh, ow, kh, kw = (AffineDimExpr(dim) for dim in range(6))
        stride_h, stride_w = self.strides.get_values()
        dilation_h, dilation_w = self.dilations.get_values()
        return (
            AffineMap(6, 0, (n, c, oh * stride_h + kh * dilation_h,
                             ow * stride_w + kw * dilation_w)),
            AffineMap(6, 0, (kh, kw)),
            AffineMap(6, 0, (n, c, oh, ow)),
        )


def add_pooling_ops() -> None:
    """Add the pooling ops xDSL lacks to its ``linalg`` dialect (before any context loads
    it)."""
    operations = linalg_dialect.Linalg._operations  # pyright: ignore[reportPrivateUsage]
    if PoolingNchwSumOp not in operations:
        operations.append(PoolingNchwSumOp)
