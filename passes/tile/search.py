"""The search of ``vta-tile``: every tiling of a region that fits the SRAMs, costed by
:mod:`.cost`, and the best one.

Tile sizes tried per dimension are its divisors and, where two consecutive divisors are more
than a factor 2 apart (the dimension has no good divisor there), the sizes that split it into
up to :data:`MAX_SPLITS` tiles, leaving a smaller last tile; the ``i`` tile always divides.  A
plan is kept when every SRAM view it needs is a contiguous run of its buffer.  Equivalent
spellings of one schedule are costed once (:func:`_normalise`).  Plans are ranked by
``(DRAM bytes, cycles)``: every plan by the closed-form estimate, then the
:data:`REFINED` best with fewest bytes by replaying their commands
(:func:`~.cost.replay`).  A plan with a remainder tile must be faster by more than
:data:`REMAINDER_MARGIN` to be preferred to one whose tiles divide the dimensions.  For a
region whose i32 result is stored as byte planes, the plans pipelining those stores over the
tiles (:mod:`.plane_pipeline`) are candidates too, costed by :mod:`.plane_cost`, unless
``double-buffer=false``.

The regions of one function (the layers of a network) run one after the other, so each may
use the whole of every SRAM the function does not already hold (:func:`sram_budget`); its
buffers get element ranges after the previous region's when they fit there, else from the
start again, reusing the earlier regions' elements (:func:`place_region_buffers`,
``vta.sram_offset``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence
from dataclasses import replace

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import IntegerAttr, IntegerType, MemRefType, i64
from xdsl.ir import Attribute, Operation, SSAValue

from vta_mlir.binary_checks import MAX_FOOTPRINT_BYTES, dram_footprint
from vta_mlir.config import LOOP_ITER_WIDTH, VTAConfig
from vta_mlir.dialects.vta_positions import SRAM_OFFSET_ATTR, sram_space
from vta_mlir.ir.diagnostics import report_error

from .cost import (
    Budget,
    Estimate,
    InsnCosts,
    NoFit,
    Plan,
    RegionShape,
    Residency,
    double_buffered,
    estimate,
    footprint,
    loaded_repeatedly,
    replay,
    tile_count,
)
from .plane_cost import plane_estimate, plane_replay

__all__ = [
    "MAX_SPLITS",
    "REFINED",
    "REMAINDER_MARGIN",
    "candidates",
    "check_dram_sizes",
    "choose_plan",
    "divisors",
    "place_region_buffers",
    "sram_budget",
    "sram_elements",
    "sram_in_use",
]

#: Relative cycle advantage a plan with a remainder tile needs over one without (more code, a
#: second copy of the loop body, for little gain otherwise).
REMAINDER_MARGIN = 0.02
#: Tile counts tried per dimension beyond its divisors (sizes ``ceil(n / k)``).
MAX_SPLITS = 64
#: Plans whose commands are replayed to rank them finally.
REFINED = 32
#: Largest extent of a loop the hardware iterates (14-bit loop fields).
EXTENT_MAX = (1 << LOOP_ITER_WIDTH) - 1


def divisors(n: int) -> list[int]:
    """The divisors of ``n`` in increasing order, found by trial up to its square root (a
    dimension may have billions of elements; counting up to it would hang)."""
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return small + [n // d for d in reversed(small) if d * d != n]


def _sizes(n: int, remainders: bool) -> list[int]:
    """Tile sizes tried for a dimension of ``n``: its divisors and, with remainders, the sizes
    that split it into up to :data:`MAX_SPLITS` tiles where its divisors leave a gap (two
    consecutive divisors more than a factor 2 apart: ``n`` has no good divisor there)."""
    all_divisors = divisors(n)
    out = set(all_divisors)
    if remainders:
        gaps = [(a, b) for a, b in zip(all_divisors, all_divisors[1:], strict=False)
                if b > 2 * a]
        for k in range(1, min(n, MAX_SPLITS) + 1):
            size = -(-n // k)
            if any(a < size < b for a, b in gaps):
                out.add(size)
    return sorted(s for s in out if s <= EXTENT_MAX)


def _contiguous(plan: Plan, shape: RegionShape) -> bool:
    """Every SRAM view the plan needs is a contiguous run of its buffer: a view of ``r`` of
    ``R`` rows and ``c`` of ``C`` columns is, when ``r == 1`` or ``c == C``."""
    rem_b, rem_o = shape.b % plan.tb, shape.o % plan.to
    if rem_o and plan.tb > 1:
        return False  # the accumulator tile's last columns
    if not shape.i:
        return True
    for res, rows, rem in ((plan.inp, plan.tb, rem_b), (plan.wgt, plan.to, rem_o)):
        if res is Residency.TILE or plan.ti == shape.i:
            continue
        if res is Residency.ROW and rows > 1:
            return False
        if res is Residency.ALL and (rows > 1 or rem):
            return False
    return True


def _normalise(shape: RegionShape, plan: Plan, fixed_ti: bool = False) -> Plan:
    """The same schedule in one canonical spelling (so equivalent plans are costed once).
    With both operands resident over the reduction, an ``i`` loop is pointless (and
    ``vta-fold-uop-loops`` would fold it into the GEMM): ``ti`` becomes ``I`` unless it was
    asked for (``fixed_ti``)."""
    if not shape.i:
        return replace(plan, ti=1, b_outer=True, inp=Residency.ALL, wgt=Residency.ALL,
                       double_buffer=False)
    nb, no = tile_count(shape.b, plan.tb), tile_count(shape.o, plan.to)
    inp, wgt = plan.inp, plan.wgt
    if plan.ti == shape.i:
        inp = Residency.ROW if inp is Residency.TILE else inp
        wgt = Residency.ROW if wgt is Residency.TILE else wgt
    if nb == 1 and inp is Residency.ROW:
        inp = Residency.ALL
    if no == 1 and wgt is Residency.ROW:
        wgt = Residency.ALL
    b_outer = plan.b_outer if nb > 1 and no > 1 else True
    ti = plan.ti if fixed_ti or Residency.TILE in (inp, wgt) else shape.i
    plan = replace(plan, ti=ti, inp=inp, wgt=wgt, b_outer=b_outer)
    if plan.double_buffer and not (loaded_repeatedly(shape, plan, "inp")
                                   or loaded_repeatedly(shape, plan, "wgt")):
        plan = replace(plan, double_buffer=False)
    return plan


def _fits(use: dict[str, int], budget: Budget) -> str | None:
    """The first SRAM ``use`` overflows, else ``None``."""
    for sram in ("inp", "wgt", "acc"):
        if use[sram] > getattr(budget, sram):
            return sram
    return None


def candidates(shape: RegionShape, budget: Budget, tile: tuple[int, int, int] = (0, 0, 0),
               double_buffer: bool | None = None) -> Iterator[Plan]:
    """Every distinct plan that fits ``budget`` (``tile`` entries of 0 are free); for an i32
    result, its plans pipelining the byte planes too (unless ``double_buffer`` is false)."""
    sizes_b = [tile[0]] if tile[0] else _sizes(shape.b, True)
    sizes_o = [tile[1]] if tile[1] else _sizes(shape.o, True)
    sizes_i = [tile[2]] if tile[2] and shape.i else _sizes(shape.i, False) if shape.i else [1]
    dbs = [double_buffer] if double_buffer is not None else [True, False]
    res = list(Residency) if shape.i else [Residency.ALL]
    seen: set[Plan] = set()
    for tb in sizes_b:
        for to in sizes_o:
            if shape.accs * tb * to > budget.acc:
                continue
            for ti in sizes_i:
                for b_outer in (True, False):
                    for inp in res:
                        for wgt in res:
                            for db in dbs:
                                plan = Plan(tb, to, ti, b_outer, inp, wgt, db)
                                forms = [_normalise(shape, plan, bool(tile[2]))]
                                if double_buffer is not False:
                                    forms.append(_pipelined(shape, plan))
                                for norm in forms:
                                    if norm is None or norm in seen:
                                        continue
                                    seen.add(norm)
                                    if (_fits(footprint(shape, norm), budget) is None
                                            and _contiguous(norm, shape)):
                                        yield norm


def _pipelined(shape: RegionShape, plan: Plan) -> Plan | None:
    """``plan`` pipelining the byte planes of an i32 result over its tiles
    (:mod:`.plane_pipeline`), in one canonical spelling, when it can: the region stores
    several planes, its tiles divide the dimensions and are at least two, and no operand is
    held per row of tiles (one flat loop has no rows)."""
    if shape.stores < 2 or shape.b % plan.tb or shape.o % plan.to \
            or Residency.ROW in (plan.inp, plan.wgt):
        return None
    nb, no = shape.b // plan.tb, shape.o // plan.to
    if nb * no < 2:
        return None
    if not shape.i:
        return Plan(plan.tb, plan.to, 1, True, Residency.ALL, Residency.ALL, False, True)
    plan = replace(plan, b_outer=plan.b_outer if nb > 1 and no > 1 else True,
                   plane_pipeline=True)
    if plan.double_buffer and not (loaded_repeatedly(shape, plan, "inp")
                                   or loaded_repeatedly(shape, plan, "wgt")):
        plan = replace(plan, double_buffer=False)
    return plan


def _key(shape: RegionShape, plan: Plan, est: Estimate) -> tuple[float, ...]:
    remainder = bool(shape.b % plan.tb or shape.o % plan.to)
    cycles = est.cycles * (1 + REMAINDER_MARGIN) if remainder else est.cycles
    tiles = tile_count(shape.b, plan.tb) * tile_count(shape.o, plan.to)
    return (est.dram_bytes, cycles, tiles, -plan.tb * plan.to * plan.ti)


def choose_plan(shape: RegionShape, cfg: VTAConfig, budget: Budget,
                tile: tuple[int, int, int] = (0, 0, 0),
                double_buffer: bool | None = None) -> tuple[Plan, Estimate]:
    """The best plan (and its estimate) for ``shape`` (module docstring); :class:`NoFit` when
    none fits or an explicit ``tile`` cannot work.

    The search reads its arguments only (all immutable), so a shape met again — a network's
    repeated layers, the same program compiled again in one process — takes the plan found
    the first time."""
    return _search(shape, cfg, budget, tile, double_buffer)


@functools.lru_cache(maxsize=4096)
def _search(shape: RegionShape, cfg: VTAConfig, budget: Budget, tile: tuple[int, int, int],
            double_buffer: bool | None) -> tuple[Plan, Estimate]:
    costs = InsnCosts(cfg)
    tile = (min(tile[0], shape.b), min(tile[1], shape.o), min(tile[2], shape.i))
    _check_request(shape, budget, tile, double_buffer)
    ranked = sorted(((_key(shape, p, e), p, e) for p in candidates(shape, budget, tile,
                                                                     double_buffer)
                     for e in [_estimate(shape, p, cfg, costs)]), key=lambda t: t[0])
    if not ranked:
        raise NoFit("no tiling fits the SRAMs available to this region (inp "
                    f"{budget.inp}, wgt {budget.wgt}, acc {budget.acc} elements)")
    best: tuple[tuple[float, ...], Plan, Estimate] | None = None
    for _, plan, est in ranked[:REFINED]:
        if est.dram_bytes > ranked[0][2].dram_bytes:
            break
        cycles = (plane_replay if plan.plane_pipeline else replay)(shape, plan, cfg, costs)
        refined = replace(est, cycles=cycles) if cycles is not None else est
        key = _key(shape, plan, refined)
        if best is None or key < best[0]:
            best = (key, plan, refined)
    assert best is not None
    return best[1], best[2]


def _estimate(shape: RegionShape, plan: Plan, cfg: VTAConfig, costs: InsnCosts) -> Estimate:
    return (plane_estimate if plan.plane_pipeline else estimate)(shape, plan, cfg, costs)


def _check_request(shape: RegionShape, budget: Budget, tile: tuple[int, int, int],
                   double_buffer: bool | None) -> None:
    """Explain why an explicit ``tile=`` cannot work, if it cannot."""
    if not any(tile):
        return
    tb, to, ti = (t or 1 for t in tile)
    if shape.i and ti and shape.i % ti:
        raise NoFit(f"the i tile of {ti} elements does not divide the {shape.i} elements of "
                    "the reduction (only the b and o tiles may leave a remainder)")
    if tile[1] and shape.o % to and (tile[0] or 1) > 1:
        raise NoFit(f"the o tile of {to} elements leaves a remainder of {shape.o % to}, which "
                    f"needs a b tile of 1 (the accumulator view of the last tile would not be "
                    "contiguous)")
    smallest = Plan(tb, to, ti, True, Residency.TILE, Residency.TILE, bool(double_buffer))
    use = footprint(shape, smallest)
    what = {"inp": f"input tile of {tb}x{ti}", "wgt": f"weight tile of {to}x{ti}",
            "acc": f"{shape.accs} accumulator tile(s) of {tb}x{to}"}
    sram = _fits(use, budget)
    if sram is not None:
        doubled = sram != "acc" and double_buffered(shape, smallest, sram)
        copies = " in two copies (double buffering)" if doubled else ""
        raise NoFit(f"the {what[sram]} elements{copies} needs {use[sram]} elements of the "
                    f"{sram.upper()} SRAM (#vta.sram<{sram}>), which has "
                    f"{getattr(budget, sram)} available")


# ---------------------------------------------------------------------------------------------
# DRAM: checked before any planning, whose work would otherwise grow with the dimensions


def _packed_nbytes(t: Attribute) -> int | None:
    """Bytes of a static integer memref (a packed argument), else ``None``."""
    if not isinstance(t, MemRefType) or not isinstance(t.element_type, IntegerType):
        return None
    shape = t.get_shape()
    if any(d < 0 for d in shape):
        return None
    return math.prod(shape) * -(-t.element_type.width.data // 8)


def check_dram_sizes(f: func.FuncOp) -> None:
    """Report at ``f`` when its packed arguments cannot all be placed in DRAM: the linker gives
    each one pages of its own, and a module may occupy at most
    :data:`~vta_mlir.binary_checks.MAX_FOOTPRINT_BYTES` (well inside the 32-bit physical
    address space)."""
    sizes = [(index, arg, n) for index, arg in enumerate(f.args)
             if (n := _packed_nbytes(arg.type)) is not None]
    total = dram_footprint(n for _, _, n in sizes)
    if total <= MAX_FOOTPRINT_BYTES:
        return
    index, arg, largest = max(sizes, key=lambda item: item[2])
    name = f"%{arg.name_hint}" if arg.name_hint else f"argument {index}"
    report_error(f, f"vta-tile: the packed arguments need {total} bytes of DRAM, more than the "
                    f"{MAX_FOOTPRINT_BYTES >> 20} MiB a module may occupy ({name} alone: "
                    f"{largest} bytes as {arg.type})")


# ---------------------------------------------------------------------------------------------
# SRAM budgets: the regions of a function use the SRAMs one after the other


def sram_elements(t: Attribute) -> int:
    """Tensor elements of an SRAM buffer (its trailing two dimensions are one element)."""
    assert isinstance(t, MemRefType)
    return math.prod(t.get_shape()[:-2])


def sram_in_use(f: Operation) -> dict[str, int]:
    """SRAM elements the function already allocates (input that is partly at stage 2)."""
    used = {"inp": 0, "wgt": 0, "acc": 0}
    for op in f.walk():
        if isinstance(op, memref.AllocOp):
            space = sram_space(op.memref.type)
            if space is not None and space.value in used:
                used[space.value] += sram_elements(op.memref.type)
    return used


def sram_budget(cfg: VTAConfig, held: dict[str, int]) -> Budget:
    """What one region may use of each SRAM: all that the function does not already hold."""
    def part(sram: str) -> int:
        return max(cfg.sram_depth(sram) - held[sram], 0)

    return Budget(part("inp"), part("wgt"), part("acc"))


def place_region_buffers(buffers: Sequence[SSAValue], held: dict[str, int],
                         cfg: VTAConfig, after: dict[str, int]) -> None:
    """Give the SRAM buffers of one region consecutive element ranges of their SRAMs
    (``vta.sram_offset``): right after the previous region's (``after``, updated) when they fit
    there, so small regions do not wait for each other, else from the end of what the function
    already ``held`` — the regions then share the SRAM one after the other."""
    need: dict[str, int] = {}
    for buf in buffers:
        space = sram_space(buf.type)
        assert space is not None
        need[space.value] = need.get(space.value, 0) + sram_elements(buf.type)
    nxt = {}
    for space, n in need.items():
        start = after.get(space, held[space])
        nxt[space] = start if start + n <= cfg.sram_depth(space) else held[space]
    for buf in buffers:
        space = sram_space(buf.type)
        assert space is not None and isinstance(buf.owner, Operation)
        buf.owner.attributes[SRAM_OFFSET_ATTR] = IntegerAttr(nxt[space.value], i64)
        nxt[space.value] += sram_elements(buf.type)
    after.update({space: nxt[space] for space in need})
