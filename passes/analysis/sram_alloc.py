"""SRAM buffers and DRAM constants a pass adds to a tiled function (after ``vta-tile``): where
a new buffer fits in an SRAM, how often an op runs, and new constant globals.

Used by ``vta-bias-gemm`` and ``vta-residual-gemm``, which add input and weight buffers to
regions ``vta-tile`` has already placed.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np
from xdsl.dialects import affine, func, memref
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    i8,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.dialects.vta_positions import SRAM_OFFSET_ATTR, Sram, SramAttr, sram_space
from vta_mlir.ir.locations import copy_location

__all__ = ["alloc", "elements", "first_fit", "make_room", "new_global", "place", "sram_end",
           "trips"]


def elements(t: MemRefType) -> int:
    """Tensor elements of an SRAM buffer (its trailing two dimensions are one element)."""
    return math.prod(t.get_shape()[:-2])


def trips(op: Operation, stop: Operation) -> int:
    """How many times ``op`` runs per run of ``stop`` (the product of the static trip counts of
    the ``affine.for`` loops between them; 1 for a loop with other bounds)."""
    n = 1
    parent = op.parent_op()
    while parent is not None and parent is not stop:
        if isinstance(parent, affine.ForOp):
            lo, hi = parent.lowerBoundMap.data, parent.upperBoundMap.data
            if lo.num_dims or hi.num_dims or lo.num_symbols or hi.num_symbols:
                return 1
            step = parent.step.value.data
            n *= max(0, -(-(hi.eval([], [])[0] - lo.eval([], [])[0]) // step))
        parent = parent.parent_op()
    return n


def sram_end(f: func.FuncOp, space: Sram) -> int:
    """The first element of ``space`` after every buffer ``f`` places there."""
    end = 0
    for op in f.walk():
        if isinstance(op, memref.AllocOp) and sram_space(op.memref.type) == space:
            end = max(end, _offset(op) + _elements_of(op))
    return end


def new_global(module: ModuleOp, after: Operation, stem: str, data: np.ndarray
                ) -> memref.GlobalOp:
    """A private int8 constant global of ``data`` named after ``stem`` (made unique), placed
    after ``after`` (an op of the module, whose location it takes)."""
    taken = {op.sym_name.data for op in module.ops if isinstance(op, memref.GlobalOp)}
    name, n = stem, 1
    while name in taken:
        name, n = f"{stem}_{n}", n + 1
    t = MemRefType(i8, data.shape)
    glob = memref.GlobalOp.get(
        StringAttr(name), t,
        DenseIntOrFPElementsAttr(TensorType(i8, data.shape),
                                 BytesAttr(data.astype(np.int8).tobytes())),
        constant=UnitAttr(),
    )
    copy_location(after, [glob])
    Rewriter.insert_op(glob, InsertPoint.after(after))
    return glob


def alloc(shape: Sequence[int], space: Sram, offset: int, before: Operation,
          name: str) -> SSAValue:
    """An int8 buffer of ``space`` at element ``offset`` named ``name``, inserted before
    ``before``."""
    op = memref.AllocOp.get(i8, shape=list(shape), memory_space=SramAttr(space))
    op.attributes[SRAM_OFFSET_ATTR] = IntegerAttr(offset, i64)
    op.memref.name_hint = name
    Rewriter.insert_op(op, InsertPoint.before(before))
    return op.memref


def _root(value: SSAValue) -> SSAValue:
    while isinstance(value.owner, memref.SubviewOp):
        value = value.owner.source
    return value


def _span(f: func.FuncOp, ops: Sequence[Operation]) -> list[Operation]:
    """The top-level ops of ``f`` from the first to the last holding one of ``ops``."""
    top = list(f.body.block.ops)
    index = {id(op): i for i, op in enumerate(top)}
    found = []
    for op in ops:
        while id(op) not in index:
            parent = op.parent_op()
            assert parent is not None
            op = parent
        found.append(index[id(op)])
    return top[min(found): max(found) + 1]


def _buffers(f: func.FuncOp, ops: Sequence[Operation], space: Sram
             ) -> Iterator[memref.AllocOp]:
    """The buffers of ``space`` read or written by the top-level ops around ``ops`` (the
    region), once per operand that uses them."""
    for top in _span(f, ops):
        for op in top.walk():
            for operand in op.operands:
                root = _root(operand)
                owner = root.owner
                if isinstance(owner, memref.AllocOp) and sram_space(root.type) == space:
                    yield owner


def _used(f: func.FuncOp, ops: Sequence[Operation], space: Sram,
          skip: memref.AllocOp | None = None) -> list[tuple[int, int]]:
    """The element ranges ``[start, end)`` of ``space`` the buffers of the region occupy,
    but ``skip``'s."""
    return [(_offset(op), _offset(op) + _elements_of(op))
            for op in _buffers(f, ops, space) if op is not skip]


def _offset(op: memref.AllocOp) -> int:
    attr = op.attributes.get(SRAM_OFFSET_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else 0


def _elements_of(op: memref.AllocOp) -> int:
    t = op.memref.type
    assert isinstance(t, MemRefType)
    return elements(t)


def _top(op: Operation, f: func.FuncOp) -> Operation | None:
    """The op of ``f``'s body that holds ``op`` (``None`` when ``op`` is outside ``f``)."""
    while op.parent_op() is not f:
        parent = op.parent_op()
        if parent is None:
            return None
        op = parent
    return op


def _used_only_within(value: SSAValue, f: func.FuncOp, span: set[int]) -> bool:
    """Whether every use of ``value`` (and of the views of it) lies in the top-level ops
    ``span`` (by id)."""
    for use in value.uses:
        top = _top(use.operation, f)
        if top is None or id(top) not in span:
            return False
        if isinstance(use.operation, memref.SubviewOp) and not _used_only_within(
                use.operation.result, f, span):
            return False
    return True


def make_room(f: func.FuncOp, ops: Sequence[Operation], space: Sram, size: int,
              depth: int) -> int | None:
    """:func:`first_fit`, else the same after moving buffers of ``space`` that only the region
    uses down to the lowest offsets the other buffers leave: ``vta-tile`` places a region's
    buffers right after the previous region's, which can split the SRAM into gaps too small
    for one more.  The largest buffer moves first, and no more move than needed; the moves
    are undone when ``size`` elements still find no place."""
    found = first_fit(f, ops, space, size, depth)
    if found is not None:
        return found
    ids = {id(op) for op in _span(f, ops)}
    movable = {op: _offset(op) for op in _buffers(f, ops, space)
               if _used_only_within(op.memref, f, ids)}
    for op in sorted(movable, key=lambda op: -_elements_of(op)):
        start = first_fit(f, ops, space, _elements_of(op), depth, skip=op)
        if start is None or start >= _offset(op):
            continue
        op.attributes[SRAM_OFFSET_ATTR] = IntegerAttr(start, i64)
        found = first_fit(f, ops, space, size, depth)
        if found is not None:
            return found
    for op, offset in movable.items():
        op.attributes[SRAM_OFFSET_ATTR] = IntegerAttr(offset, i64)
    return None


def place(f: func.FuncOp, ops: Sequence[Operation], space: Sram, size: int,
          depth: int) -> int | None:
    """An SRAM offset for ``size`` elements of ``space``: after every buffer of the function,
    else after the buffers the top-level ops around ``ops`` (the region) use; ``None`` when
    neither fits.  After every buffer, the elements are no other region's: their load waits
    for no read of the region before, and the next region's first loads wait for no read of
    them (the constant input vector of a GEMM bias, one element, always fits there).
    ``vta-coproc-sync`` orders accesses to the same elements by other regions."""
    end = max((e for _, e in _used(f, ops, space)), default=0)
    for start in (sram_end(f, space), end):
        if start + size <= depth:
            return start
    return None


def first_fit(f: func.FuncOp, ops: Sequence[Operation], space: Sram, size: int,
              depth: int, skip: memref.AllocOp | None = None) -> int | None:
    """The lowest SRAM offset of ``space`` where ``size`` elements overlap no buffer the
    top-level ops around ``ops`` use (a gap between them, or after them), ``skip`` aside;
    ``None`` when there is none.  ``vta-coproc-sync`` orders accesses to the same elements by
    other regions."""
    start = 0
    for lo, hi in sorted(_used(f, ops, space, skip)):
        if lo >= start + size:
            break
        start = max(start, hi)
    return start if start + size <= depth else None
