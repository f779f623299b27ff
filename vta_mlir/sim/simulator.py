"""The simulated VTA device: dispatch, dependency tokens and runs (``docs/isa.md`` §3.2).

A run dispatches its instructions to the in-order **load**, **compute** and **store** queues
(§3.2 step 1) and executes them with the token semantics of §3.2 steps 2–3.  The reference picks
the first module of each scheduling round at random; for a correctly synchronised stream the
result does not depend on that choice, so this scheduler uses the fixed rotation load → compute →
store, each module running until its queue is empty or its head instruction blocks, repeated
until no module can progress.  The four token FIFOs (``l2g``, ``g2l``, ``s2g``, ``g2s``) carry no
data and are kept as counts; like the reference's they persist from one run to the next.

Where the reference misbehaves, this scheduler reports instead:

* a load instruction with ``pop_prev``/``push_prev`` or a store instruction with
  ``pop_next``/``push_next`` (the reference dereferences a null queue) → :class:`SimulatorError`
  before anything executes;
* a stream without FINISH (the reference never terminates) → :class:`SimulatorError`;
* no module can progress before FINISH has executed (the reference loops forever) →
  :class:`DeadlockError` naming each blocked instruction and the empty queue it waits on;
* instructions placed after FINISH in the stream or executed after it (the reference's
  termination check then depends on its random order and may loop forever), instructions never
  executed (dropped by the reference when FINISH ends the run) and tokens left at the end →
  warnings in the result; the tokens stay queued for the next run.

After the functional run the cycle model (:mod:`vta_mlir.sim.timing`, ``docs/timing-model.md``)
times the same run, starting from the tokens carried into it.  Section numbers below refer to
``docs/isa.md``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vta_mlir.config import VTAConfig
from vta_mlir.errors import DeadlockError, SimulatorError, VTAError
from vta_mlir.isa import FinishInsn, Insn, module_of
from vta_mlir.program import COUNTER_NAMES, Program
from vta_mlir.sim import blas
from vta_mlir.sim.dram import DRAM
from vta_mlir.sim.functional import (
    COUNTER_MASK,
    Executor,
    check_records,
    decode_stream,
    describe,
    histogram_key,
)
from vta_mlir.sim.timing import time_run

#: Token queues, in the order used internally.
QUEUES = ("l2g", "g2l", "s2g", "g2s")
_Q = {name: i for i, name in enumerate(QUEUES)}
MODULES = ("load", "compute", "store")
_M = {name: i for i, name in enumerate(MODULES)}

#: flag -> queue index, per module (§3.2 step 2); ``None`` = illegal for that module.
_FLAG_QUEUES: dict[str, dict[str, int | None]] = {
    "load": {"pop_prev_dep": None, "pop_next_dep": _Q["g2l"],
             "push_prev_dep": None, "push_next_dep": _Q["l2g"]},
    "compute": {"pop_prev_dep": _Q["l2g"], "pop_next_dep": _Q["s2g"],
                "push_prev_dep": _Q["g2l"], "push_next_dep": _Q["g2s"]},
    "store": {"pop_prev_dep": _Q["g2s"], "pop_next_dep": None,
              "push_prev_dep": _Q["s2g"], "push_next_dep": None},
}


@dataclass
class RunResult:
    """What one run (or a sum of runs) did."""

    counters: dict[str, int]
    instructions: int
    by_opcode: dict[str, int]
    uop_words_loaded: int
    cycles: int | None = None
    busy: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    tokens_left: dict[str, int] = field(default_factory=lambda: dict.fromkeys(QUEUES, 0))
    #: The cycle model's full result (per-instruction start/end) of a single run, if timed.
    timing: Any = None

    @classmethod
    def combine(cls, results: Sequence[RunResult]) -> RunResult:
        """Sum of several runs executed in order (``tokens_left`` is the last run's)."""
        counters = dict.fromkeys(COUNTER_NAMES, 0)
        hist: Counter[str] = Counter()
        busy: Counter[str] = Counter()
        warnings: list[str] = []
        cycles: int | None = 0
        for i, r in enumerate(results):
            for k in COUNTER_NAMES:
                counters[k] = (counters[k] + r.counters[k]) & COUNTER_MASK
            hist.update(r.by_opcode)
            busy.update(r.busy)
            warnings += [f"run {i}: {w}" for w in r.warnings] if len(results) > 1 else r.warnings
            cycles = None if cycles is None or r.cycles is None else cycles + r.cycles
        return cls(counters=counters, instructions=sum(r.instructions for r in results),
                   by_opcode=dict(hist), uop_words_loaded=sum(r.uop_words_loaded for r in results),
                   cycles=cycles if results else None, busy=dict(busy), warnings=warnings,
                   tokens_left=dict(results[-1].tokens_left) if results else
                   dict.fromkeys(QUEUES, 0))


@dataclass
class _Dispatch:
    """A run's instructions split over the three modules, with the queues each pops/pushes."""

    queues: list[list[int]]  # instruction indices per module, in stream order
    pops: list[tuple[int, ...]]  # per instruction: queue indices (pop_next first)
    pushes: list[tuple[int, ...]]  # per instruction: queue indices (push_prev first)
    finish_at: int = -1  # stream position of the first FINISH


@dataclass
class _Progress:
    """Scheduler state of one run."""

    tokens: list[int]
    heads: list[int] = field(default_factory=lambda: [0, 0, 0])
    finished: bool = False  # a FINISH has executed
    late: list[int] = field(default_factory=list)  # instructions executed after it


def _dispatch(stream: Sequence[Insn]) -> _Dispatch:
    """Route each instruction to its module (§3.2 step 1) and resolve its flags (step 2).

    Raises :class:`SimulatorError` for a flag the module has no queue for and for a stream
    without FINISH — before anything executes.
    """
    plan = _Dispatch([[], [], []], [], [])
    for i, insn in enumerate(stream):
        module = module_of(insn)
        table = _FLAG_QUEUES[module]
        resolved: dict[str, int] = {}
        for flag in ("pop_next_dep", "pop_prev_dep", "push_prev_dep", "push_next_dep"):
            if getattr(insn, flag):
                qi = table[flag]
                if qi is None:
                    raise SimulatorError(
                        f"instruction {i} ({describe(insn)}): {flag} is not allowed on the "
                        f"{module} module (the reference dereferences a missing queue)")
                resolved[flag] = qi
        plan.pops.append(tuple(v for k, v in resolved.items() if k.startswith("pop")))
        plan.pushes.append(tuple(v for k, v in resolved.items() if k.startswith("push")))
        plan.queues[_M[module]].append(i)
        if plan.finish_at < 0 and isinstance(insn, FinishInsn):
            plan.finish_at = i
    if plan.finish_at < 0:
        raise SimulatorError(f"the run of {len(stream)} instruction(s) has no FINISH (the "
                             "reference would never terminate)")
    return plan


class Simulator:
    """A VTA device: DRAM, SRAMs, profiling counters and the dependency token queues."""

    def __init__(self, cfg: VTAConfig | None = None, dram: DRAM | None = None) -> None:
        self.cfg = cfg if cfg is not None else VTAConfig.shipped("default")
        self.dram = dram if dram is not None else DRAM()
        self.executor = Executor(self.cfg, self.dram)
        #: Tokens currently in each queue (kept across runs, as in the reference).
        self.tokens: dict[str, int] = dict.fromkeys(QUEUES, 0)

    # ---- state --------------------------------------------------------------------------------
    @property
    def sram(self) -> Any:
        return self.executor.sram

    @property
    def inp(self) -> np.ndarray:
        return self.executor.sram.inp

    @property
    def wgt(self) -> np.ndarray:
        return self.executor.sram.wgt

    @property
    def acc(self) -> np.ndarray:
        return self.executor.sram.acc

    @property
    def uop(self) -> np.ndarray:
        return self.executor.sram.uop

    @property
    def counters(self) -> dict[str, int]:
        """Cumulative profiling counters since construction or :meth:`reset_counters`."""
        return self.executor.counters

    def reset_counters(self) -> None:
        for k in COUNTER_NAMES:
            self.executor.counters[k] = 0

    # ---- running ------------------------------------------------------------------------------
    def decode(self, insns: bytes | bytearray | np.ndarray | Iterable[Insn]) -> list[Insn]:
        """The instruction records of a raw stream, or ``insns`` itself checked."""
        if isinstance(insns, bytes | bytearray | memoryview | np.ndarray):
            return decode_stream(insns, self.cfg)
        stream = list(insns)
        check_records(stream)
        return stream

    def run(self, insns: bytes | bytearray | np.ndarray | Iterable[Insn], *,
            timing: bool = True) -> RunResult:
        """Execute one run (a stream ending in FINISH) and return what it did.

        ``insns`` is a raw instruction stream (bytes or a ``uint8`` array, decoded with this
        simulator's configuration) or a sequence of decoded instructions.
        """
        stream = self.decode(insns)
        plan = _dispatch(stream)
        carried = dict(self.tokens)
        before = dict(self.executor.counters)
        self.executor.iterations = 0  # the runaway budget is per run
        state = _Progress(tokens=[self.tokens[q] for q in QUEUES])
        try:
            with blas.limited():  # one BLAS thread for the GEMM products (see vta_mlir.sim.blas)
                self._schedule(stream, plan, state)
        finally:
            self.tokens.update(zip(QUEUES, state.tokens, strict=True))
        warnings = self._check_end(stream, plan, state)
        counters = {k: (self.executor.counters[k] - before[k]) & COUNTER_MASK
                    for k in COUNTER_NAMES}
        result = RunResult(
            counters=counters,
            instructions=len(stream),
            by_opcode=dict(Counter(histogram_key(x) for x in stream)),
            uop_words_loaded=counters["uop_load_nbytes"] // self.cfg.uop_elem_bytes,
            warnings=warnings,
            tokens_left=dict(self.tokens),
        )
        if timing:
            self._time(stream, carried, result)
        return result

    def _schedule(self, stream: list[Insn], plan: _Dispatch, st: _Progress) -> None:
        """Fixed rotation load → compute → store, each module until it blocks, repeated until
        no module progresses (§3.2 steps 3–4)."""
        execute = self.executor.execute
        tok, heads = st.tokens, st.heads
        progress = True
        while progress:
            progress = False
            for m, queue in enumerate(plan.queues):
                h = heads[m]
                while h < len(queue):
                    i = queue[h]
                    need = plan.pops[i]
                    if need and any(tok[k] == 0 for k in need):
                        break
                    for k in need:
                        tok[k] -= 1
                    insn = stream[i]
                    try:
                        execute(insn)
                    except SimulatorError as e:
                        heads[m] = h
                        raise type(e)(f"instruction {i} ({describe(insn)}): {e}") from None
                    for k in plan.pushes[i]:
                        tok[k] += 1
                    h += 1
                    progress = True
                    if st.finished:
                        st.late.append(i)
                    elif type(insn) is FinishInsn:
                        st.finished = True
                heads[m] = h

    def _check_end(self, stream: list[Insn], plan: _Dispatch, st: _Progress) -> list[str]:
        """Deadlock error, or the warnings about how the run ended."""
        blocked = [(plan.queues[m][h], m) for m, h in enumerate(st.heads)
                   if h < len(plan.queues[m])]

        def waits(i: int) -> str:
            return " and ".join(QUEUES[k] for k in plan.pops[i] if st.tokens[k] == 0)

        if not st.finished:
            parts = [f"instruction {i} ({describe(stream[i])}) on {MODULES[m]} waits on "
                     f"{waits(i)}" for i, m in blocked]
            raise DeadlockError("deadlock before FINISH: " + "; ".join(parts)
                                + f" (tokens {self._tokens_text()})")
        warnings: list[str] = []
        trailing = len(stream) - 1 - plan.finish_at
        if trailing:
            warnings.append(
                f"{trailing} instruction(s) follow FINISH (instruction {plan.finish_at}) in the "
                "stream; the reference's outcome then depends on its random module order")
        if st.late:
            shown = ", ".join(f"{i} ({describe(stream[i])})" for i in st.late[:5])
            more = f" and {len(st.late) - 5} more" if len(st.late) > 5 else ""
            warnings.append(
                f"{len(st.late)} instruction(s) executed after FINISH: {shown}{more}; the "
                "reference would not terminate on this stream")
        if blocked:
            left = sum(len(q) - h for q, h in zip(plan.queues, st.heads, strict=True))
            why = "; ".join(f"instruction {i} ({describe(stream[i])}) waits on {waits(i)}"
                            for i, _ in blocked)
            warnings.append(f"{left} instruction(s) never executed (the reference drops them "
                            f"when FINISH ends the run): {why}")
        if any(self.tokens.values()):
            warnings.append("tokens left at the end of the run (carried into the next run): "
                            + self._tokens_text())
        return warnings

    def _time(self, stream: list[Insn], carried: Mapping[str, int], result: RunResult) -> None:
        try:
            t = time_run(stream, self.cfg, carried)
        except VTAError as e:
            # e.g. instructions the functional run left blocked after FINISH: the functional
            # result stands, the run just has no cycle count.
            result.warnings.append(f"cycle model could not time this run: {e}")
            return
        result.cycles = int(t.cycles)
        result.busy = dict(t.busy)
        result.timing = t

    def _tokens_text(self) -> str:
        return ", ".join(f"{q}={self.tokens[q]}" for q in QUEUES)

    def run_program(self, program: Program, *, timing: bool = True) -> RunResult:
        """Run every run of ``program`` in order and return the summed result.

        Each run's micro-op image is written at its ``uop_base`` first; the DRAM pages there must
        already be allocated (by whoever linked the program).
        """
        results = []
        for r in program.runs:
            words = np.asarray(r.uop_words, dtype="<u4")
            if words.size:
                self.dram.write(r.uop_base, words)
            results.append(self.run(r.insns, timing=timing))
        return RunResult.combine(results)

