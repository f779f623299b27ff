"""``vta-tile`` for convolution regions: the loop nest of a :class:`~.conv_plan.ConvPlan`
(stage 1 → 2 of ``docs/pipeline.md``; the region is :mod:`.conv_region`'s).

Each output tile (``to`` channel blocks × ``th`` rows × the whole width) accumulates in SRAM
over the input steps, then runs the epilogue and stores its rows, so every output element is
stored once.  Per step, the input tile — ``ti`` channel blocks × the rows and columns the
tile's outputs read, halo included — is loaded with one ``vta.dma_copy`` per channel block
whose ``pad`` fields supply the zero padding (``docs/isa.md`` §2.3, §3.3): the padded tensor is
never built in DRAM.  Row tiles whose halo crosses the top or bottom of the image need other pad
fields than those between them, so the row tiles are split into runs of equal padding (a loop
per run of more than one tile).  When all row tiles pad alike and nothing is loaded per output
channel tile, one loop runs over all output tiles, so that buffers alternating between
consecutive tiles (accumulators, input copies) alternate across the whole region.  Up to
:data:`UNROLL_STEPS` input steps are written out, so their tokens run across tiles instead of
being primed and drained in every tile.  Resident weights loaded once for the region are loaded
by the first tile, a slice per step, so its first GEMM waits for one slice.  A per-channel bias
is loaded once (or once per output channel tile) and added with a broadcasting map.

Before (3×3, pad 1, stride 1; 1×64×56×56 → 64 channels; default configuration)::

    %xp = memref.alloc() : memref<1x4x58x58x1x16xi8>
    linalg.fill ins(%c0_i8 : i8) outs(%xp : ...)
    %xi = memref.subview %xp[0, 0, 1, 1, 0, 0] [1, 4, 56, 56, 1, 16] [1, 1, 1, 1, 1, 1]
    memref.copy %x, %xi
    linalg.fill ins(%c0 : i32) outs(%acc : memref<1x4x56x56x1x16xi32>)
    linalg.generic {conv maps} ins(%xp, %w) outs(%acc) { extsi, extsi, muli, addi }
    ... epilogue, trunci into %y

After (abridged; 4 output blocks × 4 rows × 1 input block, resident weights)::

    %inp = memref.alloc() : memref<2x1x1x6x58x1x16xi8, #vta.sram<inp>>
    %wgt = memref.alloc() : memref<4x4x1x3x3x16x16xi8, #vta.sram<wgt>>
    %acc = memref.alloc() : memref<2x1x4x4x56x1x16xi32, #vta.sram<acc>>
    // the first row tile: streams the weight slices; one halo row on top is padding
    linalg.fill ins(%c0 : i32) outs(%acc_view : ...)
    vta.dma_copy %x[0] -> %inp[0] y 5 x 56 stride 56 pad [1, 0, 1, 1] : ...
    memref.copy %w_tile, %wgt_slice : ...
    linalg.generic {conv maps} ins(%inp_view, %wgt_slice) outs(%acc_view) {...}
    ...                                             // three more steps, the epilogue, the store
    affine.for %r = 0 to 12 {                       // the middle row tiles
      ... pad [0, 0, 1, 1] ...
    } {vta.double_buffer}
    ...                                             // the last row tile, pad [0, 1, 1, 1]
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Protocol

from xdsl.dialects import memref
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, IntegerType, MemRefType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import DmaCopyOp
from vta_mlir.dialects.vta_positions import Sram
from vta_mlir.ir.locations import copy_location

from ..analysis.sram_views import LinearForm
from .builder import Index, TileBuilder
from .conv_plan import ConvPlan, ConvTiles, Run
from .conv_region import ConvRegion

__all__ = ["UNROLL_STEPS", "ConvTail", "emit_conv"]

#: Input-channel steps per tile up to which the step loop is written out.
UNROLL_STEPS = 8


@dataclass(frozen=True)
class _TilePos:
    """Where an output tile is: batch, channel, row and column tile indices (host values),
    its first output channel block, and the padding runs of its rows and columns."""

    b: LinearForm
    ot: LinearForm
    o0: Index
    rt: LinearForm
    run: Run
    ct: LinearForm
    crun: Run


class ConvTail(Protocol):
    """What follows the convolution of each output tile when the region's ops stop at it (a
    pooling fused after the convolution, :mod:`.conv_pool`)."""

    def allocate(self, builder: TileBuilder) -> list[SSAValue]:
        """The tail's SRAM buffers, allocated with the convolution's."""
        ...

    def tile(self, builder: TileBuilder, tile: _TilePos, views: dict[SSAValue, SSAValue],
             counter: LinearForm) -> None:
        """The ops after the convolution of ``tile``, the ``counter``-th output tile, whose
        accumulator tiles are ``views``."""
        ...


class _ConvEmitter(TileBuilder):
    """Builds the loop nest of one convolution region before its output op."""

    def __init__(self, region: ConvRegion, plan: ConvPlan, cfg: VTAConfig,
                 tail: ConvTail | None = None) -> None:
        super().__init__(region.output, plan.double_buffer)
        self.r, self.plan, self.cfg = region, plan, cfg
        self.t = ConvTiles(region.geo, plan)
        self.bufs: dict[SSAValue, SSAValue] = {}
        self.db_wgt = False
        self.tail = tail
        self.tail_bufs: list[SSAValue] = []

    # ---- index values ---------------------------------------------------------------------

    def parity(self, counter: LinearForm, copies: int = 2) -> Index:
        """Which of ``copies`` rotating buffer copies the ``counter``-th use takes (one value
        per loop scope for each counter and number of copies)."""
        if counter.is_constant:
            return counter.const % copies
        values, expr = self.form_expr(counter)
        key = ("parity", copies, tuple(values), expr)
        found = self.cached(key)
        if found is None:
            found = self.cache[-1][key] = self.apply_n(values, expr % copies, "copy")
        return found

    # ---- buffers --------------------------------------------------------------------------

    def allocate(self) -> None:
        g, p, t, cfg = self.r.geo, self.plan, self.t, self.cfg
        x_t, w_t = self.r.x.type, self.r.w.type
        assert isinstance(x_t, MemRefType) and isinstance(w_t, MemRefType)
        lead = [p.inp_copies] if p.double_buffer else []
        self.inp = self.alloc(Sram.INP, [*lead, 1, t.inp_blocks, t.ht, t.wt, cfg.batch,
                                          cfg.block_in], x_t)
        loads = t.n_o if p.wgt_resident else t.n_o * t.n_r * t.n_i
        self.db_wgt = p.double_buffer and loads * g.nb > 1
        wlead = [2] if self.db_wgt else []
        # Resident weights are held slice by slice (one input step's channels each), so that
        # a slice is dense in SRAM: one 2-D DMA loads it.
        slices = [t.n_i] if p.wgt_resident else []
        self.wgt = self.alloc(Sram.WGT, [*wlead, *slices, p.to, p.ti, g.kh, g.kw,
                                         cfg.block_out, cfg.block_in], w_t)
        for acc in self.r.accs:
            a_t = acc.type
            assert isinstance(a_t, MemRefType)
            if self.r.inits[acc][1] == "bcast":
                shape = [1, g.ob if self.t.flat else p.to, 1, 1, cfg.batch, cfg.block_out]
            else:
                shape = [*([2] if p.acc_double else []), 1, p.to, p.th, t.tw, cfg.batch,
                         cfg.block_out]
            self.bufs[acc] = self.alloc(Sram.ACC, shape, a_t)
        #: The accumulator tiles of the first tile when it has its own.
        first_shape = [1, p.to, p.th, t.tw, cfg.batch, cfg.block_out]
        self.first_bufs: dict[SSAValue, SSAValue] = {}
        for acc in self.r.accs:
            if p.first_acc and self.r.inits[acc][1] != "bcast":
                a_t = acc.type
                assert isinstance(a_t, MemRefType)
                self.first_bufs[acc] = self.alloc(Sram.ACC, first_shape, a_t)

    def copy_view(self, buf: SSAValue, doubled: bool, copy: Index) -> SSAValue:
        t = buf.type
        assert isinstance(t, MemRefType)
        shape = list(t.get_shape())
        if not doubled:
            return buf
        return self.subview(buf, [copy, *[0] * (len(shape) - 1)], [1, *shape[1:]],
                            f"{buf.name_hint}_view", drop_first=True)

    def dram_tile(self, src: SSAValue, starts: Sequence[Index], sizes: Sequence[int]) -> SSAValue:
        return self.subview(src, list(starts), list(sizes), f"{src.name_hint or 'dram'}_tile")

    # ---- the nest -------------------------------------------------------------------------

    def emit(self) -> None:
        g = self.r.geo
        self.allocate()
        if self.tail is not None:
            self.tail_bufs = self.tail.allocate(self)
        if self.t.flat:
            self.flat_level()
        elif g.nb > 1:
            with self.loop(g.nb, "b") as iv:
                self.o_level(LinearForm.of(iv))
        else:
            self.o_level(LinearForm())

    def flat_level(self) -> None:
        p, t, g = self.plan, self.t, self.r.geo
        wview = self.load_whole_operands()
        (run,), (crun,) = t.row_runs(), t.col_runs()
        first = 0
        if self.t.streaming:
            # The first tile loads the weights, one input step's slice at a time.
            zero = LinearForm()
            self.r_body(_TilePos(zero, zero, 0, zero, run, zero, crun), wview, zero, stream=True)
            first = 1
        count = t.tiles - first
        if count < 1:
            return
        with self.loop(count, "t") as tv:
            d0 = AffineExpr.dimension(0) + first

            def part(n: int, inner: int, name: str) -> LinearForm:
                if n == 1:
                    return LinearForm()
                expr = d0 // inner if inner > 1 else d0
                return LinearForm({self.apply(tv, expr % n, name): 1})

            b = part(g.nb, t.n_o * t.n_r * t.n_c, "b")
            ot = part(t.n_o, t.n_r * t.n_c, "o")
            rt = part(t.n_r, t.n_c, "r")
            ct = part(t.n_c, 1, "c")
            o0 = self.value(ot * p.to, "o0")
            self.r_body(_TilePos(b, ot, o0, rt, run, ct, crun), wview, LinearForm({tv: 1}, first))

    def streaming(self) -> bool:
        """:attr:`ConvTiles.streaming`: the first tile loads the resident weights, a slice per
        input step, so its first step does not wait for all of them."""
        return self.t.streaming

    def load_whole_operands(self) -> SSAValue | None:
        """Before a flattened loop: the resident weights (one output tile) and the biases of
        every channel."""
        p, g = self.plan, self.r.geo
        wview = None
        if p.wgt_resident:
            wview = self.wgt
            if not self.t.streaming:
                self.load_weight_slices(wview, 0)
        self.load_biases(0, g.ob)
        return wview

    def load_weight_slices(self, wview: SSAValue, o0: Index) -> None:
        """Copy the resident weights of the output tile at ``o0``, slice by slice."""
        n_i = self.t.n_i
        with self.loop(n_i, "s") if n_i > 1 else nullcontext() as sv:
            it = LinearForm.of(sv) if sv is not None else LinearForm()
            self.load_weight_slice(wview, it, o0)

    def load_weight_slice(self, wview: SSAValue, it: LinearForm, o0: Index) -> SSAValue:
        """Copy slice ``it`` of the resident weights; returns its view."""
        p, g, cfg = self.plan, self.r.geo, self.cfg
        view = self.weight_slice(wview, it)
        i0 = self.value(it * p.ti, "i0")
        src = self.dram_tile(self.r.w, [o0, i0, 0, 0, 0, 0],
                             [p.to, p.ti, g.kh, g.kw, cfg.block_out, cfg.block_in])
        self.insert(memref.CopyOp(src, view))
        return view

    def weight_slice(self, wview: SSAValue, it: LinearForm) -> SSAValue:
        p, g, cfg = self.plan, self.r.geo, self.cfg
        index = self.value(it, "slice")
        return self.subview(wview, [index, 0, 0, 0, 0, 0, 0],
                            [1, p.to, p.ti, g.kh, g.kw, cfg.block_out, cfg.block_in],
                            "wgt_slice", drop_first=True)

    def load_biases(self, o0: Index, size: int) -> None:
        for acc in self.r.accs:
            op, kind = self.r.inits[acc]
            if kind == "bcast":
                assert isinstance(op, linalg.GenericOp)
                src = op.inputs[0]
                s_t = src.type
                assert isinstance(s_t, MemRefType)
                lanes = s_t.get_shape()[4]
                tile = self.dram_tile(src, [0, o0, 0, 0, 0, 0],
                                      [1, size, 1, 1, lanes, self.cfg.block_out])
                self.init_copy(op, tile, self.bufs[acc])

    def o_level(self, b: LinearForm) -> None:
        n_o = self.t.n_o
        if n_o > 1:
            with self.loop(n_o, "o") as iv:
                self.o_body(b, LinearForm.of(iv))
        else:
            self.o_body(b, LinearForm())

    def o_body(self, b: LinearForm, ot: LinearForm) -> None:
        p, t = self.plan, self.t
        o0 = self.value(ot * p.to, "o0")
        wview = None
        if p.wgt_resident:
            copy = self.parity(b * t.n_o + ot) if self.db_wgt else 0
            wview = self.copy_view(self.wgt, self.db_wgt, copy)
            if not self.t.streaming:
                self.load_weight_slices(wview, o0)
        self.load_biases(o0, p.to)
        stream = self.t.streaming
        for run in t.row_runs():
            first = run.first
            if stream:
                # A single column of tiles (streaming needs it): the first tile is written out.
                (crun,) = t.col_runs()
                tile = _TilePos(b, ot, o0, LinearForm(const=first), run, LinearForm(), crun)
                self.r_body(tile, wview, stream=True)
                stream, first = False, first + 1
            count = run.first + run.count - first
            if count > 1:
                with self.loop(count, "r") as iv:
                    self.col_level(b, ot, o0, LinearForm({iv: 1}, first), run, wview)
            elif count == 1:
                self.col_level(b, ot, o0, LinearForm(const=first), run, wview)

    def col_level(self, b: LinearForm, ot: LinearForm, o0: Index, rt: LinearForm, run: Run,
                  wview: SSAValue | None) -> None:
        for crun in self.t.col_runs():
            if crun.count > 1:
                with self.loop(crun.count, "c") as iv:
                    self.r_body(_TilePos(b, ot, o0, rt, run, LinearForm({iv: 1}, crun.first), crun),
                                wview)
            else:
                self.r_body(_TilePos(b, ot, o0, rt, run, LinearForm(const=crun.first), crun), wview)

    def init_copy(self, op: linalg.GenericOp, src: SSAValue, dst: SSAValue) -> None:
        """The initialisation ``op`` on a tile: a plain copy of i32 values, else ``op`` with
        identity maps (a sign-extending copy)."""
        s_t = src.type
        assert isinstance(s_t, MemRefType)
        body = list(op.body.block.ops)
        if (s_t.element_type == IntegerType(32) and len(body) == 1
                and body[0].operands[0] is op.body.block.args[0]):
            new: Operation = memref.CopyOp(src, dst)
        else:
            new = op.clone()
            new.operands = [src, dst]
            identity = AffineMapAttr(AffineMap.identity(6))
            new.properties["indexing_maps"] = ArrayAttr([identity, identity])
        self.insert(new)
        copy_location(op, new)

    def r_body(self, tile: _TilePos, wview: SSAValue | None,
               tile_counter: LinearForm | None = None, stream: bool = False) -> None:
        p, t, cfg, r = self.plan, self.t, self.cfg, self.r
        o0 = tile.o0
        b0 = self.value(tile.b, "b0")
        r0 = self.value(tile.rt * t.pitch_rows, "r0")
        c0 = self.value(tile.ct * t.tw, "c0")
        tile_sizes = [1, p.to, p.th, t.tw, cfg.batch, cfg.block_out]
        if tile_counter is None:
            tile_counter = ((tile.b * t.n_o + tile.ot) * t.n_r + tile.rt) * t.n_c + tile.ct
        counter = tile_counter * t.n_i
        acopy = self.parity(tile_counter) if p.acc_double else 0
        views = {acc: self.bias_view(buf, o0) if r.inits[acc][1] == "bcast"
                 else self.first_bufs[acc] if stream and acc in self.first_bufs
                 else self.copy_view(buf, p.acc_double, acopy)
                 for acc, buf in self.bufs.items()}
        for op in r.ops:
            if op is r.conv:
                self.conv(tile, counter, wview, views[r.acc], stream)
                continue
            if op in (r.inits[a][0] for a in r.accs if r.inits[a][1] == "bcast"):
                continue
            operands: list[SSAValue] = []
            maps = ([m.data for m in op.indexing_maps.data]
                    if isinstance(op, linalg.GenericOp) else [None] * len(op.operands))
            new_maps = list(maps)
            kind = next((r.inits[a][1] for a in r.accs if r.inits[a][0] is op), None)
            for k, v in enumerate(op.operands):
                if v in views:
                    operands.append(views[v])
                    init, init_kind = r.inits[v]
                    if init_kind == "bcast" and isinstance(init, linalg.GenericOp):
                        new_maps[k] = init.indexing_maps.data[0].data
                elif isinstance(v.type, MemRefType) and kind == "bcast_acc":
                    v_t = v.type
                    assert isinstance(v_t, MemRefType)
                    operands.append(self.dram_tile(v, [0, o0, 0, 0, 0, 0],
                                                   [1, p.to, 1, 1, v_t.get_shape()[4],
                                                    cfg.block_out]))
                elif isinstance(v.type, MemRefType):
                    operands.append(self.dram_tile(v, [b0, o0, r0, c0, 0, 0], tile_sizes))
                else:
                    operands.append(v)
            if kind in ("load", "load8"):
                assert isinstance(op, linalg.GenericOp)
                self.init_copy(op, operands[0], operands[1])
                continue
            new = op.clone()
            new.operands = operands
            if isinstance(new, linalg.GenericOp) and new_maps != maps:
                new.properties["indexing_maps"] = ArrayAttr(
                    [AffineMapAttr(m) for m in new_maps if m is not None])
            self.insert(new)
            copy_location(op, new)
        if self.tail is not None:
            self.tail.tile(self, tile, views, tile_counter)

    def bias_view(self, buf: SSAValue, o0: Index) -> SSAValue:
        """The biases of the current output tile: all of ``buf`` unless it holds every
        channel's (flattened loop)."""
        t = buf.type
        assert isinstance(t, MemRefType)
        shape = list(t.get_shape())
        if shape[1] == self.plan.to:
            return buf
        return self.subview(buf, [0, o0, 0, 0, 0, 0], [1, self.plan.to, *shape[2:]],
                            "bias_view")

    def conv(self, tile: _TilePos, counter: LinearForm, wview: SSAValue | None, acc: SSAValue,
             stream: bool) -> None:
        n_i = self.t.n_i
        if 1 < n_i <= UNROLL_STEPS:
            # A few steps are written out: the input buffer's tokens then run across tiles
            # instead of restarting (primed and drained) in every tile.
            for k in range(n_i):
                self.conv_step(tile, counter + k, LinearForm(const=k), wview, acc, stream)
        elif n_i > 1:
            with self.loop(n_i, "i") as iv:
                step = LinearForm.of(iv)
                self.conv_step(tile, counter + step, step, wview, acc, stream)
        else:
            self.conv_step(tile, counter, LinearForm(), wview, acc, stream)

    def conv_step(self, tile: _TilePos, counter: LinearForm, it: LinearForm, wview: SSAValue | None,
                  acc: SSAValue, stream: bool) -> None:
        p, t, cfg, r = self.plan, self.t, self.cfg, self.r
        g = r.geo
        o0, run, crun = tile.o0, tile.run, tile.crun
        copy = self.parity(counter, p.inp_copies) if p.double_buffer else 0
        i0 = self.value(it * p.ti, "i0")
        if wview is None:
            # The weights alternate between two copies whatever the input's.
            wcopy = self.parity(counter) if self.db_wgt else 0
            view = self.copy_view(self.wgt, self.db_wgt, wcopy)
            src = self.dram_tile(r.w, [o0, i0, 0, 0, 0, 0],
                                 [p.to, p.ti, g.kh, g.kw, cfg.block_out, cfg.block_in])
            self.insert(memref.CopyOp(src, view))
        elif stream:
            view = self.load_weight_slice(wview, it, o0)
        else:
            view = self.weight_slice(wview, it)
        # The input tile: one DMA per channel block, padding from the pad fields.
        blocks = t.inp_blocks
        tile_elems = blocks * t.ht * t.wt
        row0 = tile.rt * (t.pitch_rows * g.sh) + (run.before - g.pads[0])
        col0 = tile.ct * (t.tw * g.sw) + (crun.before - g.pads[2])
        # A depthwise convolution reads the channel blocks of its output tile.
        first = tile.ot * p.to if g.depthwise else it * p.ti
        with self.loop(blocks, "ci") if blocks > 1 else nullcontext() as ci:
            cl = LinearForm.of(ci) if ci is not None else LinearForm()
            channel = tile.b * g.data_blocks + first + cl
            dram = (channel * g.h + row0) * g.w + col0
            sram = cl * (t.ht * t.wt)
            sram = sram + (LinearForm({copy: tile_elems}) if isinstance(copy, SSAValue)
                           else copy * tile_elems)
            self.insert(DmaCopyOp(r.x, self.inp, x_size=crun.size, y_size=run.size,
                                  x_stride=t.pitch, src_pos=self.position(dram, "x_pos"),
                                  dst_pos=self.position(sram, "inp_pos"),
                                  pad=(run.before, run.after, crun.before, crun.after)))
        iview = self.copy_view(self.inp, p.double_buffer, copy)
        new = r.conv.clone()
        new.operands = [iview, view, acc]
        if t.row_step != g.sh:
            maps = [m.data for m in r.conv.indexing_maps.data]
            mx = maps[0]
            ma = maps[2]
            oh = ma.results[2]
            kh = maps[1].results[2]
            assert isinstance(oh, AffineDimExpr)
            results = list(mx.results)
            results[2] = oh * t.row_step + kh
            maps[0] = AffineMap(mx.num_dims, 0, tuple(results))
            new.properties["indexing_maps"] = ArrayAttr([AffineMapAttr(m) for m in maps])
        self.insert(new)
        copy_location(r.conv, new)


def emit_conv(region: ConvRegion, plan: ConvPlan, cfg: VTAConfig,
              tail: ConvTail | None = None) -> list[SSAValue]:
    """Tile ``region`` with ``plan`` (before its output op), ``tail`` after the convolution
    of each tile; returns the SRAM buffers."""
    emitter = _ConvEmitter(region, plan, cfg, tail)
    emitter.emit()
    return [emitter.inp, emitter.wgt, *emitter.bufs.values(), *emitter.first_bufs.values(),
            *emitter.tail_bufs]
