"""The VTA reference cycle model, exactly as ``docs/timing-model.md`` (v1).

Three modules run concurrently (``docs/isa.md`` §3.2 step 1):

* **load** — LOAD INP, LOAD WGT;
* **compute** — GEMM, ALU, LOAD UOP / ACC / ACC_8BIT, FINISH;
* **store** — STORE.

Each module executes its own instructions in stream order, one at a time.  An instruction starts
at the latest of the time its module finished the previous one and, for every dependency flag it
pops, the time the matching token was pushed; it pushes its tokens when it finishes.  The four
token queues (``l2g``, ``g2l``, ``s2g``, ``g2s``) are FIFOs of unbounded capacity; the flag to
queue mapping per module is the table of ``docs/isa.md`` §3.2 step 2.  A run ends when its FINISH
finishes; its cycles are that time.  Several runs are timed back to back and tokens left over at
the end of one run are available from the start of the next.

Costs (``docs/timing-model.md``, "Instruction costs"), all parameters from ``cfg.timing``:

* memory instruction with ``x_size == 0`` (NOP): 1;
* LOAD: ``dma_latency + ceil(dram_bytes / dram_bytes_per_cycle) + pad_elements``;
* STORE: ``dma_latency + ceil(dram_bytes / dram_bytes_per_cycle)``;
* GEMM and ALU with an immediate: ``pipeline_depth + iter_out * iter_in * (uop_end - uop_bgn)``;
* ALU with a tensor operand: ``pipeline_depth + 2 * iter_out * iter_in * (uop_end - uop_bgn)``;
* FINISH: 1.

``dram_bytes`` counts the DRAM-side element of the memory type (ACC_8BIT: ``acc8_elem_bytes``).

The schedule is computed without a clock: every queue has a single pushing module and a single
popping module, both in order, so the k-th pop of a queue always takes the k-th token pushed on
it.  Advancing each module's in-order pointer while its head instruction's tokens are known is
therefore an exact event simulation, linear in the number of instructions.  When no module can
advance before every instruction has run, the stream deadlocks and :class:`DeadlockError` names
the waiting instruction and its queue.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vta_mlir.config import VTAConfig
from vta_mlir.errors import DeadlockError, SimulatorError
from vta_mlir.isa import AluInsn, AluKind, FinishInsn, GemmInsn, Insn, MemInsn, MemType, module_of
from vta_mlir.sim.layers import layer_trace_events

__all__ = [
    "MODULES",
    "QUEUES",
    "TimingResult",
    "chrome_trace",
    "insn_cost",
    "insn_name",
    "time_run",
    "time_runs",
]

#: Module names, in the order used for trace tracks.
MODULES: tuple[str, ...] = ("load", "compute", "store")
#: Token queue names: load→compute, compute→load, store→compute, compute→store.
QUEUES: tuple[str, ...] = ("l2g", "g2l", "s2g", "g2s")

#: Model constants of ``docs/timing-model.md`` §2 (not hardware parameters): NOP and FINISH each
#: take one cycle; an ALU micro-op that also reads a source accumulator element takes two.
NOP_COST = 1
FINISH_COST = 1
ALU_TENSOR_FACTOR = 2

_LOAD, _COMPUTE, _STORE = 0, 1, 2
_L2G, _G2L, _S2G, _G2S = 0, 1, 2, 3
_NO_QUEUE = -1

#: Per module: queue popped by pop_prev, pop_next; pushed by push_prev, push_next
#: (docs/isa.md §3.2 step 2; ``_NO_QUEUE`` marks a flag that must be 0).
_FLAG_QUEUES: tuple[tuple[int, int, int, int], ...] = (
    (_NO_QUEUE, _G2L, _NO_QUEUE, _L2G),  # load
    (_L2G, _S2G, _G2L, _G2S),  # compute
    (_G2S, _NO_QUEUE, _S2G, _NO_QUEUE),  # store
)
_FLAG_NAMES = ("pop_prev", "pop_next", "push_prev", "push_next")


@dataclass
class TimingResult:
    """Timing of one run (:func:`time_run`) or of several back to back (:func:`time_runs`).

    ``start`` / ``end`` hold each instruction's start and finish cycle in stream order; for a
    multi-run result they are absolute (run ``r`` starts at the sum of the earlier runs' cycles).
    """

    cycles: int
    busy: dict[str, int]
    start: list[int]
    end: list[int]
    tokens_left: dict[str, int]
    #: Cycles of each run, in order (one entry for :func:`time_run`).
    run_cycles: list[int] = field(default_factory=list)

    def utilisation(self) -> dict[str, float]:
        """Busy cycles over total cycles, per module (0.0 for an empty result)."""
        return {m: (b / self.cycles if self.cycles else 0.0) for m, b in self.busy.items()}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (no per-instruction times)."""
        return {
            "cycles": self.cycles,
            "busy": dict(self.busy),
            "utilisation": self.utilisation(),
            "tokens_left": dict(self.tokens_left),
            "run_cycles": list(self.run_cycles),
        }


# ---------------------------------------------------------------------------------------------
# Costs


def _module_index(insn: Insn) -> int:
    return MODULES.index(module_of(insn))


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _load_elem_bytes(memory_type: int, cfg: VTAConfig) -> int:
    if memory_type == MemType.INP:
        return cfg.inp_elem_bytes
    if memory_type == MemType.WGT:
        return cfg.wgt_elem_bytes
    if memory_type == MemType.ACC:
        return cfg.acc_elem_bytes
    if memory_type == MemType.UOP:
        return cfg.uop_elem_bytes
    if memory_type == MemType.ACC_8BIT:
        return cfg.acc8_elem_bytes
    raise SimulatorError(f"LOAD of memory type {_mem_name(memory_type)} has no cost (not loadable)")


def _mem_name(memory_type: int) -> str:
    if memory_type in MemType._value2member_map_:
        return MemType(memory_type).name
    return str(memory_type)


def insn_cost(insn: Insn, cfg: VTAConfig) -> int:
    """Cycles ``insn`` occupies its module under ``cfg.timing`` (docs/timing-model.md §2)."""
    t = cfg.timing
    if isinstance(insn, MemInsn):
        x, y = insn.x_size, insn.y_size
        if x == 0:
            return NOP_COST
        if insn.is_store:
            if insn.memory_type != MemType.OUT:
                raise SimulatorError(
                    f"STORE of memory type {_mem_name(insn.memory_type)} has no cost "
                    "(only OUT is stored)"
                )
            dram_bytes = x * y * cfg.out_elem_bytes
            return t.dma_latency + _ceil_div(dram_bytes, t.dram_bytes_per_cycle)
        dram_bytes = x * y * _load_elem_bytes(insn.memory_type, cfg)
        xtotal = insn.x_pad_0 + x + insn.x_pad_1
        ytotal = insn.y_pad_0 + y + insn.y_pad_1
        pad_elements = xtotal * ytotal - x * y
        return t.dma_latency + _ceil_div(dram_bytes, t.dram_bytes_per_cycle) + pad_elements
    if isinstance(insn, GemmInsn | AluInsn):
        uops = insn.iter_out * insn.iter_in * max(insn.uop_end - insn.uop_bgn, 0)
        if isinstance(insn, AluInsn) and not insn.use_imm:
            uops *= ALU_TENSOR_FACTOR
        return t.pipeline_depth + uops
    if isinstance(insn, FinishInsn):
        return FINISH_COST
    raise SimulatorError(f"cannot time {type(insn).__name__}: not a VTA instruction")


def insn_name(insn: Insn) -> str:
    """Short opcode name: ``LOAD.INP``, ``STORE.OUT``, ``GEMM``, ``ALU.ADD``, ``FINISH``."""
    if isinstance(insn, MemInsn):
        return f"{'STORE' if insn.is_store else 'LOAD'}.{_mem_name(insn.memory_type)}"
    if isinstance(insn, GemmInsn):
        return "GEMM"
    if isinstance(insn, AluInsn):
        op = insn.alu_opcode
        kind = AluKind.from_opcode(op)
        return f"ALU.{kind.name if kind is not None else op}"
    return "FINISH"


# ---------------------------------------------------------------------------------------------
# Scheduling


def _flag_table() -> list[list[tuple[tuple[int, ...], tuple[int, ...]] | int]]:
    """Per module and 4-bit flag value (pop_prev, pop_next, push_prev, push_next as bits 0..3):
    (popped queues, pushed queues), or the bit of the first illegal flag as an int."""
    table: list[list[tuple[tuple[int, ...], tuple[int, ...]] | int]] = []
    for qs in _FLAG_QUEUES:
        row: list[tuple[tuple[int, ...], tuple[int, ...]] | int] = []
        for bits in range(16):
            on = [bool(bits >> k & 1) for k in range(4)]
            bad = [k for k in range(4) if on[k] and qs[k] == _NO_QUEUE]
            if bad:
                row.append(bad[0])
                continue
            pops = tuple(qs[k] for k in (1, 0) if on[k])
            pushes = tuple(qs[k] for k in (2, 3) if on[k])
            row.append((pops, pushes))
        table.append(row)
    return table


_FLAG_TABLE = _flag_table()


def _prepare(
    insns: Sequence[Insn], cfg: VTAConfig
) -> tuple[list[list[int]], list[int], list[tuple[int, ...]], list[tuple[int, ...]]]:
    """Per instruction: module lists (stream indices), costs, popped and pushed queue indices."""
    per_module: list[list[int]] = [[], [], []]
    costs: list[int] = []
    pops: list[tuple[int, ...]] = []
    pushes: list[tuple[int, ...]] = []
    finish_at = -1
    table = _FLAG_TABLE
    for i, insn in enumerate(insns):
        try:
            costs.append(insn_cost(insn, cfg))
        except SimulatorError as e:
            raise SimulatorError(f"instruction {i}: {e}") from None
        m = _module_index(insn)
        if finish_at < 0 and isinstance(insn, FinishInsn):
            finish_at = i
        bits = ((insn.pop_prev_dep != 0) | (insn.pop_next_dep != 0) << 1
                | (insn.push_prev_dep != 0) << 2 | (insn.push_next_dep != 0) << 3)
        entry = table[m][bits]
        if isinstance(entry, int):
            raise SimulatorError(
                f"instruction {i} ({insn_name(insn)}): {_FLAG_NAMES[entry]} is illegal on the "
                f"{MODULES[m]} module"
            )
        pops.append(entry[0])
        pushes.append(entry[1])
        per_module[m].append(i)
    if finish_at < 0:
        raise SimulatorError(f"run of {len(insns)} instruction(s) has no FINISH")
    if finish_at != len(insns) - 1:
        raise SimulatorError(
            f"instruction {finish_at} is FINISH but the run continues to instruction "
            f"{len(insns) - 1}; FINISH must be the last instruction of a run"
        )
    return per_module, costs, pops, pushes


def _carried_counts(carried: Mapping[str, int] | None) -> list[int]:
    counts = [0, 0, 0, 0]
    if carried:
        for name, n in carried.items():
            if name not in QUEUES:
                raise SimulatorError(
                    f"unknown token queue {name!r} (expected one of {', '.join(QUEUES)})"
                )
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise SimulatorError(f"carried tokens of {name} must be a count >= 0, got {n!r}")
            counts[QUEUES.index(name)] = n
    return counts


def time_run(
    insns: Sequence[Insn], cfg: VTAConfig, carried: Mapping[str, int] | None = None
) -> TimingResult:
    """Time one run (it must end with FINISH) under ``cfg.timing``.

    ``carried`` gives the tokens left in each queue by earlier runs, available at cycle 0.
    Raises :class:`DeadlockError` if a pop can never be satisfied and :class:`SimulatorError`
    for an illegal dependency flag or an instruction without a cost.
    """
    per_module, costs, pops, pushes = _prepare(insns, cfg)
    n = len(insns)
    start = [0] * n
    end = [0] * n
    # push_times[q]: the time of every token ever available on q (carried ones first, at 0);
    # popped[q]: how many of them have been taken.
    push_times: list[list[int]] = [[0] * c for c in _carried_counts(carried)]
    popped = [0, 0, 0, 0]
    free = [0, 0, 0]
    pos = [0, 0, 0]
    busy = [0, 0, 0]
    remaining = n
    while remaining:
        progressed = False
        for m in (_LOAD, _COMPUTE, _STORE):
            order = per_module[m]
            p = pos[m]
            t_free = free[m]
            count = len(order)
            while p < count:
                i = order[p]
                t = t_free
                blocked = False
                for q in pops[i]:
                    k = popped[q]
                    times = push_times[q]
                    if k >= len(times):
                        blocked = True
                        break
                    if times[k] > t:
                        t = times[k]
                if blocked:
                    break
                for q in pops[i]:
                    popped[q] += 1
                c = costs[i]
                start[i] = t
                t_free = t + c
                end[i] = t_free
                busy[m] += c
                for q in pushes[i]:
                    push_times[q].append(t_free)
                p += 1
            if p != pos[m]:
                remaining -= p - pos[m]
                pos[m] = p
                free[m] = t_free
                progressed = True
        if not progressed:
            raise _deadlock(insns, per_module, pos, pops, popped, push_times)
    cycles = end[n - 1]
    return TimingResult(
        cycles=cycles,
        busy={MODULES[m]: busy[m] for m in range(3)},
        start=start,
        end=end,
        tokens_left={QUEUES[q]: len(push_times[q]) - popped[q] for q in range(4)},
        run_cycles=[cycles],
    )


def _deadlock(
    insns: Sequence[Insn],
    per_module: list[list[int]],
    pos: list[int],
    pops: list[tuple[int, ...]],
    popped: list[int],
    push_times: list[list[int]],
) -> DeadlockError:
    """The error for a stall: the earliest waiting instruction and the queue it waits on."""
    heads = [per_module[m][pos[m]] for m in range(3) if pos[m] < len(per_module[m])]
    i = min(heads)
    queue = next(q for q in pops[i] if popped[q] >= len(push_times[q]))
    waiting = ", ".join(
        f"{j} ({insn_name(insns[j])})" for j in sorted(heads) if j != i
    )
    also = f"; also waiting: instruction {waiting}" if waiting else ""
    return DeadlockError(
        f"deadlock: instruction {i} ({insn_name(insns[i])}) pops {QUEUES[queue]}, "
        f"which never receives another token{also}"
    )


def time_runs(
    runs: Sequence[Sequence[Insn]], cfg: VTAConfig, carried: Mapping[str, int] | None = None
) -> TimingResult:
    """Time several runs back to back: cycles and busy time add up, tokens carry over.

    ``start`` / ``end`` of the result are absolute over the concatenated stream; ``tokens_left``
    are those at the end of the last run; ``run_cycles`` lists each run.
    """
    tokens: dict[str, int] = {q: 0 for q in QUEUES}
    tokens.update(carried or {})
    total = 0
    busy = {m: 0 for m in MODULES}
    start: list[int] = []
    end: list[int] = []
    run_cycles: list[int] = []
    first = 0
    for r, run in enumerate(runs):
        try:
            res = time_run(run, cfg, tokens)
        except SimulatorError as e:
            raise type(e)(f"run {r} (stream instructions from {first}): {e}") from None
        start.extend(s + total for s in res.start)
        end.extend(s + total for s in res.end)
        for m in MODULES:
            busy[m] += res.busy[m]
        total += res.cycles
        run_cycles.append(res.cycles)
        tokens = res.tokens_left
        first += len(run)
    return TimingResult(
        cycles=total, busy=busy, start=start, end=end, tokens_left=dict(tokens),
        run_cycles=run_cycles,
    )


# ---------------------------------------------------------------------------------------------
# Chrome trace


def chrome_trace(insns: Sequence[Insn], result: TimingResult, cfg: VTAConfig, *,
                 layers: Sequence[str] = (), insn_layers: Sequence[int] = ()
                 ) -> dict[str, Any]:
    """A Chrome trace-event JSON object (Perfetto, chrome://tracing) of a timed stream.

    One process ("VTA <model>") with one thread track per module, named by metadata events, and
    one complete (``"X"``) slice per instruction, named by :func:`insn_name`, with the decoded
    fields, stream index, cost and cycle times as args.  Times are in microseconds at
    ``cfg.timing.clock_mhz``.  With ``layers`` (names) and ``insn_layers`` (the layer of each
    instruction), a "layers" track below the modules has one slice per layer, named after it,
    spanning its instructions (:func:`vta_mlir.sim.layers.layer_trace_events`).
    """
    if len(insns) != len(result.start) or len(insns) != len(result.end):
        raise SimulatorError(
            f"trace needs one time per instruction: {len(insns)} instruction(s), "
            f"{len(result.start)} timed"
        )
    us_per_cycle = 1.0 / cfg.timing.clock_mhz
    pid = 1
    events: list[dict[str, Any]] = [
        {"ph": "M", "pid": pid, "tid": 0, "name": "process_name",
         "args": {"name": f"VTA {cfg.model}"}},
    ]
    for m, name in enumerate(MODULES):
        tid = m + 1
        events.append({"ph": "M", "pid": pid, "tid": tid, "name": "thread_name",
                       "args": {"name": name}})
        events.append({"ph": "M", "pid": pid, "tid": tid, "name": "thread_sort_index",
                       "args": {"sort_index": tid}})
    for i, insn in enumerate(insns):
        s, e = result.start[i], result.end[i]
        args: dict[str, Any] = {"index": i, "start_cycle": s, "end_cycle": e,
                                "cycles": e - s}
        args.update(insn.field_values())
        if isinstance(insn, MemInsn):
            args["nop"] = insn.x_size == 0
        events.append({
            "ph": "X",
            "pid": pid,
            "tid": _module_index(insn) + 1,
            "name": insn_name(insn),
            "cat": MODULES[_module_index(insn)],
            "ts": s * us_per_cycle,
            "dur": (e - s) * us_per_cycle,
            "args": args,
        })
    if layers:
        events += layer_trace_events(layers, insns, insn_layers, result.start, result.end, cfg,
                                     pid=pid, first_tid=len(MODULES) + 1)
    return {
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "otherData": {
            "model": cfg.model,
            "timing": cfg.timing.to_dict(),
            "cycles": result.cycles,
            "busy": dict(result.busy),
        },
    }
