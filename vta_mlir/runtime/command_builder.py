"""The command builder: VTA instruction streams from runtime calls (docs/isa.md §4).

:class:`CommandBuilder` implements the rules of TVM's JIT runtime (``VTALoadBuffer2D``,
``VTAStoreBuffer2D``, ``VTAPushGEMMOp`` / ``VTAPushALUOp``, ``VTADepPush`` / ``VTADepPop``,
``VTASynchronize``) with Python names, so that a sequence of calls yields the instruction stream
the reference runtime emits for it, field by field.  Every compiler path that produces VTA
instructions goes through it.

Where the reference silently truncates a value to its field, the builder raises
:class:`~vta_mlir.errors.RuntimeBuildError` naming the field.  Two behaviours deliberately differ
from the reference; both only matter in situations the reference gets wrong:

* micro-op staging (§4.5 caveat): the staging image is append-only within a run (see
  :mod:`vta_mlir.runtime.uop_kernel`), so ``LOAD UOP`` s issued before an SRAM wrap-around read the
  micro-ops they were issued for.  Without a wrap, the offsets are the reference's.
* automatic synchronisation (§4.8): the reference checks the instruction count *after* a call and
  can end a run above its limit when a call added more than one instruction; the builder checks
  *before* each instruction-emitting call, so a run never exceeds ``max_insns``.

:meth:`CommandBuilder.layer` says which layer of the program the following calls belong to
(the reference has no such call); every instruction is tagged with the layer current when it
is created, the ones the builder adds itself (NOPs, ``LOAD UOP``, FINISH) included, and each
run carries the tags (:attr:`vta_mlir.program.Run.layers`).
"""

from __future__ import annotations

from collections.abc import Hashable
from enum import IntEnum

import numpy as np

from vta_mlir.config import INSN_BITS, PAGE_BYTES, VTAConfig
from vta_mlir.errors import RuntimeBuildError
from vta_mlir.isa import (
    AluInsn,
    FinishInsn,
    GemmInsn,
    Insn,
    MemInsn,
    MemType,
    dram_elem_bytes,
    encode_insns,
    encode_uops,
)
from vta_mlir.program import Run
from vta_mlir.runtime.uop_kernel import KernelMode, KernelRecorder, UopCache, UopKernel

#: ``VTA_MAX_XFER`` (docs/isa.md §4.1): bytes of the instruction buffer and of the micro-op staging
#: buffer.  A runtime constant, not a hardware parameter.
MAX_XFER_BYTES = 1 << 25
INSN_BYTES = INSN_BITS // 8
#: Upper bound of the instructions the closing sequence of :meth:`CommandBuilder.synchronize`
#: adds (§4.7 step 1–2: at most one store NOP, two load NOPs, two compute NOPs and FINISH).
CLOSING_MAX_INSNS = 6
#: Upper bound of the instructions one builder call adds (LOAD UOP + GEMM/ALU, or two NOPs).
CALL_MAX_INSNS = 2


class Stage(IntEnum):
    """Pipeline stages, the queue ids of ``VTADepPush`` / ``VTADepPop`` (docs/isa.md §4.6)."""

    LOAD = 1
    COMPUTE = 2
    STORE = 3


#: The dependency pairs (from, to) the hardware has token queues for (docs/isa.md §3.2).
_VALID_PAIRS = {(1, 2), (2, 1), (2, 3), (3, 2)}


def insn_stage(insn: Insn) -> Stage | None:
    """The stage an instruction belongs to for the "last instruction" test of §4.6: a LOAD with
    ``x_size == 0`` has none, a STORE NOP still counts as the store stage."""
    if isinstance(insn, MemInsn):
        if insn.is_store:
            return Stage.STORE
        if insn.x_size == 0:
            return None
        if insn.memory_type in (MemType.INP, MemType.WGT):
            return Stage.LOAD
    return Stage.COMPUTE


def elem_bytes(cfg: VTAConfig, memory_type: int) -> int:
    """DRAM bytes of one element of ``memory_type`` (docs/isa.md §4.7), from the configuration."""
    return dram_elem_bytes(cfg)[MemType(memory_type)]


def _sram_depth(cfg: VTAConfig, memory_type: MemType) -> int:
    return {
        MemType.UOP: cfg.uop_buff_depth,
        MemType.INP: cfg.inp_buff_depth,
        MemType.WGT: cfg.wgt_buff_depth,
        MemType.ACC: cfg.acc_buff_depth,
        MemType.OUT: cfg.out_buff_depth,
        MemType.ACC_8BIT: cfg.acc_buff_depth,
    }[memory_type]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class CommandBuilder:
    """Builds the instruction runs of one program by the JIT runtime's rules (docs/isa.md §4).

    ``uop_staging_phys`` is the page-aligned physical byte address of the micro-op staging buffer
    (every run's ``LOAD UOP`` s read there).  ``max_insns`` bounds the instructions of one run
    (default ``VTA_MAX_XFER / 16``); reaching it synchronises automatically (§4.8), as does a
    staging image that would exceed ``uop_staging_bytes``.
    """

    def __init__(
        self,
        cfg: VTAConfig,
        uop_staging_phys: int,
        *,
        max_insns: int | None = None,
        uop_staging_bytes: int = MAX_XFER_BYTES,
    ) -> None:
        if not _is_int(uop_staging_phys) or uop_staging_phys <= 0:
            raise RuntimeBuildError(
                f"uop_staging_phys must be a positive physical address, got {uop_staging_phys!r}"
            )
        if uop_staging_phys % PAGE_BYTES:
            raise RuntimeBuildError(
                f"uop_staging_phys {uop_staging_phys:#x} is not aligned to a {PAGE_BYTES}-byte page"
            )
        if max_insns is None:
            max_insns = MAX_XFER_BYTES // INSN_BYTES
        minimum = CALL_MAX_INSNS + CLOSING_MAX_INSNS
        if not _is_int(max_insns) or max_insns < minimum:
            raise RuntimeBuildError(f"max_insns must be an integer >= {minimum}, got {max_insns!r}")
        if not _is_int(uop_staging_bytes) or uop_staging_bytes < cfg.uop_elem_bytes:
            raise RuntimeBuildError(
                f"uop_staging_bytes must be at least {cfg.uop_elem_bytes}, "
                f"got {uop_staging_bytes!r}"
            )
        last = (uop_staging_phys + uop_staging_bytes) // cfg.uop_elem_bytes - 1
        if last > cfg.mem_fields["dram_base"].mask:
            raise RuntimeBuildError(
                f"micro-op staging buffer [{uop_staging_phys:#x}, "
                f"{uop_staging_phys + uop_staging_bytes:#x}) is beyond the reach of the "
                f"{cfg.mem_fields['dram_base'].width}-bit field dram_base"
            )
        self._cfg = cfg
        self._uop_phys = uop_staging_phys
        self._max_insns = max_insns
        self._cache = UopCache(cfg.uop_buff_depth, uop_staging_bytes // cfg.uop_elem_bytes)
        self._recorder = KernelRecorder()
        self._insns: list[Insn] = []
        self._pending_prev = {s: False for s in Stage}
        self._pending_next = {s: False for s in Stage}
        self._runs: list[Run] = []
        self._finished = False
        #: The current layer (-1: none yet) and the layer of each instruction of the run.
        self._layer = -1
        self._tags: list[int] = []
        #: The host steps, each after the number of runs completed before it.
        self._host_steps: list[tuple[int, object]] = []

    # ---- state ------------------------------------------------------------------------------
    @property
    def cfg(self) -> VTAConfig:
        return self._cfg

    @property
    def uop_staging_phys(self) -> int:
        return self._uop_phys

    @property
    def max_insns(self) -> int:
        return self._max_insns

    @property
    def num_insns(self) -> int:
        """Instructions of the current (not yet synchronised) run."""
        return len(self._insns)

    @property
    def total_insns(self) -> int:
        """Instructions of all completed runs plus the current one."""
        return sum(len(r.insns) for r in self._runs) + len(self._insns)

    @property
    def insns(self) -> list[Insn]:
        """A copy of the current run's instruction list."""
        return list(self._insns)

    @property
    def runs(self) -> list[Run]:
        """The completed runs so far."""
        return list(self._runs)

    @property
    def has_pending_pops(self) -> bool:
        """True if a ``dep_pop`` waits for the next instruction of its stage."""
        return any(self._pending_prev.values()) or any(self._pending_next.values())

    def encode(self, run: Run | None = None) -> np.ndarray:
        """``uint8[16*N]`` encoding of ``run`` (default: the current run's instructions)."""
        return encode_insns(self._insns if run is None else run.insns, self._cfg)

    def _check_open(self, call: str) -> None:
        if self._finished:
            raise RuntimeBuildError(f"{call} called after finish()")
        if self._recorder.recording:
            raise RuntimeBuildError(f"{call} called while a micro-kernel is being recorded")

    def layer(self, index: int) -> None:
        """The following calls belong to layer ``index`` (``>= 0``) of the program."""
        if not _is_int(index) or index < 0:
            raise RuntimeBuildError(f"layer: index must be an integer >= 0, got {index!r}")
        self._layer = index

    # ---- instruction queue (docs/isa.md §4.6) ----------------------------------------------
    def _append(self, insn: Insn) -> None:
        self._insns.append(insn)
        self._tags.append(self._layer)

    def _create(self, stage: Stage, insn: Insn) -> Insn:
        insn.pop_prev_dep = int(self._pending_prev[stage])
        insn.pop_next_dep = int(self._pending_next[stage])
        self._pending_prev[stage] = self._pending_next[stage] = False
        self._append(insn)
        return insn

    def _nop(self, stage: Stage) -> MemInsn:
        if stage == Stage.STORE:
            insn = MemInsn(is_store=1, memory_type=MemType.UOP)
        else:
            mt = MemType.INP if stage == Stage.LOAD else MemType.UOP
            insn = MemInsn(memory_type=mt)
        self._append(insn)
        return insn

    def _commit(self, stage: Stage) -> None:
        if self._pending_prev[stage] or self._pending_next[stage]:
            nop = self._nop(stage)
            nop.pop_prev_dep = int(self._pending_prev[stage])
            nop.pop_next_dep = int(self._pending_next[stage])
            self._pending_prev[stage] = self._pending_next[stage] = False

    def _reserve(self, count: int) -> None:
        """Synchronise first if ``count`` more instructions would leave no room for the closing
        sequence within ``max_insns`` (§4.8)."""
        if self._insns and len(self._insns) + count + CLOSING_MAX_INSNS > self._max_insns:
            self.synchronize()

    @staticmethod
    def _pair(call: str, from_stage: int, to_stage: int) -> tuple[Stage, Stage]:
        if (from_stage, to_stage) not in _VALID_PAIRS:
            raise RuntimeBuildError(
                f"{call}({from_stage}, {to_stage}): no token queue between these stages "
                "(valid: (1, 2), (2, 1), (2, 3), (3, 2))"
            )
        return Stage(from_stage), Stage(to_stage)

    def _dep_pop(self, src: Stage, dst: Stage) -> None:
        pending = self._pending_prev if src < dst else self._pending_next
        if pending[dst]:
            self._commit(dst)
        pending[dst] = True

    def _dep_push(self, src: Stage, dst: Stage) -> None:
        self._commit(src)
        if self._insns and insn_stage(self._insns[-1]) == src:
            last = self._insns[-1]
            if src < dst and not last.push_next_dep:
                last.push_next_dep = 1
                return
            if src > dst and not last.push_prev_dep:
                last.push_prev_dep = 1
                return
        nop = self._nop(src)
        if src < dst:
            nop.push_next_dep = 1
        else:
            nop.push_prev_dep = 1

    def dep_pop(self, from_stage: int, to_stage: int) -> None:
        """``VTADepPop``: stage ``to_stage`` waits for a token from ``from_stage``; the pop is
        attached to the next instruction of ``to_stage`` (or a NOP, §4.6)."""
        self._check_open("dep_pop")
        src, dst = self._pair("dep_pop", from_stage, to_stage)
        self._reserve(1)
        self._dep_pop(src, dst)

    def dep_push(self, from_stage: int, to_stage: int) -> None:
        """``VTADepPush``: stage ``from_stage`` signals ``to_stage``; the push goes onto the last
        instruction if it belongs to ``from_stage`` and the flag is free, else onto a NOP (§4.6)."""
        self._check_open("dep_push")
        src, dst = self._pair("dep_push", from_stage, to_stage)
        self._reserve(CALL_MAX_INSNS)
        self._dep_push(src, dst)

    # ---- loads and stores (docs/isa.md §4.7) ---------------------------------------------------
    def _mem_type(self, call: str, memory_type: int) -> MemType:
        try:
            return MemType(memory_type)
        except ValueError:
            raise RuntimeBuildError(f"{call}: unknown memory_type {memory_type!r}") from None

    def _fit(self, call: str, arg: str, field_name: str, value: object) -> int:
        f = self._cfg.mem_fields[field_name]
        if not _is_int(value) or not 0 <= value <= f.mask:  # type: ignore[operator]
            raise RuntimeBuildError(
                f"{call}: {arg} = {value!r} does not fit the {f.width}-bit field {field_name} "
                f"(0..{f.mask})"
            )
        return int(value)  # type: ignore[call-overload]

    def _dram_base(self, call: str, dram_phys: int, elem_offset: int, mt: MemType) -> int:
        if not _is_int(dram_phys) or dram_phys < 0:
            raise RuntimeBuildError(
                f"{call}: dram_phys must be a physical address, got {dram_phys!r}"
            )
        if not _is_int(elem_offset):
            raise RuntimeBuildError(f"{call}: elem_offset must be an integer, got {elem_offset!r}")
        size = elem_bytes(self._cfg, mt)
        if dram_phys % size:
            raise RuntimeBuildError(
                f"{call}: dram_phys {dram_phys:#x} is not a multiple of the {mt.name} element "
                f"size ({size} bytes)"
            )
        return self._fit(call, "dram_phys / elem_bytes + elem_offset", "dram_base",
                         dram_phys // size + elem_offset)

    def _check_sram(self, call: str, mt: MemType, base: int, count: int) -> None:
        depth = _sram_depth(self._cfg, mt)
        if base + count > depth:
            raise RuntimeBuildError(
                f"{call}: SRAM elements [{base}, {base + count}) exceed the {mt.name} buffer "
                f"depth {depth}"
            )

    def load_buffer_2d(
        self,
        dram_phys: int,
        elem_offset: int,
        x_size: int,
        y_size: int,
        x_stride: int,
        x_pad_before: int,
        y_pad_before: int,
        x_pad_after: int,
        y_pad_after: int,
        sram_index: int,
        memory_type: int,
    ) -> None:
        """``VTALoadBuffer2D``: a LOAD of ``y_size`` rows of ``x_size`` elements from DRAM element
        ``dram_phys / elem_bytes + elem_offset`` (row pitch ``x_stride``) with zero padding into
        SRAM at ``sram_index``; INP/WGT load in the load stage, ACC/ACC_8BIT in compute."""
        call = "load_buffer_2d"
        self._check_open(call)
        mt = self._mem_type(call, memory_type)
        if mt == MemType.UOP:
            raise RuntimeBuildError(f"{call}: micro-ops are loaded by push_gemm/push_alu")
        if mt == MemType.OUT:
            raise RuntimeBuildError(f"{call}: memory_type OUT cannot be loaded")
        dram_base = self._dram_base(call, dram_phys, elem_offset, mt)
        values = {
            "sram_base": self._fit(call, "sram_index", "sram_base", sram_index),
            "y_size": self._fit(call, "y_size", "y_size", y_size),
            "x_size": self._fit(call, "x_size", "x_size", x_size),
            "x_stride": self._fit(call, "x_stride", "x_stride", x_stride),
            "y_pad_0": self._fit(call, "y_pad_before", "y_pad_0", y_pad_before),
            "y_pad_1": self._fit(call, "y_pad_after", "y_pad_1", y_pad_after),
            "x_pad_0": self._fit(call, "x_pad_before", "x_pad_0", x_pad_before),
            "x_pad_1": self._fit(call, "x_pad_after", "x_pad_1", x_pad_after),
        }
        if values["x_size"]:
            xtotal = values["x_pad_0"] + values["x_size"] + values["x_pad_1"]
            ytotal = values["y_pad_0"] + values["y_size"] + values["y_pad_1"]
            self._check_sram(call, mt, values["sram_base"], xtotal * ytotal)
        self._reserve(1)
        stage = Stage.LOAD if mt in (MemType.INP, MemType.WGT) else Stage.COMPUTE
        self._create(stage, MemInsn(memory_type=mt, dram_base=dram_base, **values))

    def store_buffer_2d(
        self,
        sram_index: int,
        memory_type: int,
        dram_phys: int,
        elem_offset: int,
        x_size: int,
        y_size: int,
        x_stride: int,
    ) -> None:
        """``VTAStoreBuffer2D``: a STORE (store stage) of ``y_size`` × ``x_size`` accumulator
        elements from SRAM ``sram_index`` to DRAM element ``dram_phys / elem_bytes + elem_offset``
        with row pitch ``x_stride``; ``memory_type`` must be OUT."""
        call = "store_buffer_2d"
        self._check_open(call)
        mt = self._mem_type(call, memory_type)
        if mt != MemType.OUT:
            raise RuntimeBuildError(f"{call}: memory_type must be OUT, got {mt.name}")
        dram_base = self._dram_base(call, dram_phys, elem_offset, mt)
        values = {
            "sram_base": self._fit(call, "sram_index", "sram_base", sram_index),
            "y_size": self._fit(call, "y_size", "y_size", y_size),
            "x_size": self._fit(call, "x_size", "x_size", x_size),
            "x_stride": self._fit(call, "x_stride", "x_stride", x_stride),
        }
        if values["x_size"]:
            self._check_sram(call, mt, values["sram_base"], values["x_size"] * values["y_size"])
        self._reserve(1)
        self._create(Stage.STORE, MemInsn(is_store=1, memory_type=mt, dram_base=dram_base,
                                          **values))

    # ---- micro-kernels (docs/isa.md §4.4) ------------------------------------------------------
    def begin_kernel(self) -> None:
        """Start recording a micro-kernel (the reference calls the kernel closure here)."""
        if self._finished:
            raise RuntimeBuildError("begin_kernel called after finish()")
        self._recorder.begin()

    def loop_begin(
        self, extent: int, dst_factor: int, src_factor: int, wgt_factor: int = 0
    ) -> None:
        """``VTAUopLoopBegin``: declare a kernel loop (before any micro-op, at most two)."""
        self._recorder.loop_begin(extent, dst_factor, src_factor, wgt_factor)

    def loop_end(self) -> None:
        """``VTAUopLoopEnd``."""
        self._recorder.loop_end()

    def uop_push(
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
        """``VTAUopPush``: append a micro-op to the kernel being recorded."""
        self._recorder.push(mode, reset, dst, src, wgt, opcode, use_imm, imm)

    def end_kernel(self) -> UopKernel:
        """Finish recording and return the kernel (for :meth:`push_gemm` / :meth:`push_alu`)."""
        return self._recorder.end()

    def push_gemm(self, kernel: UopKernel, key: Hashable | None = None) -> None:
        """``VTAPushGEMMOp``: make ``kernel`` resident (loading it if needed) and emit a GEMM."""
        self._push_kernel("push_gemm", KernelMode.GEMM, kernel, key)

    def push_alu(self, kernel: UopKernel, key: Hashable | None = None) -> None:
        """``VTAPushALUOp``: make ``kernel`` resident (loading it if needed) and emit an ALU."""
        self._push_kernel("push_alu", KernelMode.ALU, kernel, key)

    def _push_kernel(
        self, call: str, mode: KernelMode, kernel: UopKernel, key: Hashable | None
    ) -> None:
        """Micro-ops stay resident per identity: the same kernel object, or the same ``key``
        (like the reference's call site + signature key), is not loaded again while resident."""
        self._check_open(call)
        if not isinstance(kernel, UopKernel):
            raise RuntimeBuildError(f"{call}: expected a UopKernel, got {type(kernel).__name__}")
        if kernel.mode != mode:
            raise RuntimeBuildError(f"{call}: kernel mode is {kernel.mode.name}")
        ident: Hashable = ("key", key) if key is not None else ("kernel", id(kernel))
        entry = self._cache.resident_kernel(ident)
        if entry is not None and entry is not kernel and entry != kernel:
            raise RuntimeBuildError(f"{call}: key {key!r} already names a different kernel")
        if entry is None:
            kernel.check(self._cfg)
        needs_load = entry is None
        needed = 2 if needs_load else 1
        if self._insns and (
            len(self._insns) + needed + CLOSING_MAX_INSNS > self._max_insns
            or (needs_load and not self._cache.fits_staging(kernel))
        ):
            self.synchronize()
        placement = self._cache.resident(ident)
        if placement is None:
            placement = self._cache.load(ident, kernel)
            self._load_uops(placement.sram_begin, placement.sram_end, placement.staging_offset)
        fields = kernel.loop_fields()
        insn: Insn
        if mode == KernelMode.GEMM:
            insn = GemmInsn(reset_reg=int(kernel.reset), uop_bgn=placement.sram_begin,
                            uop_end=placement.sram_end, **fields)
        else:
            insn = AluInsn(reset_reg=int(kernel.reset), uop_bgn=placement.sram_begin,
                           uop_end=placement.sram_end, alu_opcode=kernel.alu_opcode,
                           use_imm=int(kernel.use_imm), imm=kernel.imm, **fields)
        self._create(Stage.COMPUTE, insn)

    def _load_uops(self, sram_begin: int, sram_end: int, staging_offset: int | None) -> None:
        """The LOAD UOP of §4.5, created in the compute stage (absorbing pending compute pops);
        the constructor checked that every staging offset fits ``dram_base``."""
        assert staging_offset is not None
        n = sram_end - sram_begin
        dram_base = self._uop_phys // self._cfg.uop_elem_bytes + staging_offset
        self._create(Stage.COMPUTE, MemInsn(memory_type=MemType.UOP, sram_base=sram_begin,
                                            dram_base=dram_base, y_size=1, x_size=n, x_stride=n))

    # ---- synchronisation (docs/isa.md §4.7) ----------------------------------------------------
    def synchronize(self) -> Run:
        """``VTASynchronize``: close the run (handshake NOPs, FINISH), return it and start a new
        one with an empty micro-op cache.  The run is also kept for :meth:`finish`."""
        self._check_open("synchronize")
        self._dep_push(Stage.STORE, Stage.COMPUTE)
        self._dep_push(Stage.LOAD, Stage.COMPUTE)
        self._dep_pop(Stage.STORE, Stage.COMPUTE)
        self._dep_pop(Stage.LOAD, Stage.COMPUTE)
        self._commit(Stage.COMPUTE)
        self._create(Stage.COMPUTE, FinishInsn())
        if self.has_pending_pops:  # pragma: no cover - the closing sequence commits every stage
            raise RuntimeBuildError("synchronize: dependency pops are still pending")
        if len(self._insns) > self._max_insns:  # pragma: no cover - prevented by _reserve
            raise RuntimeBuildError(
                f"synchronize: run of {len(self._insns)} instructions exceeds max_insns "
                f"{self._max_insns}"
            )
        staging = self._cache.staging
        tagged = any(t >= 0 for t in self._tags)
        run = Run(
            insns=self._insns,
            uop_words=encode_uops(staging, self._cfg) if staging
            else np.zeros(0, dtype=np.uint32),
            uop_base=self._uop_phys if staging else 0,
            layers=np.asarray(self._tags if tagged else [], dtype=np.int32),
        )
        self._runs.append(run)
        self._insns = []
        self._tags = []
        self._cache.reset()
        return run

    def host_step(self, step: object) -> None:
        """Let the host compute ``step`` here: close the current run, if anything is
        outstanding, so that the host sees every result before it and the device waits for
        the host's."""
        self._check_open("host_step")
        if self._insns or self.has_pending_pops:
            self.synchronize()
        self._host_steps.append((len(self._runs), step))

    @property
    def host_steps(self) -> list[tuple[int, object]]:
        """The host steps so far, each with the number of runs before it."""
        return list(self._host_steps)

    def finish(self) -> list[Run]:
        """End the program: synchronise if anything is outstanding and return every run."""
        self._check_open("finish")
        if self._insns or self.has_pending_pops:
            self.synchronize()
        self._finished = True
        return list(self._runs)
