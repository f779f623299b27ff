"""Nearest upsampling by integer factors for ``vta-pack``: recognition and the stage-1 op.

A nearest resize of an NCHW tensor by integer factors ``(fh, fw)`` reads the element
``(h floordiv fh, w floordiv fw)`` of its input for the output element ``(h, w)`` — what
torch-mlir writes for ``F.interpolate(mode="nearest")`` and ``vta-import-onnx`` for ``Resize``:

    linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h floordiv 2,
                                                                   w floordiv 2)>,
                                     affine_map<(n, c, h, w) -> (n, c, h, w)>],
                    iterator_types = [4 x "parallel"]}
        ins(%x : memref<1x16x4x4xi8>) outs(%y : memref<1x16x8x8xi8>) {
    ^bb0(%a: i8, %o: i8):
      linalg.yield %a : i8
    }

(an ``i8`` copy, or ``arith.extsi`` into an ``i32`` buffer that an element-wise epilogue
then reads).  :class:`ResizeMatcher` takes it as a :class:`Resize` of a function argument or
an intermediate, ``vta-pack`` plans it like a pooling — the data read in the accumulator's
tensor layout — and :func:`resize_op` is its stage-1 op on the packed layouts::

    linalg.generic {indexing_maps = [(b, c, h, w, bb, cc) -> (b, c, h floordiv 2,
                                      w floordiv 2, bb, cc), (b, c, h, w, bb, cc) -> (b, c, h,
                                      w, bb, cc)]} ins(%x) outs(%acc) { extsi }

which ``vta-tile`` lowers (``passes/tile/resize.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.dialects import arith
from xdsl.dialects.builtin import AffineMapAttr, MemRefType, i32
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineExpr, AffineMap

from vta_mlir.ir.diagnostics import report_error
from vta_mlir.passes.pack.expr import Expr, Narrow, int_width, label

if TYPE_CHECKING:
    from vta_mlir.passes.pack.match import FunctionRecognizer

__all__ = ["Resize", "ResizeMatcher", "resize_factors", "resize_op"]


@dataclass(eq=False)
class Resize(Expr):
    """``act`` (NCHW ``i8``) repeated ``factors`` (rows, columns) times along H and W: output
    ``(h, w)`` is input ``(h // fh, w // fw)``."""

    act: BlockArgument
    factors: tuple[int, int]


def _factor(expr: AffineExpr, dim: int) -> int | None:
    """``f`` when ``expr`` is ``d<dim> floordiv f`` (``f ≥ 1``) or ``d<dim>`` (1)."""
    if expr == AffineExpr.dimension(dim):
        return 1
    if isinstance(expr, AffineBinaryOpExpr) and expr.kind == AffineBinaryOpKind.FloorDiv \
            and expr.lhs == AffineExpr.dimension(dim):
        value = expr.rhs.eval([], [])
        return value if value >= 1 else None
    return None


def resize_factors(maps: Sequence[AffineMap], rank: int = 4) -> tuple[int, int] | None:
    """``(fh, fw)`` when ``maps`` (input, output) are a nearest upsampling's over a rank-4
    (NCHW) or rank-6 (packed tensor) iteration space, not both 1; None otherwise."""
    if len(maps) != 2 or maps[1] != AffineMap.identity(rank) or maps[0].num_dims != rank \
            or len(maps[0].results) != rank:
        return None
    results = maps[0].results
    kept = [0, 1] + ([4, 5] if rank == 6 else [])
    if any(results[d] != AffineExpr.dimension(d) for d in kept):
        return None
    fh, fw = _factor(results[2], 2), _factor(results[3], 3)
    if fh is None or fw is None or (fh, fw) == (1, 1):
        return None
    return fh, fw


@dataclass(eq=False)
class ResizeMatcher:
    """The nearest upsamplings of the function ``recognizer`` walks (module doc)."""

    recognizer: FunctionRecognizer = field(repr=False)

    def visit(self, op: Operation) -> bool:
        """Take ``op`` when it is a nearest upsampling; False: it is the recognizer's."""
        if not isinstance(op, linalg.GenericOp) or len(op.inputs) != 1 \
                or len(op.outputs) != 1 or op.res \
                or any(it.data != IteratorType.PARALLEL for it in op.iterator_types.data):
            return False
        factors = resize_factors([m.data for m in op.indexing_maps.data])
        if factors is None:
            return False
        rec = self.recognizer
        x, out = op.inputs[0], op.outputs[0]
        xt, ot = rec.check_buffer(op, x), rec.check_buffer(op, out)
        (n, c, h, w), shape = xt.get_shape(), tuple(ot.get_shape())
        fh, fw = factors
        if shape != (n, c, h * fh, w * fw):
            report_error(op, f"resizes {xt} by {fh}x{fw} into {ot}: the output of a nearest "
                             "upsampling is the input's rows and columns times the factors")
        self.check_body(op)
        if int_width(xt.element_type) != 8:
            report_error(op, f"resizes {label(x)} ({xt}): VTA upsamples int8 data")
        result = Resize(op, rec.argument_of(op, x, "data"), factors)
        rec.write(op, out, Narrow(result, True, op) if int_width(ot.element_type) == 8
                  else result)
        return True

    @staticmethod
    def check_body(op: linalg.GenericOp) -> None:
        """The body yields the input element: as it is (``i8`` into ``i8``) or sign-extended
        (into ``i32``)."""
        block = op.body.block
        ops = list(block.ops)
        value = ops[-1].operands[0] if len(ops[-1].operands) == 1 else None
        ext = value.owner if value is not None else None
        direct = value is block.args[0] and len(ops) == 1
        extended = isinstance(ext, arith.ExtSIOp) and ext.input is block.args[0] \
            and len(ops) == 2
        if not (direct or extended):
            report_error(op, "reads its input through a nearest upsampling's map but computes "
                             "on it: VTA upsamples a copy of the data (arith.extsi into an i32 "
                             "buffer, or the i8 value itself); an epilogue follows as its own "
                             "linalg.generic")


def resize_op(data: SSAValue, acc: SSAValue, factors: tuple[int, int]) -> linalg.GenericOp:
    """``acc[b, c, h, w, bb, cc] = extsi(x[b, c, h floordiv fh, w floordiv fw, bb, cc])`` on
    the packed tensor layout (module doc)."""
    d = [AffineExpr.dimension(k) for k in range(6)]
    fh, fw = factors
    src = AffineMap(6, 0, (d[0], d[1], d[2] // fh if fh > 1 else d[2],
                           d[3] // fw if fw > 1 else d[3], d[4], d[5]))
    t = data.type
    assert isinstance(t, MemRefType)
    block = Block(arg_types=[t.element_type, i32])
    ext = arith.ExtSIOp(block.args[0], i32)
    block.add_ops([ext, linalg.YieldOp(ext.result)])
    return linalg.GenericOp([data], [acc], Region(block),
                            [AffineMapAttr(src), AffineMapAttr(AffineMap.identity(6))],
                            [IteratorTypeAttr.parallel()] * 6)
