"""``vta-tile`` for convolution regions (:mod:`.tile_conv_region`; stage 1 → 2 of
``docs/pipeline.md``).

A convolution is tiled over output channel blocks (``to``), output rows (``th``; a tile always
spans the whole output width) and input channel blocks (``ti``), in the loop order
``b, o, rows, i``.  Each ``(o, rows)`` tile accumulates in SRAM over the ``i`` loop, then runs
the epilogue and stores its rows, so every output element is stored once.  Per ``i`` step the
input tile — ``ti`` channel blocks × the rows and columns the tile's outputs read, halo
included — is loaded with one ``vta.dma_copy`` per channel block whose ``pad`` fields supply
the zero padding (``vta-isa.md`` §2.3, §3.3): the padded tensor is never built in DRAM.  Tiles
whose halo crosses the top or the bottom of the image need other pad fields than the tiles
between them, so the row loop is split into runs of equal padding (a loop per run of more than
one tile).  A 1×1 convolution with a vertical stride loads only every ``sh``-th row (a DMA row
pitch of ``sh`` image rows).  The weights of an ``o`` tile are loaded once, before the row loop,
when all their input channels fit (*resident*), else per ``i`` step.  A per-channel bias is
loaded once per ``o`` tile (``to`` accumulator elements) and added with a broadcasting map.

The plan is chosen among all tile sizes that divide the dimensions and fit the SRAMs (with the
micro-op kernel of one step at most a quarter of the micro-op SRAM): the fewest modelled cycles
(the timing model's instruction costs, the three modules overlapping when double-buffered)
among the plans whose DRAM traffic is within 15 % of the least.  With double buffering the
input and weight buffers hold two copies, alternating with the parity of a counter of the
loads.

Before (3×3, pad 1, stride 1; 1×64×56×56 → 64 channels; default configuration)::

    %xp = memref.alloc() : memref<1x4x58x58x1x16xi8>
    linalg.fill ins(%c0_i8 : i8) outs(%xp : ...)
    %xi = memref.subview %xp[0, 0, 1, 1, 0, 0] [1, 4, 56, 56, 1, 16] [1, 1, 1, 1, 1, 1]
    memref.copy %x, %xi
    linalg.fill ins(%c0 : i32) outs(%acc : memref<1x4x56x56x1x16xi32>)
    linalg.generic {conv maps} ins(%xp, %w) outs(%acc) { extsi, extsi, muli, addi }
    ... epilogue, trunci into %y

After (abridged)::

    %inp = memref.alloc() : memref<2x1x1x10x58x1x16xi8, #vta.sram<inp>>
    %wgt = memref.alloc() : memref<4x4x3x3x16x16xi8, #vta.sram<wgt>>
    %acc = memref.alloc() : memref<1x4x8x56x1x16xi32, #vta.sram<acc>>
    memref.copy %w_tile, %wgt                       // resident weights
    // first row tile: top halo row is padding
    linalg.fill ins(%c0 : i32) outs(%acc : ...)
    affine.for %i = 0 to 4 {
      vta.dma_copy %x[%pos] -> %inp[%sram] y 9 x 56 stride 56 pad [1, 0, 1, 1] : ...
      linalg.generic {conv maps} ins(%inp_view, %wgt_view) outs(%acc) {...}
    } {vta.double_buffer}
    ... epilogue on %acc, trunci into a subview of %y
    affine.for %r = 0 to 5 { ... pad [0, 0, 1, 1] ... }   // the middle row tiles
    ... the last row tile, pad [0, 1, 1, 1]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import memref
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, IntegerType, MemRefType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import DmaCopyOp, Sram
from vta_mlir.ir.locations import copy_location

from .tile_builder import Index, TileBuilder
from .tile_conv_region import ConvGeometry, ConvRegion
from .tile_cost import Budget, NoFit, _Costs

__all__ = ["UNROLL_STEPS", "ConvPlan", "choose_conv_plan", "emit_conv"]

#: Input-channel steps per tile up to which the step loop is written out.
UNROLL_STEPS = 8


@dataclass(frozen=True)
class ConvPlan:
    """A tiling of a convolution region (module docstring)."""

    to: int
    th: int
    ti: int
    wgt_resident: bool
    double_buffer: bool
    skip_rows: bool = False
    #: Two accumulator tiles alternating between consecutive output tiles (the store of one
    #: overlaps the computation of the next).
    acc_double: bool = False
    #: The first tile, which loads the resident weights slice by slice, accumulates in an
    #: accumulator tile of its own, so the tiles after it never wait for its store.
    first_acc: bool = False

    def describe(self) -> str:
        db = "double-buffered" if self.double_buffer else "single-buffered"
        wgt = "resident per output tile" if self.wgt_resident else "per input step"
        rows = ", every stride-th input row" if self.skip_rows else ""
        acc = ", two accumulator tiles" if self.acc_double else ""
        acc += " (and one for the first tile)" if self.first_acc else ""
        return (f"convolution tile {self.to} output blocks x {self.th} rows x {self.ti} input "
                f"blocks, weights {wgt}, {db}{rows}{acc}")


@dataclass(frozen=True)
class _RowRun:
    """Consecutive row tiles with the same padding: tiles ``first .. first + count - 1``."""

    first: int
    count: int
    top: int
    bottom: int
    rows: int  # real (DRAM) rows per tile


@dataclass(frozen=True)
class _Tiles:
    """What a plan implies for the tiles' shapes."""

    geo: ConvGeometry
    plan: ConvPlan

    @property
    def n_o(self) -> int:
        return self.geo.ob // self.plan.to

    @property
    def n_r(self) -> int:
        return self.geo.oh // self.plan.th

    @property
    def n_i(self) -> int:
        return self.geo.ib // self.plan.ti

    @property
    def ht(self) -> int:
        """Rows of an input tile in SRAM (halo included)."""
        g, p = self.geo, self.plan
        return p.th if p.skip_rows else (p.th - 1) * g.sh + g.kh

    @property
    def row_step(self) -> int:
        """The input-tile row step of one output row in SRAM."""
        return 1 if self.plan.skip_rows else self.geo.sh

    @property
    def wt(self) -> int:
        g = self.geo
        return (g.ow - 1) * g.sw + g.kw

    @property
    def cols(self) -> tuple[int, int, int]:
        """Left padding, real columns and right padding of every input tile."""
        g = self.geo
        left = g.pads[2]
        real = min(self.wt - left, g.w)
        return left, real, self.wt - left - real

    @property
    def pitch(self) -> int:
        g = self.geo
        return g.w * g.sh if self.plan.skip_rows else g.w

    @property
    def wgt_blocks(self) -> int:
        """Input channel blocks held per weight buffer copy."""
        return self.geo.ib if self.plan.wgt_resident else self.plan.ti

    def row_runs(self) -> list[_RowRun]:
        g, p = self.geo, self.plan
        span = (p.th - 1) * g.sh + 1 if p.skip_rows else self.ht
        runs: list[_RowRun] = []
        for rt in range(self.n_r):
            start = rt * p.th * g.sh - g.pads[0]
            top, bottom = max(0, -start), max(0, start + span - g.h)
            rows = p.th if p.skip_rows else self.ht - top - bottom
            last = runs[-1] if runs else None
            if last is not None and (last.top, last.bottom) == (top, bottom):
                runs[-1] = _RowRun(last.first, last.count + 1, top, bottom, rows)
            else:
                runs.append(_RowRun(rt, 1, top, bottom, rows))
        return runs

    def dram_row(self, rt: int, run: _RowRun) -> int:
        return rt * self.plan.th * self.geo.sh - self.geo.pads[0] + run.top

    @property
    def acc_tile(self) -> int:
        return self.plan.to * self.plan.th * self.geo.ow


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def _check(tiles: _Tiles, cfg: VTAConfig, budget: Budget, accs: Sequence[str]) -> str | None:
    """Why the plan does not fit, or ``None``."""
    g, p = tiles.geo, tiles.plan
    db = 2 if p.double_buffer else 1
    if db * p.ti * tiles.ht * tiles.wt > budget.inp:
        return "the input tile does not fit the input SRAM"
    loads = tiles.n_o if p.wgt_resident else tiles.n_o * tiles.n_r * tiles.n_i
    wdb = 2 if p.double_buffer and loads * g.nb > 1 else 1
    if wdb * p.to * tiles.wgt_blocks * g.kh * g.kw > budget.wgt:
        return "the weight tile does not fit the weight SRAM"
    copies = (2 if p.acc_double else 1) + (1 if p.first_acc else 0)
    acc = sum(g.ob if kind == "bcast" else copies * tiles.acc_tile for kind in accs)
    if acc > budget.acc:
        return "the accumulator tile does not fit the accumulator SRAM"
    if p.ti * g.kh * g.kw * p.to > cfg.uop_buff_depth // 4:
        return "the micro-kernel of one step has too many micro-ops"
    fields = cfg.mem_fields
    pad_max = (1 << fields["y_pad_0"].width) - 1
    left, real, right = tiles.cols
    if real < 1 or max(left, right) > pad_max:
        return "the column padding does not fit a DMA"
    if tiles.pitch >= 1 << fields["x_stride"].width or g.w >= 1 << fields["x_size"].width:
        return "an image row does not fit a DMA"
    for run in tiles.row_runs():
        if run.rows < 1 or max(run.top, run.bottom) > pad_max:
            return "the row padding does not fit a DMA"
    if max(p.th, g.ow, tiles.acc_tile) > 16383:
        return "a micro-op loop would exceed its 14-bit extent"
    return None


@dataclass(frozen=True)
class _Estimate:
    cycles: int
    dram: int


def _estimate(tiles: _Tiles, cfg: VTAConfig, costs: _Costs, accs: Sequence[str],
              alu: Sequence[bool]) -> _Estimate:
    g, p = tiles.geo, tiles.plan
    t = cfg.timing
    left, real_cols, right = tiles.cols
    kk = g.kh * g.kw
    inp_bytes = wgt_bytes = acc_bytes = 0
    load = 0
    per_r_inp = []
    for run in tiles.row_runs():
        pad = tiles.ht * tiles.wt - run.rows * real_cols
        one = costs.load("INP", run.rows * real_cols) + pad
        per_r_inp.append((run.count, one * p.ti * tiles.n_i, run.rows * real_cols))
    for count, cycles, elements in per_r_inp:
        load += count * cycles * tiles.n_o * g.nb
        inp_bytes += count * elements * g.ib * tiles.n_o * g.nb * cfg.inp_elem_bytes
    wgt_tile = p.to * tiles.wgt_blocks * kk
    wloads = tiles.n_o if p.wgt_resident else tiles.n_o * tiles.n_r * tiles.n_i
    load += wloads * g.nb * costs.load("WGT", wgt_tile)
    wgt_bytes = wloads * g.nb * wgt_tile * cfg.wgt_elem_bytes
    tiles_or = g.nb * tiles.n_o * tiles.n_r
    e = tiles.acc_tile
    compute = tiles_or * (costs.gemm(e) + tiles.n_i * (t.pipeline_depth + e * p.ti * kk))
    compute += tiles_or * sum(costs.alu(e, tensor) for tensor in alu)
    for kind in accs:
        if kind == "bcast":
            compute += g.nb * tiles.n_o * costs.load("ACC", p.to)
            acc_bytes += g.nb * g.ob * cfg.acc_elem_bytes
        elif kind == "bcast_acc":
            compute += tiles_or * costs.load("ACC", e)
            acc_bytes += tiles_or * p.to * cfg.acc_elem_bytes * p.th * g.ow
        elif kind in ("load", "load8"):
            compute += tiles_or * costs.load("ACC" if kind == "load" else "ACC_8BIT", e)
            acc_bytes += tiles_or * e * (cfg.acc_elem_bytes if kind == "load"
                                         else cfg.out_elem_bytes)
    store_tile = costs.store(e)
    store = tiles_or * store_tile
    out_bytes = tiles_or * e * cfg.out_elem_bytes
    # Until the first GEMM: the first input step and the weights it needs (all the output
    # tile's resident weights unless the first tile streams them slice by slice).
    step_inp = per_r_inp[0][1] // max(tiles.n_i, 1)
    slice_load = costs.load("WGT", p.to * p.ti * kk)
    gemm_step = t.pipeline_depth + e * p.ti * kk
    streaming = p.wgt_resident and tiles.n_o == 1 and g.nb == 1
    if streaming:
        first = step_inp + slice_load
        # The first tile waits for every slice when loading one takes longer than using it.
        first += max(0, tiles.n_i - 1) * max(0, step_inp + slice_load - gemm_step)
    else:
        first = step_inp + costs.load("WGT", wgt_tile)
    flat = len(tiles.row_runs()) == 1 and not (p.wgt_resident and (tiles.n_o > 1 or g.nb > 1))
    if not p.double_buffer:
        cycles = load + compute + store
    elif p.acc_double:
        # Consecutive tiles overlap, except where the loop nest restarts (an output tile
        # change or a change of row padding when the tile loops are not one loop, the tile
        # after the one that streams the weights).
        restarts = 0 if flat else g.nb * tiles.n_o * len(tiles.row_runs()) - 1
        restarts += 1 if streaming and not p.first_acc else 0
        cycles = max(load, compute + restarts * store_tile, store) + first + store_tile
    else:
        cycles = max(load, compute + tiles_or * store_tile, store) + first + store_tile
    return _Estimate(cycles, inp_bytes + wgt_bytes + acc_bytes + out_bytes)


def choose_conv_plan(region: ConvRegion, cfg: VTAConfig, budget: Budget,
                     tile: tuple[int, int, int], double_buffer: bool | None) -> ConvPlan:
    """The plan of ``region`` (module docstring); ``tile``'s o and i entries (channel blocks,
    0: chosen) fix ``to`` and ``ti``.  Raises :class:`NoFit`."""
    g = region.geo
    accs = [region.inits[a][1] for a in region.accs]
    alu = [len(op.inputs) > 1 for op in region.ops
           if isinstance(op, linalg.GenericOp) and op.outputs[0] in op.inputs]
    costs = _Costs(cfg)
    _, want_o, want_i = tile
    for value, n, what in ((want_o, g.ob, "output"), (want_i, g.ib, "input")):
        if value and n % value:
            raise NoFit(f"tile {value} does not divide the {n} {what} channel blocks")
    skip_options = [False]
    if g.kh == 1 and g.sh > 1 and g.pads[:2] == (0, 0):
        skip_options.append(True)
    found: list[tuple[_Estimate, ConvPlan]] = []
    reasons: set[str] = set()
    for to in [want_o] if want_o else _divisors(g.ob):
        for ti in [want_i] if want_i else _divisors(g.ib):
            for th in _divisors(g.oh):
                for resident in (True, False):
                    if resident and ti == g.ib and th == g.oh:
                        continue  # the same loads as per step
                    for db, acc2 in _buffering(double_buffer, g.nb * (g.ob // to)
                                               * (g.oh // th) > 1):
                        own = [False, True] if acc2 and resident and g.nb == 1 and to == g.ob \
                            else [False]
                        for skip, first_acc in itertools.product(skip_options, own):
                            plan = ConvPlan(to, th, ti, resident, db, skip, acc2, first_acc)
                            tiles = _Tiles(g, plan)
                            why = _check(tiles, cfg, budget, accs)
                            if why is not None:
                                reasons.add(why)
                                continue
                            found.append((_estimate(tiles, cfg, costs, accs, alu), plan))
    if not found:
        raise NoFit("; ".join(sorted(reasons)) or "no tiling fits")
    least = min(est.dram for est, _ in found)
    best = min((item for item in found if item[0].dram <= least * 1.3),
               key=lambda item: (item[0].cycles, item[0].dram))
    return best[1]


def _buffering(double_buffer: bool | None, tiles: bool) -> list[tuple[bool, bool]]:
    """``(double_buffer, acc_double)`` options: two accumulator tiles only with double
    buffering and more than one output tile."""
    options = [(True, False), (False, False)]
    if tiles:
        options.append((True, True))
    if double_buffer is None:
        return options
    return [o for o in options if o[0] == double_buffer]


class _Lin:
    """``sum(coeff * value) + const`` over host index values."""

    def __init__(self, terms: dict[SSAValue, int] | None = None, const: int = 0) -> None:
        self.terms = {v: c for v, c in (terms or {}).items() if c}
        self.const = const

    def __add__(self, other: _Lin | int) -> _Lin:
        if isinstance(other, int):
            return _Lin(self.terms, self.const + other)
        terms = dict(self.terms)
        for v, c in other.terms.items():
            terms[v] = terms.get(v, 0) + c
        return _Lin(terms, self.const + other.const)

    def __mul__(self, factor: int) -> _Lin:
        return _Lin({v: c * factor for v, c in self.terms.items()}, self.const * factor)


class _ConvEmitter(TileBuilder):
    """Builds the loop nest of one convolution region before its output op."""

    def __init__(self, region: ConvRegion, plan: ConvPlan, cfg: VTAConfig) -> None:
        super().__init__(region.output, plan.double_buffer)
        self.r, self.plan, self.cfg = region, plan, cfg
        self.t = _Tiles(region.geo, plan)
        self.bufs: dict[SSAValue, SSAValue] = {}
        self.db_wgt = False

    # ---- index values ---------------------------------------------------------------------

    def value(self, lin: _Lin, name: str) -> Index:
        if not lin.terms:
            return lin.const
        if lin.const == 0 and len(lin.terms) == 1 and next(iter(lin.terms.values())) == 1:
            return next(iter(lin.terms))
        values = list(lin.terms)
        expr = AffineExpr.constant(lin.const)
        for k, v in enumerate(values):
            expr = expr + AffineExpr.dimension(k) * lin.terms[v]
        return self.apply_n(values, expr, name)

    def position(self, lin: _Lin, name: str) -> tuple[SSAValue, int] | int:
        if not lin.terms:
            return lin.const
        value = self.value(_Lin(lin.terms), name)
        assert isinstance(value, SSAValue)
        return value, lin.const

    def parity(self, counter: _Lin) -> Index:
        if not counter.terms:
            return counter.const % 2
        values = list(counter.terms)
        expr = AffineExpr.constant(counter.const)
        for k, v in enumerate(values):
            expr = expr + AffineExpr.dimension(k) * counter.terms[v]
        return self.apply_n(values, expr % 2, "copy")

    # ---- buffers --------------------------------------------------------------------------

    def allocate(self) -> None:
        g, p, t, cfg = self.r.geo, self.plan, self.t, self.cfg
        x_t, w_t = self.r.x.type, self.r.w.type
        assert isinstance(x_t, MemRefType) and isinstance(w_t, MemRefType)
        lead = [2] if p.double_buffer else []
        self.inp = self.alloc(Sram.INP, [*lead, 1, p.ti, t.ht, t.wt, cfg.batch, cfg.block_in],
                              x_t)
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
                shape = [1, g.ob if self.flat else p.to, 1, 1, cfg.batch, cfg.block_out]
            else:
                shape = [*([2] if p.acc_double else []), 1, p.to, p.th, g.ow, cfg.batch,
                         cfg.block_out]
            self.bufs[acc] = self.alloc(Sram.ACC, shape, a_t)
        #: The accumulator tiles of the first tile when it has its own.
        first_shape = [1, p.to, p.th, g.ow, cfg.batch, cfg.block_out]
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

    @property
    def flat(self) -> bool:
        """One host loop over all output tiles (batch, channel and row tiles together): when
        every row tile has the same padding and nothing is loaded per channel tile, so that
        buffers alternating between consecutive tiles alternate in one loop."""
        t, p, g = self.t, self.plan, self.r.geo
        per_o = p.wgt_resident and (t.n_o > 1 or g.nb > 1)
        return len(t.row_runs()) == 1 and not per_o and g.nb * t.n_o * t.n_r > 1

    def emit(self) -> None:
        g = self.r.geo
        self.allocate()
        if self.flat:
            self.flat_level()
        elif g.nb > 1:
            with self.loop(g.nb, "b") as iv:
                self.o_level(_Lin({iv: 1}))
        else:
            self.o_level(_Lin())

    def flat_level(self) -> None:
        p, t, r, g = self.plan, self.t, self.r, self.r.geo
        wview = self.load_whole_operands()
        (run,) = t.row_runs()
        first = 0
        if self.streaming:
            # The first tile loads the weights, one input step's slice at a time.
            self.r_body(_Lin(), _Lin(), 0, _Lin(), run, wview, _Lin(), stream=True)
            first = 1
        count = g.nb * t.n_o * t.n_r - first
        if count < 1:
            return
        with self.loop(count, "t") as tv:
            d0 = AffineExpr.dimension(0) + first
            b = _Lin({self.apply(tv, d0 // (t.n_o * t.n_r), "b"): 1}) if g.nb > 1 else _Lin()
            ot = _Lin({self.apply(tv, (d0 // t.n_r) % t.n_o, "o"): 1}) if t.n_o > 1 else _Lin()
            rt = _Lin({self.apply(tv, d0 % t.n_r, "r"): 1}) if t.n_r > 1 else _Lin()
            o0 = self.value(ot * p.to, "o0")
            self.r_body(b, ot, o0, rt, run, wview, _Lin({tv: 1}, first))
        del r

    @property
    def streaming(self) -> bool:
        """Resident weights loaded once for the whole region are loaded by the first tile,
        a slice per input step, so its first step does not wait for all of them."""
        return self.plan.wgt_resident and self.t.n_o == 1 and self.r.geo.nb == 1

    def load_whole_operands(self) -> SSAValue | None:
        """Before a flattened loop: the resident weights (one output tile) and the biases of
        every channel."""
        p, g = self.plan, self.r.geo
        wview = None
        if p.wgt_resident:
            wview = self.wgt
            if not self.streaming:
                self.load_weight_slices(wview, 0)
        self.load_biases(0, g.ob)
        return wview

    def load_weight_slices(self, wview: SSAValue, o0: Index) -> None:
        """Copy the resident weights of the output tile at ``o0``, slice by slice."""
        n_i = self.t.n_i
        with self.loop(n_i, "s") if n_i > 1 else _no_loop() as sv:
            self.load_weight_slice(wview, _Lin({sv: 1}) if sv is not None else _Lin(), o0)

    def load_weight_slice(self, wview: SSAValue, it: _Lin, o0: Index) -> SSAValue:
        """Copy slice ``it`` of the resident weights; returns its view."""
        p, g, cfg = self.plan, self.r.geo, self.cfg
        view = self.weight_slice(wview, it)
        i0 = self.value(it * p.ti, "i0")
        src = self.dram_tile(self.r.w, [o0, i0, 0, 0, 0, 0],
                             [p.to, p.ti, g.kh, g.kw, cfg.block_out, cfg.block_in])
        self.insert(memref.CopyOp(src, view))
        return view

    def weight_slice(self, wview: SSAValue, it: _Lin) -> SSAValue:
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

    def o_level(self, b: _Lin) -> None:
        n_o = self.t.n_o
        if n_o > 1:
            with self.loop(n_o, "o") as iv:
                self.o_body(b, _Lin({iv: 1}))
        else:
            self.o_body(b, _Lin())

    def o_body(self, b: _Lin, ot: _Lin) -> None:
        p, t = self.plan, self.t
        o0 = self.value(ot * p.to, "o0")
        wview = None
        if p.wgt_resident:
            copy = self.parity(b * t.n_o + ot) if self.db_wgt else 0
            wview = self.copy_view(self.wgt, self.db_wgt, copy)
            if not self.streaming:
                self.load_weight_slices(wview, o0)
        self.load_biases(o0, p.to)
        stream = self.streaming
        for run in t.row_runs():
            first = run.first
            if stream:
                self.r_body(b, ot, o0, _Lin(const=first), run, wview, stream=True)
                stream, first = False, first + 1
            count = run.first + run.count - first
            if count > 1:
                with self.loop(count, "r") as iv:
                    self.r_body(b, ot, o0, _Lin({iv: 1}, first), run, wview)
            elif count == 1:
                self.r_body(b, ot, o0, _Lin(const=first), run, wview)

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

    def r_body(self, b: _Lin, ot: _Lin, o0: Index, rt: _Lin, run: _RowRun,
               wview: SSAValue | None, tile_counter: _Lin | None = None,
               stream: bool = False) -> None:
        p, t, cfg, r = self.plan, self.t, self.cfg, self.r
        g = r.geo
        b0 = self.value(b, "b0")
        r0 = self.value(rt * p.th, "r0")
        tile_sizes = [1, p.to, p.th, g.ow, cfg.batch, cfg.block_out]
        if tile_counter is None:
            tile_counter = (b * t.n_o + ot) * t.n_r + rt
        counter = tile_counter * t.n_i
        acopy = self.parity(tile_counter) if p.acc_double else 0
        views = {acc: self.bias_view(buf, o0) if r.inits[acc][1] == "bcast"
                 else self.first_bufs[acc] if stream and acc in self.first_bufs
                 else self.copy_view(buf, p.acc_double, acopy)
                 for acc, buf in self.bufs.items()}
        for op in r.ops:
            if op is r.conv:
                self.conv(b, rt, run, counter, wview, o0, views[r.acc], stream)
                continue
            if op in (r.inits[a][0] for a in r.accs if r.inits[a][1] == "bcast"):
                continue
            operands: list[SSAValue] = []
            maps = ([m.data for m in op.indexing_maps.data]
                    if isinstance(op, linalg.GenericOp) else [None] * len(op.operands))
            new_maps = list(maps)
            kind_of_op = next((r.inits[a][1] for a in r.accs if r.inits[a][0] is op), None)
            for k, v in enumerate(op.operands):
                if v in views:
                    operands.append(views[v])
                    init, kind = r.inits[v]
                    if kind == "bcast" and isinstance(init, linalg.GenericOp):
                        new_maps[k] = init.indexing_maps.data[0].data
                elif isinstance(v.type, MemRefType) and kind_of_op == "bcast_acc":
                    v_t = v.type
                    assert isinstance(v_t, MemRefType)
                    operands.append(self.dram_tile(v, [0, o0, 0, 0, 0, 0],
                                                   [1, p.to, 1, 1, v_t.get_shape()[4],
                                                    cfg.block_out]))
                elif isinstance(v.type, MemRefType):
                    operands.append(self.dram_tile(v, [b0, o0, r0, 0, 0, 0], tile_sizes))
                else:
                    operands.append(v)
            kind = next((r.inits[a][1] for a in r.accs if r.inits[a][0] is op), None)
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

    def conv(self, b: _Lin, rt: _Lin, run: _RowRun, counter: _Lin, wview: SSAValue | None,
             o0: Index, acc: SSAValue, stream: bool) -> None:
        n_i = self.t.n_i
        if 1 < n_i <= UNROLL_STEPS:
            # A few steps are written out: the input buffer's tokens then run across tiles
            # instead of restarting (primed and drained) in every tile.
            for k in range(n_i):
                self.conv_step(b, rt, run, counter + k, _Lin(const=k), wview, o0, acc, stream)
        elif n_i > 1:
            with self.loop(n_i, "i") as iv:
                self.conv_step(b, rt, run, counter + _Lin({iv: 1}), _Lin({iv: 1}), wview, o0,
                               acc, stream)
        else:
            self.conv_step(b, rt, run, counter, _Lin(), wview, o0, acc, stream)

    def conv_step(self, b: _Lin, rt: _Lin, run: _RowRun, counter: _Lin, it: _Lin,
                  wview: SSAValue | None, o0: Index, acc: SSAValue, stream: bool) -> None:
        p, t, cfg, r = self.plan, self.t, self.cfg, self.r
        g = r.geo
        copy = self.parity(counter) if p.double_buffer else 0
        # The input tile: one DMA per channel block, padding from the pad fields.
        left, cols, right = t.cols
        tile_elems = p.ti * t.ht * t.wt
        row0 = rt * (p.th * g.sh) + (run.top - g.pads[0])
        with self.loop(p.ti, "ci") if p.ti > 1 else _no_loop() as ci:
            cl = _Lin({ci: 1}) if ci is not None else _Lin()
            channel = b * g.ib + it * p.ti + cl
            dram = (channel * g.h + row0) * g.w
            sram = cl * (t.ht * t.wt)
            sram = sram + (_Lin({copy: tile_elems}) if isinstance(copy, SSAValue)
                           else copy * tile_elems)
            self.insert(DmaCopyOp(r.x, self.inp, x_size=cols, y_size=run.rows,
                                  x_stride=t.pitch, src_pos=self.position(dram, "x_pos"),
                                  dst_pos=self.position(sram, "inp_pos"),
                                  pad=(run.top, run.bottom, left, right)))
        iview = self.copy_view(self.inp, p.double_buffer, copy)
        i0 = self.value(it * p.ti, "i0")
        if wview is None:
            wcopy = copy if self.db_wgt else 0
            view = self.copy_view(self.wgt, self.db_wgt, wcopy)
            src = self.dram_tile(r.w, [o0, i0, 0, 0, 0, 0],
                                 [p.to, p.ti, g.kh, g.kw, cfg.block_out, cfg.block_in])
            self.insert(memref.CopyOp(src, view))
        elif stream:
            view = self.load_weight_slice(wview, it, o0)
        else:
            view = self.weight_slice(wview, it)
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


class _no_loop:
    """Stands in for :meth:`TileBuilder.loop` when a dimension has a single tile."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: object) -> None:
        return None


def emit_conv(region: ConvRegion, plan: ConvPlan, cfg: VTAConfig) -> list[SSAValue]:
    """Tile ``region`` with ``plan`` (before its output op); returns the SRAM buffers."""
    emitter = _ConvEmitter(region, plan, cfg)
    emitter.emit()
    return [emitter.inp, emitter.wgt, *emitter.bufs.values(), *emitter.first_bufs.values()]
