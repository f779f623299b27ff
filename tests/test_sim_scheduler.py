"""Dispatch, dependency tokens and runs (docs/isa.md §3.2), decoding, results and timing hook."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from vta_mlir.config import VTAConfig
from vta_mlir.errors import DeadlockError, SimulatorError
from vta_mlir.isa import (
    AluInsn,
    AluKind,
    FinishInsn,
    GemmInsn,
    MemInsn,
    MemType,
    Uop,
    decode_insns,
    encode_insns,
    encode_uops,
)
from vta_mlir.program import COUNTER_NAMES, Program, Run
from vta_mlir.sim import Simulator, decode_stream
from vta_mlir.sim import simulator as simmod

CONFORMANCE = Path(__file__).parent / "data" / "conformance"


def nop_load(**flags: int) -> MemInsn:
    return MemInsn(memory_type=MemType.INP, **flags)


def nop_compute(**flags: int) -> MemInsn:
    return MemInsn(memory_type=MemType.UOP, **flags)


def nop_store(**flags: int) -> MemInsn:
    return MemInsn(is_store=1, memory_type=MemType.OUT, **flags)


def test_deadlock_names_blocked_instructions_and_queues(default_cfg: VTAConfig) -> None:
    sim = Simulator(default_cfg)
    stream = [nop_load(pop_next_dep=1, push_next_dep=1),  # waits on g2l forever
              nop_compute(pop_prev_dep=1, push_prev_dep=1),  # waits on l2g forever
              FinishInsn()]
    with pytest.raises(DeadlockError) as info:
        sim.run(stream, timing=False)
    msg = str(info.value)
    assert "instruction 0 (LOAD.INP(nop)) on load waits on g2l" in msg
    assert "instruction 1 (LOAD.UOP(nop)) on compute waits on l2g" in msg
    assert "\n" not in msg


def test_deadlock_of_finish_itself(default_cfg: VTAConfig) -> None:
    sim = Simulator(default_cfg)
    with pytest.raises(DeadlockError, match=r"instruction 0 \(FINISH\) on compute waits on s2g"):
        sim.run([FinishInsn(pop_next_dep=1)], timing=False)


@pytest.mark.parametrize(
    ("insn", "flag", "module"),
    [
        (nop_load(pop_prev_dep=1), "pop_prev_dep", "load"),
        (MemInsn(memory_type=MemType.WGT, push_prev_dep=1), "push_prev_dep", "load"),
        (nop_store(pop_next_dep=1), "pop_next_dep", "store"),
        (nop_store(push_next_dep=1), "push_next_dep", "store"),
    ],
)
def test_illegal_flags_raise_before_execution(default_cfg: VTAConfig, insn: MemInsn, flag: str,
                                              module: str) -> None:
    sim = Simulator(default_cfg)
    sim.acc[...] = 3
    stream = [AluInsn(uop_bgn=0, uop_end=1, iter_out=1, iter_in=1, alu_opcode=AluKind.ADD.opcode,
                      use_imm=1, imm=1), insn, FinishInsn()]
    with pytest.raises(SimulatorError, match=rf"instruction 1 \(.*\): {flag} is not allowed on "
                                             rf"the {module} module"):
        sim.run(stream, timing=False)
    assert (sim.acc == 3).all()  # nothing executed


def test_stream_without_finish(default_cfg: VTAConfig) -> None:
    with pytest.raises(SimulatorError, match="has no FINISH"):
        Simulator(default_cfg).run([nop_load()], timing=False)


def test_instructions_after_finish_are_reported(default_cfg: VTAConfig) -> None:
    sim = Simulator(default_cfg)
    r = sim.run([FinishInsn(), nop_compute(), nop_store(pop_prev_dep=1)], timing=False)
    text = " | ".join(r.warnings)
    assert "2 instruction(s) follow FINISH (instruction 0) in the stream" in text
    assert "1 instruction(s) executed after FINISH: 1 (LOAD.UOP(nop))" in text
    assert "1 instruction(s) never executed" in text and "waits on g2s" in text


def test_leftover_tokens_are_carried_into_the_next_run(default_cfg: VTAConfig) -> None:
    sim = Simulator(default_cfg)
    r1 = sim.run([nop_load(push_next_dep=1), FinishInsn()], timing=False)
    assert r1.tokens_left == {"l2g": 1, "g2l": 0, "s2g": 0, "g2s": 0}
    assert any("tokens left" in w and "l2g=1" in w for w in r1.warnings)
    # the next run's first compute instruction consumes the carried token
    r2 = sim.run([nop_compute(pop_prev_dep=1), FinishInsn()], timing=False)
    assert r2.tokens_left == dict.fromkeys(("l2g", "g2l", "s2g", "g2s"), 0)
    assert r2.warnings == []
    with pytest.raises(DeadlockError):
        sim.run([nop_compute(pop_prev_dep=1), FinishInsn()], timing=False)


def test_tokens_order_modules(default_cfg: VTAConfig) -> None:
    """STORE waits for the ALU result; the ALU waits for the ACC load; reference ping-pong."""
    sim = Simulator(default_cfg)
    acc_p = sim.dram.alloc(4096)
    out_p = sim.dram.alloc(4096)
    sim.dram.write(acc_p, np.arange(16, dtype=np.int32) * 3)
    sim.uop[0] = encode_uops([Uop(0, 0, 0)], default_cfg)[0]
    stream = [
        nop_store(pop_prev_dep=1),  # store first in the stream, blocked on g2s
        MemInsn(is_store=1, memory_type=MemType.OUT, dram_base=out_p // 16, x_size=1, y_size=1,
                x_stride=1, push_prev_dep=1),
        MemInsn(memory_type=MemType.ACC, dram_base=acc_p // 64, x_size=1, y_size=1, x_stride=1),
        AluInsn(uop_bgn=0, uop_end=1, iter_out=1, iter_in=1, alu_opcode=AluKind.ADD.opcode,
                use_imm=1, imm=1, push_next_dep=1),
        nop_compute(pop_next_dep=1),
        FinishInsn(),
    ]
    r = sim.run(stream, timing=False)
    assert sim.dram.read(out_p, 16).tolist() == [3 * i + 1 for i in range(16)]
    assert r.warnings == []
    assert r.by_opcode == {"STORE(nop)": 1, "STORE": 1, "LOAD.ACC": 1, "ALU": 1,
                           "LOAD.UOP(nop)": 1, "FINISH": 1}
    assert r.instructions == 6


def test_counters_per_run_and_cumulative(default_cfg: VTAConfig) -> None:
    sim = Simulator(default_cfg)
    p = sim.dram.alloc(4096)
    stream = [MemInsn(memory_type=MemType.INP, dram_base=p // 16, x_size=4, y_size=2, x_stride=4),
              FinishInsn()]
    r1 = sim.run(stream, timing=False)
    r2 = sim.run(stream, timing=False)
    assert list(r1.counters) == list(COUNTER_NAMES)
    assert r1.counters["inp_load_nbytes"] == r2.counters["inp_load_nbytes"] == 128
    assert sim.counters["inp_load_nbytes"] == 256
    sim.reset_counters()
    assert sum(sim.counters.values()) == 0


def test_raw_bytes_and_decoder_agree_with_isa(default_cfg: VTAConfig) -> None:
    for path in sorted(CONFORMANCE.rglob("*.npz")):
        cfg_file = path.parent / "config.json"
        cfg = VTAConfig.from_file(cfg_file) if cfg_file.is_file() else default_cfg
        words = np.load(path)["insns"]
        assert decode_stream(words, cfg) == decode_insns(words, cfg), path.name
    stream = [nop_load(), GemmInsn(reset_reg=1), FinishInsn()]
    raw = encode_insns(stream, default_cfg)
    assert decode_stream(raw.tobytes(), default_cfg) == stream
    assert Simulator(default_cfg).run(raw, timing=False).instructions == 3
    bad = raw.copy()
    bad[16] = (int(bad[16]) & 0xF8) | 6
    with pytest.raises(SimulatorError, match="instruction 1: unknown opcode 6"):
        Simulator(default_cfg).run(bad, timing=False)


def test_run_program_places_micro_ops_and_sums(default_cfg: VTAConfig) -> None:
    sim = Simulator(default_cfg)
    staging = sim.dram.alloc(4096)
    alu = [MemInsn(memory_type=MemType.UOP, dram_base=staging // 4, x_size=1, y_size=1,
                   x_stride=1),
           AluInsn(uop_bgn=0, uop_end=1, iter_out=1, iter_in=2, dst_factor_in=1,
                   src_factor_in=1, alu_opcode=AluKind.ADD.opcode, use_imm=1, imm=5),
           FinishInsn()]
    prog = Program(runs=[Run(alu, encode_uops([Uop(0, 0, 0)], default_cfg), staging),
                         Run(alu, encode_uops([Uop(4, 4, 0)], default_cfg), staging)])
    r = sim.run_program(prog, timing=False)
    assert (sim.acc[[0, 1, 4, 5]] == 5).all() and (sim.acc[[2, 3]] == 0).all()
    assert r.counters["alu_counter"] == 4 and r.counters["uop_load_nbytes"] == 8
    assert r.uop_words_loaded == 2 and r.instructions == 6
    assert r.by_opcode == {"LOAD.UOP": 2, "ALU": 2, "FINISH": 2}
    assert r.cycles is None


def test_timing_hook_receives_carried_tokens(default_cfg: VTAConfig,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict[str, int]] = []

    def fake_time_run(insns: list, cfg: VTAConfig, carried: dict[str, int]) -> SimpleNamespace:
        seen.append(dict(carried))
        return SimpleNamespace(cycles=10 * len(insns), busy={"load": 1, "compute": 2, "store": 0})

    monkeypatch.setattr(simmod, "time_run", fake_time_run)
    sim = Simulator(default_cfg)
    sim.run([nop_load(push_next_dep=1), FinishInsn()])
    r = sim.run([nop_compute(pop_prev_dep=1), FinishInsn()])
    assert seen == [dict.fromkeys(("l2g", "g2l", "s2g", "g2s"), 0),
                    {"l2g": 1, "g2l": 0, "s2g": 0, "g2s": 0}]
    assert r.cycles == 20 and r.busy["compute"] == 2
    assert sim.run([FinishInsn()], timing=False).cycles is None


def test_timing_model_when_installed(default_cfg: VTAConfig) -> None:
    r = Simulator(default_cfg).run([nop_load(push_next_dep=1), nop_compute(pop_prev_dep=1),
                                    FinishInsn()])
    assert isinstance(r.cycles, int) and r.cycles > 0
    assert set(r.busy) == {"load", "compute", "store"}


def test_untimeable_run_keeps_its_functional_result(default_cfg: VTAConfig,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(insns: list, cfg: VTAConfig, carried: dict[str, int]) -> None:
        raise DeadlockError("instruction 2 never starts")

    monkeypatch.setattr(simmod, "time_run", refuse)
    r = Simulator(default_cfg).run([FinishInsn(), nop_store(pop_prev_dep=1)])
    assert r.cycles is None
    assert any(w.startswith("cycle model could not time this run: instruction 2") for w in
               r.warnings)


def test_negative_field_in_a_record_is_rejected(default_cfg: VTAConfig) -> None:
    with pytest.raises(SimulatorError, match=r"instruction 0 \(GEMM\): field dst_factor_in = -1 "
                                             "is negative"):
        Simulator(default_cfg).run([GemmInsn(uop_end=1, iter_out=1, iter_in=1,
                                             dst_factor_in=-1), FinishInsn()])
    with pytest.raises(SimulatorError, match="not an instruction record"):
        Simulator(default_cfg).run(["LOAD", FinishInsn()])  # type: ignore[list-item]
