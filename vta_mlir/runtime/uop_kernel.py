"""Micro-kernels, their recording API and the micro-op SRAM cache (docs/isa.md §4.4–§4.5).

A :class:`UopKernel` is what one ``VTAPushGEMMOp`` / ``VTAPushALUOp`` call of the reference runtime
pushes: a list of micro-ops plus up to two loops, a mode (GEMM or ALU), the reset flag and, for
ALU, the opcode and immediate.  It is immutable; build one directly (:meth:`UopKernel.gemm`,
:meth:`UopKernel.alu`) or record it call by call with :class:`KernelRecorder`, which enforces the
reference's fatal checks (§4.4) as :class:`~vta_mlir.errors.RuntimeBuildError`.

:class:`UopCache` tracks which kernels are resident in the micro-op SRAM with exactly the
placement and eviction policy of §4.5, and keeps the DRAM staging image the ``LOAD UOP``
instructions read.  Unlike the reference, the staging image is append-only within a run: every
loaded kernel gets its own copy at the offset its ``LOAD UOP`` names, so loads issued before an
SRAM wrap-around never read data a later load overwrote (§4.5 caveat).  While no wrap happened,
the offsets are the reference's (the concatenation of the cache list in SRAM order).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from enum import IntEnum

from vta_mlir.config import ALU_IMM_WIDTH, LOOP_ITER_WIDTH, VTAConfig
from vta_mlir.errors import RuntimeBuildError
from vta_mlir.isa import AluKind, Uop

#: At most this many loops around a kernel's micro-ops (docs/isa.md §4.4, one per GEMM/ALU
#: iteration level ``iter_out`` / ``iter_in``).
MAX_UOP_LOOPS = 2
#: A micro-op's destination must differ from that of this many preceding micro-ops (§4.4).
WRITE_HAZARD_WINDOW = 2

_IMM_MIN = -(1 << (ALU_IMM_WIDTH - 1))
_IMM_MAX = (1 << (ALU_IMM_WIDTH - 1)) - 1


class KernelMode(IntEnum):
    """The ``mode`` argument of ``VTAUopPush`` (docs/isa.md §4.4)."""

    GEMM = 0
    ALU = 1


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _require_int(what: str, value: object) -> int:
    if not _is_int(value):
        raise RuntimeBuildError(f"{what} must be an integer, got {value!r}")
    return int(value)  # type: ignore[call-overload]


@dataclass(frozen=True, slots=True)
class UopLoop:
    """One kernel loop (``VTAUopLoopBegin``, docs/isa.md §4.4): iteration count and the
    per-iteration increments of the destination, source and weight indices (ALU kernels ignore
    ``wgt_factor``)."""

    extent: int
    dst_factor: int = 0
    src_factor: int = 0
    wgt_factor: int = 0

    def __post_init__(self) -> None:
        for name in ("extent", "dst_factor", "src_factor", "wgt_factor"):
            value = _require_int(f"loop {name}", getattr(self, name))
            if value < 0:
                raise RuntimeBuildError(f"loop {name} = {value} is negative")


@dataclass(frozen=True)
class UopKernel:
    """An immutable micro-kernel (docs/isa.md §4.4).

    Equality compares contents; the command builder decides micro-op reuse by object identity
    (or an explicit key), as the reference does by call site.  Construction checks the
    configuration-independent rules; :meth:`check` checks field widths against a configuration.
    """

    mode: KernelMode
    uops: tuple[Uop, ...]
    loops: tuple[UopLoop, ...] = ()
    reset: bool = False
    alu_opcode: int = 0
    use_imm: bool = False
    imm: int = 0

    def __post_init__(self) -> None:
        try:
            mode = KernelMode(self.mode)
        except ValueError:
            raise RuntimeBuildError(
                f"kernel mode {self.mode!r} is not GEMM (0) or ALU (1)"
            ) from None
        object.__setattr__(self, "mode", mode)
        object.__setattr__(self, "uops", tuple(self.uops))
        object.__setattr__(self, "loops", tuple(self.loops))
        object.__setattr__(self, "reset", bool(self.reset))
        object.__setattr__(self, "use_imm", bool(self.use_imm))
        if not self.uops:
            raise RuntimeBuildError("a micro-kernel needs at least one micro-op")
        for u in self.uops:
            if not isinstance(u, Uop):
                raise RuntimeBuildError(f"kernel micro-ops must be Uop records, got {u!r}")
        for loop in self.loops:
            if not isinstance(loop, UopLoop):
                raise RuntimeBuildError(f"kernel loops must be UopLoop records, got {loop!r}")
        if len(self.loops) > MAX_UOP_LOOPS:
            raise RuntimeBuildError(
                f"a micro-kernel has at most {MAX_UOP_LOOPS} loops, got {len(self.loops)}"
            )
        for i, u in enumerate(self.uops):
            _check_write_hazard(self.uops[max(0, i - WRITE_HAZARD_WINDOW) : i], u, i)
        opcode = _require_int("alu_opcode", self.alu_opcode)
        imm = _require_int("imm", self.imm)
        if mode == KernelMode.GEMM:
            if opcode or self.use_imm or imm:
                raise RuntimeBuildError("a GEMM kernel takes no ALU opcode, use_imm or imm")
        else:
            if AluKind.from_opcode(opcode) is None:
                raise RuntimeBuildError(
                    f"ALU opcode {opcode} is not one of MIN, MAX, ADD, SHR, MUL"
                )
            if not _IMM_MIN <= imm <= _IMM_MAX:
                raise RuntimeBuildError(
                    f"ALU immediate {imm} does not fit a signed {ALU_IMM_WIDTH}-bit field "
                    f"({_IMM_MIN}..{_IMM_MAX})"
                )

    # ---- construction ----------------------------------------------------------------------
    @classmethod
    def gemm(
        cls, uops: Iterable[Uop], loops: Iterable[UopLoop] = (), *, reset: bool = False
    ) -> UopKernel:
        """A GEMM kernel (``reset=True``: a reset kernel that zeroes the addressed accumulators,
        as ``vta.gemm_reset`` micro-kernels lower to)."""
        return cls(KernelMode.GEMM, tuple(uops), tuple(loops), reset=reset)

    @classmethod
    def alu(
        cls,
        opcode: int | AluKind,
        uops: Iterable[Uop],
        loops: Iterable[UopLoop] = (),
        *,
        use_imm: bool = False,
        imm: int = 0,
    ) -> UopKernel:
        """An ALU kernel applying ``opcode`` (an ``alu_opcode`` value, or the
        :class:`~vta_mlir.isa.AluKind` whose :attr:`~vta_mlir.isa.AluKind.opcode` it is)."""
        return cls(KernelMode.ALU, tuple(uops), tuple(loops), alu_opcode=int(opcode),
                   use_imm=use_imm, imm=imm)

    @property
    def size(self) -> int:
        """Number of micro-ops (SRAM slots the kernel occupies)."""
        return len(self.uops)

    # ---- configuration-dependent checks ------------------------------------------------------
    def check(self, cfg: VTAConfig) -> None:
        """Raise :class:`RuntimeBuildError` if the kernel exceeds the UOP SRAM or a micro-op index,
        loop extent or loop factor does not fit its field in ``cfg`` (the reference truncates)."""
        if self.size > cfg.uop_buff_depth:
            raise RuntimeBuildError(
                f"micro-kernel of {self.size} micro-ops exceeds the UOP buffer depth "
                f"{cfg.uop_buff_depth}"
            )
        for i, u in enumerate(self.uops):
            for name in ("dst_idx", "src_idx", "wgt_idx"):
                value = getattr(u, name)
                f = cfg.uop_fields[name]
                if not _is_int(value) or not 0 <= value <= f.mask:
                    raise RuntimeBuildError(
                        f"micro-op {i}: {name} = {value!r} does not fit its {f.width}-bit field "
                        f"(0..{f.mask})"
                    )
        layout = cfg.gemm_fields if self.mode == KernelMode.GEMM else cfg.alu_fields
        kinds = ("dst", "src", "wgt") if self.mode == KernelMode.GEMM else ("dst", "src")
        iter_max = (1 << LOOP_ITER_WIDTH) - 1
        for j, loop in enumerate(self.loops):
            if loop.extent > iter_max:
                raise RuntimeBuildError(
                    f"loop {j}: extent {loop.extent} does not fit the {LOOP_ITER_WIDTH}-bit "
                    f"iteration field (0..{iter_max})"
                )
            for kind in kinds:
                value = getattr(loop, f"{kind}_factor")
                f = layout[f"{kind}_factor_out"]
                if value > f.mask:
                    raise RuntimeBuildError(
                        f"loop {j}: {kind}_factor = {value} does not fit its {f.width}-bit field "
                        f"(0..{f.mask})"
                    )

    def loop_fields(self) -> dict[str, int]:
        """The iteration and factor fields of the GEMM/ALU instruction (mapping table of §4.4:
        a single GEMM loop is the outer level, a single ALU loop the inner one)."""
        gemm = self.mode == KernelMode.GEMM
        kinds = ("dst", "src", "wgt") if gemm else ("dst", "src")
        out: dict[str, int] = {"iter_out": 1, "iter_in": 1}
        for kind in kinds:
            out[f"{kind}_factor_out"] = out[f"{kind}_factor_in"] = 0
        if len(self.loops) == 1:
            slots = [("out" if gemm else "in", self.loops[0])]
        else:
            slots = list(zip(("out", "in"), self.loops, strict=False))
        for level, loop in slots:
            out[f"iter_{level}"] = loop.extent
            for kind in kinds:
                out[f"{kind}_factor_{level}"] = getattr(loop, f"{kind}_factor")
        return out


def _check_write_hazard(previous: tuple[Uop, ...], uop: Uop, index: int) -> None:
    for p in previous:
        if p.dst_idx == uop.dst_idx:
            raise RuntimeBuildError(
                f"write hazard: micro-op {index} writes dst {uop.dst_idx} like one of the "
                f"{WRITE_HAZARD_WINDOW} micro-ops before it"
            )


# ---------------------------------------------------------------------------------------------
# Recording (VTAUopLoopBegin / VTAUopPush / VTAUopLoopEnd, docs/isa.md §4.4)


class KernelRecorder:
    """Records one kernel at a time through the reference's call sequence (docs/isa.md §4.4)."""

    def __init__(self) -> None:
        self._active = False
        self._reset_state()

    def _reset_state(self) -> None:
        self._loops: list[UopLoop] = []
        self._open_loops = 0
        self._uops: list[Uop] = []
        self._mode: KernelMode | None = None
        self._reset = False
        self._alu: tuple[int, bool, int] = (0, False, 0)

    @property
    def recording(self) -> bool:
        """True between :meth:`begin` and :meth:`end`."""
        return self._active

    def _require_active(self, call: str) -> None:
        if not self._active:
            raise RuntimeBuildError(f"{call} called while no micro-kernel is being recorded")

    def begin(self) -> None:
        """Start recording a kernel."""
        if self._active:
            raise RuntimeBuildError("begin_kernel called while a micro-kernel is being recorded")
        self._reset_state()
        self._active = True

    def loop_begin(
        self, extent: int, dst_factor: int, src_factor: int, wgt_factor: int = 0
    ) -> None:
        """Declare a loop; loops must precede every micro-op, at most two per kernel."""
        self._require_active("loop_begin")
        if self._uops:
            raise RuntimeBuildError("loop_begin must come before the kernel's first uop_push")
        if len(self._loops) >= MAX_UOP_LOOPS:
            raise RuntimeBuildError(f"a micro-kernel has at most {MAX_UOP_LOOPS} loops")
        self._loops.append(UopLoop(extent, dst_factor, src_factor, wgt_factor))
        self._open_loops += 1

    def loop_end(self) -> None:
        """Close the innermost declared loop."""
        self._require_active("loop_end")
        if self._open_loops == 0:
            raise RuntimeBuildError("loop_end without a matching loop_begin")
        self._open_loops -= 1

    def push(
        self,
        mode: int,
        reset: bool,
        dst: int,
        src: int,
        wgt: int = 0,
        opcode: int = 0,
        use_imm: bool = False,
        imm: int = 0,
    ) -> None:
        """Append one micro-op (``VTAUopPush``); mode, reset and the ALU operation must agree with
        the kernel's first micro-op, and ``dst`` must differ from the two previous ones."""
        self._require_active("uop_push")
        try:
            kmode = KernelMode(mode)
        except ValueError:
            raise RuntimeBuildError(f"uop_push: mode {mode!r} is not GEMM (0) or ALU (1)") from None
        for name, value in (("dst", dst), ("src", src), ("wgt", wgt)):
            if _require_int(f"uop_push {name}", value) < 0:
                raise RuntimeBuildError(f"uop_push: {name} = {value} is negative")
        alu: tuple[int, bool, int] = (0, False, 0)
        if kmode == KernelMode.ALU:
            alu = (_require_int("uop_push opcode", opcode), bool(use_imm),
                   _require_int("uop_push imm", imm))
        if kmode == KernelMode.ALU and not _IMM_MIN <= alu[2] <= _IMM_MAX:
            raise RuntimeBuildError(
                f"uop_push: ALU immediate {alu[2]} does not fit a signed {ALU_IMM_WIDTH}-bit field "
                f"({_IMM_MIN}..{_IMM_MAX})"
            )
        if self._mode is None:
            self._mode, self._reset, self._alu = kmode, bool(reset), alu
        else:
            if kmode != self._mode:
                raise RuntimeBuildError("uop_push: all micro-ops of a kernel must have one mode")
            if bool(reset) != self._reset:
                raise RuntimeBuildError("uop_push: all micro-ops of a kernel must agree on reset")
            if alu != self._alu:
                raise RuntimeBuildError(
                    "uop_push: all micro-ops of an ALU kernel must share opcode, use_imm and imm"
                )
        uop = Uop(dst, src, wgt)
        _check_write_hazard(tuple(self._uops[-WRITE_HAZARD_WINDOW:]), uop, len(self._uops))
        self._uops.append(uop)

    def end(self) -> UopKernel:
        """Finish recording and return the kernel."""
        self._require_active("end_kernel")
        self._active = False
        if self._open_loops:
            raise RuntimeBuildError(f"end_kernel with {self._open_loops} loop(s) still open")
        if self._mode is None:
            raise RuntimeBuildError("a micro-kernel needs at least one micro-op")
        opcode, use_imm, imm = self._alu
        return UopKernel(self._mode, tuple(self._uops), tuple(self._loops), reset=self._reset,
                         alu_opcode=opcode, use_imm=use_imm, imm=imm)


# ---------------------------------------------------------------------------------------------
# Micro-op SRAM cache (docs/isa.md §4.5)


@dataclass
class _Resident:
    ident: Hashable
    kernel: UopKernel
    sram_begin: int
    sram_end: int


@dataclass(frozen=True)
class UopPlacement:
    """Where a kernel sits: its SRAM range and, if it was just loaded, the staging offset (in
    micro-ops) its ``LOAD UOP`` reads from; ``staging_offset`` is ``None`` for a resident kernel."""

    sram_begin: int
    sram_end: int
    staging_offset: int | None


@dataclass
class UopCache:
    """Resident micro-kernels of the UOP SRAM (docs/isa.md §4.5) and the run's staging image.

    ``depth`` is the UOP SRAM depth; ``staging_capacity`` bounds the staging image in micro-ops.
    """

    depth: int
    staging_capacity: int
    _cache: list[_Resident] = field(default_factory=list)
    _index: dict[Hashable, _Resident] = field(default_factory=dict)
    _cache_idx: int = 0
    _sram_end: int = 0
    _staging: list[Uop] = field(default_factory=list)
    _wrapped: bool = False

    def reset(self) -> None:
        """Forget every resident kernel and the staging image (after each synchronisation)."""
        self._cache.clear()
        self._index.clear()
        self._cache_idx = self._sram_end = 0
        self._staging = []
        self._wrapped = False

    @property
    def staging(self) -> list[Uop]:
        """The staging image of the current run, in DRAM order."""
        return self._staging

    @property
    def wrapped(self) -> bool:
        """True once the SRAM placement wrapped to 0 in the current run."""
        return self._wrapped

    def resident(self, ident: Hashable) -> UopPlacement | None:
        """The SRAM range of a resident kernel, or ``None``."""
        entry = self._index.get(ident)
        return None if entry is None else UopPlacement(entry.sram_begin, entry.sram_end, None)

    def resident_kernel(self, ident: Hashable) -> UopKernel | None:
        """The kernel resident under ``ident``, or ``None``."""
        entry = self._index.get(ident)
        return None if entry is None else entry.kernel

    def fits_staging(self, kernel: UopKernel) -> bool:
        """True if loading ``kernel`` keeps the staging image within its capacity."""
        return len(self._staging) + kernel.size <= self.staging_capacity

    def load(self, ident: Hashable, kernel: UopKernel) -> UopPlacement:
        """Make ``kernel`` resident under ``ident``: place it after the last loaded kernel, or at 0
        when it would run past the end of the SRAM, evict every cached kernel from the cursor
        on that overlaps the new range, and append its micro-ops to the staging image."""
        n = kernel.size
        if n > self.depth:
            raise RuntimeBuildError(
                f"micro-kernel of {n} micro-ops exceeds the UOP buffer depth {self.depth}"
            )
        if not self.fits_staging(kernel):
            raise RuntimeBuildError(
                f"micro-kernel of {n} micro-ops exceeds the micro-op staging capacity "
                f"{self.staging_capacity}"
            )
        if ident in self._index:
            raise RuntimeBuildError("micro-kernel is already resident")
        if self._sram_end + n > self.depth:
            self._cache_idx, placement, self._sram_end = 0, 0, n
            self._wrapped = True
        else:
            placement = self._sram_end
            self._sram_end += n
        kept = self._cache[: self._cache_idx]
        for entry in self._cache[self._cache_idx :]:
            if entry.sram_begin < self._sram_end:
                del self._index[entry.ident]
            else:
                kept.append(entry)
        entry = _Resident(ident, kernel, placement, self._sram_end)
        kept.insert(self._cache_idx, entry)
        self._cache = kept
        self._index[ident] = entry
        self._cache_idx += 1
        offset = len(self._staging)
        self._staging.extend(kernel.uops)
        return UopPlacement(placement, self._sram_end, offset)

    def reference_offset(self, ident: Hashable) -> int:
        """The staging offset (micro-ops) the reference would use for a resident kernel: the
        total size of the kernels before it in the cache list.  Equals the offset
        :meth:`load` returned as long as no wrap happened in the run."""
        entry = self._index[ident]
        total = 0
        for e in self._cache:
            if e is entry:
                return total
            total += e.sram_end - e.sram_begin
        raise AssertionError("resident entry missing from the cache list")  # pragma: no cover
