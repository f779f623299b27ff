"""Cycle model (docs/timing-model.md): the four TVM acceptance streams, hand-derived schedules, the
cost table under every shipped configuration and custom parameters, carried tokens, deadlock and
flag errors, a cycle-by-cycle reference on random streams, and the Chrome trace."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.errors import DeadlockError, SimulatorError
from vta_mlir.isa import (
    AluInsn,
    AluKind,
    FinishInsn,
    GemmInsn,
    Insn,
    MemInsn,
    MemType,
    decode_insns,
    module_of,
)
from vta_mlir.sim.timing import (
    MODULES,
    QUEUES,
    TimingResult,
    chrome_trace,
    insn_cost,
    insn_name,
    time_run,
    time_runs,
)

DATA = Path(__file__).parent / "data" / "conformance"

ACCEPTANCE = {
    "tvm_vta_get_started": 1_415,
    "tvm_matrix_multiply": 9_720,
    "tvm_matrix_multiply_opt": 139_432,
    "tvm_convolution_opt": 567_724,
}


def load_runs(name: str, cfg: VTAConfig) -> list[list[Insn]]:
    with np.load(DATA / f"{name}.npz") as z:
        insns = decode_insns(z["insns"], cfg)
        counts = [int(c) for c in z["run_insn_count"]]
    runs, first = [], 0
    for c in counts:
        runs.append(insns[first : first + c])
        first += c
    assert first == len(insns)
    return runs


# ---- helpers to build instructions -----------------------------------------------------------


def load(mt: MemType, x: int, y: int = 1, pad: tuple[int, int, int, int] = (0, 0, 0, 0),
         **flags: int) -> MemInsn:
    y0, y1, x0, x1 = pad
    return MemInsn(memory_type=int(mt), x_size=x, y_size=y, x_stride=max(x, 1),
                   y_pad_0=y0, y_pad_1=y1, x_pad_0=x0, x_pad_1=x1, **flags)


def store(x: int, y: int = 1, **flags: int) -> MemInsn:
    return MemInsn(is_store=1, memory_type=int(MemType.OUT), x_size=x, y_size=y,
                   x_stride=max(x, 1), **flags)


def nop_load(**flags: int) -> MemInsn:
    return MemInsn(memory_type=int(MemType.INP), **flags)


def nop_uop(**flags: int) -> MemInsn:
    return MemInsn(memory_type=int(MemType.UOP), **flags)


def nop_store(**flags: int) -> MemInsn:
    return MemInsn(is_store=1, memory_type=int(MemType.UOP), **flags)


def gemm(uops: int, iter_out: int = 1, iter_in: int = 1, **flags: int) -> GemmInsn:
    return GemmInsn(uop_bgn=0, uop_end=uops, iter_out=iter_out, iter_in=iter_in, **flags)


def alu(uops: int, iter_out: int = 1, iter_in: int = 1, imm: bool = False,
        **flags: int) -> AluInsn:
    return AluInsn(uop_bgn=0, uop_end=uops, iter_out=iter_out, iter_in=iter_in,
                   alu_opcode=AluKind.ADD.opcode, use_imm=int(imm), imm=1 if imm else 0, **flags)


# ---- acceptance ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ACCEPTANCE))
def test_tvm_streams(name: str, default_cfg: VTAConfig) -> None:
    runs = load_runs(name, default_cfg)
    res = time_runs(runs, default_cfg)
    assert res.cycles == ACCEPTANCE[name]
    assert res.run_cycles and sum(res.run_cycles) == res.cycles
    n = sum(len(r) for r in runs)
    assert len(res.start) == len(res.end) == n
    stream = [i for r in runs for i in r]
    for m in MODULES:
        assert res.busy[m] == sum(insn_cost(i, default_cfg) for i in stream if module_of(i) == m)
        assert 0.0 <= res.utilisation()[m] <= 1.0
    # each module runs one instruction at a time, in stream order
    for m in MODULES:
        last = 0
        for k, insn in enumerate(stream):
            if module_of(insn) == m:
                assert res.start[k] >= last
                assert res.end[k] - res.start[k] == insn_cost(insn, default_cfg)
                last = res.end[k]
    if len(runs) == 1:
        single = time_run(runs[0], default_cfg)
        assert (single.cycles, single.start, single.end) == (res.cycles, res.start, res.end)


def test_get_started_by_hand(default_cfg: VTAConfig) -> None:
    """docs/isa.md §5.7's vector add, every instruction derived from the cost table."""
    (run,) = load_runs("tvm_vta_get_started", default_cfg)
    res = time_run(run, default_cfg)
    acc = 32 + 64 * 64 // 8          # LOAD ACC of 64 elements: 544
    uop = 32 + 1                     # LOAD UOP of one 4-byte uop
    alu_t = 4 + 2 * 64               # ALU ADD tensor, 64 uop executions
    st_ = 32 + 64 * 16 // 8          # STORE of 64 OUT elements
    assert res.start == [0, acc, 2 * acc, 2 * acc + uop, 2 * acc + uop + alu_t, 0,
                         2 * acc + uop + alu_t + st_, 2 * acc + uop + alu_t + st_ + 1]
    assert res.cycles == 2 * acc + uop + alu_t + st_ + 2 == 1415
    assert res.busy == {"load": 1, "compute": 2 * acc + uop + alu_t + 2, "store": st_}
    assert res.tokens_left == dict.fromkeys(QUEUES, 0)
    assert res.utilisation()["store"] == pytest.approx(160 / 1415)


def test_tokens_left_reported(default_cfg: VTAConfig) -> None:
    # the TVM matrix_multiply_opt stream leaves one store->compute token behind
    res = time_runs(load_runs("tvm_matrix_multiply_opt", default_cfg), default_cfg)
    assert res.tokens_left == {"l2g": 0, "g2l": 0, "s2g": 1, "g2s": 0}


# ---- a hand-built stream ----------------------------------------------------------------------


def test_hand_built_overlap(default_cfg: VTAConfig) -> None:
    stream: list[Insn] = [
        load(MemType.INP, 4, pad=(0, 0, 1, 1), push_next_dep=1),  # 32 + 64/8 + 2 pad = 42
        load(MemType.UOP, 2),                                    # 32 + ceil(8/8) = 33
        gemm(2, 2, 3, pop_prev_dep=1),                           # 4 + 12 = 16, waits for l2g
        load(MemType.WGT, 1),                                    # 32 + 256/8 = 64
        alu(1, 1, 5),                                            # tensor: 4 + 2*5 = 14
        alu(1, 1, 5, imm=True, push_next_dep=1),                 # immediate: 4 + 5 = 9
        store(2, pop_prev_dep=1, push_prev_dep=1),               # 32 + 32/8 = 36
        nop_load(push_next_dep=1),                               # NOP: 1
        nop_uop(pop_prev_dep=1, pop_next_dep=1),                 # NOP: 1
        FinishInsn(),
    ]
    assert [insn_cost(i, default_cfg) for i in stream] == [42, 33, 16, 64, 14, 9, 36, 1, 1, 1]
    res = time_run(stream, default_cfg)
    # load:    INP [0,42) -> WGT [42,106) (overlaps the GEMM) -> NOP [106,107)
    # compute: UOP [0,33) -> GEMM waits for INP: [42,58) -> ALU [58,72) -> ALU [72,81)
    #          -> NOP waits for the store's token: [117,118) -> FINISH [118,119)
    # store:   STORE waits for the ALU's token: [81,117)
    assert res.start == [0, 0, 42, 42, 58, 72, 81, 106, 117, 118]
    assert res.end == [42, 33, 58, 106, 72, 81, 117, 107, 118, 119]
    assert res.cycles == 119
    assert res.busy == {"load": 107, "compute": 74, "store": 36}
    assert res.tokens_left == dict.fromkeys(QUEUES, 0)
    assert res.run_cycles == [119]
    assert res.utilisation() == {"load": 107 / 119, "compute": 74 / 119, "store": 36 / 119}


def test_fifo_tokens_pair_in_order(default_cfg: VTAConfig) -> None:
    # two tokens on l2g: the first GEMM takes the first (t=42), the second the second (t=84)
    stream: list[Insn] = [
        load(MemType.INP, 4, pad=(0, 0, 1, 1), push_next_dep=1),
        load(MemType.INP, 4, pad=(0, 0, 1, 1), push_next_dep=1),
        gemm(1, pop_prev_dep=1),
        gemm(1, pop_prev_dep=1),
        FinishInsn(),
    ]
    res = time_run(stream, default_cfg)
    assert res.start == [0, 42, 42, 84, 89]
    assert res.cycles == 90


# ---- the cost table -----------------------------------------------------------------------------


def test_costs_default(default_cfg: VTAConfig) -> None:
    c = default_cfg
    assert insn_cost(load(MemType.INP, 3, 2), c) == 32 + 3 * 2 * 16 // 8
    assert insn_cost(load(MemType.WGT, 2, 2), c) == 32 + 4 * 256 // 8
    assert insn_cost(load(MemType.ACC, 5), c) == 32 + 5 * 64 // 8
    assert insn_cost(load(MemType.UOP, 3), c) == 32 + 2            # ceil(12 / 8)
    assert insn_cost(load(MemType.ACC_8BIT, 3, 2), c) == 32 + 6 * 16 // 8
    # padding: one element per padded SRAM slot, here (1+2) rows x (1+3+1) columns = 15 slots
    padded = load(MemType.INP, 3, 2, pad=(1, 0, 1, 1))
    assert insn_cost(padded, c) == 32 + 6 * 16 // 8 + (15 - 6)
    assert insn_cost(store(4, 3), c) == 32 + 12 * 16 // 8
    assert insn_cost(store(1), c) == 32 + 2                        # ceil(16 / 8)
    for nop in (nop_load(), nop_uop(), nop_store(), load(MemType.WGT, 0, 5, pad=(1, 1, 1, 1))):
        assert insn_cost(nop, c) == 1
    assert insn_cost(gemm(3, 4, 5), c) == 4 + 60
    assert insn_cost(GemmInsn(reset_reg=1, uop_bgn=2, uop_end=5, iter_out=2, iter_in=2), c) == 16
    assert insn_cost(alu(3, 4, 5, imm=True), c) == 4 + 60
    assert insn_cost(alu(3, 4, 5), c) == 4 + 120
    assert insn_cost(GemmInsn(uop_bgn=5, uop_end=5, iter_out=3, iter_in=3), c) == 4
    assert insn_cost(FinishInsn(), c) == 1


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_costs_follow_element_sizes(name: str) -> None:
    cfg = VTAConfig.shipped(name)
    t = cfg.timing

    def dma(nbytes: int) -> int:
        return t.dma_latency + -(-nbytes // t.dram_bytes_per_cycle)

    sizes = {MemType.INP: cfg.inp_elem_bytes, MemType.WGT: cfg.wgt_elem_bytes,
             MemType.ACC: cfg.acc_elem_bytes, MemType.UOP: cfg.uop_elem_bytes,
             MemType.ACC_8BIT: cfg.acc8_elem_bytes}
    for mt, e in sizes.items():
        assert insn_cost(load(mt, 3, 2), cfg) == dma(6 * e)
    assert insn_cost(store(3, 2), cfg) == dma(6 * cfg.out_elem_bytes)


def test_shipped_element_sizes_pinned() -> None:
    block32, batch2 = VTAConfig.shipped("block32"), VTAConfig.shipped("batch2")
    # block32: INP 32 B, WGT 1024 B, ACC 128 B, OUT 32 B, ACC_8BIT 32 B
    assert insn_cost(load(MemType.WGT, 1), block32) == 32 + 1024 // 8
    assert insn_cost(load(MemType.INP, 1), block32) == 32 + 32 // 8
    assert insn_cost(load(MemType.ACC_8BIT, 1), block32) == 32 + 32 // 8
    # batch2: INP 32 B, WGT 256 B, ACC 128 B, OUT 32 B
    assert insn_cost(load(MemType.WGT, 1), batch2) == 32 + 256 // 8
    assert insn_cost(load(MemType.ACC, 2), batch2) == 32 + 2 * 128 // 8
    assert insn_cost(store(2), batch2) == 32 + 2 * 32 // 8


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_get_started_stream_per_config(name: str, default_cfg: VTAConfig) -> None:
    # the decoded records are configuration-independent; only element sizes change the cycles
    cfg = VTAConfig.shipped(name)
    (run,) = load_runs("tvm_vta_get_started", default_cfg)
    t = cfg.timing
    acc = t.dma_latency + 64 * cfg.acc_elem_bytes // t.dram_bytes_per_cycle
    uop = t.dma_latency + 1
    alu_t = t.pipeline_depth + 2 * 64
    st_ = t.dma_latency + 64 * cfg.out_elem_bytes // t.dram_bytes_per_cycle
    expected = {"default": 1415, "block32": 2567, "batch2": 2567}[name]
    assert time_run(run, cfg).cycles == 2 * acc + uop + alu_t + st_ + 2 == expected


def test_custom_timing_parameters(default_cfg: VTAConfig) -> None:
    base = default_cfg.to_dict(with_timing=False)
    cfg = VTAConfig.from_dict({**base, "timing": {"dma_latency": 10}})
    assert cfg.timing.dma_latency == 10
    (run,) = load_runs("tvm_vta_get_started", cfg)
    # four DMAs on the critical path (2 ACC loads, the UOP load, the STORE), 22 cycles less each
    assert time_run(run, cfg).cycles == 1415 - 4 * 22 == 1327
    assert insn_cost(load(MemType.INP, 4), cfg) == 10 + 8

    cfg2 = VTAConfig.from_dict({**base, "timing": {"dram_bytes_per_cycle": 16,
                                                    "pipeline_depth": 0, "dma_latency": 0}})
    assert insn_cost(load(MemType.WGT, 1), cfg2) == 256 // 16
    assert insn_cost(load(MemType.UOP, 1), cfg2) == 1             # ceil(4 / 16)
    assert insn_cost(alu(2, 1, 3), cfg2) == 12
    assert insn_cost(gemm(2, 1, 3), cfg2) == 6
    assert insn_cost(nop_load(), cfg2) == 1 and insn_cost(FinishInsn(), cfg2) == 1
    (run,) = load_runs("tvm_vta_get_started", cfg2)
    assert time_run(run, cfg2).cycles == 2 * (64 * 64 // 16) + 1 + 2 * 64 + 64 * 16 // 16 + 2


# ---- runs and carried tokens --------------------------------------------------------------------


def test_carried_tokens_across_runs(default_cfg: VTAConfig) -> None:
    run1: list[Insn] = [nop_load(push_next_dep=1), nop_load(push_next_dep=1), gemm(2),
                        FinishInsn()]
    run2: list[Insn] = [gemm(2, pop_prev_dep=1), FinishInsn()]
    r1 = time_run(run1, default_cfg)
    assert r1.tokens_left == {"l2g": 2, "g2l": 0, "s2g": 0, "g2s": 0}
    assert r1.cycles == 7                   # GEMM 4 + 2, then FINISH

    with pytest.raises(DeadlockError, match=r"instruction 0 \(GEMM\).*l2g"):
        time_run(run2, default_cfg)
    r2 = time_run(run2, default_cfg, carried=r1.tokens_left)
    assert r2.start == [0, 6] and r2.cycles == 7   # the carried token is there at cycle 0
    assert r2.tokens_left["l2g"] == 1

    total = time_runs([run1, run2], default_cfg)
    assert total.cycles == r1.cycles + r2.cycles == 14
    assert total.run_cycles == [7, 7]
    assert total.start == [0, 1, 0, 6, 7, 13]    # absolute times over the two runs
    assert total.end == [1, 2, 6, 7, 13, 14]
    assert total.busy == {"load": 2, "compute": 14, "store": 0}
    assert total.tokens_left == {"l2g": 1, "g2l": 0, "s2g": 0, "g2s": 0}

    # the second carried token satisfies a third run too; a fourth one deadlocks
    assert time_runs([run1, run2, run2], default_cfg).tokens_left["l2g"] == 0
    with pytest.raises(DeadlockError, match=r"run 3.*instruction 0 \(GEMM\).*l2g"):
        time_runs([run1, run2, run2, run2], default_cfg)
    assert time_runs([run2], default_cfg, carried={"l2g": 1}).cycles == 7


def test_bad_carried(default_cfg: VTAConfig) -> None:
    with pytest.raises(SimulatorError, match="unknown token queue"):
        time_run([FinishInsn()], default_cfg, carried={"x2y": 1})
    with pytest.raises(SimulatorError, match="count"):
        time_run([FinishInsn()], default_cfg, carried={"l2g": -1})


# ---- errors -----------------------------------------------------------------------------------


def test_deadlock_names_instruction_and_queue(default_cfg: VTAConfig) -> None:
    # load waits on g2l, compute waits on l2g: neither ever pushes
    stream: list[Insn] = [
        load(MemType.INP, 1, pop_next_dep=1, push_next_dep=1),
        gemm(1, pop_prev_dep=1, push_prev_dep=1),
        FinishInsn(),
    ]
    with pytest.raises(DeadlockError, match=r"instruction 0 \(LOAD\.INP\) pops g2l"):
        time_run(stream, default_cfg)
    # a store waiting on a compute token that is never pushed
    stream = [gemm(1), store(1, pop_prev_dep=1), FinishInsn()]
    with pytest.raises(DeadlockError, match=r"instruction 1 \(STORE\.OUT\) pops g2s"):
        time_run(stream, default_cfg)
    # deadlock is a simulator error, reported on one line
    with pytest.raises(SimulatorError) as info:
        time_run([nop_uop(pop_next_dep=1), FinishInsn()], default_cfg)
    assert "\n" not in str(info.value) and "s2g" in str(info.value)


@pytest.mark.parametrize("insn, flag", [
    (load(MemType.INP, 1, pop_prev_dep=1), "pop_prev"),
    (load(MemType.WGT, 1, push_prev_dep=1), "push_prev"),
    (store(1, pop_next_dep=1), "pop_next"),
    (nop_store(push_next_dep=1), "push_next"),
])
def test_illegal_flags(insn: Insn, flag: str, default_cfg: VTAConfig) -> None:
    with pytest.raises(SimulatorError, match=rf"instruction 0 .*{flag}.*illegal") as info:
        time_run([insn, FinishInsn()], default_cfg)
    assert not isinstance(info.value, DeadlockError)


def test_run_must_end_with_finish(default_cfg: VTAConfig) -> None:
    with pytest.raises(SimulatorError, match="no FINISH"):
        time_run([gemm(1)], default_cfg)
    with pytest.raises(SimulatorError, match="FINISH must be the last"):
        time_run([FinishInsn(), gemm(1)], default_cfg)


def test_uncostable_memory_types(default_cfg: VTAConfig) -> None:
    with pytest.raises(SimulatorError, match="OUT"):
        insn_cost(load(MemType.OUT, 1), default_cfg)
    bad_store = MemInsn(is_store=1, memory_type=int(MemType.ACC), x_size=1, y_size=1)
    with pytest.raises(SimulatorError, match="STORE of memory type ACC"):
        time_run([bad_store, FinishInsn()], default_cfg)


# ---- a cycle-by-cycle reference on random streams ---------------------------------------------

_QUEUE_OF = {  # (module, flag) -> queue, docs/isa.md §3.2
    ("load", "pop_next_dep"): "g2l", ("load", "push_next_dep"): "l2g",
    ("compute", "pop_prev_dep"): "l2g", ("compute", "pop_next_dep"): "s2g",
    ("compute", "push_prev_dep"): "g2l", ("compute", "push_next_dep"): "g2s",
    ("store", "pop_prev_dep"): "g2s", ("store", "push_prev_dep"): "s2g",
}


def reference_cycles(insns: list[Insn], cfg: VTAConfig,
                     carried: dict[str, int]) -> tuple[list[int], dict[str, int]] | None:
    """Advance a clock one cycle at a time; None on deadlock.  Costs must be >= 1."""
    queues = {m: [k for k, i in enumerate(insns) if module_of(i) == m] for m in MODULES}
    tokens = {q: carried.get(q, 0) for q in QUEUES}   # tokens available now
    pending: list[tuple[int, str]] = []             # (time, queue) pushes not yet visible
    busy_until = dict.fromkeys(MODULES, 0)
    starts = [-1] * len(insns)
    done = 0
    t = 0
    while done < len(insns):
        for _when, q in [p for p in pending if p[0] == t]:
            tokens[q] += 1
        pending = [p for p in pending if p[0] != t]
        for m in MODULES:
            if busy_until[m] > t or not queues[m]:
                continue
            k = queues[m][0]
            insn = insns[k]
            needs = [_QUEUE_OF[m, f] for f in ("pop_prev_dep", "pop_next_dep")
                     if getattr(insn, f)]
            if all(tokens[q] > 0 for q in needs):
                for q in needs:
                    tokens[q] -= 1
                starts[k] = t
                busy_until[m] = t + insn_cost(insn, cfg)
                for f in ("push_prev_dep", "push_next_dep"):
                    if getattr(insn, f):
                        pending.append((busy_until[m], _QUEUE_OF[m, f]))
                queues[m].pop(0)
                done += 1
        if done < len(insns) and not pending and all(b <= t for b in busy_until.values()):
            return None
        t += 1
    for _when, q in pending:
        tokens[q] += 1
    return starts, tokens


def random_stream(rng: random.Random) -> list[Insn]:
    out: list[Insn] = []
    flags: dict[str, int] = {}

    def flag(name: str, p: float) -> None:
        if rng.random() < p:
            flags[name] = 1

    for _ in range(rng.randint(1, 30)):
        kind = rng.choice(["inp", "wgt", "uop", "acc", "gemm", "alu", "store", "nop"])
        flags.clear()

        if kind in ("inp", "wgt"):
            flag("pop_next_dep", 0.3)
            flag("push_next_dep", 0.5)
            mt = MemType.INP if kind == "inp" else MemType.WGT
            out.append(load(mt, rng.randint(1, 3), rng.randint(1, 2),
                            pad=(rng.randint(0, 1), 0, rng.randint(0, 1), 0), **flags))
        elif kind == "store":
            flag("pop_prev_dep", 0.3)
            flag("push_prev_dep", 0.5)
            out.append(store(rng.randint(1, 3), **flags))
        elif kind == "nop":
            which = rng.choice(["load", "compute", "store"])
            if which == "load":
                flag("pop_next_dep", 0.3)
                flag("push_next_dep", 0.6)
                out.append(nop_load(**flags))
            elif which == "store":
                flag("pop_prev_dep", 0.3)
                flag("push_prev_dep", 0.6)
                out.append(nop_store(**flags))
            else:
                for f in ("pop_prev_dep", "pop_next_dep"):
                    flag(f, 0.3)
                for f in ("push_prev_dep", "push_next_dep"):
                    flag(f, 0.5)
                out.append(nop_uop(**flags))
        else:
            for f in ("pop_prev_dep", "pop_next_dep"):
                flag(f, 0.3)
            for f in ("push_prev_dep", "push_next_dep"):
                flag(f, 0.5)
            if kind in ("uop", "acc"):
                mt = MemType.UOP if kind == "uop" else MemType.ACC
                out.append(load(mt, rng.randint(1, 4), **flags))
            elif kind == "gemm":
                out.append(gemm(rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 3), **flags))
            else:
                out.append(alu(rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 3),
                               imm=rng.random() < 0.5, **flags))
    out.append(FinishInsn())
    return out


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_matches_cycle_by_cycle_reference(seed: int) -> None:
    rng = random.Random(seed)
    cfg = VTAConfig.from_dict({**VTAConfig.shipped("default").to_dict(with_timing=False),
                               "timing": {"dma_latency": rng.randint(0, 5),
                                          "dram_bytes_per_cycle": rng.choice([8, 16, 64]),
                                          "pipeline_depth": rng.randint(1, 4)}})
    insns = random_stream(rng)
    carried = {q: rng.randint(0, 2) for q in QUEUES}
    ref = reference_cycles(insns, cfg, carried)
    if ref is None:
        with pytest.raises(DeadlockError):
            time_run(insns, cfg, carried)
        return
    starts, left = ref
    res = time_run(insns, cfg, carried)
    assert res.start == starts
    assert res.end == [s + insn_cost(i, cfg) for s, i in zip(starts, insns, strict=True)]
    assert res.cycles == res.end[-1]
    assert res.tokens_left == left


def test_long_ping_pong_stream(default_cfg: VTAConfig) -> None:
    # 60,000 instructions of token ping-pong between the three modules.  The load of block
    # k+1 and the store of block k both start 5 cycles after GEMM k and overlap, so a block
    # takes 5 + 34 + 1 = 40 cycles after the first load's 34.
    block: list[Insn] = [
        load(MemType.INP, 1, pop_next_dep=1, push_next_dep=1),      # 34
        gemm(1, pop_prev_dep=1, push_next_dep=1, push_prev_dep=1),  # 5
        store(1, pop_prev_dep=1, push_prev_dep=1),                  # 34
        nop_uop(pop_next_dep=1),                                    # 1
    ]
    reps = 15_000
    stream = block * reps + [FinishInsn()]
    res = time_run(stream, default_cfg, carried={"g2l": 1})
    assert res.cycles == 34 + reps * 40 + 1
    assert res.tokens_left == {"l2g": 0, "g2l": 1, "s2g": 0, "g2s": 0}


# ---- Chrome trace -------------------------------------------------------------------------------


def test_chrome_trace(default_cfg: VTAConfig) -> None:
    runs = load_runs("tvm_matrix_multiply", default_cfg)
    stream = [i for r in runs for i in r]
    res = time_runs(runs, default_cfg)
    trace = json.loads(json.dumps(chrome_trace(stream, res, default_cfg)))
    events = trace["traceEvents"]
    slices = [e for e in events if e["ph"] == "X"]
    assert len(slices) == len(stream)
    meta = {(e["name"], e["tid"]): e["args"] for e in events if e["ph"] == "M"}
    tracks = {e["tid"] for e in slices}
    assert {meta["thread_name", tid]["name"] for tid in tracks} == set(MODULES)
    assert ("process_name", 0) in meta
    us_per_cycle = 1 / default_cfg.timing.clock_mhz
    for k, (e, insn) in enumerate(zip(slices, stream, strict=True)):
        assert e["name"] == insn_name(insn)
        assert meta["thread_name", e["tid"]]["name"] == module_of(insn)
        assert e["ts"] == pytest.approx(res.start[k] * us_per_cycle)
        assert e["dur"] == pytest.approx((res.end[k] - res.start[k]) * us_per_cycle)
        assert e["args"]["index"] == k
        for name, value in insn.field_values().items():
            assert e["args"][name] == value
    names = {e["name"] for e in slices}
    assert {"LOAD.INP", "LOAD.WGT", "LOAD.UOP", "GEMM", "STORE.OUT", "FINISH"} <= names
    assert trace["otherData"]["cycles"] == 9720


def test_chrome_trace_names_and_clock(default_cfg: VTAConfig) -> None:
    cfg = VTAConfig.from_dict({**default_cfg.to_dict(with_timing=False),
                               "timing": {"clock_mhz": 250}})
    stream: list[Insn] = [load(MemType.ACC, 1), alu(1), store(1), FinishInsn()]
    res = time_run(stream, cfg)
    trace = chrome_trace(stream, res, cfg)
    slices = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert [e["name"] for e in slices] == ["LOAD.ACC", "ALU.ADD", "STORE.OUT", "FINISH"]
    assert slices[1]["ts"] == pytest.approx(res.start[1] / 250)
    with pytest.raises(SimulatorError):
        chrome_trace(stream[:2], res, cfg)


def test_result_shape(default_cfg: VTAConfig) -> None:
    res = time_run([FinishInsn()], default_cfg)
    assert isinstance(res, TimingResult)
    assert res.cycles == 1 and res.busy == {"load": 0, "compute": 1, "store": 0}
    assert res.to_dict()["utilisation"]["compute"] == 1.0
    assert TimingResult(0, dict.fromkeys(MODULES, 0), [], [], {}).utilisation()["load"] == 0.0
