"""The store of a matrix layer into the weight layout of a later product (``vta-tile``).

``vta-pack`` writes the output of a layer whose result a later product reads as its weights
(``passes/pack/match_matmul_operands.py``) through the map
``(r, c, b, o) -> (r floordiv R, c, (r mod R) · BATCH + b, o)`` into a buffer of weight tiles
``(rows / BLOCK_OUT, cols / BLOCK_IN, BLOCK_OUT, BLOCK_IN)``.  For one row block ``r`` of an
output tile, the ``to`` output elements of its column blocks go to weight tiles
``(r floordiv R, c0 .. c0 + to)``, rows ``(r mod R) · BATCH`` onwards: a strided view of the
buffer, ``1 × to × BATCH × BLOCK_IN`` elements with a pitch of one weight tile between column
blocks.  So the tile's store is a host loop over its row blocks, each a ``trunci`` from that row
of the accumulator tile into that view, which ``vta-inject-dma`` makes one strided store::

    affine.for %r = 0 to 16 {                           // the tile's 16 row blocks
      %row = affine.apply affine_map<(d0, d1) -> ((d0 + d1))> (%r, %b0)
      %wtile = affine.apply affine_map<(d0) -> ((d0 floordiv 16))> (%row)
      %wrow = affine.apply affine_map<(d0) -> ((d0 mod 16))> (%row)
      %acc_row = memref.subview %acc[%r, 0, 0, 0] [1, 2, 1, 16] [1, 1, 1, 1] : ...
      %k_rows = memref.subview %k[%wtile, 0, %wrow, 0] [1, 2, 1, 16] [1, 1, 1, 1]
          : memref<2x2x16x16xi8> to memref<1x2x1x16xi8, strided<[512, 256, 16, 1], offset: ?>>
      linalg.generic ins(%acc_row) outs(%k_rows) { trunci }   // y 2 x 1 stride 16
    }
"""

from __future__ import annotations

from typing import Protocol

from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, MemRefType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from vta_mlir.ir.locations import copy_location

from .builder import Index, TileBuilder

__all__ = ["store_weight_tiles"]


class _Span(Protocol):
    start: Index
    size: int


def _identity4() -> AffineMapAttr:
    return AffineMapAttr(AffineMap.identity(4))


def store_weight_tiles(builder: TileBuilder, output: linalg.GenericOp, rows_per_tile: int,
                       b: _Span, o: _Span, acc_tile: SSAValue) -> None:
    """The store of the accumulator tile ``acc_tile`` (row blocks ``b``, column blocks ``o``)
    into the weight-layout output of ``output``, one strided store per row block (module
    doc)."""
    out = output.outputs[0]
    t = out.type
    assert isinstance(t, MemRefType)
    acc_t = acc_tile.type
    assert isinstance(acc_t, MemRefType)
    batch, block = acc_t.get_shape()[2], acc_t.get_shape()[3]
    d0 = AffineExpr.dimension(0)
    # The loop over row blocks is no tile loop: it never carries the double-buffering mark,
    # even in a region of one tile.
    double_buffer, builder.double_buffer = builder.double_buffer, False
    with builder.loop(b.size, "r") as r:
        builder.double_buffer = double_buffer
        if isinstance(b.start, int):
            row = builder.apply(r, d0 + b.start, "row")
        else:
            row = builder.apply_n([r, b.start], d0 + AffineExpr.dimension(1), "row")
        tile = builder.apply(row, d0 // rows_per_tile, "wtile")
        lane = builder.apply(row, (d0 % rows_per_tile) * batch, "wrow")
        acc_row = builder.subview(acc_tile, [r, 0, 0, 0], [1, o.size, batch, block], "acc_row")
        rows = builder.subview(out, [tile, o.start, lane, 0], [1, o.size, batch, block],
                               f"{out.name_hint or 'out'}_rows")
        new = output.clone()
        new.operands = [acc_row, rows]
        new.indexing_maps = ArrayAttr([_identity4(), _identity4()])
        builder.insert(new)
        copy_location(output, new)
