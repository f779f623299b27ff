"""The tiling plan of a convolution region for ``vta-tile`` (:mod:`.conv` emits it).

A plan tiles the output channel blocks (``to``), the output rows (``th``), the output columns
(``tw``: the whole width, or narrower tiles that reload their column halo but can be taller)
and the input channel blocks (``ti``) and says how buffers are kept: weights
*resident* (all input channels of an output tile, held across its row tiles) or loaded per input
step; two copies of the input (and per-step weight) tiles; two accumulator tiles alternating
between consecutive output tiles, and one more for the first tile when it streams the resident
weights; a 1×1 convolution with a vertical stride reading only the rows it uses.

:func:`choose_conv_plan` enumerates the plans whose tile sizes divide the dimensions and that
fit the SRAMs (the micro-op kernel of one step at most a quarter of the micro-op SRAM, every DMA
field in range) and takes the fewest modelled cycles among those whose DRAM traffic is within
30 % of the least.  The model (:func:`estimate_conv`) adds up each module's busy time from the
timing model's instruction costs (``docs/timing-model.md`` §2) and, with double buffering, overlaps
them, counting what cannot overlap: the first input step and its weights, a store per restart of the
tile loops (or per tile with one accumulator tile), the last store.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace

from xdsl.dialects.linalg import ops as linalg

from vta_mlir.config import VTAConfig

from .conv_region import ConvGeometry, ConvRegion
from .cost import Budget, InsnCosts, NoFit
from .search import divisors

__all__ = [
    "MAX_INPUT_COPIES",
    "ConvEstimate",
    "ConvPlan",
    "ConvTiles",
    "Run",
    "choose_conv_plan",
    "conv_tiles_misfit",
    "estimate_conv",
    "input_copies",
    "padding_runs",
    "smallest_tile_overflow",
]

#: The SRAMs of a convolution's tiles, by their memory space, as messages name them.
SRAM_NAMES = {"inp": "input", "wgt": "weight", "acc": "accumulator"}


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
    #: Output columns per tile (0: the whole width).
    tw: int = 0
    #: Output rows from one row tile to the next (0: ``th``, tiles side by side); a smaller
    #: pitch makes consecutive row tiles overlap (a pooling fused after the convolution,
    #: :mod:`.conv_pool`, recomputes the rows two pooled tiles share).
    row_pitch: int = 0
    #: Rows a max-pool fused after the convolution (:mod:`.conv_pool`) carries from one row
    #: tile to the next: its windows read the previous tile's last ``carry_rows`` rows, which
    #: that tile pools ahead into the next pooled tile instead of both computing them.  The
    #: first row tile, whose carried rows are the pool's padding, is then a run of its own.
    carry_rows: int = 0
    #: Copies of the input tile a double-buffered plan rotates through: two, or up to four
    #: when the loads would otherwise wait through each tile's epilogue
    #: (:func:`input_copies`).
    inp_copies: int = 2

    def describe(self) -> str:
        db = "single-buffered"
        if self.double_buffer:
            db = ("double-buffered" if self.inp_copies == 2
                  else f"double-buffered, {self.inp_copies} input tiles")
        wgt = "resident per output tile" if self.wgt_resident else "per input step"
        rows = ", every stride-th input row" if self.skip_rows else ""
        acc = ", two accumulator tiles" if self.acc_double else ""
        acc += " (and one for the first tile)" if self.first_acc else ""
        cols = f" x {self.tw} columns" if self.tw else ""
        return (f"convolution tile {self.to} output blocks x {self.th} rows{cols} x {self.ti} "
                f"input blocks, weights {wgt}, {db}{rows}{acc}")


@dataclass(frozen=True)
class Run:
    """Consecutive row (or column) tiles whose input window is padded alike: tiles ``first ..
    first + count - 1``, with ``before`` / ``after`` zero rows (columns) around ``size`` rows
    (columns) read from DRAM."""

    first: int
    count: int
    before: int
    after: int
    size: int


def padding_runs(tiles: int, step: int, pad: int, span: int, extent: int,
                 size: int | None = None) -> list[Run]:
    """The runs of ``tiles`` tiles ``step`` apart in the padded input whose windows span
    ``span`` rows of an ``extent``-row image padded by ``pad`` before; ``size`` overrides the
    rows read per tile (rows read a stride apart)."""
    return list(_padding_runs(tiles, step, pad, span, extent, size))


@functools.lru_cache(maxsize=65536)
def _padding_runs(tiles: int, step: int, pad: int, span: int, extent: int,
                  size: int | None) -> tuple[Run, ...]:
    """:func:`padding_runs`, memoised: the plan search asks for the same runs for every
    buffering and weight option of a tile shape."""
    runs: list[Run] = []

    def add(k: int, count: int) -> None:
        """Tiles ``k .. k + count - 1``, all padded as tile ``k``."""
        start = k * step - pad
        before, after = max(0, -start), max(0, start + span - extent)
        real = span - before - after if size is None else size
        last = runs[-1] if runs else None
        if last is not None and (last.before, last.after) == (before, after):
            runs[-1] = Run(last.first, last.count + count, before, after, real)
        else:
            runs.append(Run(k, count, before, after, real))

    # Only the tiles at the edges are padded: those starting above the image (k * step < pad)
    # and those ending below it (k * step - pad + span > extent); the unpadded ones between
    # them are one run, added at once so that planning does not grow with the image.
    first_inner = min(tiles, max(0, -(-pad // step)))
    last_inner = max(first_inner, min(tiles, (extent + pad - span) // step + 1))
    for k in range(first_inner):
        add(k, 1)
    if last_inner > first_inner:
        add(first_inner, last_inner - first_inner)
    for k in range(last_inner, tiles):
        add(k, 1)
    return tuple(runs)


@dataclass(frozen=True)
class ConvTiles:
    """What a plan implies for the tiles' shapes."""

    geo: ConvGeometry
    plan: ConvPlan

    @property
    def n_o(self) -> int:
        return self.geo.ob // self.plan.to

    @property
    def n_r(self) -> int:
        if self.plan.row_pitch:
            return (self.geo.oh - self.plan.th) // self.plan.row_pitch + 1
        return self.geo.oh // self.plan.th

    @property
    def pitch_rows(self) -> int:
        """Output rows from one row tile to the next."""
        return self.plan.row_pitch or self.plan.th

    @property
    def n_i(self) -> int:
        return self.geo.ib // self.plan.ti

    @property
    def inp_blocks(self) -> int:
        """Channel blocks of an input tile: those of an input step, or, for a depthwise
        convolution, the output tile's own."""
        return self.plan.to if self.geo.depthwise else self.plan.ti

    @property
    def tw(self) -> int:
        """Output columns per tile."""
        return self.plan.tw or self.geo.ow

    @property
    def n_c(self) -> int:
        return self.geo.ow // self.tw

    @property
    def tiles(self) -> int:
        """Output tiles (batch, channel, row and column tiles)."""
        return self.geo.nb * self.n_o * self.n_r * self.n_c

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
        """Columns of an input tile in SRAM (halo included)."""
        g = self.geo
        return (self.tw - 1) * g.sw + g.kw

    def col_runs(self) -> list[Run]:
        g = self.geo
        return padding_runs(self.n_c, self.tw * g.sw, g.pads[2], self.wt, g.w)

    @property
    def single_run(self) -> bool:
        """Every output tile pads its input alike."""
        return len(self.row_runs()) == 1 and len(self.col_runs()) == 1

    @property
    def pitch(self) -> int:
        g = self.geo
        return g.w * g.sh if self.plan.skip_rows else g.w

    @property
    def wgt_blocks(self) -> int:
        """Input channel blocks held per weight buffer copy."""
        return self.geo.ib if self.plan.wgt_resident else self.plan.ti

    def row_runs(self) -> list[Run]:
        g, p = self.geo, self.plan
        if p.skip_rows:
            # Only every sh-th row is read (no padding: skip_rows needs none).
            return padding_runs(self.n_r, p.th * g.sh, g.pads[0], (p.th - 1) * g.sh + 1, g.h,
                                p.th)
        runs = padding_runs(self.n_r, self.pitch_rows * g.sh, g.pads[0], self.ht, g.h)
        first = runs[0]
        if p.carry_rows and first.count > 1:
            # The first tile pools no carried rows: it differs from the tiles after it.
            runs[:1] = [replace(first, count=1), replace(first, first=1, count=first.count - 1)]
        return runs

    @property
    def weight_loads(self) -> int:
        """Loads of the weight buffer: per output channel tile when resident, else per step."""
        p = self.plan
        per_b = self.n_o if p.wgt_resident else self.n_o * self.n_r * self.n_c * self.n_i
        return self.geo.nb * per_b

    @property
    def streaming(self) -> bool:
        """Resident weights loaded once for the whole region are loaded by the first tile, a
        slice per input step (with a single column of tiles)."""
        return (self.plan.wgt_resident and self.n_o == 1 and self.geo.nb == 1
                and self.n_c == 1)

    @property
    def flat(self) -> bool:
        """One host loop runs over all output tiles: every tile pads alike and nothing is
        loaded per output channel tile."""
        per_o = self.plan.wgt_resident and (self.n_o > 1 or self.geo.nb > 1)
        return self.single_run and not per_o and self.tiles > 1

    @property
    def acc_tile(self) -> int:
        return self.plan.to * self.plan.th * self.tw


def _check(tiles: ConvTiles, cfg: VTAConfig, budget: Budget, accs: Sequence[str]) -> str | None:
    """Why the plan does not fit, or ``None``."""
    g, p = tiles.geo, tiles.plan
    db = p.inp_copies if p.double_buffer else 1
    if db * tiles.inp_blocks * tiles.ht * tiles.wt > budget.inp:
        return "the input tile does not fit the input SRAM"
    wdb = 2 if p.double_buffer and tiles.weight_loads > 1 else 1
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
    for col_run in tiles.col_runs():
        if col_run.size < 1 or max(col_run.before, col_run.after) > pad_max:
            return "the column padding does not fit a DMA"
    if tiles.pitch >= 1 << fields["x_stride"].width or g.w >= 1 << fields["x_size"].width:
        return "an image row does not fit a DMA"
    for run in tiles.row_runs():
        if run.size < 1 or max(run.before, run.after) > pad_max:
            return "the row padding does not fit a DMA"
    if max(p.th, tiles.tw, tiles.acc_tile) > 16383:
        return "a micro-op loop would exceed its 14-bit extent"
    return None


def conv_tiles_misfit(tiles: ConvTiles, cfg: VTAConfig, budget: Budget,
                      accs: Sequence[str]) -> str | None:
    """Why the tiles of a plan do not fit ``budget`` (the accumulator inits ``accs``), or
    ``None``: the check of the plan search, for tilers building on it."""
    return _check(tiles, cfg, budget, accs)


@dataclass(frozen=True)
class ConvEstimate:
    cycles: int
    dram: int


def conv_dram(tiles: ConvTiles, cfg: VTAConfig, accs: Sequence[str]) -> int:
    """The DRAM bytes a plan moves (:attr:`ConvEstimate.dram`), without its cycles: the plan
    search keeps the plans within 30 % of the least before it estimates any plan's cycles."""
    g, p = tiles.geo, tiles.plan
    per_tile = tiles.inp_blocks * tiles.n_i * tiles.n_o * g.nb * cfg.inp_elem_bytes
    inp_bytes = sum(run.count * col_run.count * run.size * col_run.size
                    for run in tiles.row_runs() for col_run in tiles.col_runs()) * per_tile
    wgt_bytes = tiles.weight_loads * p.to * tiles.wgt_blocks * g.kh * g.kw * cfg.wgt_elem_bytes
    n_tiles = tiles.tiles
    e = tiles.acc_tile
    acc_bytes = 0
    for kind in accs:
        if kind == "bcast":
            acc_bytes += g.nb * g.ob * cfg.acc_elem_bytes
        elif kind in ("bcast_acc", "load"):
            acc_bytes += n_tiles * e * cfg.acc_elem_bytes
        elif kind == "load8":
            acc_bytes += n_tiles * e * cfg.out_elem_bytes
    return inp_bytes + wgt_bytes + acc_bytes + n_tiles * e * cfg.out_elem_bytes


def _input_step_cycles(tiles: ConvTiles, costs: InsnCosts, run: Run, col_run: Run) -> int:
    """The load cycles of one input step of a tile padded as ``run`` and ``col_run``: a DMA
    per channel block, one cycle per padding element."""
    real = run.size * col_run.size
    return (costs.load("INP", real) + tiles.ht * tiles.wt - real) * tiles.inp_blocks


def _gemm_step_cycles(tiles: ConvTiles, cfg: VTAConfig) -> int:
    """The cycles of one input step's GEMM over a tile."""
    g, p = tiles.geo, tiles.plan
    return cfg.timing.pipeline_depth + tiles.acc_tile * p.ti * g.kh * g.kw


def estimate_conv(tiles: ConvTiles, cfg: VTAConfig, costs: InsnCosts, accs: Sequence[str],
                  alu: Sequence[bool]) -> ConvEstimate:
    g, p = tiles.geo, tiles.plan
    kk = g.kh * g.kw
    n_o, n_i = tiles.n_o, tiles.n_i
    row_runs, col_runs = tiles.row_runs(), tiles.col_runs()
    load = 0
    # Per input-tile load: (tiles padded alike, cycles of one).
    per_r_inp = [(run.count * col_run.count, _input_step_cycles(tiles, costs, run, col_run) * n_i)
                 for run in row_runs for col_run in col_runs]
    for count, cycles in per_r_inp:
        load += count * cycles * n_o * g.nb
    wgt_tile = p.to * tiles.wgt_blocks * kk
    load += tiles.weight_loads * costs.load("WGT", wgt_tile)
    tiles_or = tiles.tiles
    e = tiles.acc_tile
    gemm_step = _gemm_step_cycles(tiles, cfg)
    compute = tiles_or * (costs.gemm(e) + n_i * gemm_step)
    tensor_ops = sum(1 for tensor in alu if tensor)
    compute += tiles_or * (tensor_ops * costs.alu(e, True)
                           + (len(alu) - tensor_ops) * costs.alu(e, False))
    for kind in accs:
        if kind == "bcast":
            compute += g.nb * n_o * costs.load("ACC", p.to)
        elif kind == "bcast_acc":
            compute += tiles_or * costs.load("ACC", e)
        elif kind in ("load", "load8"):
            compute += tiles_or * costs.load("ACC" if kind == "load" else "ACC_8BIT", e)
    store_tile = costs.store(e)
    store = tiles_or * store_tile
    # Until the first GEMM: the first input step and the weights it needs (all the output
    # tile's resident weights unless the first tile streams them slice by slice).
    step_inp = per_r_inp[0][1] // max(n_i, 1)
    streaming = tiles.streaming
    if streaming:
        slice_load = costs.load("WGT", p.to * p.ti * kk)
        first = step_inp + slice_load
        # The first tile waits for every slice when loading one takes longer than using it.
        first += max(0, n_i - 1) * max(0, step_inp + slice_load - gemm_step)
    else:
        first = step_inp + costs.load("WGT", wgt_tile)
    if not p.double_buffer:
        cycles = load + compute + store
    elif p.acc_double:
        # Consecutive tiles overlap, except where the loop nest restarts (an output tile
        # change or a change of row padding when the tile loops are not one loop, the tile
        # after the one that streams the weights).
        restarts = 0 if tiles.flat else (g.nb * n_o * len(row_runs) * len(col_runs) - 1)
        restarts += 1 if streaming and not p.first_acc else 0
        cycles = max(load, compute + restarts * store_tile, store) + first + store_tile
    else:
        cycles = max(load, compute + tiles_or * store_tile, store) + first + store_tile
    return ConvEstimate(cycles, conv_dram(tiles, cfg, accs))


#: The most copies of the input tile a plan rotates through (:func:`input_copies`).
MAX_INPUT_COPIES = 4


def input_copies(tiles: ConvTiles, cfg: VTAConfig, costs: InsnCosts, budget: Budget,
                 tail: int) -> int:
    """How many copies of the input tile the double-buffered plan of ``tiles`` rotates
    through, when each output tile ends with ``tail`` compute cycles that read no input (an
    epilogue, a fused pool).

    While the compute module runs a tile's tail, the load module can only fill input copies
    that are free: with ``c`` copies, ``c - 1`` input steps of the next tile (the last step's
    copy is read until the tail starts).  When an input step loads more slowly than its GEMMs
    use it, the loads are the bottleneck of the tile and every cycle of the tail they cannot
    fill is lost: about ``tail - (c - 1) · step`` per tile.  Two copies, or the fewest (up to
    :data:`MAX_INPUT_COPIES`, as the input SRAM allows) that lose the least."""
    if not tiles.plan.double_buffer or tiles.tiles < 2 or tail <= 0:
        return 2
    run, col_run = max(((r, c) for r in tiles.row_runs() for c in tiles.col_runs()),
                       key=lambda rc: rc[0].count * rc[1].count)
    step = _input_step_cycles(tiles, costs, run, col_run)
    if step <= _gemm_step_cycles(tiles, cfg):
        return 2
    copy = tiles.inp_blocks * tiles.ht * tiles.wt
    fitting = [c for c in range(2, MAX_INPUT_COPIES + 1) if c * copy <= budget.inp]
    return min(fitting, key=lambda c: (max(0, tail - (c - 1) * step), c))


def choose_conv_plan(region: ConvRegion, cfg: VTAConfig, budget: Budget,
                     tile: tuple[int, int, int], double_buffer: bool | None) -> ConvPlan:
    """The plan of ``region`` (module docstring); ``tile``'s o and i entries (channel blocks,
    0: chosen) fix ``to`` and ``ti``.  Raises :class:`NoFit`."""
    g = region.geo
    accs = tuple(region.inits[a][1] for a in region.accs)
    alu = tuple(len(op.inputs) > 1 for op in region.ops
                if isinstance(op, linalg.GenericOp) and op.outputs[0] in op.inputs)
    _, want_o, want_i = tile
    for value, n, what in ((want_o, g.ob, "output"), (want_i, g.ib, "input")):
        if value and n % value:
            raise NoFit(f"tile {value} does not divide the {n} {what} channel blocks")
    found = _search(g, accs, alu, cfg, budget, tile, double_buffer)
    if isinstance(found, str):
        why = smallest_tile_overflow(region, cfg, budget, tile, double_buffer)
        raise NoFit(why or found or "no tiling fits")
    return found


@functools.lru_cache(maxsize=4096)
def _search(g: ConvGeometry, accs: tuple[str, ...], alu: tuple[bool, ...], cfg: VTAConfig,
            budget: Budget, tile: tuple[int, int, int],
            double_buffer: bool | None) -> ConvPlan | str:
    """The best plan of a convolution region of geometry ``g`` (accumulator inits ``accs``,
    ``alu``: which epilogue ops read a second tensor), else why none fits. It reads its
    arguments only (all immutable), so a layer shape met again takes the plan found the first
    time."""
    costs = InsnCosts(cfg)
    _, want_o, want_i = tile
    skip_options = [False]
    if g.kh == 1 and g.sh > 1 and g.pads[:2] == (0, 0):
        skip_options.append(True)
    # Every plan that fits, with its DRAM bytes (in search order, which breaks ties).
    fitting: list[tuple[int, ConvTiles]] = []
    reasons: set[str] = set()
    # Column tiles narrower than the image (``tw`` > 0) matter where a window row is long:
    # their halo is loaded again, but rows can then be tiled taller.
    widths = [0, *[d for d in divisors(g.ow) if d < g.ow]]
    for to, ti, th, tw in itertools.product([want_o] if want_o else divisors(g.ob),
                                            [want_i] if want_i else divisors(g.ib),
                                            divisors(g.oh), widths):
        for resident in (True, False):
            if resident and ti == g.ib and th == g.oh and not tw:
                continue  # the same loads as per step
            tiles_count = g.nb * (g.ob // to) * (g.oh // th) * (g.ow // (tw or g.ow))
            for db, acc2 in _buffering(double_buffer, tiles_count > 1):
                own = [False, True] if acc2 and resident and g.nb == 1 and to == g.ob \
                    else [False]
                for skip, first_acc in itertools.product(skip_options, own):
                    plan = ConvPlan(to, th, ti, resident, db, skip, acc2, first_acc, tw)
                    tiles = ConvTiles(g, plan)
                    why = _check(tiles, cfg, budget, accs)
                    if why is not None:
                        reasons.add(why)
                        continue
                    fitting.append((conv_dram(tiles, cfg, accs), tiles))
    if not fitting:
        return "; ".join(sorted(reasons))
    least = min(dram for dram, _ in fitting)
    best = min(((estimate_conv(tiles, cfg, costs, accs, alu).cycles, dram, tiles.plan)
                for dram, tiles in fitting if dram <= least * 1.3),
               key=lambda item: (item[0], item[1]))
    return best[2]


def _buffering(double_buffer: bool | None, tiles: bool) -> list[tuple[bool, bool]]:
    """``(double_buffer, acc_double)`` options: two accumulator tiles only with double
    buffering and more than one output tile."""
    options = [(True, False), (False, False)]
    if tiles:
        options.append((True, True))
    if double_buffer is None:
        return options
    return [o for o in options if o[0] == double_buffer]


def smallest_tile_overflow(region: ConvRegion, cfg: VTAConfig, budget: Budget,
                           tile: tuple[int, int, int], double_buffer: bool | None) -> str | None:
    """Why even the smallest tile of ``region`` cannot be used: one output and one input
    channel block (or the blocks ``tile`` fixes), one output row and one output column, single
    buffered (unless ``double_buffer`` insists), named with the elements and bytes it needs of
    each SRAM too small for it; ``None`` when that tile fits.  Every larger tile needs at least
    as much of each SRAM, so this is why no plan fits (a kernel window too large for an SRAM)."""
    g = region.geo
    _, want_o, want_i = tile
    plan = ConvPlan(want_o or 1, 1, want_i or 1, False, bool(double_buffer),
                    tw=1 if g.ow > 1 else 0)
    tiles = ConvTiles(g, plan)
    accs = [region.inits[a][1] for a in region.accs]
    db = 2 if plan.double_buffer else 1
    wdb = 2 if plan.double_buffer and tiles.weight_loads > 1 else 1
    copies = " in two copies (double buffering)"
    need = {
        "inp": (db * tiles.inp_blocks * tiles.ht * tiles.wt,
                f"its {tiles.ht}x{tiles.wt} input window{copies if db > 1 else ''}"),
        "wgt": (wdb * plan.to * plan.ti * g.kh * g.kw,
                f"its {g.kh}x{g.kw} kernel{copies if wdb > 1 else ''}"),
        "acc": (sum(g.ob if kind == "bcast" else tiles.acc_tile for kind in accs),
                "its output elements and per-channel operands"),
    }
    over = []
    for sram, (elements, what) in need.items():
        available = getattr(budget, sram)
        if elements > available:
            size = int(getattr(cfg, f"{sram}_elem_bytes"))
            over.append(f"{elements} elements ({elements * size} bytes) of the "
                        f"{SRAM_NAMES[sram]} SRAM (#vta.sram<{sram}>) for {what}, which has "
                        f"{available} ({available * size} bytes) available")
    kernel = plan.ti * g.kh * g.kw * plan.to
    if kernel > cfg.uop_buff_depth // 4:
        over.append(f"a micro-kernel of {kernel} micro-ops, more than the quarter of the "
                    f"micro-op SRAM a step may take ({cfg.uop_buff_depth // 4})")
    if not over:
        return _check(tiles, cfg, budget, accs)
    cols = "1 output row of 1 column" if g.ow > 1 else "1 output row"
    return (f"even its smallest tile ({plan.to} output and {plan.ti} input channel block(s), "
            f"{cols}) needs " + "; and ".join(over))
