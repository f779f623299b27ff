"""The micro-op loop nest shared by GEMM and ALU (``docs/isa.md`` §3.6, §3.7).

Both instructions iterate ``for i_out < iter_out: for i_in < iter_in: for u in [uop_bgn,
uop_end)`` and address SRAM elements as ``uop[u].<field> + i_out * <x>_factor_out + i_in *
<x>_factor_in``.  This module reads the micro-ops, describes each loop axis by the index vector it
contributes, checks bounds without enumerating the iterations, and builds flat index arrays in
the reference's iteration order when an executor needs them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vta_mlir.errors import SimulatorError
from vta_mlir.isa import AluInsn, GemmInsn, decode_uop_fields
from vta_mlir.sim.sram import SRAMs

#: Above this many iterations an instruction is refused instead of exhausting host memory (its
#: index arrays take 8 bytes an iteration); compiled programs stay below 2**15.
MAX_ITERATIONS = 1 << 24


class Axis:
    """One loop of the nest: its extent and, per addressed memory (``dst``/``src``/``wgt``), the
    index offset it adds at each of its positions.

    A hardware loop adds ``position * factor``; its statistics are then known without building
    the vector.  The micro-op axis adds the micro-op's own field, an arbitrary vector.
    """

    __slots__ = ("name", "extent", "_factor", "_vec", "_lo", "_hi")

    def __init__(self, name: str, extent: int, *, factors: dict[str, int] | None = None,
                 vectors: dict[str, np.ndarray] | None = None) -> None:
        self.name = name
        self.extent = extent
        self._factor = factors
        self._vec: dict[str, np.ndarray] = dict(vectors or {})
        self._lo: dict[str, int] = {}
        self._hi: dict[str, int] = {}

    def vec(self, kind: str) -> np.ndarray:
        v = self._vec.get(kind)
        if v is None:
            assert self._factor is not None
            v = np.arange(self.extent, dtype=np.int64) * self._factor[kind]
            self._vec[kind] = v
        return v

    def _stats(self, kind: str) -> tuple[int, int]:
        if kind not in self._hi:
            if self._factor is not None:
                lo, hi = 0, (self.extent - 1) * self._factor[kind]  # factors are unsigned
            else:
                v = self._vec[kind]
                lo, hi = int(v.min()), int(v.max())
            self._lo[kind], self._hi[kind] = lo, hi
        return self._lo[kind], self._hi[kind]

    def first(self, kind: str) -> int:
        return 0 if self._factor is not None else int(self._vec[kind][0])

    def varies(self, kind: str) -> bool:
        lo, hi = self._stats(kind)
        return lo != hi

    def step(self, kind: str) -> int | None:
        """The constant difference between consecutive offsets, or ``None`` if uneven."""
        if self._factor is not None:
            return self._factor[kind]
        sl = arith_slice(self._vec[kind])
        if sl is not None:
            return sl.step
        return 0 if not self.varies(kind) else None

    def factorize(self) -> list[Axis]:
        """This axis as a product of smaller axes, outermost first, when its vectors allow it.

        A list of ``U = P·Q`` micro-ops splits into an outer axis of P and an inner axis of Q
        when, seen as a ``P×Q`` table, every vector is separable:
        ``v[p, q] = (v[p, 0] − v[0, 0]) + v[0, q]``.  A convolution kernel written as
        "pixels × taps" micro-ops becomes a pixel axis and a tap axis this way, which lets the
        GEMM fast path see a matrix product instead of a batch of tiny ones.  Loop axes and
        axes that do not split come back unchanged.
        """
        n = self.extent
        if self._factor is not None or n < 4 or all(self.step(k) is not None for k in self._vec):
            return [self]  # evenly stepping vectors already give the axis a single class
        small = [q for q in range(2, math.isqrt(n) + 1) if n % q == 0]
        for q in small + [n // q for q in reversed(small) if q * q != n]:
            tables = {k: v.reshape(n // q, q) for k, v in self._vec.items()}
            if all(np.array_equal(t, (t[:, :1] - t[0, 0]) + t[:1, :]) for t in tables.values()):
                outer = Axis(self.name, n // q,
                             vectors={k: t[:, 0] - t[0, 0] for k, t in tables.items()})
                inner = Axis(self.name, q, vectors={k: t[0, :].copy() for k, t in tables.items()})
                return outer.factorize() + inner.factorize()
        return [self]

    def argmax(self, kind: str) -> tuple[int, int]:
        """Position of the largest offset along this axis, and that offset."""
        lo, hi = self._stats(kind)
        if self._factor is not None:
            return (self.extent - 1 if hi > 0 else 0), hi
        return int(np.argmax(self._vec[kind])), hi


@dataclass
class LoopNest:
    """The three axes (outer loop, inner loop, micro-ops) of one GEMM or ALU instruction."""

    axes: list[Axis]
    uop_bgn: int

    @property
    def iterations(self) -> int:
        n = 1
        for ax in self.axes:
            n *= ax.extent
        return n

    def max_index(self, kind: str) -> tuple[int, str]:
        """The largest index of ``kind`` over the whole nest and one iteration reaching it."""
        total = 0
        where = []
        for ax in self.axes:
            j, top = ax.argmax(kind)
            total += top
            where.append(f"{ax.name}={j + self.uop_bgn if ax.name == 'uop' else j}")
        return total, ", ".join(where)

    def check(self, kind: str, what: str, memory: str, depth: int) -> None:
        """Raise :class:`SimulatorError` if any index of ``kind`` is ≥ ``depth`` (the reference's
        ``CHECK_LT`` in ``BeginPtr``; no wrap-around)."""
        top, where = self.max_index(kind)
        if top >= depth:
            raise SimulatorError(
                f"{what} index {top} out of range ({memory} depth {depth}) at {where}")

    def as_slice(self, kind: str) -> slice | None:
        """The indices of ``kind``, in iteration order, as a slice when they form an arithmetic
        progression with a non-zero step (then they are also distinct); else ``None``.

        Decided from the loop structure alone: each axis must itself step evenly, and each
        outer axis must continue exactly where the axis inside it ends.
        """
        first = 0
        step = 0
        span = 1  # iterations covered by the axes inside the current one
        for ax in reversed(self.axes):  # innermost (micro-ops) first
            first += ax.first(kind)
            if ax.extent == 1:
                continue
            ax_step = ax.step(kind)
            if ax_step is None or ax_step == 0:
                return None
            if step == 0:
                step = ax_step
            elif ax_step != step * span:
                return None
            span *= ax.extent
        if step == 0:
            return slice(first, first + 1)
        last = first + step * (span - 1)
        stop = last + (1 if step > 0 else -1)
        return slice(first, stop if stop >= 0 else None, step)

    def flat(self, kind: str) -> np.ndarray:
        """Index of ``kind`` for every iteration, in the reference's order (``int64[T]``)."""
        o, i, u = (ax.vec(kind) for ax in self.axes)
        return (o[:, None, None] + i[None, :, None] + u[None, None, :]).reshape(-1)


def insn_iterations(insn: GemmInsn | AluInsn) -> int:
    """The iterations of ``insn``'s loop nest (0 for an empty loop or micro-op range)."""
    return max(insn.iter_out, 0) * max(insn.iter_in, 0) * max(insn.uop_end - insn.uop_bgn, 0)


def loop_nest(st: SRAMs, insn: GemmInsn | AluInsn) -> LoopNest | None:
    """The loop nest of ``insn``, or ``None`` when it has no iteration.

    Raises :class:`SimulatorError` when the micro-op range leaves the UOP SRAM.
    """
    n_uops = insn.uop_end - insn.uop_bgn
    if insn.iter_out <= 0 or insn.iter_in <= 0 or n_uops <= 0:
        return None
    depth = st.uop.shape[0]
    if insn.uop_end > depth:
        raise SimulatorError(
            f"micro-op range [{insn.uop_bgn}, {insn.uop_end}) exceeds the UOP depth {depth}")
    if (n := insn_iterations(insn)) > MAX_ITERATIONS:
        # Refused before any index array is built (loop_nest is the only way to a LoopNest).
        raise SimulatorError(f"loop nest of {n} iterations is too large to simulate (at most "
                             f"{MAX_ITERATIONS})")
    dst_u, src_u, wgt_u = decode_uop_fields(st.uop[insn.uop_bgn:insn.uop_end], st.cfg)
    outer = {"dst": insn.dst_factor_out, "src": insn.src_factor_out}
    inner = {"dst": insn.dst_factor_in, "src": insn.src_factor_in}
    uops = {"dst": dst_u, "src": src_u}
    if isinstance(insn, GemmInsn):
        outer["wgt"] = insn.wgt_factor_out
        inner["wgt"] = insn.wgt_factor_in
        uops["wgt"] = wgt_u
    return LoopNest([Axis("i_out", insn.iter_out, factors=outer),
                     Axis("i_in", insn.iter_in, factors=inner),
                     Axis("uop", n_uops, vectors=uops)], insn.uop_bgn)


def arith_slice(idx: np.ndarray) -> slice | None:
    """``idx`` as an equivalent slice when it is an arithmetic progression with a non-zero step
    (so its elements are distinct), else ``None``."""
    n = idx.size
    if n == 0:
        return None
    first = int(idx[0])
    if n == 1:
        return slice(first, first + 1)
    step = int(idx[1]) - first
    if step == 0:
        return None
    last = first + step * (n - 1)
    if int(idx[-1]) != last or not np.array_equal(np.diff(idx), np.full(n - 1, step)):
        return None
    stop = last + (1 if step > 0 else -1)
    return slice(first, stop if stop >= 0 else None, step)


def all_distinct(idx: np.ndarray, depth: int) -> bool:
    """True if no index occurs twice (all indices are in ``[0, depth)``)."""
    n = idx.size
    if n <= 1:
        return True
    if n > depth:
        return False
    if arith_slice(idx) is not None:
        return True
    return int(np.bincount(idx, minlength=1).max()) <= 1
