"""The instruction-level program: what the command builder produces and the device runs.

A :class:`Program` is a sequence of :class:`Run` s (one per ``synchronize``, each ending in
FINISH) plus the DRAM segments they reference, and optionally the *layers* its instructions
belong to (the VTA regions of a network, named from their source locations): ``layers`` holds
the names, each run's ``layers`` the index of every instruction's layer.  The binary module
(``vta_mlir.binary``) stores exactly this, the simulator-backed device
(``vta_mlir.runtime.device``) executes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from vta_mlir.isa import Insn

if TYPE_CHECKING:
    from vta_mlir.abi import ArgSpec

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
    micro-ops.  ``layers`` (``int32``) is empty, or holds the index into
    :attr:`Program.layers` of each instruction's layer.
    """

    insns: list[Insn]
    uop_words: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint32))
    uop_base: int = 0
    layers: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))


@dataclass
class Segment:
    """A DRAM buffer a program uses: its physical byte address, size and initial contents."""

    name: str
    phys: int
    nbytes: int
    data: np.ndarray | None = None  # uint8 initial contents (constants), None = uninitialized


@dataclass
class HostStep:
    """A step the host computes between device runs (``vta.host``): after the first
    ``after_run`` runs, the function ``@name`` of the module ``function`` (MLIR text, with the
    globals it reads) runs on the buffers ``args`` describe, in order (``in`` ones unpacked
    from DRAM, ``inout`` ones unpacked and packed back), with the semantics of the reference
    evaluator (:mod:`vta_mlir.reference`).  ``location`` is where the step comes from in the
    source (``file:line:col``, for statistics and messages; may be empty)."""

    name: str
    after_run: int
    args: list[ArgSpec]
    function: str
    location: str = ""


@dataclass
class Program:
    runs: list[Run] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    #: Layer names in the order of their first instruction; empty when nothing is tagged.
    layers: list[str] = field(default_factory=list)
    #: The host steps between the runs, in program order.
    host_steps: list[HostStep] = field(default_factory=list)

    @property
    def num_insns(self) -> int:
        return sum(len(r.insns) for r in self.runs)

    def insn_layers(self) -> np.ndarray:
        """The layer index of every instruction of the program, in stream order (empty when
        the program has no layers)."""
        if not self.layers:
            return np.zeros(0, dtype=np.int32)
        return np.concatenate([np.asarray(r.layers, dtype=np.int32) for r in self.runs]
                              or [np.zeros(0, dtype=np.int32)])


def number_layers(runs: list[Run], names: list[str]) -> list[str]:
    """Renumber the per-instruction layer indices of ``runs`` (into ``names``; -1 or a run
    without tags = untagged)
    so that layers are numbered in the order of their first instruction, dropping layers
    without instructions; returns the names in that order.  Untagged instructions before the
    first tagged one join the first layer, later ones the layer before them.  Without any
    tagged instruction every run's ``layers`` becomes empty and no name is returned."""
    flat = np.concatenate([np.asarray(r.layers, dtype=np.int64) if len(r.layers)
                           else np.full(len(r.insns), -1, dtype=np.int64) for r in runs]
                          or [np.zeros(0, dtype=np.int64)])
    tagged = flat >= 0
    if not tagged.any():
        for r in runs:
            r.layers = np.zeros(0, dtype=np.int32)
        return []
    # Forward-fill the untagged instructions, then back-fill the leading ones.
    last = np.maximum.accumulate(np.where(tagged, np.arange(flat.size), -1))
    filled = flat[np.where(last >= 0, last, int(np.argmax(tagged)))]
    order, first = np.unique(filled, return_index=True)
    by_first = order[np.argsort(first)]
    renumber = np.full(int(flat.max()) + 1, -1, dtype=np.int32)
    renumber[by_first] = np.arange(by_first.size, dtype=np.int32)
    numbered = renumber[filled]
    at = 0
    for r in runs:
        r.layers = numbered[at:at + len(r.insns)].copy()
        at += len(r.insns)
    return [names[int(i)] for i in by_first]
