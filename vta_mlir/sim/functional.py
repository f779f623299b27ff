"""Functional execution of single instructions (``docs/isa.md`` §3.3–§3.9) and fast decoding of
raw instruction streams.

:class:`Executor` owns the SRAMs, uses a :class:`~vta_mlir.sim.dram.DRAM`, executes one decoded
instruction at a time (the scheduler in :mod:`vta_mlir.sim.simulator` decides the order) and
keeps the seven profiling counters of §3.9.  The counters are unsigned 64-bit in the reference;
they are kept modulo 2⁶⁴ here too (a GEMM/ALU with ``uop_end < uop_bgn`` adds a negative count
there, which wraps).
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from vta_mlir.config import INSN_BITS, VTAConfig
from vta_mlir.errors import SimulatorError
from vta_mlir.isa import AluInsn, AluKind, FinishInsn, GemmInsn, Insn, MemInsn, MemType, Opcode
from vta_mlir.program import COUNTER_NAMES
from vta_mlir.sim.alu import run_alu
from vta_mlir.sim.dram import DRAM
from vta_mlir.sim.gemm import run_gemm
from vta_mlir.sim.loops import insn_iterations
from vta_mlir.sim.sram import SRAMs

COUNTER_MASK = (1 << 64) - 1
INSN_BYTES = INSN_BITS // 8


def mem_type_name(mt: int) -> str:
    return MemType(mt).name if mt in MemType._value2member_map_ else str(mt)


def histogram_key(insn: Insn) -> str:
    """Key of ``insn`` in :attr:`RunResult.by_opcode`: ``LOAD.INP``, ``LOAD.UOP(nop)``,
    ``STORE``, ``STORE(nop)``, ``GEMM``, ``ALU``, ``FINISH``."""
    if isinstance(insn, MemInsn):
        key = "STORE" if insn.is_store else f"LOAD.{mem_type_name(insn.memory_type)}"
        return key + "(nop)" if insn.x_size == 0 else key
    if isinstance(insn, GemmInsn):
        return "GEMM"
    if isinstance(insn, AluInsn):
        return "ALU"
    return "FINISH"


def describe(insn: Insn) -> str:
    """Short name used in error messages, e.g. ``LOAD.ACC``, ``GEMM reset``, ``ALU.SHR``."""
    if isinstance(insn, GemmInsn):
        return "GEMM reset" if insn.reset_reg else "GEMM"
    if isinstance(insn, AluInsn):
        op = insn.alu_opcode
        kind = AluKind.from_opcode(op)
        return f"ALU.{kind.name if kind is not None else op}"
    if isinstance(insn, MemInsn) and insn.is_store:
        return "STORE" if insn.x_size else "STORE(nop)"
    return histogram_key(insn)


#: The GEMM and ALU iterations one run may take before it is stopped as runaway (a corrupt or
#: hostile program of valid instructions would otherwise run for hours): twenty times a whole
#: ResNet-50's.
MAX_RUN_ITERATIONS = 1 << 29


class Executor:
    """Executes instructions on its SRAMs and a DRAM, counting as the reference does."""

    def __init__(self, cfg: VTAConfig, dram: DRAM, srams: SRAMs | None = None) -> None:
        self.cfg = cfg
        self.dram = dram
        self.sram = srams if srams is not None else SRAMs(cfg)
        self.counters: dict[str, int] = dict.fromkeys(COUNTER_NAMES, 0)
        self.finish_count = 0
        #: GEMM and ALU iterations so far (:data:`MAX_RUN_ITERATIONS`).
        self.iterations = 0

    def _budget(self, insn: GemmInsn | AluInsn) -> None:
        self.iterations += insn_iterations(insn)
        if self.iterations > MAX_RUN_ITERATIONS:
            raise SimulatorError(f"the program runs more than {MAX_RUN_ITERATIONS} GEMM and ALU "
                                 "iterations; stopped as a runaway program")

    def _count(self, name: str, n: int) -> None:
        self.counters[name] = (self.counters[name] + n) & COUNTER_MASK

    def execute(self, insn: Insn) -> None:
        """Execute one instruction (its dependency flags are the scheduler's business)."""
        if isinstance(insn, GemmInsn):
            self._budget(insn)
            n = run_gemm(self.sram, insn)
            if n:
                self._count("gemm_counter", n)
        elif isinstance(insn, AluInsn):
            self._budget(insn)
            n = run_alu(self.sram, insn)
            if n:
                self._count("alu_counter", n)
        elif isinstance(insn, MemInsn):
            if insn.x_size == 0:
                return  # NOP: carries flags only, counts nothing (§3.3, §3.5)
            if insn.is_store:
                self._count("out_store_nbytes", self.sram.store(insn, self.dram))
            else:
                name, n = self.sram.load(insn, self.dram)
                self._count(name, n)
        elif isinstance(insn, FinishInsn):
            self.finish_count += 1  # no data effect (§3.8)
        else:
            raise SimulatorError(f"not an instruction: {insn!r}")


# ---------------------------------------------------------------------------------------------
# Decoding

_CLASSES = ((MemInsn, "mem_fields", (Opcode.LOAD, Opcode.STORE)),
            (GemmInsn, "gemm_fields", (Opcode.GEMM,)),
            (AluInsn, "alu_fields", (Opcode.ALU,)),
            # FINISH has only the common header, which sits at the same place in every layout.
            (FinishInsn, "gemm_fields", (Opcode.FINISH,)))


def decode_stream(data: bytes | bytearray | memoryview | np.ndarray,
                  cfg: VTAConfig) -> list[Insn]:
    """Decode a raw instruction stream (16 bytes per instruction, §2.1) into records.

    Equivalent to :func:`vta_mlir.isa.decode_insns` but extracts every field for all
    instructions at once with numpy; raises :class:`SimulatorError` naming the first instruction
    with an unknown opcode.
    """
    if isinstance(data, np.ndarray):
        raw = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    else:
        raw = np.frombuffer(bytes(data), dtype=np.uint8)
    if raw.size % INSN_BYTES:
        raise SimulatorError(
            f"instruction stream of {raw.size} bytes is not a multiple of {INSN_BYTES}")
    words = raw.view("<u8").reshape(-1, 2)
    opcode = (words[:, 0] & 7).astype(np.int64)
    known = np.isin(opcode, [int(o) for o in Opcode])
    if not known.all():
        i = int(np.flatnonzero(~known)[0])
        raise SimulatorError(f"instruction {i}: unknown opcode {int(opcode[i])}")
    out: list[Insn | None] = [None] * words.shape[0]
    for cls, layout_name, codes in _CLASSES:
        idx = np.flatnonzero(np.isin(opcode, [int(c) for c in codes]))
        if idx.size == 0:
            continue
        layout = getattr(cfg, layout_name)
        sub = words[idx]
        cols: list[list[int]] = []
        for f in fields(cls):
            if f.name == "is_store":
                cols.append((opcode[idx] == Opcode.STORE).astype(np.int64).tolist())
                continue
            fl = layout[f.name]
            word = sub[:, fl.lsb >> 6]
            col = ((word >> np.uint64(fl.lsb & 63)) & np.uint64(fl.mask)).astype(np.int64)
            if f.name == "imm":
                col = np.where(col >> (fl.width - 1), col - (1 << fl.width), col)
            cols.append(col.tolist())
        for i, row in zip(idx.tolist(), zip(*cols, strict=True), strict=True):
            out[i] = cls(*row)
    return out  # type: ignore[return-value]


_UNSIGNED_FIELDS: dict[type, tuple[str, ...]] = {
    cls: tuple(f.name for f in fields(cls) if f.name != "imm")
    for cls in (MemInsn, GemmInsn, AluInsn, FinishInsn)
}


def check_records(stream: list[Insn]) -> None:
    """Reject instruction records the hardware cannot encode in a way that would otherwise go
    unnoticed: a negative value in an unsigned field (numpy would read it as an index from the
    end).  Decoded streams always pass."""
    for i, insn in enumerate(stream):
        names = _UNSIGNED_FIELDS.get(type(insn))
        if names is None:
            raise SimulatorError(f"instruction {i}: not an instruction record: {insn!r}")
        for name in names:
            if getattr(insn, name) < 0:
                raise SimulatorError(f"instruction {i} ({describe(insn)}): field {name} = "
                                     f"{getattr(insn, name)} is negative")

