"""``vta-tile`` for pooling regions (stage 1 → 2 of ``docs/pipeline.md``): max-pool and sum
(global average) pool, entirely on VTA's ALU.

A pooling region (:mod:`.pool_region`) has the parts of a convolution region with a pooling
``linalg.generic`` in place of the convolution: its data is a packed ``i8`` DRAM tensor or a
padded copy of one (filled with any ``i8`` value ``v``), its accumulator is initialised to a
constant ``f`` and its epilogue takes immediates.

The tiles are ``tc`` channel blocks × ``th`` output rows × the whole width.  Per tile:

1. the data tile, halo included, is loaded into the **accumulator** SRAM by one ACC_8BIT
   ``vta.dma_copy`` per channel block (sign-extended, ``docs/isa.md`` §3.4), its ``pad``
   fields placing it in the padded tile (the padding rows and columns are zeros, never read);
2. the output tile is initialised to ``f`` (the region's fill and add);
3. for each window offset ``(kh, kw)``, one ALU ``max`` (or ``add``) with the data tile as
   source, ``vta.alu max %acc[d], %win[s]`` over the output rows and columns with source steps
   ``sh·WT`` and ``sw``, **restricted to the outputs whose element (kh, kw) lies in the image**:
   a rectangle per offset and per run of row tiles padded alike.  Offsets of equal rectangles
   are one host loop; each is an element-wise generic on SRAM views
   (``ins(%acc_view, %win_view)``, source map ``(b, c, h, w, bb, cc) -> (b, c, h*sh, w*sw,
   bb, cc)``); the window loops carry :data:`WINDOW_LOOP_ATTR` and stay host loops around one
   ALU instruction each, so no micro-op writes the element of one of the two before it (the
   write-hazard rule);
4. for a max-pool whose padding value ``v`` exceeds ``f``, an ALU ``max v`` over the outputs
   whose window touches the padding (the top and bottom rows, the left and right columns):
   exactly MLIR's ``max(f, max over the padded window)``, whatever ``v``;
5. the epilogue and the ``trunci`` store of the region, as for a convolution.

A sum pooling reads padding only when it is 0 (``vta-pack`` checks), so skipping it is exact.

The plan: the ``tc`` dividing the channel blocks and ``th`` dividing the output rows whose
tiles fit the accumulator SRAM share of the region — one data tile (the compute module loads
and reads it, in order) and two output tiles when double-buffered (the store of one overlaps
the next tile; a region of one tile has one) — with the fewest modelled cycles (the compute
module executes the ACC_8BIT loads and the ALU instructions one after the other).  A tile of
whole unpadded channel blocks (a global pooling) is one DMA of ``tc·H`` rows.

Before (3×3, stride 2, padding 1 filled with −128, 1×64×112×112, default configuration)::

    %xp = memref.alloc() : memref<1x4x114x114x1x16xi8>
    linalg.fill ins(%cm128_i8 : i8) outs(%xp : ...)
    %xi = memref.subview %xp[0, 0, 1, 1, 0, 0] [1, 4, 112, 112, 1, 16] [1, 1, 1, 1, 1, 1] : ...
    memref.copy %x, %xi : ...
    linalg.fill ins(%c0 : i32) outs(%acc : memref<1x4x56x56x1x16xi32>)
    linalg.generic ins(%acc) outs(%acc) { addi -128 }
    %window = memref.alloc() : memref<3x3xi8>
    linalg.generic {pooling maps} ins(%xp, %window) outs(%acc) { extsi, maxsi }
    linalg.generic ins(%acc) outs(%y) { trunci }

After (abridged; one middle row tile of 4 output rows)::

    %win = memref.alloc() : memref<1x1x9x113x1x16xi32, #vta.sram<acc>>
    %acc = memref.alloc() : memref<2x1x1x4x56x1x16xi32, #vta.sram<acc>>
    affine.for %r = 0 to 12 {
      ...
      vta.dma_copy %x[%x_pos] -> %win[0] y 9 x 112 stride 112 pad [0, 0, 1, 0] : ...
      linalg.fill ins(%c0 : i32) outs(%acc_view : ...)
      linalg.generic ins(%acc_view) outs(%acc_view) { addi -128 }
      affine.for %kh = 0 to 3 {
        affine.for %kw = 0 to 2 {                 // kw = 1, 2: every output column
          %src = memref.subview %win[0, 0, %kh, %kw1, 0, 0] [1, 1, 7, 111, 1, 16] ...
          linalg.generic {(b, c, h, w, bb, cc) -> (b, c, h * 2, w * 2, bb, cc)}
              ins(%acc_view, %src) outs(%acc_view) { maxsi }
        } {vta.window}
      } {vta.window}
      ...                                         // kw = 0: the output columns 1 .. 55
      linalg.generic ins(%acc_view) outs(%y_tile) { trunci }
    } {vta.double_buffer}
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    MemRefType,
    UnitAttr,
    i32,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import DmaCopyOp
from vta_mlir.dialects.vta_positions import Sram
from vta_mlir.ir.locations import copy_location
from vta_mlir.isa import AluKind
from vta_mlir.passes.analysis.alu_ops import ALU_KINDS

from ..analysis.sram_views import LinearForm, affine_of_form
from .builder import Index, TileBuilder
from .conv_plan import Run, padding_runs
from .cost import Budget, NoFit
from .padded import shape_of
from .pool_operands import PoolOperand, load_operand, padded_sum_rectangles
from .pool_region import PoolGeometry, PoolRegion
from .search import divisors

__all__ = ["WINDOW_LOOP_ATTR", "PoolPlan", "choose_pool_plan", "emit_pool"]

#: Unit attribute on the window-offset loops of a pooling region: host loops, one ALU
#: instruction per offset (``vta-fold-uop-loops`` folds no loop that has attributes).
WINDOW_LOOP_ATTR = "vta.window"
_IDENTITY6 = AffineMap.identity(6)
_D = [AffineExpr.dimension(k) for k in range(6)]


# --------------------------------------------------------------------------------------------
# The plan
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PoolPlan:
    """A tiling of a pooling region: ``tc`` channel blocks × ``th`` output rows per tile."""

    tc: int
    th: int
    double_buffer: bool

    def describe(self) -> str:
        db = "double-buffered" if self.double_buffer else "single-buffered"
        return f"pooling tile {self.tc} channel blocks x {self.th} rows, {db}"


@dataclass(frozen=True)
class PoolTiles:
    """What a plan implies for the tiles' shapes."""

    geo: PoolGeometry
    plan: PoolPlan

    @property
    def ht(self) -> int:
        """Rows of a data tile (halo included)."""
        return (self.plan.th - 1) * self.geo.sh + self.geo.kh

    @property
    def wt(self) -> int:
        """Columns of a data tile (halo included)."""
        return (self.geo.ow - 1) * self.geo.sw + self.geo.kw

    @property
    def n_c(self) -> int:
        return self.geo.cb // self.plan.tc

    @property
    def n_r(self) -> int:
        return self.geo.oh // self.plan.th

    def row_runs(self) -> list[Run]:
        g = self.geo
        return padding_runs(self.n_r, self.plan.th * g.sh, g.pads[0], self.ht, g.h)

    def col_run(self) -> Run:
        g = self.geo
        (run,) = padding_runs(1, 1, g.pads[2], self.wt, g.w)
        return run

    @property
    def whole_channels(self) -> bool:
        """A tile holds whole channel blocks, unpadded: its channel blocks are one run of rows
        in DRAM and in SRAM, one DMA."""
        run, crun = self.row_runs()[0], self.col_run()
        return (self.n_r == 1 and (run.before, run.after, run.size) == (0, 0, self.geo.h)
                and (crun.before, crun.after, crun.size) == (0, 0, self.geo.w))

    def acc_elements(self) -> int:
        """The data tile (one copy: the compute module loads it and reads it, in order) and
        the output tile (two copies when double-buffered: the store of one overlaps the next
        tile)."""
        p, g = self.plan, self.geo
        return p.tc * (self.ht * self.wt + (2 if p.double_buffer else 1) * p.th * g.ow
                       + g.operand_tiles * p.th * g.ow + g.operand_rows)


def _inside(lo_pad: int, span: int, hi_pad: int, k: int, stride: int,
            count: int) -> tuple[int, int]:
    """The outputs ``j`` (``0 <= j < count``) whose element ``k`` of the window, at
    ``j * stride + k`` in a tile of ``span`` rows with ``lo_pad`` / ``hi_pad`` padding rows,
    lies in the image: ``[first, last)`` (empty when ``first >= last``)."""
    first = max(0, -(-(lo_pad - k) // stride))
    last = min(count, (span - hi_pad - 1 - k) // stride + 1) if span - hi_pad - 1 - k >= 0 else 0
    return first, last


def _groups(lo_pad: int, span: int, hi_pad: int, kernel: int, stride: int,
            count: int) -> list[tuple[int, int, int, int]]:
    """Window offsets of equal output ranges: ``(k0, k1, first, last)`` for the offsets
    ``k0 <= k < k1``, each restricted to the outputs ``first <= j < last`` (non-empty)."""
    groups: list[tuple[int, int, int, int]] = []
    for k in range(kernel):
        first, last = _inside(lo_pad, span, hi_pad, k, stride, count)
        if first >= last:
            continue
        if groups and groups[-1][1] == k and groups[-1][2:] == (first, last):
            groups[-1] = (groups[-1][0], k + 1, first, last)
        else:
            groups.append((k, k + 1, first, last))
    return groups


def _common(lo_pad: int, span: int, hi_pad: int, kernel: int, stride: int,
            count: int) -> tuple[int, int]:
    """The outputs ``[first, last)`` for which every window offset lies in the image (empty
    when ``first >= last``)."""
    ranges = [_inside(lo_pad, span, hi_pad, k, stride, count) for k in range(kernel)]
    return max(r[0] for r in ranges), min(r[1] for r in ranges)


def _estimate(tiles: PoolTiles, cfg: VTAConfig) -> int:
    """Modelled cycles: the compute module loads each data tile (ACC_8BIT) and runs the ALU
    instructions one after the other; the store of a tile overlaps the next tile when
    double-buffered."""
    g, p, t = tiles.geo, tiles.plan, cfg.timing
    lanes = cfg.batch * cfg.block_out
    count = g.nb * tiles.n_c * tiles.n_r
    dmas = 1 if tiles.whole_channels else p.tc
    load = dmas * t.dma_latency + -(-p.tc * tiles.ht * tiles.wt * lanes
                                     // t.dram_bytes_per_cycle)
    uops = p.tc * p.th * g.ow
    windows = g.kh * g.kw
    # An ALU instruction covers two loop levels: the channel blocks stay a host loop when the
    # output rows and columns take both.
    per_window = p.tc if p.th > 1 and g.ow > 1 else 1
    alu = (2 + 2 * windows) * uops + t.pipeline_depth * per_window * (2 + windows + 4)
    store = t.dma_latency + -(-uops * lanes // t.dram_bytes_per_cycle)
    # The epilogue's operand tiles, loaded by the compute module too (4-byte elements).
    operands = g.operand_tiles * (t.dma_latency + -(-4 * uops * lanes
                                                      // t.dram_bytes_per_cycle))
    operands += g.operand_rows * (t.dma_latency + -(-4 * p.tc * lanes // t.dram_bytes_per_cycle))
    return count * (load + alu + operands) + (store if p.double_buffer else count * store)


def choose_pool_plan(region: PoolRegion, cfg: VTAConfig, budget: Budget) -> PoolPlan:
    """The plan of fewest modelled cycles whose tiles fit the accumulator SRAM share."""
    g = region.geo
    best: tuple[int, PoolPlan] | None = None
    for db in (True, False):
        for tc in divisors(g.cb):
            for th in divisors(g.oh):
                if db and g.nb * g.cb * g.oh == tc * th:
                    continue  # a single tile: nothing to overlap its store with
                tiles = PoolTiles(g, PoolPlan(tc, th, db))
                if tiles.acc_elements() > budget.acc:
                    continue
                cost = _estimate(tiles, cfg)
                if best is None or cost < best[0]:
                    best = (cost, tiles.plan)
    if best is None:
        one = PoolTiles(g, PoolPlan(1, 1, False)).acc_elements()
        size = cfg.acc_elem_bytes
        raise NoFit(f"one output row of one channel block and its data rows take {one} "
                    f"elements ({one * size} bytes) of the accumulator SRAM (#vta.sram<acc>), "
                    f"which has {budget.acc} ({budget.acc * size} bytes) available")
    return best[1]


# --------------------------------------------------------------------------------------------
# Emission
# --------------------------------------------------------------------------------------------


class _PoolEmitter(TileBuilder):
    """Builds the loop nest of one pooling region before its output op."""

    def __init__(self, region: PoolRegion, plan: PoolPlan, cfg: VTAConfig) -> None:
        super().__init__(region.output, plan.double_buffer)
        self.r, self.plan, self.cfg = region, plan, cfg
        self.t = PoolTiles(region.geo, plan)
        acc_t = region.accs[0].type
        assert isinstance(acc_t, MemRefType)
        lead = [2] if plan.double_buffer else []
        elem = [cfg.batch, cfg.block_out]
        self.win = self.alloc(Sram.ACC, [1, plan.tc, self.t.ht, self.t.wt, *elem], acc_t)
        self.win.name_hint = "win"
        self.acc = self.alloc(Sram.ACC, [*lead, 1, plan.tc, plan.th, region.geo.ow, *elem],
                              acc_t)
        #: One SRAM tile per operand accumulator of the epilogue (.pool_operands).
        self.operands = {o.acc: (o, self.alloc(Sram.ACC, [1, plan.tc, 1, 1, shape_of(
            o.src)[4], cfg.block_out] if o.kind == "bcast" else [1, plan.tc, plan.th,
                                                                  region.geo.ow, *elem], acc_t))
            for o in region.operands}

    def copy_view(self, buf: SSAValue, copy: Index) -> SSAValue:
        if not self.plan.double_buffer:
            return buf
        shape = list(shape_of(buf))
        return self.subview(buf, [copy, *[0] * (len(shape) - 1)], [1, *shape[1:]],
                            f"{buf.name_hint}_view", drop_first=True)

    def emit(self) -> None:
        g = self.r.geo
        with self.loop(g.nb, "b") if g.nb > 1 else nullcontext() as bv:
            b = LinearForm.of(bv) if bv is not None else LinearForm()
            with self.loop(self.t.n_c, "c") if self.t.n_c > 1 else nullcontext() as cv:
                ct = LinearForm.of(cv) if cv is not None else LinearForm()
                for run in self.t.row_runs():
                    with self.loop(run.count, "r") if run.count > 1 else nullcontext() as rv:
                        rt = LinearForm({rv: 1}, run.first) if rv is not None \
                            else LinearForm(const=run.first)
                        self.tile(b, ct, rt, run)

    def tile(self, b: LinearForm, ct: LinearForm, rt: LinearForm, run: Run) -> None:
        g, p, t, cfg, r = self.r.geo, self.plan, self.t, self.cfg, self.r
        counter = (b * t.n_c + ct) * t.n_r + rt
        copy: Index = 0
        if p.double_buffer:
            if counter.is_constant:
                copy = counter.const % 2
            else:
                values = [v for v in counter.terms if isinstance(v, SSAValue)]
                expr = affine_of_form(LinearForm(counter.terms), values) + counter.const
                copy = self.apply_n(values, expr % 2, "copy")
        win, acc = self.win, self.copy_view(self.acc, copy)
        crun = t.col_run()
        # The data tile: one ACC_8BIT load per channel block, the halo outside the image from
        # the pad fields (zeros, never read).
        row0 = rt * (p.th * g.sh) + (run.before - g.pads[0])
        col0 = crun.before - g.pads[2]
        # A tile wholly in the padding (windows past the image's edges) reads nothing; a tile
        # of whole unpadded channel blocks is one run of rows.
        loaded = run.size > 0 and crun.size > 0
        rows, blocks = run.size, p.tc
        if t.whole_channels and p.tc * g.h < 1 << self.cfg.mem_fields["y_size"].width:
            rows, blocks = p.tc * g.h, 1
        with self.loop(blocks, "ci") if blocks > 1 and loaded else nullcontext() as ci:
            cl = LinearForm.of(ci) if ci is not None else LinearForm()
            channel = b * g.cb + ct * p.tc + cl
            dram = (channel * g.h + row0) * g.w + col0
            sram = cl * (t.ht * t.wt)
            if loaded:
                self.insert(DmaCopyOp(r.x, self.win, x_size=crun.size, y_size=rows,
                                      x_stride=g.w, src_pos=self.position(dram, "x_pos"),
                                      dst_pos=self.position(sram, "win_pos"),
                                      pad=(run.before, run.after, crun.before, crun.after)))
        c0 = self.value(ct * p.tc, "c0")
        r0 = self.value(rt * p.th, "r0")
        b0 = self.value(b, "b0")
        loads = {o.init: o for o in r.operands if o.loaded}
        for op in r.ops:
            if op is r.pool:
                self.windows(win, acc, run, crun)
                continue
            if op in loads:
                self.load_operand(loads[op], b0, c0, r0)
                continue
            operands: list[SSAValue] = []
            for v in op.operands:
                if v is r.accs[0]:
                    operands.append(acc)
                elif v in self.operands:
                    operands.append(self.operands[v][1])
                elif isinstance(v.type, MemRefType):
                    operands.append(self.subview(v, [b0, c0, r0, 0, 0, 0],
                                                 [1, p.tc, p.th, g.ow, cfg.batch, cfg.block_out],
                                                 f"{v.name_hint or 'dram'}_tile"))
                else:
                    operands.append(v)
            new = op.clone()
            new.operands = operands
            if isinstance(new, linalg.GenericOp):
                # A per-channel operand is read with its broadcasting map.
                new.properties["indexing_maps"] = ArrayAttr([
                    self.operands[v][0].init.indexing_maps.data[0]
                    if v in self.operands and self.operands[v][0].kind == "bcast"
                    else m for v, m in zip(op.operands, new.indexing_maps.data, strict=True)])
            self.insert(new)
            copy_location(op, new)

    def load_operand(self, operand: PoolOperand, b0: Index, c0: Index, r0: Index) -> None:
        p, g, cfg = self.plan, self.r.geo, self.cfg
        rows = (1, 1) if operand.kind == "bcast" else (p.th, g.ow)
        lanes = shape_of(operand.src)[4] if operand.kind == "bcast" else cfg.batch
        start = [0, c0, 0] if operand.kind == "bcast" else [b0, c0, r0]
        load_operand(self, operand, self.operands[operand.acc][1], [*start, 0, 0, 0],
                     [1, p.tc, *rows, lanes, cfg.block_out])

    def windows(self, win: SSAValue, acc: SSAValue, run: Run, crun: Run) -> None:
        """One ALU instruction per window offset, on the outputs whose element of the window
        lies in the image; then ``max v`` where the padding ``v`` wins (module doc)."""
        # The window loops are not tile loops: vta.double_buffer marks only those.
        saved, self.double_buffer = self.double_buffer, False
        try:
            self.window_ops(win, acc, run, crun)
        finally:
            self.double_buffer = saved

    def window_ops(self, win: SSAValue, acc: SSAValue, run: Run, crun: Run) -> None:
        g, p, t = self.r.geo, self.plan, self.t
        rows = _groups(run.before, t.ht, run.after, g.kh, g.sh, p.th)
        cols = _groups(crun.before, t.wt, crun.after, g.kw, g.sw, g.ow)
        for k0, k1, first, last in rows:
            for w0, w1, cfirst, clast in cols:
                self.window_group((k0, k1), (first, last), (w0, w1), (cfirst, clast), win, acc)
        if g.kind == AluKind.ADD and g.pad_value:
            # The padding's value, once per padded tap (.pool_operands).
            for r0, r1, c0, c1, imm in padded_sum_rectangles(
                    g.pad_value, (g.kh, g.kw), (g.sh, g.sw),
                    (run.before, t.ht, run.after, p.th), (crun.before, t.wt, crun.after, g.ow)):
                view = self.subview(acc, [0, 0, r0, c0, 0, 0],
                                    [1, p.tc, r1 - r0, c1 - c0, *shape_of(acc)[4:]], "acc_pad")
                self.insert(_alu_op(AluKind.ADD, view, imm=imm))
        if g.kind != AluKind.MAX or g.pad_value <= g.init:
            return
        # The outputs whose window reaches the padding: those in a row (column) outside the
        # rows (columns) every window offset reads in the image — all of them when an offset
        # reads none.
        top, bottom = _common(run.before, t.ht, run.after, g.kh, g.sh, p.th)
        left, right = _common(crun.before, t.wt, crun.after, g.kw, g.sw, g.ow)
        if top >= bottom or left >= right:
            top, bottom, left, right = p.th, p.th, g.ow, g.ow
        bands = [(0, top, 0, g.ow), (bottom, p.th, 0, g.ow),
                 (top, bottom, 0, left), (top, bottom, right, g.ow)]
        for r0, r1, c0, c1 in bands:
            if r1 > r0 and c1 > c0:
                view = self.subview(acc, [0, 0, r0, c0, 0, 0],
                                    [1, p.tc, r1 - r0, c1 - c0, *shape_of(acc)[4:]], "acc_border")
                self.insert(_alu_op(AluKind.MAX, view, imm=g.pad_value))

    def window_group(self, ks: tuple[int, int], rows: tuple[int, int], ws: tuple[int, int],
                     cols: tuple[int, int], win: SSAValue, acc: SSAValue) -> None:
        g, p = self.r.geo, self.plan
        (k0, k1), (first, last), (w0, w1), (cfirst, clast) = ks, rows, ws, cols
        nr, nc = last - first, clast - cfirst
        elem = list(shape_of(acc)[4:])
        dst = self.subview(acc, [0, 0, first, cfirst, 0, 0], [1, p.tc, nr, nc, *elem],
                           "acc_rect") if (nr, nc) != (p.th, g.ow) else acc
        with self.loop(k1 - k0, "kh") if k1 - k0 > 1 else nullcontext() as khv:
            with self.loop(w1 - w0, "kw") if w1 - w0 > 1 else nullcontext() as kwv:
                for iv in (khv, kwv):
                    if iv is not None:
                        # A host loop: vta-fold-uop-loops keeps loops with attributes, so each
                        # window offset stays one instruction and no micro-op writes the
                        # element of the one before it.
                        loop = iv.owner.parent_op()  # type: ignore[union-attr]
                        assert loop is not None
                        loop.attributes[WINDOW_LOOP_ATTR] = UnitAttr()
                row = LinearForm({khv: 1}, first * g.sh + k0) if khv is not None \
                    else LinearForm(const=first * g.sh + k0)
                col = LinearForm({kwv: 1}, cfirst * g.sw + w0) if kwv is not None \
                    else LinearForm(const=cfirst * g.sw + w0)
                src = self.subview(win, [0, 0, self.value(row, "kh0"), self.value(col, "kw0"),
                                         0, 0],
                                   [1, p.tc, (nr - 1) * g.sh + 1, (nc - 1) * g.sw + 1, *elem],
                                   "win_view")
                self.insert(_alu_op(g.kind, dst, src=src, strides=(g.sh, g.sw)))


def _alu_op(kind: AluKind, acc: SSAValue, *, imm: int | None = None, src: SSAValue | None = None,
            strides: tuple[int, int] = (1, 1)) -> linalg.GenericOp:
    """``acc = kind(acc, imm)``, or ``kind(acc, src)`` with ``src`` read ``strides`` apart
    along the rows and columns: ``(b, c, h, w, bb, cc) -> (b, c, h*sh, w*sw, bb, cc)``."""
    inputs = [acc] if src is None else [acc, src]
    block = Block(arg_types=[i32] * (len(inputs) + 1))
    if src is None:
        assert imm is not None
        const = arith.ConstantOp.from_int_and_width(imm, 32)
        block.add_op(const)
        rhs = const.result
    else:
        rhs = block.args[1]
    result = ALU_KINDS[kind](block.args[0], rhs)  # type: ignore[call-arg]
    block.add_op(result)
    block.add_op(linalg.YieldOp(result.results[0]))
    sh, sw = strides
    strided = AffineMap(6, 0, (_D[0], _D[1], _D[2] * sh, _D[3] * sw, _D[4], _D[5]))
    maps = [AffineMapAttr(_IDENTITY6)] * (len(inputs) + 1)
    if src is not None:
        maps[1] = AffineMapAttr(strided)
    return linalg.GenericOp(inputs, [acc], Region(block), maps,
                            [IteratorTypeAttr.parallel()] * 6)


def emit_pool(region: PoolRegion, plan: PoolPlan, cfg: VTAConfig) -> list[SSAValue]:
    """Tile ``region`` with ``plan`` (before its output op); returns the SRAM buffers."""
    emitter = _PoolEmitter(region, plan, cfg)
    emitter.emit()
    return [emitter.win, emitter.acc, *(buf for _, buf in emitter.operands.values())]
