"""Per-layer figures of a timed program: cycles, busy modules, DRAM traffic per buffer.

A program with layers (:attr:`vta_mlir.program.Program.layers`, the VTA regions of a network
named from their source locations) tags each instruction with its layer.  Given the cycle
model's start and end of every instruction (:mod:`vta_mlir.sim.timing`, absolute over the
program's runs timed back to back), :func:`layer_figures` describes each layer:

* ``cycles``: from the start of its first instruction to the end of its last (``start_cycle``,
  ``end_cycle``), NOPs not counted for the start (a NOP that waits for nothing runs as soon as
  its module is idle, which may be long before the layer's work); neighbouring layers may
  overlap by a few instructions, since the modules run concurrently;
* ``busy``: the cycles each module (``load``, ``compute``, ``store``: DMA loads, GEMM / ALU and
  the compute module's own loads, DMA stores) spends on the layer's instructions, and
  ``utilisation``, those cycles over the layer's ``cycles``;
* ``critical_cycles``: the cycles by which the layer moves the program's end out — every
  cycle of the program goes to the layer of the instruction that ends it first, scanning the
  instructions by end cycle (:func:`critical_cycles`) — so, unlike the spans, these add up
  exactly to the program's cycles; a layer whose work the modules overlap with its neighbours'
  gets only what it adds;
* ``bound_by``: the busiest module in that span;
* ``dram_bytes``: per DRAM segment (an argument's segment bears the argument's name), the bytes
  the layer's loads read and its stores write, counted on the DRAM side (an ``ACC_8BIT`` load
  reads one byte per lane, although the ``acc_load_nbytes`` counter counts its SRAM width);
* ``instructions``: how many instructions it has;
* ``compute_work``: the compute module's busy cycles by kind of work (:data:`COMPUTE_WORK`):
  ``gemm`` (GEMM micro-ops that accumulate), ``reset`` (GEMM resets), ``alu`` (epilogues,
  pooling, residual adds) and ``loads`` (the compute module's own loads: accumulator,
  ``ACC_8BIT`` and micro-op loads). ``reset`` and ``alu`` are what the schedule's epilogues,
  pools and residuals cost beyond the GEMM: with the GEMM bound of the layer's true MACs they
  give the floor of the schedule (``docs/performance.md``).

:func:`layer_trace_events` draws the layers as slices of a Chrome / Perfetto trace.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

import numpy as np

from vta_mlir.config import VTAConfig
from vta_mlir.isa import (
    COMPUTE_MODULE,
    AluInsn,
    GemmInsn,
    Insn,
    MemInsn,
    dram_elem_bytes,
    module_of,
)
from vta_mlir.program import Program

__all__ = ["COMPUTE_WORK", "MODULES", "compute_work_kind", "critical_cycles", "layer_figures",
           "layer_spans", "layer_trace_events"]

#: Module names, as in the run's ``busy`` (``docs/timing-model.md``).
MODULES: tuple[str, ...] = ("load", "compute", "store")

#: The kinds of the compute module's work in a layer's ``compute_work``.
COMPUTE_WORK: tuple[str, ...] = ("gemm", "reset", "alu", "loads")


def compute_work_kind(insn: Insn) -> str | None:
    """The :data:`COMPUTE_WORK` kind of a compute-module instruction (``None``: FINISH, or
    another module's instruction)."""
    if isinstance(insn, GemmInsn):
        return "reset" if insn.reset_reg else "gemm"
    if isinstance(insn, AluInsn):
        return "alu"
    if isinstance(insn, MemInsn) and module_of(insn) == COMPUTE_MODULE:
        return "loads"
    return None



def layer_spans(insns: Sequence[Insn], tags: Sequence[int] | np.ndarray,
                start: Sequence[int], end: Sequence[int], count: int) -> list[tuple[int, int]]:
    """``(start, end)`` cycle of each of ``count`` layers, given every instruction (in stream
    order), its layer and its start and end cycle: the first start of a layer's instructions
    other than NOPs (of any, for a layer of NOPs only) and the last end of all of them."""
    layer = np.asarray(tags, dtype=np.int64)
    starts = np.asarray(start, dtype=np.int64)
    ends = np.asarray(end, dtype=np.int64)
    nop = np.fromiter((isinstance(i, MemInsn) and i.x_size == 0 for i in insns), dtype=bool,
                      count=len(insns))
    never = np.iinfo(np.int64).max
    first = np.full(count, never, dtype=np.int64)
    np.minimum.at(first, layer[~nop], starts[~nop])
    any_first = np.full(count, never, dtype=np.int64)
    np.minimum.at(any_first, layer, starts)
    first = np.where(first == never, any_first, first)
    last = np.zeros(count, dtype=np.int64)
    np.maximum.at(last, layer, ends)
    return [(int(a), int(b)) for a, b in zip(first, last, strict=True)]


def critical_cycles(tags: Sequence[int] | np.ndarray, end: Sequence[int],
                    count: int) -> list[int]:
    """Each of ``count`` layers' share of the program's cycles, given every instruction's layer
    and end cycle: the instructions taken by end cycle (stream order among equal ends), each
    gets the cycles by which it moves the latest end so far.  The shares add up to the latest
    end, the program's cycles (its last instruction ends last)."""
    layer = np.asarray(tags, dtype=np.int64)
    ends = np.asarray(end, dtype=np.int64)
    shares = np.zeros(count, dtype=np.int64)
    if ends.size == 0:
        return shares.tolist()
    order = np.argsort(ends, kind="stable")
    sorted_ends = ends[order]
    # Sorted, the latest end so far is the previous element; the first starts from cycle 0.
    gains = np.diff(sorted_ends, prepend=0)
    np.add.at(shares, layer[order], gains)
    return shares.tolist()


def layer_figures(program: Program, start: Sequence[int], end: Sequence[int],
                  cfg: VTAConfig) -> list[dict[str, Any]]:
    """The figures of each layer of ``program`` (module doc), in layer order; ``start`` /
    ``end`` are the cycles of every instruction in stream order.  Empty without layers."""
    names = program.layers
    if not names:
        return []
    tags = program.insn_layers().astype(np.int64)
    if tags.size != len(start) or tags.size != len(end):
        raise ValueError(f"{tags.size} instruction(s) but {len(start)} timed")
    insns = [insn for run in program.runs for insn in run.insns]
    spans = layer_spans(insns, tags, start, end, len(names))
    shares = critical_cycles(tags, end, len(names))
    busy = [dict.fromkeys(MODULES, 0) for _ in names]
    work = [dict.fromkeys(COMPUTE_WORK, 0) for _ in names]
    counts = np.bincount(tags, minlength=len(names))
    traffic: list[dict[str, dict[str, int]]] = [{} for _ in names]
    segs = sorted(program.segments, key=lambda s: s.phys)
    phys = [s.phys for s in segs]
    elem = dram_elem_bytes(cfg)
    i = 0
    for run in program.runs:
        for insn in run.insns:
            layer = int(tags[i])
            busy[layer][module_of(insn)] += int(end[i]) - int(start[i])
            kind = compute_work_kind(insn)
            if kind is not None:
                work[layer][kind] += int(end[i]) - int(start[i])
            if isinstance(insn, MemInsn) and insn.x_size:
                size = elem.get(insn.memory_type, 0)
                at = bisect.bisect_right(phys, insn.dram_base * size) - 1
                name = segs[at].name if at >= 0 else "?"
                entry = traffic[layer].setdefault(name, {"read": 0, "written": 0})
                entry["written" if insn.is_store else "read"] += insn.x_size * insn.y_size * size
            i += 1
    figures = []
    for k, name in enumerate(names):
        first, last = spans[k]
        cycles = last - first
        figures.append({
            "name": name,
            "instructions": int(counts[k]),
            "start_cycle": first,
            "end_cycle": last,
            "cycles": cycles,
            "critical_cycles": shares[k],
            "busy": busy[k],
            "utilisation": {m: (b / cycles if cycles else 0.0) for m, b in busy[k].items()},
            # The first of the busiest modules, in MODULES order.
            "bound_by": max(MODULES, key=busy[k].__getitem__),
            "dram_bytes": dict(sorted(traffic[k].items())),
            "compute_work": work[k],
        })
    return figures


def layer_trace_events(names: Sequence[str], insns: Sequence[Insn],
                       tags: Sequence[int] | np.ndarray, start: Sequence[int],
                       end: Sequence[int], cfg: VTAConfig, *, pid: int = 1,
                       first_tid: int = 4) -> list[dict[str, Any]]:
    """Chrome trace events marking each layer: one complete slice per layer spanning its
    instructions (:func:`layer_spans`), on a "layers" track (a second, "layers 2", ... where
    spans overlap, since the slices of one track must not)."""
    if not names:
        return []
    spans = layer_spans(insns, tags, start, end, len(names))
    us_per_cycle = 1.0 / cfg.timing.clock_mhz
    track_ends: list[int] = []
    slices: list[dict[str, Any]] = []
    for k, (first, last) in enumerate(spans):
        track = next((t for t, busy_until in enumerate(track_ends) if busy_until <= first),
                     len(track_ends))
        if track == len(track_ends):
            track_ends.append(last)
        track_ends[track] = last
        slices.append({
            "ph": "X", "pid": pid, "tid": first_tid + track, "name": names[k], "cat": "layer",
            "ts": first * us_per_cycle, "dur": (last - first) * us_per_cycle,
            "args": {"layer": k, "start_cycle": first, "end_cycle": last,
                     "cycles": last - first},
        })
    events: list[dict[str, Any]] = []
    for t in range(len(track_ends)):
        tid = first_tid + t
        label = "layers" if t == 0 else f"layers {t + 1}"
        events.append({"ph": "M", "pid": pid, "tid": tid, "name": "thread_name",
                       "args": {"name": label}})
        events.append({"ph": "M", "pid": pid, "tid": tid, "name": "thread_sort_index",
                       "args": {"sort_index": tid}})
    return events + slices
