"""Command builder: the programs it builds run on the simulator and match numpy."""

from __future__ import annotations

import numpy as np
import pytest

from vta_mlir.config import VTAConfig
from vta_mlir.isa import MemType
from vta_mlir.program import Program, Run
from vta_mlir.runtime.command_builder import CommandBuilder

from .command_builder_helpers import (
    DEFAULT,
    distinct_alu_kernels,
    matrix_multiply,
    uop_loads,
    vector_add,
)

# ---------------------------------------------------------------------------------------------
# On the simulator


def _simulator():
    from vta_mlir.sim.simulator import Simulator

    return Simulator


def _execute(cfg: VTAConfig, runs: list[Run], buffers: dict[int, bytes], staging: int,
             outputs: dict[int, int], *, as_program: bool = False) -> dict[int, bytes]:
    sim = _simulator()(cfg)
    for phys, data in buffers.items():
        sim.dram.alloc_at(phys, len(data))
        sim.dram.write(phys, data)
    for phys, nbytes in outputs.items():
        if phys not in buffers:
            sim.dram.alloc_at(phys, nbytes)
    staging_bytes = max((r.uop_words.nbytes for r in runs), default=0)
    if staging_bytes:
        sim.dram.alloc_at(staging, staging_bytes)
    if as_program:
        sim.run_program(Program(runs=runs))
    for r in runs if not as_program else ():
        if r.uop_words.size:
            assert r.uop_base == staging
            sim.dram.write(r.uop_base, r.uop_words.tobytes())
        sim.run(r.insns)
    return {phys: bytes(sim.dram.read(phys, n)) for phys, n in outputs.items()}


def test_vector_add_on_simulator() -> None:
    rng = np.random.default_rng(1)
    a = rng.integers(-(1 << 20), 1 << 20, size=(64, 16), dtype=np.int32)
    bb = rng.integers(-(1 << 20), 1 << 20, size=(64, 16), dtype=np.int32)
    b = CommandBuilder(DEFAULT, 0x4000)
    vector_add(b, 0x1000, 0x2000, 0x3000)
    out = _execute(DEFAULT, b.finish(), {0x1000: a.tobytes(), 0x2000: bb.tobytes()}, 0x4000,
                   {0x3000: 64 * 16}, as_program=True)
    c = np.frombuffer(out[0x3000], dtype=np.int8).reshape(64, 16)
    assert np.array_equal(c, (a + bb).astype(np.int8))


@pytest.mark.parametrize("max_insns", [None, 24])
def test_matrix_multiply_on_simulator(max_insns: int | None) -> None:
    """The tutorial program, in one run and split over several by automatic synchronisation."""
    rng = np.random.default_rng(2)
    a = rng.integers(-128, 128, size=(16, 16), dtype=np.int8)  # [ko][k]
    w = rng.integers(-128, 128, size=(16, 16, 16, 16), dtype=np.int8)  # [no][ko][n][k]
    b = CommandBuilder(DEFAULT, 0x13000, max_insns=max_insns)
    matrix_multiply(b, 0x1000, 0x2000, 0x12000)
    runs = b.finish()
    assert (len(runs) == 1) == (max_insns is None)
    out = _execute(DEFAULT, runs, {0x1000: a.tobytes(), 0x2000: w.tobytes()}, 0x13000,
                   {0x12000: 256})
    c = np.frombuffer(out[0x12000], dtype=np.int8).reshape(16, 16)
    # C[no][n] = sum over ko, k of A[ko][k] * W[no][ko][n][k], truncated to int8
    expected = np.einsum("ok,xonk->xn", a.astype(np.int64), w.astype(np.int64))
    assert np.array_equal(c, expected.astype(np.int8))


def test_wrap_around_program_on_simulator() -> None:
    """More distinct kernels than the UOP SRAM holds, in one run: every ALU must see its own
    micro-ops (the reference's staging image would hand the first kernel the third's)."""
    cfg = DEFAULT
    acc_elems, size = 512, cfg.uop_buff_depth * 3 // 8 - 1
    ks = distinct_alu_kernels(3, size, acc_elems)
    order = [0, 1, 2, 1, 0, 2]
    rng = np.random.default_rng(3)
    acc = rng.integers(-1000, 1000, size=(acc_elems, cfg.batch * cfg.block_out), dtype=np.int32)
    acc_phys, out_phys = 0x100000, 0x200000
    b = CommandBuilder(cfg, 0x300000)
    b.load_buffer_2d(acc_phys, 0, acc_elems, 1, acc_elems, 0, 0, 0, 0, 0, MemType.ACC)
    for i in order:
        b.push_alu(ks[i])
    b.dep_push(2, 3)
    b.dep_pop(2, 3)
    b.store_buffer_2d(0, MemType.OUT, out_phys, 0, acc_elems, 1, acc_elems)
    runs = b.finish()
    assert len(runs) == 1 and any(x.sram_base == 0 and x.dram_base != 0x300000 // 4
                                  for x in uop_loads(runs[0].insns))
    out = _execute(cfg, runs, {acc_phys: acc.tobytes()}, 0x300000,
                   {out_phys: acc_elems * cfg.out_elem_bytes})
    expected = acc.astype(np.int64)
    for i in order:
        for u in ks[i].uops:
            expected[u.dst_idx] += ks[i].imm
    got = np.frombuffer(out[out_phys], dtype=np.int8).reshape(acc_elems, -1)
    assert np.array_equal(got, expected.astype(np.int8))
