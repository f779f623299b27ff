"""The byte planes of an i32 result stored in a software pipeline over the tiles (``vta-tile``).

A region whose result leaves VTA as ``m`` byte planes (``byte_planes.py``) repeats, per tile,
store plane 0, shift right in place, store plane 1, ... .  Every ALU operation writes the
accumulator and the output SRAM at the same index, so a shift waits for the store of the plane
before it, and that store for the shift before it: tiled one after the other, the compute and
store modules take turns.  This form overlaps them.  Its tiles (``n``, all of one size, in one
flat host loop) each hold the output accumulator in one of ``m + 1`` copies (copy
``t mod (m + 1)`` for tile ``t``), and step ``t`` of the pipeline

* computes tile ``t`` (its initialisation, contraction and epilogue) and stores its plane 0,
* shifts tile ``t - p`` once and stores its plane ``p``, for ``p = 1 .. m - 1``,

the last two planes' stores swapped (plane ``m - 1`` of tile ``t - m + 1``, which frees its
accumulator copy, before plane ``m - 2`` of tile ``t - m + 2``).  So each shift waits only for a
store of the step before, which the store module did while the compute module worked on the
next tile; the compute of step ``t + 1`` starts without waiting; and ``vta-coproc-sync`` (the
loop carries ``vta.double_buffer``) orders the stores and shifts with one carried token per
shift, each pushed by a store of the previous step in the order the shifts pop them, the
reuse of an accumulator copy ``m + 1`` tiles later ordered by them as well (the store freeing
it comes before the one the step's last shift waits for).  The first ``m - 1`` steps and the
last ``m - 1`` (the tiles before ``0`` and after ``n - 1`` left out) are written out before and
after the loop of the steps where every tile exists.

Tiles divide the dimensions, and each operand is loaded whole (``ALL``) or per tile (``TILE``:
per ``i`` step, or for the whole reduction when ``ti`` is all of it); the loads of consecutive
tiles alternate between two copies when the plan double-buffers.
"""

from __future__ import annotations

from xdsl.dialects.builtin import UnitAttr
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr

from .builder import DOUBLE_BUFFER_ATTR, Index
from .byte_planes import plane_segments
from .cost import Plan, Residency
from .emit import RegionEmitter, Span
from .region import VtaRegion

__all__ = ["PlanePipelineEmitter"]

_D0, _D1 = AffineExpr.dimension(0), AffineExpr.dimension(1)


class PlanePipelineEmitter(RegionEmitter):
    """Emits a region whose plan has ``plane_pipeline`` (module docstring)."""

    def __init__(self, region: VtaRegion, plan: Plan) -> None:
        super().__init__(region, plan)
        s = region.shape
        assert plan.plane_pipeline and s.stores > 1 and not region.weight_rows
        assert s.b % plan.tb == 0 and s.o % plan.to == 0
        assert Residency.ROW not in (plan.inp, plan.wgt)
        self.planes = s.stores
        self.nb, self.no = s.b // plan.tb, s.o // plan.to
        self.tiles = self.nb * self.no
        self.segments = plane_segments(region.ops, region.output)
        assert len(self.segments) == self.planes
        #: The tile whose contraction is being emitted (it picks the copies of its loads).
        self.tile_index: Index = 0

    def emit(self) -> None:
        m, n = self.planes, self.tiles
        self.alloc_buffers(acc_copies=m + 1)
        self.load_resident()
        steady = range(m - 1, n)
        for t in range(n + m - 1):
            if t not in steady:
                self.step(t)
            elif t == steady.start and len(steady) == 1:
                self.step(t)
            elif t == steady.start:
                with self.loop(len(steady), "t") as iv:
                    loop = iv.owner.parent_op()  # type: ignore[union-attr]
                    assert loop is not None
                    # vta-coproc-sync gives the stores and shifts their own carried tokens
                    # under a loop marked so.
                    loop.attributes[DOUBLE_BUFFER_ATTR] = UnitAttr()
                    self.step(iv, steady.start)

    def tile_of(self, t: Index, offset: int) -> Index | None:
        """Tile ``t + offset`` (``t`` a constant step or the loop's variable), or ``None``
        when there is no such tile."""
        if isinstance(t, int):
            u = t + offset
            return u if 0 <= u < self.tiles else None
        if offset == 0:
            return t
        found = self.cached(("tile", t, offset))
        if found is None:
            found = self.apply(t, _D0 + offset, "tile")
            self.cache[-1][("tile", t, offset)] = found
        return found

    def tile_env(self, u: Index) -> dict[str, Span]:
        """The ``b`` and ``o`` spans of tile ``u``: tiles in ``b``-major or ``o``-major
        order, as the plan's loop order says."""
        p = self.plan
        outer, inner = ("b", "o") if p.b_outer else ("o", "b")
        n_inner = self.no if p.b_outer else self.nb
        n_outer = self.tiles // n_inner
        size = {"b": p.tb, "o": p.to}
        env: dict[str, Span] = {}
        for dim, count, index in ((outer, n_outer, _D0 // n_inner), (inner, n_inner,
                                                                      _D0 % n_inner)):
            if isinstance(u, int):
                position = u // n_inner if dim == outer else u % n_inner
                env[dim] = Span(position * size[dim], size[dim], u)
            elif count == 1:
                env[dim] = Span(0, size[dim], u)
            else:
                # Along the only dimension with several tiles, the tile index is the position.
                expr = _D0 if count == self.tiles else index
                env[dim] = Span(self.apply(u, expr * size[dim], f"{dim}0"), size[dim], u)
        return env

    def step(self, t: Index, offset: int = 0) -> None:
        """Step ``t + offset`` of the pipeline (module docstring)."""
        m = self.planes
        deferred: list[tuple[Operation, dict[str, Span], dict[SSAValue, SSAValue]]] = []
        for p in range(m):
            u = self.tile_of(t, offset - p)
            if u is None:
                continue
            env = self.tile_env(u)
            acc_of = self.acc_views(env, u)
            *compute, store = self.segments[p]
            self.tile_index = u
            self.emit_ops(compute, env, acc_of)
            if p == m - 2:
                # Plane m - 1 of the tile m - 1 steps back frees its accumulator copy for the
                # tile m + 1 steps on: stored first (module docstring).
                deferred.append((store, env, acc_of))
            else:
                self.emit_ops([store], env, acc_of)
        for store, env, acc_of in deferred:
            self.emit_ops([store], env, acc_of)

    def contraction(self, op: linalg.GenericOp, env: dict[str, Span],
                    acc_of: dict[SSAValue, SSAValue]) -> None:
        """The contraction of the current tile; its ``k``-th load of an operand per tile uses
        the copy ``tile · ni + k`` picks, so consecutive loads alternate across tiles too."""
        p, s = self.plan, self.r.shape
        if self.ni == 1:
            self.contraction_step(op, env, acc_of, Span(0, s.i, self.tile_index))
            return
        with self.loop(self.ni, "i") as iv:
            start = self.apply(iv, _D0 * p.ti, "i0")
            self.contraction_step(op, env, acc_of, Span(start, p.ti, self.load_count(iv)))

    def load_count(self, iv: SSAValue) -> Index:
        """How many loads of an operand came before step ``iv`` of the current tile's ``i``
        loop."""
        u = self.tile_index
        if isinstance(u, int):
            return iv if u == 0 else self.apply(iv, _D0 + u * self.ni, "load")
        return self.apply_n([u, iv], _D0 * self.ni + _D1, "load")

