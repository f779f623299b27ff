"""IR building blocks shared by the tilers of ``vta-tile`` (:mod:`vta_mlir.passes.tile`,
:mod:`.conv`):
host loops, index arithmetic, subviews and SRAM allocs inserted before a region's output."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from xdsl.dialects import affine, memref
from xdsl.dialects.builtin import (
    AffineMapAttr,
    IndexType,
    MemRefType,
    StridedLayoutAttr,
    UnitAttr,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.dialects.vta_positions import Sram, SramAttr
from vta_mlir.ir.index_arith import LinearForm, affine_of_form
from vta_mlir.ir.locations import copy_location

__all__ = ["DOUBLE_BUFFER_ATTR", "Index", "TileBuilder"]

#: Unit attribute on the outermost tile loops of a double-buffered region.
DOUBLE_BUFFER_ATTR = "vta.double_buffer"

#: An index: an SSA value or a constant.
Index = SSAValue | int


class TileBuilder:
    """Inserts ops before ``anchor`` (with its location), inside the loops opened by
    :meth:`loop`; the outermost loop carries :data:`DOUBLE_BUFFER_ATTR` when
    ``double_buffer``."""

    def __init__(self, anchor: Operation, double_buffer: bool) -> None:
        self.anchor = anchor
        self.double_buffer = double_buffer
        self.point = InsertPoint.before(anchor)
        self.depth = 0
        #: Values already built, per enclosing loop (reusable inside it).
        self.cache: list[dict[tuple[object, ...], SSAValue]] = [{}]

    def cached(self, key: tuple[object, ...]) -> SSAValue | None:
        for scope in reversed(self.cache):
            if key in scope:
                return scope[key]
        return None

    def insert(self, op: Operation) -> Operation:
        Rewriter.insert_op(op, self.point)
        copy_location(self.anchor, op)
        return op

    @contextmanager
    def loop(self, trip: int, name: str) -> Iterator[SSAValue]:
        block = Block(arg_types=[IndexType()])
        block.args[0].name_hint = name
        loop = affine.ForOp.from_region([], [], [], [], 0, trip, Region(block))
        self.insert(loop)
        block.add_op(affine.YieldOp.get())
        copy_location(self.anchor, block.ops)
        if self.depth == 0 and self.double_buffer:
            loop.attributes[DOUBLE_BUFFER_ATTR] = UnitAttr()
        saved, self.point = self.point, InsertPoint.before(block.last_op)  # type: ignore[arg-type]
        self.depth += 1
        self.cache.append({})
        try:
            yield block.args[0]
        finally:
            self.cache.pop()
            self.depth -= 1
            self.point = saved

    def apply(self, iv: SSAValue, expr: AffineExpr, name: str) -> SSAValue:
        """``expr`` (of ``d0``) applied to ``iv``; ``iv`` itself for ``d0``."""
        return self.apply_n([iv], expr, name)

    def apply_n(self, operands: Sequence[SSAValue], expr: AffineExpr, name: str) -> SSAValue:
        """``expr`` (of ``d0 .. d(n-1)``) applied to ``operands``."""
        if len(operands) == 1 and expr == AffineExpr.dimension(0):
            return operands[0]
        op = affine.ApplyOp(list(operands), AffineMapAttr(AffineMap(len(operands), 0, (expr,))))
        op.result.name_hint = name
        self.insert(op)
        return op.result

    def form_expr(self, lin: LinearForm) -> tuple[list[SSAValue], AffineExpr]:
        """The host values of ``lin`` and ``lin`` (constant included) as an expression of
        them."""
        values = [v for v in lin.terms if isinstance(v, SSAValue)]
        expr = affine_of_form(lin, values)
        return values, expr + lin.const if lin.const else expr

    def value(self, lin: LinearForm, name: str) -> Index:
        """``lin`` as a host index value (a constant stays an int)."""
        if lin.is_constant:
            return lin.const
        values, expr = self.form_expr(lin)
        return self.apply_n(values, expr, name)

    def position(self, lin: LinearForm, name: str) -> tuple[SSAValue, int] | int:
        """``lin`` as a host value and a constant offset (a constant stays an int)."""
        if lin.is_constant:
            return lin.const
        value = self.value(LinearForm(lin.terms), name)
        assert isinstance(value, SSAValue)
        return value, lin.const

    def subview(self, src: SSAValue, offsets: Sequence[Index], sizes: Sequence[int],
                name: str, drop_first: bool = False,
                strides: Sequence[int] | None = None) -> SSAValue:
        """A subview of ``src``, unit-stride unless ``strides`` (steps in elements of ``src``
        along each dimension) says otherwise; ``drop_first`` drops the (unit) leading dim."""
        t = src.type
        assert isinstance(t, MemRefType)
        steps = [1] * len(sizes) if strides is None else list(strides)
        rt = memref.SubviewOp.infer_result_type(t, list(offsets), list(sizes), steps)
        if drop_first:
            layout = rt.layout
            assert isinstance(layout, StridedLayoutAttr)
            strides = [s.data if hasattr(s, "data") else None for s in layout.strides.data]
            offset = layout.offset.data if hasattr(layout.offset, "data") else None
            rt = MemRefType(t.element_type, rt.get_shape()[1:],
                            StridedLayoutAttr(strides[1:], offset), t.memory_space)
        op = memref.SubviewOp.get(src, list(offsets), list(sizes), steps, rt)
        op.result.name_hint = name
        self.insert(op)
        return op.result

    def alloc(self, space: Sram, shape: Sequence[int], like: MemRefType) -> SSAValue:
        op = memref.AllocOp.get(like.element_type, shape=list(shape),
                                memory_space=SramAttr(space))
        op.memref.name_hint = space.value
        self.insert(op)
        return op.memref
