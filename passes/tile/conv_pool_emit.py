"""The tiles of a convolution with its max-pool fused (:mod:`.conv_pool`): the convolution's
loop nest (:func:`.conv.emit_conv`, overlapping row tiles), and after the convolution of each
tile the pooling of its accumulator tile into the pooled tile — separably, the window columns
first in place in the accumulator tile (:meth:`_PoolTail.pool_columns`), when the region says
so — the epilogue on the pooled tile and its store."""

from __future__ import annotations

from typing import Protocol

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    MemRefType,
    i32,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta_positions import Sram
from vta_mlir.ir.locations import copy_location
from vta_mlir.isa import AluKind
from vta_mlir.passes.analysis.alu_ops import ALU_KINDS

from ..analysis.sram_views import LinearForm
from .builder import Index, TileBuilder
from .conv import emit_conv
from .conv_plan import ConvTiles, Run
from .conv_pool import (
    ConvPoolRegion,
    carried_rows,
    edge_rows,
    image_columns,
    init_offset,
    row_init,
    window_span,
)
from .conv_region import ConvRegion, erase_region

__all__ = ["describe", "emit_conv_pool"]

_IDENTITY6 = AffineMap.identity(6)
_D = [AffineExpr.dimension(k) for k in range(6)]


class _Tile(Protocol):
    """The position of a convolution tile (``.conv``'s tile record)."""

    b: LinearForm
    o0: Index
    rt: LinearForm
    run: Run


def _alu_op(kind: AluKind, acc: SSAValue, src: SSAValue,
            strides: tuple[int, int]) -> linalg.GenericOp:
    """``acc = kind(acc, src)``, ``src`` read ``strides`` apart along rows and columns."""
    block = Block(arg_types=[i32] * 3)
    result = ALU_KINDS[kind](block.args[0], block.args[1])  # type: ignore[call-arg]
    block.add_op(result)
    block.add_op(linalg.YieldOp(result.results[0]))
    sh, sw = strides
    strided = AffineMap(6, 0, (_D[0], _D[1], _D[2] * sh, _D[3] * sw, _D[4], _D[5]))
    maps = [AffineMapAttr(_IDENTITY6), AffineMapAttr(strided), AffineMapAttr(_IDENTITY6)]
    return linalg.GenericOp([acc, src], [acc], Region(block), maps,
                            [IteratorTypeAttr.parallel()] * 6)


class _PoolTail:
    """The ops after the convolution of each tile (``.conv.ConvTail``)."""

    def __init__(self, region: ConvPoolRegion, cfg: VTAConfig) -> None:
        self.f, self.cfg = region, cfg
        self.tiles = ConvTiles(region.geo, region.plan)
        self.pooled: SSAValue | None = None
        self.zero: SSAValue | None = None
        pg = region.pool.geo
        #: The image's columns in the tile and the anchor column offset: the window element
        #: every pooled column has in the image.
        self.cols = image_columns(region.geo, region.pool, region.conv)
        kw0 = init_offset(*self.cols, pg.sw, pg.ow, pg.kw)
        assert kw0 is not None  # .conv_pool._fits_edges
        self.kw0 = kw0

    def allocate(self, builder: TileBuilder) -> list[SSAValue]:
        f, cfg, p = self.f, self.cfg, self.f.plan
        like = f.conv.acc.type
        assert isinstance(like, MemRefType)
        lead = [2] if f.pooled_double else []
        self.pooled = builder.alloc(Sram.ACC, [*lead, 1, p.to, f.tp, f.pool.geo.ow, cfg.batch,
                                               cfg.block_out], like)
        zero = arith.ConstantOp.from_int_and_width(0, 32)
        builder.insert(zero)
        self.zero = zero.result
        return [self.pooled]

    def copy(self, builder: TileBuilder, counter: LinearForm, ahead: int) -> SSAValue:
        """The pooled tile of the ``counter + ahead``-th output tile."""
        f, p = self.f, self.f.plan
        pooled = self.pooled
        assert pooled is not None
        if not f.pooled_double:
            return pooled
        # Two pooled tiles alternate, so the store of one overlaps the next tile.
        index: Index = (counter.const + ahead) % 2
        if not counter.is_constant:
            values, expr = builder.form_expr(counter)
            index = builder.apply_n(values, (expr + ahead if ahead else expr) % 2,
                                    "pooled_copy")
        return builder.subview(pooled, [index, 0, 0, 0, 0, 0, 0],
                               [1, 1, p.to, f.tp, f.pool.geo.ow, self.cfg.batch,
                                self.cfg.block_out], "pooled_view", drop_first=True)

    def pool_rows(self, builder: TileBuilder, pooled: SSAValue, conv_acc: SSAValue,
                  rows: tuple[int, int], shift: int, span: range, fresh: range,
                  window_rows: range) -> None:
        """Pool the window rows ``window_rows`` of the pooled rows ``span``, whose window row
        ``kh`` is tile row ``sh · j + kh − shift`` (in ``rows`` when in the image): the rows
        of ``fresh`` are set first (zeroed, then the element every one of them has added),
        the others only take the maximum.  Separably, the anchor column holds the maximum of
        the window's columns already (:meth:`pool_columns`): only it is read."""
        f, cfg, p = self.f, self.cfg, self.f.plan
        pg = f.pool.geo
        elem = [cfg.batch, cfg.block_out]
        assert self.zero is not None
        cols, kw0 = self.cols, self.kw0
        anchor = f.conv.output
        window_cols = [kw0] if f.separable else range(pg.kw)
        offsets = [(kh, kw) for kh in window_rows for kw in window_cols]
        if fresh:
            kh0 = row_init(rows[0], rows[1], shift, pg.sh, fresh, pg.kh)
            assert kh0 is not None and kh0 in window_rows
            offsets.remove((kh0, kw0))
            offsets.insert(0, (kh0, kw0))
            fill = linalg.FillOp((self.zero,), (self.rect(builder, pooled, fresh, 0, pg.ow),),
                                 ())
            builder.insert(fill)
            copy_location(anchor, fill)
        for n, (kh, kw) in enumerate(offsets):
            r0, r1 = window_span(rows[0], rows[1], kh - shift, pg.sh, span.stop)
            r0 = max(r0, span.start)
            c0, c1 = window_span(*cols, kw, pg.sw, pg.ow)
            if r1 <= r0 or c1 <= c0:
                continue
            # The first offset sets the fresh rows; rows set before only take the maximum.
            parts = [(r0, min(r1, fresh.start), AluKind.MAX),
                     (max(r0, fresh.start), r1, AluKind.ADD)] if n == 0 and fresh else \
                [(r0, r1, AluKind.MAX)]
            for a, b, kind in parts:
                if b <= a:
                    continue
                dst = self.rect(builder, pooled, range(a, b), c0, c1)
                src = builder.subview(conv_acc, [0, 0, a * pg.sh + kh - shift, c0 * pg.sw + kw,
                                                 0, 0],
                                      [1, p.to, (b - a - 1) * pg.sh + 1,
                                       (c1 - c0 - 1) * pg.sw + 1, *elem], "conv_window")
                op = _alu_op(kind, dst, src, (pg.sh, pg.sw))
                builder.insert(op)
                copy_location(anchor, op)

    def pool_columns(self, builder: TileBuilder, conv_acc: SSAValue,
                     rows: tuple[int, int]) -> None:
        """In place in the accumulator tile, on its rows ``rows``: the anchor column
        ``sw · j + kw0`` of each pooled column ``j`` takes the maximum with its window column
        ``sw · j + kw`` for every other ``kw``, where that lies in the image.  One ALU ``max``
        per ``kw``, its destination and source column-strided views of the tile; no source
        column is an anchor column (:func:`.conv_pool.separable_columns`), so no micro-op reads
        an element another one writes."""
        f, cfg, p = self.f, self.cfg, self.f.plan
        pg = f.pool.geo
        strides = [1, 1, 1, pg.sw, 1, 1]
        for kw in range(pg.kw):
            c0, c1 = window_span(*self.cols, kw, pg.sw, pg.ow)
            if kw == self.kw0 or c1 <= c0 or rows[1] <= rows[0]:
                continue
            sizes = [1, p.to, rows[1] - rows[0], c1 - c0, cfg.batch, cfg.block_out]
            dst = builder.subview(conv_acc, [0, 0, rows[0], c0 * pg.sw + self.kw0, 0, 0],
                                  sizes, "anchor_cols", strides=strides)
            src = builder.subview(conv_acc, [0, 0, rows[0], c0 * pg.sw + kw, 0, 0], sizes,
                                  "window_cols", strides=strides)
            op = _alu_op(AluKind.MAX, dst, src, (1, 1))
            builder.insert(op)
            copy_location(f.conv.output, op)

    def rect(self, builder: TileBuilder, pooled: SSAValue, rows: range, c0: int,
             c1: int) -> SSAValue:
        """Pooled rows ``rows``, columns ``[c0, c1)`` of a pooled tile."""
        f, cfg = self.f, self.cfg
        if (rows.start, rows.stop, c0, c1) == (0, f.tp, 0, f.pool.geo.ow):
            return pooled
        return builder.subview(pooled, [0, 0, rows.start, c0, 0, 0],
                               [1, f.plan.to, len(rows), c1 - c0, cfg.batch, cfg.block_out],
                               "pooled_rect")

    def tile(self, builder: TileBuilder, tile: _Tile, views: dict[SSAValue, SSAValue],
             counter: LinearForm) -> None:
        f, cfg, p = self.f, self.cfg, self.f.plan
        pg, g = f.pool.geo, f.conv.geo
        elem = [cfg.batch, cfg.block_out]
        pooled = self.copy(builder, counter, 0)
        conv_acc = views[f.conv.acc]
        th, pitch, carry = p.th, self.tiles.pitch_rows, p.carry_rows
        lead = pg.pads[0] - carry
        if tile.rt.is_constant:
            rows = edge_rows(tile.rt.const, pitch, th, lead, g.oh)
        else:
            rows = (0, th)  # a run of tiles inside the image (``.conv_pool._fits_edges``)
        # The first row tile of a channel group (a run of its own when rows are carried)
        # pools all its rows; the others find their first ``jc`` rows set by the tile before.
        first = tile.rt.is_constant and tile.rt.const == 0
        jc = 0 if first or not carry else carried_rows(carry, pg.sh)
        if f.separable:
            # Every row either call below reads, this tile's and those it pools ahead.
            self.pool_columns(builder, conv_acc, rows)
        self.pool_rows(builder, pooled, conv_acc, rows, carry, range(f.tp), range(jc, f.tp),
                       range(pg.kh))
        if carry and not (tile.rt.is_constant and tile.rt.const == self.tiles.n_r - 1):
            # The window rows of the next tile's first pooled rows that lie in this tile.
            ahead = self.copy(builder, counter, 1)
            jn = carried_rows(carry, pg.sh)
            self.pool_rows(builder, ahead, conv_acc, rows, carry - th, range(jn), range(jn),
                           range(carry))
        self.epilogue(builder, pooled, views)
        b0 = builder.value(tile.b, "b0")
        r0 = builder.value(tile.rt * f.tp, "pr0")
        y = f.pool.output.outputs[0]
        y_tile = builder.subview(y, [b0, tile.o0, r0, 0, 0, 0], [1, p.to, f.tp, pg.ow, *elem],
                                 f"{y.name_hint or 'dram'}_tile")
        store = f.pool.output.clone()
        store.operands = [pooled, y_tile]
        builder.insert(store)
        copy_location(f.conv.output, store)

    def epilogue(self, builder: TileBuilder, pooled: SSAValue,
                 views: dict[SSAValue, SSAValue]) -> None:
        """The convolution's epilogue on the pooled tile, its biases read from their tile."""
        conv = self.f.conv
        for op in self.f.epilogue:
            maps = [m.data for m in op.indexing_maps.data]
            operands: list[SSAValue] = []
            for k, v in enumerate(op.operands):
                if v is conv.acc:
                    operands.append(pooled)
                elif v in views:
                    operands.append(views[v])
                    init = conv.inits[v][0]
                    assert isinstance(init, linalg.GenericOp)
                    maps[k] = init.indexing_maps.data[0].data
                else:
                    operands.append(v)
            new = op.clone()
            new.operands = operands
            new.properties["indexing_maps"] = ArrayAttr([AffineMapAttr(m) for m in maps])
            builder.insert(new)
            copy_location(op, new)


def emit_conv_pool(region: ConvPoolRegion, cfg: VTAConfig) -> list[SSAValue]:
    """Tile the fused ``region`` before the convolution's output op, then erase the two
    regions and their int8 buffer; returns the SRAM buffers."""
    conv, pool = region.conv, region.pool
    anchor = conv.output
    # The pooled output is stored from the convolution's place: its buffer must exist there.
    y_op = pool.output.outputs[0].owner
    block = anchor.parent_block()
    if isinstance(y_op, memref.AllocOp) and y_op.parent_block() is block and block is not None \
            and block.get_operation_index(y_op) > block.get_operation_index(anchor):
        y_op.detach()
        block.insert_op_before(y_op, anchor)
    stop = conv.ops.index(conv.conv)
    biases = [conv.inits[a][0] for a in conv.accs if conv.inits[a][1] == "bcast"]
    ops: list[Operation] = [*conv.ops[:stop + 1], *biases]
    virtual = ConvRegion(conv.accs, ops, anchor, conv.conv, conv.x, conv.w, region.geo,
                         conv.inits)
    buffers = emit_conv(virtual, region.plan, cfg, _PoolTail(region, cfg))
    pool.erase()
    conv.erase()
    mid = region.mid
    erase_region([], [u.operation for u in list(mid.uses)], [mid])
    return buffers


def describe(region: ConvPoolRegion) -> str:
    """The remark of ``verbose``."""
    copies = "two pooled tiles" if region.pooled_double else "one pooled tile"
    carry = (f", the last {region.plan.carry_rows} pooled ahead into the next tile"
             if region.plan.carry_rows else "")
    columns = ", window columns first" if region.separable else ""
    return (f"{region.plan.describe()}, every {region.plan.row_pitch} rows{carry}; max-pool fused: "
            f"{region.tp} pooled rows per tile, {copies}{columns}")

