"""Footprints of ``vta-coproc-sync``: the element ranges of SRAM buffers and byte ranges of
DRAM buffers every command reads and writes.

A micro-kernel's footprint is the hull of its micro-ops over its loop levels and micro-op list
loops, from the positions' coefficients (docs/isa.md §4.4); SRAM buffers with a fixed element
offset are placed in their SRAM, so buffers of consecutive regions that overlap are ordered.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass

from xdsl.dialects import memref
from xdsl.dialects.builtin import IntegerType, MemRefType
from xdsl.ir import Operation, SSAValue

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import (
    DmaCopyOp,
    GemmResetOp,
    MicroOp,
    Module,
    UopLoopOp,
    enclosing_list_loops,
    kernel_uops,
    linear_position,
    module_of,
)
from vta_mlir.dialects.vta_positions import (
    Sram,
    list_loop_bounds,
    sram_element_shape,
    sram_offset,
    sram_space,
)

from .host_eval import Env, HostEval

__all__ = ["Accesses", "Footprint", "dram_root", "placed_sram"]

#: A range that covers a whole buffer.
_ALL = (0, 1 << 62)


class Footprint:
    """Per module and buffer, the hull of the ranges read and of those written."""

    __slots__ = ("parts",)

    def __init__(self) -> None:
        #: module → buffer → [read hull or None, write hull or None]
        self.parts: dict[Module, dict[Hashable, list[tuple[int, int] | None]]] = {}

    def add(self, module: Module, buf: Hashable, lo: int, hi: int, write: bool) -> None:
        slot = self.parts.setdefault(module, {}).setdefault(buf, [None, None])
        k = 1 if write else 0
        old = slot[k]
        slot[k] = (lo, hi) if old is None else (min(old[0], lo), max(old[1], hi))

    def merge(self, other: Footprint) -> None:
        for module, bufs in other.parts.items():
            for buf, (r, w) in bufs.items():
                if r is not None:
                    self.add(module, buf, r[0], r[1], False)
                if w is not None:
                    self.add(module, buf, w[0], w[1], True)

    def conflicts(self, x: Module, other: Footprint, y: Module) -> bool:
        """Does module ``x`` here touch a range module ``y`` touches in ``other``, one of the
        two writing?"""
        mine, theirs = self.parts.get(x), other.parts.get(y)
        if not mine or not theirs:
            return False
        for buf, (r1, w1) in mine.items():
            rw2 = theirs.get(buf)
            if rw2 is None:
                continue
            r2, w2 = rw2
            if _overlap(w1, r2) or _overlap(w1, w2) or _overlap(r1, w2):
                return True
        return False


def _overlap(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
    return a is not None and b is not None and a[0] < b[1] and b[0] < a[1]


def placed_sram(root: Hashable) -> tuple[Hashable, int]:
    """Where ``root`` lives for the dependence test: an SRAM buffer with a fixed element
    offset (``vta.sram_offset``: the regions of a function reuse the same SRAM elements) is its
    SRAM from that offset, so buffers of consecutive regions that overlap are ordered; any
    other buffer is itself from 0."""
    if isinstance(root, SSAValue) and isinstance(root.owner, memref.AllocOp):
        base = sram_offset(root.owner)
        space = sram_space(root.type)
        if base is not None and space is not None:
            return ("sram", space.value), base
    return root, 0


def dram_root(value: SSAValue) -> SSAValue:
    """The DRAM buffer a reshaped view (``memref.collapse_shape`` / ``expand_shape``: the same
    bytes) is of; positions in a view are positions in the buffer."""
    owner = value.owner
    while isinstance(owner, memref.CollapseShapeOp | memref.ExpandShapeOp):
        value = owner.src
        owner = value.owner
    return value


def _dram_element_bytes(op: DmaCopyOp, cfg: VTAConfig) -> int:
    """Bytes of one DRAM element of the copy (its lanes times the DRAM scalar width)."""
    space = sram_space(op.sram.type)
    assert space is not None
    lanes = 1 if space == Sram.UOP else math.prod(sram_element_shape(space, cfg))
    t = op.dram.type
    width = t.element_type.width.data if isinstance(t, MemRefType) and isinstance(
        t.element_type, IntegerType) else 8
    return max(1, lanes * width // 8)


@dataclass(frozen=True)
class _Touch:
    """One range a command touches: ``size`` elements from ``index + offset`` of ``buf``, in
    units of ``scale`` (bytes per element for DRAM); ``whole``: all of ``buf``."""

    buf: SSAValue
    index: SSAValue | None
    offset: int
    size: int
    write: bool
    scale: int = 1
    whole: bool = False


def _list_range(uop: MicroOp, value: SSAValue | None, offset: int,
                kernel: UopLoopOp) -> tuple[int, int] | None:
    """The lowest and highest position an operand of ``uop`` takes over its micro-op list loops
    (docs/isa.md §4.4), relative to ``value`` evaluated with every list-loop variable 0: from the
    coefficients of its linear form, without enumerating; ``None`` when it is not linear."""
    lin = linear_position(uop, value, offset, kernel)
    if lin is None:
        return None
    lo = hi = offset
    for c, loop in zip(lin.inner, enclosing_list_loops(uop), strict=True):
        bounds = list_loop_bounds(loop)
        if bounds is None or bounds[1] <= bounds[0]:
            return None
        first, last = c * bounds[0], c * (bounds[1] - 1)
        lo += min(first, last)
        hi += max(first, last)
    return lo, hi


class Accesses:
    """Footprints of commands for given loop-variable values."""

    def __init__(self, ev: HostEval, cfg: VTAConfig) -> None:
        self.ev = ev
        self.cfg = cfg
        self._touches: dict[int, tuple[Module, list[_Touch], Env]] = {}

    def _template(self, op: Operation) -> tuple[Module, list[_Touch], Env]:
        """What ``op`` touches, independent of loop-variable values (computed once), and the
        values of its micro-op list loops' variables (0) to evaluate its positions with."""
        found = self._touches.get(id(op))
        if found is not None:
            return found
        module = module_of(op)
        assert module is not None
        touches: list[_Touch] = []
        zeros: Env = {}
        if isinstance(op, DmaCopyOp):
            y, x, stride = op.field("y_size"), op.field("x_size"), op.field("x_stride")
            y0, y1, x0, x1 = op.pads
            store = op.is_store
            sram_size = y * x if store else (y0 + y + y1) * (x0 + x + x1)
            touches.append(_Touch(op.sram, *op.sram_position, sram_size, not store))
            touches.append(_Touch(dram_root(op.dram), *op.dram_position,
                                  (y - 1) * stride + x, store, _dram_element_bytes(op, self.cfg)))
        else:
            assert isinstance(op, MicroOp | UopLoopOp)
            loops = op.loops() if isinstance(op, UopLoopOp) else []
            if isinstance(op, UopLoopOp):
                zeros = {lp.body.block.args[0]: 0 for lp in op.list_loops()}
            # (buffer, index value, write) -> hull of (first, last + 1) offsets; one range per
            # index value however many micro-ops use it (the footprint keeps hulls anyway).
            hulls: dict[tuple[SSAValue, SSAValue | None, bool], tuple[int, int]] = {}
            whole: set[tuple[SSAValue, bool]] = set()
            for uop in kernel_uops(op):
                reset = isinstance(uop, GemmResetOp)
                in_list = isinstance(op, UopLoopOp) and bool(enclosing_list_loops(uop))
                for kind, buf, value, offset, _space in uop.operand_positions():
                    span = sum((lp.field("extent") - 1) * lp.field(f"{kind}_factor")
                               for lp in loops)
                    if in_list:
                        assert isinstance(op, UopLoopOp)
                        rng = _list_range(uop, value, offset, op)
                    else:
                        rng = (offset, offset)
                    # accumulate / ALU: the destination is read too
                    writes = (True, False) if kind == "dst" and not reset else (kind == "dst",)
                    for write in writes:
                        if rng is None:
                            whole.add((buf, write))
                            continue
                        key = (buf, value, write)
                        lo, hi = rng[0], rng[1] + span + 1
                        old = hulls.get(key)
                        hulls[key] = (lo, hi) if old is None else (min(old[0], lo),
                                                                   max(old[1], hi))
            for (buf, value, write), (lo, hi) in hulls.items():
                touches.append(_Touch(buf, value, lo, hi - lo, write))
            for buf, write in whole:
                touches.append(_Touch(buf, None, 0, 0, write, whole=True))
        self._touches[id(op)] = found = (module, touches, zeros)
        return found

    def command(self, op: Operation, env: Env) -> Footprint:
        module, touches, zeros = self._template(op)
        if zeros:
            env = {**env, **zeros}
        fp = Footprint()
        ev = self.ev
        for t in touches:
            pos = None if t.whole else ev.index(t.index, env)
            for root, exact in ev.roots(t.buf, env):
                key, base = placed_sram(root)
                if pos is None or not exact:
                    lo, hi = _ALL
                else:
                    lo = (base + pos + t.offset) * t.scale
                    hi = (base + pos + t.offset + t.size) * t.scale
                fp.add(module, key, lo, hi, t.write)
        return fp

