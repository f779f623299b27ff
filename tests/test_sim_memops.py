"""LOAD / STORE semantics (docs/isa.md §3.3–§3.5) in every shipped configuration."""

from __future__ import annotations

import numpy as np
import pytest

from vta_mlir.config import VTAConfig
from vta_mlir.errors import SimulatorError
from vta_mlir.isa import FinishInsn, MemInsn, MemType
from vta_mlir.sim import Simulator


def run(sim: Simulator, *insns: MemInsn) -> dict[str, int]:
    return sim.run([*insns, FinishInsn()], timing=False).counters


def elem_bytes(cfg: VTAConfig, mt: MemType) -> int:
    return {MemType.UOP: 4, MemType.WGT: cfg.wgt_elem_bytes, MemType.INP: cfg.inp_elem_bytes,
            MemType.ACC: cfg.acc_elem_bytes}[mt]


def sram_bytes(sim: Simulator, mt: MemType) -> np.ndarray:
    arr = {MemType.UOP: sim.uop, MemType.WGT: sim.wgt, MemType.INP: sim.inp,
           MemType.ACC: sim.acc}[mt]
    return arr.view(np.uint8).reshape(arr.shape[0], -1)


@pytest.mark.parametrize("mt", [MemType.UOP, MemType.WGT, MemType.INP, MemType.ACC])
def test_load_2d_strided_with_padding(cfg: VTAConfig, mt: MemType) -> None:
    sim = Simulator(cfg)
    e = elem_bytes(cfg, mt)
    rows, stride = 5, 7
    base = sim.dram.alloc(rows * stride * e)
    dram = np.random.default_rng(1).integers(0, 256, rows * stride * e, dtype=np.uint8)
    sim.dram.write(base, dram)
    sram = sram_bytes(sim, mt)
    sram[...] = 0xAB  # stale contents: padding must overwrite them with zeros
    insn = MemInsn(memory_type=mt, sram_base=3, dram_base=base // e + 1, y_size=3, x_size=4,
                   x_stride=stride, y_pad_0=1, y_pad_1=2, x_pad_0=2, x_pad_1=1)
    counters = run(sim, insn)
    xt, yt = 2 + 4 + 1, 1 + 3 + 2
    want = np.zeros((yt, xt, e), dtype=np.uint8)
    src = dram.reshape(rows, stride, e)
    want[1:4, 2:6] = src[0:3, 1:5]
    assert np.array_equal(sram[3:3 + xt * yt].reshape(yt, xt, e), want)
    assert (sram[:3] == 0xAB).all() and (sram[3 + xt * yt] == 0xAB).all()
    name = {MemType.UOP: "uop", MemType.WGT: "wgt", MemType.INP: "inp", MemType.ACC: "acc"}[mt]
    assert counters[f"{name}_load_nbytes"] == 3 * 4 * e  # padding is not counted
    assert sum(counters.values()) == 3 * 4 * e


def test_load_acc_8bit_sign_extends(cfg: VTAConfig) -> None:
    sim = Simulator(cfg)
    e8 = cfg.acc8_elem_bytes
    lanes = cfg.batch * cfg.block_out
    base = sim.dram.alloc(4 * 6 * e8)
    vals = np.random.default_rng(2).integers(-128, 128, (4, 6, lanes), dtype=np.int8)
    sim.dram.write(base, vals)
    insn = MemInsn(memory_type=MemType.ACC_8BIT, sram_base=0, dram_base=base // e8, y_size=2,
                   x_size=3, x_stride=6, x_pad_0=1, y_pad_1=1)
    counters = run(sim, insn)
    acc = sim.acc.reshape(-1, lanes)[:3 * 4].reshape(3, 4, lanes)
    assert np.array_equal(acc[:2, 1:], vals[:2, :3].astype(np.int32))
    assert (acc[:, 0] == 0).all() and (acc[2] == 0).all()
    assert counters["acc_load_nbytes"] == 6 * cfg.acc_elem_bytes


def test_nop_counts_nothing_and_touches_nothing(default_cfg: VTAConfig) -> None:
    sim = Simulator(default_cfg)
    sim.inp[...] = 5
    counters = run(sim, MemInsn(memory_type=MemType.INP, y_size=4, x_size=0, y_pad_0=2),
                   MemInsn(is_store=1, memory_type=MemType.OUT, x_size=0, y_size=3))
    assert sum(counters.values()) == 0
    assert (sim.inp == 5).all()


def test_load_only_padding_rows(default_cfg: VTAConfig) -> None:
    sim = Simulator(default_cfg)
    p = sim.dram.alloc(4096)
    sim.inp[...] = 1
    run(sim, MemInsn(memory_type=MemType.INP, dram_base=p // 16, y_size=0, x_size=2, y_pad_0=1,
                     y_pad_1=1))
    assert (sim.inp[:4] == 0).all() and (sim.inp[4:] == 1).all()


def test_store_truncates_and_keeps_bytes_between_rows(cfg: VTAConfig) -> None:
    sim = Simulator(cfg)
    lanes = cfg.batch * cfg.block_out
    acc = np.random.default_rng(3).integers(-2**31, 2**31, (6, lanes), dtype=np.int64)
    sim.acc.reshape(-1, lanes)[10:16] = acc.astype(np.int32)
    out_e = cfg.out_elem_bytes
    p = sim.dram.alloc(4 * 5 * out_e)
    sim.dram.write(p, np.full(4 * 5 * out_e, 0x5A, dtype=np.uint8))
    counters = run(sim, MemInsn(is_store=1, memory_type=MemType.OUT, sram_base=10,
                                dram_base=p // out_e + 1, y_size=3, x_size=2, x_stride=5))
    got = sim.dram.read(p, 4 * 5 * out_e).reshape(4, 5, lanes)
    trunc = (acc & 0xFF).astype(np.uint8).reshape(3, 2, lanes)
    want = np.full((4, 5, lanes), 0x5A, dtype=np.uint8)
    flat = want.reshape(20, lanes)
    for r in range(3):
        flat[1 + r * 5:1 + r * 5 + 2] = trunc[r]
    assert np.array_equal(got, want)
    assert counters["out_store_nbytes"] == 6 * out_e


def test_store_with_overlapping_rows_keeps_reference_order(default_cfg: VTAConfig) -> None:
    sim = Simulator(default_cfg)
    sim.acc.reshape(-1, 16)[:6] = np.arange(6)[:, None]
    p = sim.dram.alloc(4096)
    run(sim, MemInsn(is_store=1, memory_type=MemType.OUT, dram_base=p // 16, y_size=3, x_size=2,
                     x_stride=1))
    got = sim.dram.read(p, 4 * 16).reshape(4, 16)[:, 0]
    assert got.tolist() == [0, 2, 4, 5]  # row r overwrites the tail of row r - 1


@pytest.mark.parametrize(
    ("insn", "message"),
    [
        (MemInsn(memory_type=MemType.INP, sram_base=2047, x_size=2, y_size=1),
         r"instruction 0 \(LOAD.INP\): SRAM range \[2047, 2049\) exceeds the INP depth 2048"),
        (MemInsn(memory_type=MemType.OUT, x_size=1, y_size=1), "LOAD of memory_type OUT"),
        (MemInsn(memory_type=6, x_size=1, y_size=1), "LOAD of memory_type 6"),
        (MemInsn(is_store=1, memory_type=MemType.ACC, x_size=1, y_size=1),
         r"STORE supports only memory_type OUT \(4\), got ACC"),
        (MemInsn(is_store=1, memory_type=MemType.OUT, x_size=1, y_size=1, x_pad_1=1),
         "STORE padding must be 0"),
        (MemInsn(is_store=1, memory_type=MemType.OUT, sram_base=2040, x_size=3, y_size=3),
         "exceeds the ACC depth 2048"),
        (MemInsn(memory_type=MemType.ACC, dram_base=0, x_size=1, y_size=1),
         "physical address 0"),
    ],
)
def test_memory_instruction_errors(default_cfg: VTAConfig, insn: MemInsn, message: str) -> None:
    sim = Simulator(default_cfg)
    if insn.dram_base == 0 and "address 0" not in message:
        insn.dram_base = sim.dram.alloc(65536) // 256
    with pytest.raises(SimulatorError, match=message) as info:
        run(sim, insn)
    assert "\n" not in str(info.value)


def test_dram_out_of_bounds_load_names_instruction(default_cfg: VTAConfig) -> None:
    sim = Simulator(default_cfg)
    p = sim.dram.alloc(4096)
    insn = MemInsn(memory_type=MemType.ACC, dram_base=p // 64, x_size=65, y_size=1)
    with pytest.raises(SimulatorError, match=r"instruction 0 \(LOAD.ACC\): DRAM access .* runs "
                                             "past the end"):
        run(sim, insn)
