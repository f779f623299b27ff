"""The instruction-level program: what the command builder produces and the device runs.

A :class:`Program` is a sequence of :class:`Run` s (one per ``synchronize``, each ending in
FINISH) plus the DRAM segments they reference.  The binary module (``vta_mlir.binary``) stores
exactly this, the simulator-backed device (``vta_mlir.runtime.device``) executes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vta_mlir.isa import Insn

#: The seven profiling counters of the reference simulator, in its JSON order (docs/isa.md §3.9).
COUNTER_NAMES = (
    "inp_load_nbytes",
    "wgt_load_nbytes",
    "acc_load_nbytes",
    "uop_load_nbytes",
    "out_store_nbytes",
    "gemm_counter",
    "alu_counter",
)


@dataclass
class Run:
    """One device run: its instructions (the last one FINISH) and its micro-op staging image.

    ``uop_words`` (``uint32``) must be placed at physical byte address ``uop_base`` before the
    run; its ``LOAD UOP`` instructions read it there.  ``uop_base`` is 0 when the run loads no
    micro-ops.
    """

    insns: list[Insn]
    uop_words: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint32))
    uop_base: int = 0


@dataclass
class Segment:
    """A DRAM buffer a program uses: its physical byte address, size and initial contents."""

    name: str
    phys: int
    nbytes: int
    data: np.ndarray | None = None  # uint8 initial contents (constants), None = uninitialized


@dataclass
class Program:
    runs: list[Run] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)

    @property
    def num_insns(self) -> int:
        return sum(len(r.insns) for r in self.runs)
