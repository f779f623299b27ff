"""A max-pool fused into the convolution whose int8 output it alone reads (``vta-tile``).

A convolution region's epilogue (bias, multiplier, shift, clip) is *monotone non-decreasing*
when every ALU operation of it is: an ``add`` of an immediate or of a per-channel operand, a
``mul`` by a positive immediate, a ``shr`` by an immediate (a left shift for a negative one),
``min`` / ``max`` of an immediate; and its ``trunci`` keeps every value when the clip leaves it
within int8.  Then ``epilogue(max over a window of acc) = max over the window of
epilogue(acc)``, so a max-pool reading that int8 output (and nothing else reading it) can pool
the int32 accumulators in SRAM and run the epilogue on the pooled elements only: one region
instead of two, no int8 round trip through DRAM, and the epilogue on a fraction of the
elements.  The pool's padding and initial value never win when they are at most the smallest
value the epilogue yields (ResNet's −128 below a clip at 0, or at −128), so they are skipped:
every window holds at least one element of the image.

**Tiles.**  The convolution is tiled as by :mod:`.conv` in a *virtual* geometry whose output
rows and columns are the pool's padded data (``pt`` rows and ``pl`` columns before the
convolution's output: the convolution's padding grows by ``pt·sh`` and ``pl·sw``, whose rows
the input DMAs pad like any other), with row tiles of ``th = psh·(tp − 1) + pkh`` rows every
``psh·tp`` rows (:attr:`.conv_plan.ConvPlan.row_pitch`): a tile of ``tp`` pooled rows holds
every convolution row its windows read, those two pooled tiles share computed in both.  Or,
when those ``pkh − psh`` shared rows lie in the pool's top padding for the first tile, tiles
of ``psh·tp`` rows every ``psh·tp`` (:attr:`.conv_plan.ConvPlan.carry_rows`): each tile pools
the window rows of the next tile's first pooled rows that fall in its own last rows into the
next pooled tile, ahead (two pooled tiles alternate), and the next tile only takes the maximum
with their other rows; the first row tile of each channel group, whose shared rows are the
padding, is a run of its own.  Rows are carried when the model says it saves
:data:`CARRY_MIN_SAVING` cycles; ``carry-rows=true`` carries them whenever a plan doing so
fits, ``false`` never.  After
the convolution of a tile (:mod:`.conv_pool_emit`): the pooled tile is set to the window
element every output has in the image, then one ALU ``max`` per other window offset on the
outputs whose element lies in the image, then the epilogue on the pooled tile, then its
store.  Where no plan fits, or the pair does not qualify, the two regions are tiled as
before (the same integers either way).

**Separably.**  With ``kw0`` the window column every pooled column has in the image, the
pooled column ``j``'s *anchor* ``psw·j + kw0``: when no other window column is another
output's anchor (:func:`separable_columns`: ``(kw − kw0) % psw != 0``, so never for stride
1), the window columns are pooled first, in place in the accumulator tile over all its rows
in the image — one ALU ``max`` per ``kw != kw0`` of the anchor columns with the columns
``kw − kw0`` to their side, column-strided views of the tile, on the ``j`` whose column lies in
the image — and then only the window rows at the anchor column into the pooled tile.  No
micro-op reads an element another one writes.  For ResNet's 3×3, stride-2 pool that is 15
compute cycles per pooled element instead of 19 (a reset, an ``add`` and two ``max`` on the
pooled tile, two ``max`` on each of about two convolution rows, two cycles per two-operand
``max``); :func:`pooling_cycles` models both forms per plan and the plan keeps the cheaper.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from typing import NamedTuple

from xdsl.dialects import memref
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap

from vta_mlir.config import VTAConfig
from vta_mlir.isa import AluKind

from .conv_plan import ConvPlan, ConvTiles, conv_tiles_misfit, estimate_conv, input_copies
from .conv_region import ConvGeometry, ConvRegion
from .cost import Budget, InsnCosts
from .pool_region import PoolRegion, generic_alu
from .search import divisors

__all__ = ["ConvPoolRegion", "carried_rows", "edge_rows", "fuse_conv_pools", "image_columns",
           "init_offset", "pooling_cycles", "row_init", "separable_columns", "window_span"]

_IDENTITY6 = AffineMap.identity(6)

#: The modelled cycles carrying rows from one row tile to the next must save.  The carry makes
#: the first row tile a run of its own and adds its ALU kernels to every tile: a few thousand
#: cycles of micro-op loads and instruction overheads that the plan model does not count
#: (2,200 more compute-module load cycles on a 16×16 layer whose model said it saved 500).
#: ``vta-tile{carry-rows=true|false}`` overrides it.
CARRY_MIN_SAVING = 10_000


@dataclass(eq=False)
class ConvPoolRegion:
    """A convolution region and the max-pool reading its output, planned as one."""

    conv: ConvRegion
    pool: PoolRegion
    #: The int8 DRAM buffer the convolution writes and the pool reads (gone once fused).
    mid: SSAValue
    #: The convolution's epilogue ALU generics (after the convolution, its biases loaded).
    epilogue: list[linalg.GenericOp]
    #: The convolution in the pool's padded coordinates (module docstring).
    geo: ConvGeometry
    plan: ConvPlan
    #: Pooled rows per tile.
    tp: int
    #: Two pooled tiles alternating between consecutive tiles (the store of one overlaps the
    #: next tile); the convolution's accumulator tile, which only the compute module uses,
    #: needs no second copy for that.
    pooled_double: bool
    #: The window columns are pooled first, in place in the accumulator tile, into each
    #: pooled column's anchor column; then only the window rows at the anchor column
    #: (:func:`separable_columns`).
    separable: bool

    @property
    def output(self) -> linalg.GenericOp:
        return self.conv.output


def monotone_range(conv: ConvRegion) -> tuple[list[linalg.GenericOp], float, float] | None:
    """The epilogue ALU generics of ``conv`` and the range of the values they yield, when
    every one is monotone non-decreasing (module docstring); else ``None``."""
    if conv.inits[conv.acc][1] != "fill":
        return None
    pos = conv.ops.index(conv.conv)
    biases = {a for a in conv.accs if conv.inits[a][1] == "bcast"}
    skip = {conv.inits[a][0] for a in biases}
    lo, hi = -math.inf, math.inf
    epilogue: list[linalg.GenericOp] = []
    for op in conv.ops[pos + 1:]:
        if op is conv.output or op in skip or isinstance(op, memref.AllocOp | memref.DeallocOp):
            continue
        alu = generic_alu(op)
        if alu is None or not isinstance(op, linalg.GenericOp) or op.outputs[0] is not conv.acc \
                or any(m.data != _IDENTITY6 for m in op.indexing_maps.data):
            return None
        kind, imm = alu
        others = [v for v in op.inputs if v is not conv.acc]
        if imm is None:
            # Only a per-channel operand commutes with a maximum over positions.
            if kind != AluKind.ADD or len(others) != 1 or others[0] not in biases:
                return None
            lo, hi = -math.inf, math.inf
        elif kind == AluKind.ADD:
            lo, hi = lo + imm, hi + imm
        elif kind == AluKind.MUL:
            if imm <= 0:
                return None
            lo, hi = lo * imm, hi * imm
        elif kind == AluKind.SHR:
            lo, hi = (math.floor(lo / 2 ** imm) if math.isfinite(lo) else lo,
                      math.floor(hi / 2 ** imm) if math.isfinite(hi) else hi)
        elif kind == AluKind.MIN:
            lo, hi = min(lo, imm), min(hi, imm)
        elif kind == AluKind.MAX:
            lo, hi = max(lo, imm), max(hi, imm)
        else:
            return None
        epilogue.append(op)
    return epilogue, lo, hi


def _pool_ops_plain(pool: PoolRegion) -> bool:
    """The pool region initialises its accumulator, pools and stores: no epilogue."""
    after = pool.ops[pool.ops.index(pool.pool) + 1:]
    return not pool.operands and all(op is pool.output or isinstance(op, memref.DeallocOp)
                                     for op in after)


def _mid_buffer(conv: ConvRegion, pool: PoolRegion) -> SSAValue | None:
    """The int8 buffer between the two regions, when only they use it."""
    mid = conv.output.outputs[0]
    if pool.x is not mid or not isinstance(mid.owner, memref.AllocOp):
        return None
    allowed = {conv.output, pool.pool, *pool.padding}
    for use in mid.uses:
        if use.operation not in allowed and not isinstance(use.operation, memref.DeallocOp):
            return None
    return mid


def _output_at_conv(conv: ConvRegion, pool: PoolRegion) -> bool:
    """The fused region stores the pool's output from the convolution's place: its buffer is
    an argument, an alloc (moved there when defined later) or defined before that place, and
    nothing else writes it."""
    y = pool.output.outputs[0]
    for use in y.uses:
        user = use.operation
        written = (isinstance(user, memref.CopyOp) and user.destination is y) or (
            isinstance(user, linalg.GenericOp | linalg.FillOp) and y in user.outputs)
        if written and user is not pool.output:
            return False
    owner = y.owner
    if not isinstance(owner, Operation) or isinstance(owner, memref.AllocOp):
        return True
    block = conv.output.parent_block()
    return (block is not None and owner.parent_block() is block
            and block.get_operation_index(owner) < block.get_operation_index(conv.output))


def virtual_geometry(conv: ConvRegion, pool: PoolRegion, carry: int = 0) -> ConvGeometry:
    """The convolution in the pool's padded coordinates (module docstring), its first
    ``carry`` rows (the pool's padding) left out."""
    g, pg = conv.geo, pool.geo
    oh = (pg.oh - 1) * pg.sh + pg.kh - carry
    ow = (pg.ow - 1) * pg.sw + pg.kw
    top = g.pads[0] + (pg.pads[0] - carry) * g.sh
    left = g.pads[2] + pg.pads[2] * g.sw
    bottom = max(0, (oh - 1) * g.sh + g.kh - g.h - top)
    right = max(0, (ow - 1) * g.sw + g.kw - g.w - left)
    return replace(g, pads=(top, bottom, left, right), oh=oh, ow=ow)


def carried_rows(carry: int, stride: int) -> int:
    """The pooled rows of a tile whose windows reach ``carry`` rows into the previous tile."""
    return -(-carry // stride)


def edge_rows(k: int, pitch: int, span: int, lead: int, real: int) -> tuple[int, int]:
    """The rows of tile ``k`` (``span`` rows every ``pitch``) that hold real elements of an
    extent of ``real`` after ``lead`` padding rows: ``[first, end)`` within the tile."""
    start = k * pitch
    return max(0, lead - start), min(span, lead + real - start)


def init_offset(first: int, end: int, stride: int, outputs: int, kernel: int) -> int | None:
    """A window offset whose element lies in ``[first, end)`` for every one of ``outputs``
    outputs ``stride`` apart, or ``None``: one whose column is no other output's window
    column when there is one (:func:`separable_columns`; the middle one of an unpadded 3×3 /
    2 window), else the first."""
    valid = [k for k in range(first, kernel) if (outputs - 1) * stride + k < end]
    if not valid or valid[0] != first:
        return None
    return next((k for k in valid if separable_columns(k, kernel, stride)), valid[0])


def row_init(first: int, end: int, carry: int, stride: int, rows: range,
             kernel: int) -> int | None:
    """A window row offset whose element (tile row ``stride · j + kh − carry``) lies in
    ``[first, end)`` for every pooled row ``j`` of ``rows``, or ``None``."""
    for kh in range(kernel):
        if all(first <= stride * j + kh - carry < end for j in rows):
            return kh
    return None


def window_span(first: int, end: int, k: int, stride: int, outputs: int) -> tuple[int, int]:
    """The outputs ``[lo, hi)`` whose element ``k`` of the window lies in ``[first, end)``."""
    lo = max(0, -((k - first) // stride))
    hi = min(outputs, (end - 1 - k) // stride + 1) if end > k else 0
    return lo, max(lo, hi)


def image_columns(geo: ConvGeometry, pool: PoolRegion, conv: ConvRegion) -> tuple[int, int]:
    """The columns ``[first, end)`` of the convolution in the pool's padded coordinates
    (``geo``) that hold the image."""
    return edge_rows(0, 0, geo.ow, pool.geo.pads[2], conv.geo.ow)


def separable_columns(kw0: int, kernel: int, stride: int) -> bool:
    """The window columns of a ``kernel``-wide, ``stride`` pool can be pooled in place into
    each output's anchor column ``stride · j + kw0`` before its rows are: no other window
    column is the anchor column of another output (``(kw − kw0) % stride != 0`` for every
    ``kw != kw0``; never with stride 1, where every column is an anchor)."""
    return kernel > 1 and all((kw - kw0) % stride for kw in range(kernel) if kw != kw0)


def pooling_cycles(costs: InsnCosts, pool: PoolRegion, cols: tuple[int, int], kw0: int,
                   shape: tuple[int, int, int], separable: bool) -> int:
    """Modelled compute cycles of pooling one tile of ``shape = (to, th, tp)`` (channel blocks,
    convolution rows, pooled rows), its image columns ``cols``: the GEMM reset of the pooled
    tile, then two-operand ALU instructions: one per window offset, or, ``separable``, one per
    other window column over the tile's rows (the element columns it reaches in the image)
    and one per window row at the anchor column ``kw0``."""
    pg = pool.geo
    to, th, tp = shape
    pooled = to * tp * pg.ow
    cycles = costs.gemm(pooled)
    if not separable:
        return cycles + pg.kh * pg.kw * costs.alu(pooled, True)
    for kw in range(pg.kw):
        c0, c1 = window_span(*cols, kw, pg.sw, pg.ow)
        if kw != kw0 and c1 > c0:
            cycles += costs.alu(to * th * (c1 - c0), True)
    return cycles + pg.kh * costs.alu(pooled, True)


def _fits_edges(tiles: ConvTiles, pool: PoolRegion, conv: ConvRegion, tp: int) -> bool:
    """Every tile has a window offset all its outputs (those not carried) find in the image,
    the rows a tile carries into the next are in the image, and the tiles of a run of more
    than one (a host loop) read no pool padding (module docstring)."""
    pg, g = pool.geo, conv.geo
    pitch, th, carry = tiles.pitch_rows, tiles.plan.th, tiles.plan.carry_rows
    lead = pg.pads[0] - carry
    for run in tiles.row_runs():
        for k in {run.first, run.first + run.count - 1}:
            first, end = edge_rows(k, pitch, th, lead, g.oh)
            if run.count > 1 and (first, end) != (0, th):
                return False
            jc = carried_rows(carry, pg.sh) if k else 0
            if row_init(first, end, carry, pg.sh, range(jc, tp), pg.kh) is None:
                return False
            if k and carry and edge_rows(k - 1, pitch, th, lead, g.oh)[1] != th:
                return False
    first, end = edge_rows(0, 0, tiles.geo.ow, pg.pads[2], g.ow)
    return init_offset(first, end, pg.sw, pg.ow, pg.kw) is not None


class _Candidate(NamedTuple):
    """A fused plan of :func:`_plan`: its modelled (cycles, DRAM bytes), its tiles, pooled
    rows per tile, whether two pooled tiles alternate, whether its columns are pooled first,
    the compute cycles that end each tile (pool and epilogue) and the SRAM it may use."""

    key: tuple[int, int]
    tiles: ConvTiles
    tp: int
    pooled2: bool
    separable: bool
    tail: int
    budget: Budget


def _plan(conv: ConvRegion, pool: PoolRegion, cfg: VTAConfig, budget: Budget,
          tile: tuple[int, int, int], double_buffer: bool | None, carry_rows: bool | None,
          epilogue: int) -> tuple[ConvPlan, int, bool, ConvGeometry, bool] | None:
    """The fused plan with the fewest modelled cycles, its pooled rows per tile, whether two
    pooled tiles alternate, the convolution's geometry it tiles and whether its columns are
    pooled first (when that models fewer cycles).  ``carry_rows`` ``None`` carries rows when
    that saves :data:`CARRY_MIN_SAVING` modelled cycles, ``True`` whenever a plan carrying
    them fits, ``False`` never."""
    pg = pool.geo
    costs = InsnCosts(cfg)
    accs = tuple(conv.inits[a][1] for a in conv.accs)
    _, want_o, want_i = tile
    if (want_o and conv.geo.ob % want_o) or (want_i and conv.geo.ib % want_i):
        return None
    # The best plan without and with carried rows.
    best: list[_Candidate | None] = [None, None]
    # (double buffering, two convolution accumulator tiles, two pooled tiles)
    buffering = [(True, False, False), (False, False, False), (True, True, True),
                 (True, False, True)]
    if double_buffer is not None:
        buffering = [b for b in buffering if b[0] == double_buffer]
    # Rows two consecutive row tiles' windows share: carried from one tile to the next when
    # they are the pool's padding above the first tile (which then carries nothing in).
    overlap = pg.kh - pg.sh
    carries = [0, overlap] if 0 < overlap <= pg.pads[0] and carry_rows is not False else [0]
    geos = {carry: virtual_geometry(conv, pool, carry) for carry in carries}
    geo = geos[0]
    cols = image_columns(geo, pool, conv)
    kw0 = init_offset(*cols, pg.sw, pg.ow, pg.kw)
    separable = kw0 is not None and separable_columns(kw0, pg.kw, pg.sw)
    for to, ti, tp, resident, carry in itertools.product(
            [want_o] if want_o else divisors(geo.ob), [want_i] if want_i else divisors(geo.ib),
            divisors(pg.oh), (True, False), carries):
        th = pg.sh * tp if carry else pg.sh * (tp - 1) + pg.kh
        if carry and pg.sh * tp <= carry:
            continue
        for db, acc2, pooled2 in buffering:
            if pooled2 and geo.nb * (geo.ob // to) * (pg.oh // tp) < 2:
                continue
            if carry and not pooled2:
                continue  # the carried rows go to the next pooled tile while this one stores
            plan = ConvPlan(to, th, ti, resident, db, acc_double=acc2, row_pitch=pg.sh * tp,
                            carry_rows=carry)
            tiles = ConvTiles(geos[carry], plan)
            pooled = (2 if pooled2 else 1) * to * tp * pg.ow
            if pooled >= budget.acc:
                continue
            tile_budget = replace(budget, acc=budget.acc - pooled)
            if conv_tiles_misfit(tiles, cfg, tile_budget, accs) is not None:
                continue
            if not _fits_edges(tiles, pool, conv, tp):
                continue
            # Stores overlap the next tile with two pooled tiles as with two accumulator
            # tiles: the convolution's model of the latter.
            modelled = ConvTiles(geos[carry], replace(plan, acc_double=pooled2))
            est = estimate_conv(modelled, cfg, costs, accs, ())
            assert kw0 is not None  # _fits_edges
            pooling = [(pooling_cycles(costs, pool, cols, kw0, (to, th, tp), sep), sep)
                       for sep in ((False, True) if separable else (False,))]
            pool_cycles, sep = min(pooling)
            tail = pool_cycles + epilogue * costs.alu(to * tp * pg.ow, False)
            key = (est.cycles + tiles.tiles * tail, est.dram)
            kept = best[bool(carry)]
            if kept is None or key < kept.key:
                best[bool(carry)] = _Candidate(key, tiles, tp, pooled2, sep, tail, tile_budget)
    plain, carried = best
    if carried is not None and (carry_rows or plain is None or
                                plain.key[0] - carried.key[0] >= CARRY_MIN_SAVING):
        chosen = carried
    elif plain is not None:
        chosen = plain
    else:
        return None
    # The pool and the epilogue end every tile: more input copies let the loads run on.
    copies = input_copies(chosen.tiles, cfg, costs, chosen.budget, chosen.tail)
    return (replace(chosen.tiles.plan, inp_copies=copies), chosen.tp, chosen.pooled2,
            chosen.tiles.geo, chosen.separable)


def match_conv_pool(conv: ConvRegion, pool: PoolRegion, cfg: VTAConfig, budget: Budget,
                    tile: tuple[int, int, int], double_buffer: bool | None,
                    carry_rows: bool | None = None) -> ConvPoolRegion | None:
    """The fused region of ``conv`` and the ``pool`` after it, when they qualify (module
    docstring) and a plan fits (``carry_rows``: as :func:`_plan`); else ``None``."""
    pg, g = pool.geo, conv.geo
    if pg.kind != AluKind.MAX or g.depthwise or not _pool_ops_plain(pool):
        return None
    if (pg.nb, pg.cb, pg.h, pg.w) != (g.nb, g.ob, g.oh, g.ow):
        return None
    mid = _mid_buffer(conv, pool)
    found = monotone_range(conv)
    if mid is None or found is None or not _output_at_conv(conv, pool):
        return None
    epilogue, lo, hi = found
    if lo < -128 or hi > 127 or pg.init > lo or (any(pg.pads) and pg.pad_value > lo):
        return None
    planned = _plan(conv, pool, cfg, budget, tile, double_buffer, carry_rows, len(epilogue))
    if planned is None:
        return None
    plan, tp, pooled2, geo, separable = planned
    return ConvPoolRegion(conv, pool, mid, epilogue, geo, plan, tp, pooled2, separable)


def fuse_conv_pools(regions: list[object], cfg: VTAConfig, budget: Budget,
                    tile: tuple[int, int, int], double_buffer: bool | None,
                    carry_rows: bool | None = None) -> list[object]:
    """``regions`` with each convolution and the max-pool right after it that qualify as one
    :class:`ConvPoolRegion` (``carry_rows``: as :func:`_plan`)."""
    out: list[object] = []
    k = 0
    while k < len(regions):
        region = regions[k]
        after = regions[k + 1] if k + 1 < len(regions) else None
        if isinstance(region, ConvRegion) and isinstance(after, PoolRegion):
            fused = match_conv_pool(region, after, cfg, budget, tile, double_buffer,
                                    carry_rows)
            if fused is not None:
                out.append(fused)
                k += 2
                continue
        out.append(region)
        k += 1
    return out
