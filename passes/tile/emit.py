"""The emission of a contraction region's tiles in ``vta-tile`` (``docs/pipeline.md``, stage
2): host loops over the ``b`` and ``o`` tiles of a :class:`~.cost.Plan` (a smaller last tile
emitted as a second copy of the loop body), the input and weight loads where the plan's
residency puts them, and in each tile the region's ops on SRAM views: the initialisation, the
contraction (its ``i`` loop), the ALU operations and the stores into DRAM subviews.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from vta_mlir.dialects.vta_positions import Sram
from vta_mlir.ir.locations import copy_location

from .builder import Index, TileBuilder
from .cost import Plan, Residency, double_buffered, pieces
from .region import VtaRegion
from .weight_store import store_weight_tiles

__all__ = ["RegionEmitter", "Span", "op_maps"]

@dataclass(frozen=True)
class Span:
    """The tile of one dimension in the current loop body: its first element, its size, and
    what picks the copy of a double-buffered buffer loaded here (a loop variable, whose parity
    is the copy, or the number of tiles before this one)."""

    start: Index
    size: int
    copy: Index


class RegionEmitter(TileBuilder):
    """Builds the loop nest of one region before its output op."""

    def __init__(self, region: VtaRegion, plan: Plan) -> None:
        super().__init__(region.output, plan.double_buffer)
        self.r, self.plan = region, plan
        s = region.shape
        self.ni = s.i // plan.ti if s.i else 1
        #: Each SRAM buffer and its copies (1: a buffer without a leading copy dimension).
        self.bufs: dict[str, tuple[SSAValue, int]] = {}
        #: The whole input is loaded after the first output tile's weights
        #: (:meth:`weights_before_input`).
        self.defer_inp = False

    def copy_index(self, copy: Index, copies: int) -> Index:
        """Which of ``copies`` copies of a buffer ``copy`` (a count of loads or tiles) uses:
        ``copy mod copies``."""
        if isinstance(copy, int):
            return copy % copies
        found = self.cached(("copy", copies, copy))
        if found is None:
            found = self.apply(copy, AffineExpr.dimension(0) % copies, "copy")
            self.cache[-1][("copy", copies, copy)] = found
        return found

    # ---- buffers and views ----------------------------------------------------------------

    def sram_view(self, which: str, start: Sequence[Index], size: Sequence[int],
                  copy: Index = 0) -> SSAValue:
        """Rows ``start[0]`` + ``size[0]`` and columns ``start[1]`` + ``size[1]`` of buffer
        ``which`` (the copy ``copy`` picks when it has several); the buffer itself when that
        is all of it."""
        buf, copies = self.bufs[which]
        t = buf.type
        assert isinstance(t, MemRefType)
        shape = t.get_shape()[1:] if copies > 1 else t.get_shape()
        if copies == 1 and list(size) == list(shape[:2]) and all(s == 0 for s in start):
            return buf
        elem = list(shape[2:])
        key = (which, *start, *size, copy if copies > 1 else 0)
        found = self.cached(key)
        if found is None:
            if copies > 1:
                found = self.subview(buf, [self.copy_index(copy, copies), *start, 0, 0],
                                     [1, *size, *elem], f"{which[:3]}_view", drop_first=True)
            else:
                found = self.subview(buf, [*start, 0, 0], [*size, *elem], f"{which[:3]}_view")
            self.cache[-1][key] = found
        return found

    def dram_view(self, src: SSAValue, start: Sequence[Index], size: Sequence[int]) -> SSAValue:
        t = src.type
        assert isinstance(t, MemRefType)
        return self.subview(src, [*start, 0, 0], [*size, *t.get_shape()[2:]],
                            f"{src.name_hint or 'dram'}_tile")

    # ---- the nest -------------------------------------------------------------------------

    def emit(self) -> None:
        self.alloc_buffers()
        dims = ["b", "o"] if self.plan.b_outer else ["o", "b"]
        self.defer_inp = self.weights_before_input(dims)
        self.load_resident()
        self.level(dims, {})

    def weights_before_input(self, dims: list[str]) -> bool:
        """Whether the whole input waits for the first output tile's weights: when it is
        computed by an earlier region (its load then waits for that region's store, and the
        load module fetches the weights meanwhile), the weights are loaded per output tile
        and the first output tile is the first tile of the nest.  The first tile is then
        written out before the loop over the others, its weights loaded before the input."""
        r, p, s = self.r, self.plan, self.r.shape
        if r.contraction is None or p.inp is not Residency.ALL or p.wgt is not Residency.ROW:
            return False
        if dims[0] != "o" and s.b > p.tb:
            return False
        if s.o <= p.to:
            return False
        root = r.contraction.inputs[0]
        while isinstance(root.owner, memref.SubviewOp | memref.CollapseShapeOp
                         | memref.ExpandShapeOp):
            root = root.owner.operands[0]
        return isinstance(root.owner, memref.AllocOp)

    def alloc_buffers(self, acc_copies: int = 1) -> None:
        """The input and weight buffers of the plan's residencies (two copies of those loaded
        more than once when it double-buffers), and one tile of every accumulator
        (``acc_copies`` copies of the output's)."""
        r, p, s = self.r, self.plan, self.r.shape
        if r.contraction is not None:
            x, w = r.contraction.inputs
            for which, src, rows, full, res in (("inp", x, p.tb, s.b, p.inp),
                                                ("wgt", w, p.to, s.o, p.wgt)):
                src_t = src.type
                assert isinstance(src_t, MemRefType)
                size = {Residency.TILE: [rows, p.ti], Residency.ROW: [rows, s.i],
                        Residency.ALL: [full, s.i]}[res]
                copies = 2 if double_buffered(s, p, which) else 1
                shape = ([copies] if copies > 1 else []) + size + list(src_t.get_shape()[2:])
                space = Sram.INP if which == "inp" else Sram.WGT
                self.bufs[which] = (self.alloc(space, shape, src_t), copies)
        for k, acc in enumerate(r.accs):
            t = acc.type
            assert isinstance(t, MemRefType)
            copies = acc_copies if k == 0 else 1
            shape = ([copies] if copies > 1 else []) + [p.tb, p.to, *t.get_shape()[2:]]
            self.bufs[f"acc{k}"] = (self.alloc(Sram.ACC, shape, t), copies)

    def load_resident(self) -> None:
        """Load the operands the plan holds whole, before the tile loops."""
        r, p, s = self.r, self.plan, self.r.shape
        for which, res in (("inp", p.inp), ("wgt", p.wgt)):
            if which == "inp" and self.defer_inp:
                continue
            if r.contraction is not None and res is Residency.ALL:
                self.load(which, Span(0, s.b if which == "inp" else s.o, 0),
                          Span(0, s.i, 0), 0)

    def spans(self, n: int, t: int) -> Iterator[tuple[int, int, int]]:
        """``(trip, size, first element)`` of each part of a dimension of ``n`` in tiles of
        ``t``: the tiles that divide, then the remainder."""
        first = 0
        for size, count in pieces(n, t):
            yield count, size, first
            first += size * count

    def level(self, dims: list[str], env: dict[str, Span]) -> None:
        if not dims:
            self.tile_body(env)
            return
        dim, rest = dims[0], dims[1:]
        n, t = (self.r.shape.b, self.plan.tb) if dim == "b" else (self.r.shape.o, self.plan.to)
        done = 0
        for trip, size, first in self.spans(n, t):
            if dim == "o" and done == 0 and self.defer_inp and trip > 1:
                # The first output tile, written out: its weights, then the whole input.
                self.level_body(dim, rest, env, Span(first, size, 0), load_inp=True)
                trip, first, done = trip - 1, first + size, 1
            if trip > 1:
                with self.loop(trip, dim) as iv:
                    start = self.apply(iv, AffineExpr.dimension(0) * size + first, f"{dim}0")
                    count = iv if done == 0 else self.apply(
                        iv, AffineExpr.dimension(0) + done, f"{dim}_count")
                    self.level_body(dim, rest, env, Span(start, size, count))
            else:
                self.level_body(dim, rest, env, Span(first, size, done),
                                load_inp=self.defer_inp and dim == "o" and done == 0)
            done += trip

    def level_body(self, dim: str, rest: list[str], env: dict[str, Span], span: Span,
                   load_inp: bool = False) -> None:
        env = {**env, dim: span}
        which = "inp" if dim == "b" else "wgt"
        res = self.plan.inp if dim == "b" else self.plan.wgt
        s = self.r.shape
        if self.r.contraction is not None and res is Residency.ROW:
            self.load(which, span, Span(0, s.i, 0), span.copy)
        if load_inp:
            self.load("inp", Span(0, s.b, 0), Span(0, s.i, 0), 0)
        self.level(rest, env)

    def load(self, which: str, rows: Span, cols: Span, copy: Index) -> SSAValue:
        """Copy rows × cols of the input or weights into their buffer; returns the view."""
        assert self.r.contraction is not None
        src = self.r.contraction.inputs[0 if which == "inp" else 1]
        dram = self.dram_view(src, [rows.start, cols.start], [rows.size, cols.size])
        res = self.plan.inp if which == "inp" else self.plan.wgt
        at = [0, 0] if res is not Residency.ALL else [rows.start, cols.start]
        sram = self.sram_view(which, at, [rows.size, cols.size], copy)
        self.insert(memref.CopyOp(dram, sram))
        return sram

    def tile_body(self, env: dict[str, Span]) -> None:
        self.emit_ops(self.r.ops, env, self.acc_views(env))

    def acc_views(self, env: dict[str, Span], copy: Index = 0) -> dict[SSAValue, SSAValue]:
        """The SRAM tile of each accumulator for the tile ``env`` (``copy`` picks the copy of
        an accumulator that has several)."""
        b, o = env["b"], env["o"]
        return {acc: self.sram_view(f"acc{k}", [0, 0], [b.size, o.size], copy)
                for k, acc in enumerate(self.r.accs)}

    def emit_ops(self, ops: Sequence[Operation], env: dict[str, Span],
                 acc_of: dict[SSAValue, SSAValue]) -> None:
        """The region's ``ops`` for the tile ``env``, on its accumulator tiles ``acc_of``."""
        b, o = env["b"], env["o"]
        for op in ops:
            if op is self.r.contraction:
                self.contraction(op, env, acc_of)
                continue
            if op is self.r.output and self.r.weight_rows:
                store_weight_tiles(self, op, self.r.weight_rows, b, o, acc_of[op.inputs[0]])
                continue
            operands: list[SSAValue] = []
            for v, m in zip(op.operands, op_maps(op), strict=True):
                if v in acc_of:
                    operands.append(acc_of[v])
                elif isinstance(v.type, MemRefType):
                    assert m is not None
                    operands.append(self.dram_view(v, *self.dram_range(m, env, v.type)))
                else:
                    operands.append(v)
            if op in self.r.plain_copies:
                new: Operation = memref.CopyOp(operands[0], operands[1])
            else:
                new = op.clone()
                new.operands = operands
            self.insert(new)
            copy_location(op, new)

    @staticmethod
    def dram_range(m: AffineMap, env: dict[str, Span],
                   t: MemRefType) -> tuple[list[Index], list[int]]:
        """Offsets and sizes of the two leading dims of a DRAM operand of an element-wise op:
        the b and o tiles (map results ``d0``, ``d1``), or the whole dimension where the map
        broadcasts (result ``0``)."""
        starts: list[Index] = []
        sizes: list[int] = []
        for k, dim in enumerate(("b", "o")):
            if m.results[k] == AffineExpr.constant(0):
                starts.append(0)
                sizes.append(t.get_shape()[k])
            else:
                starts.append(env[dim].start)
                sizes.append(env[dim].size)
        return starts, sizes

    def contraction(self, op: linalg.GenericOp, env: dict[str, Span],
                    acc_of: dict[SSAValue, SSAValue]) -> None:
        p, s = self.plan, self.r.shape
        if self.ni > 1:
            with self.loop(self.ni, "i") as iv:
                start = self.apply(iv, AffineExpr.dimension(0) * p.ti, "i0")
                self.contraction_step(op, env, acc_of, Span(start, p.ti, iv))
        else:
            self.contraction_step(op, env, acc_of, Span(0, s.i, 0))

    def contraction_step(self, op: linalg.GenericOp, env: dict[str, Span],
                         acc_of: dict[SSAValue, SSAValue], i: Span) -> None:
        views: list[SSAValue] = []
        for which, span, res in (("inp", env["b"], self.plan.inp),
                                 ("wgt", env["o"], self.plan.wgt)):
            if res is Residency.TILE:
                views.append(self.load(which, span, i, i.copy))
            elif res is Residency.ROW:
                views.append(self.sram_view(which, [0, i.start], [span.size, i.size],
                                            span.copy))
            else:
                views.append(self.sram_view(which, [span.start, i.start],
                                            [span.size, i.size]))
        new = op.clone()
        new.operands = [*views, acc_of[op.outputs[0]]]
        self.insert(new)
        copy_location(op, new)


def op_maps(op: Operation) -> list[AffineMap | None]:
    if isinstance(op, linalg.GenericOp):
        return [m.data for m in op.indexing_maps.data]
    return [None] * len(op.operands)
