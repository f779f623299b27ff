"""Command builder (docs/isa.md §4.7–§4.8): synchronisation — the closing handshake, runs,
automatic synchronisation within the instruction and staging limits."""

from __future__ import annotations

import numpy as np
import pytest

from vta_mlir.errors import RuntimeBuildError
from vta_mlir.isa import AluInsn, AluKind, FinishInsn, MemInsn, MemType, Uop, decode_uops
from vta_mlir.program import Run
from vta_mlir.runtime.command_builder import CLOSING_MAX_INSNS, CommandBuilder
from vta_mlir.runtime.uop_kernel import UopKernel

from .command_builder_helpers import DEFAULT, STAGING, acc_load, inp_load, token_balance

# ---------------------------------------------------------------------------------------------
# Synchronisation (docs/isa.md §4.7–§4.8)


def test_empty_synchronize_is_the_closing_handshake() -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    run = b.synchronize()
    assert run.insns == [
        MemInsn(is_store=1, memory_type=0, push_prev_dep=1),
        MemInsn(memory_type=MemType.INP, push_next_dep=1),
        MemInsn(memory_type=MemType.UOP, pop_prev_dep=1, pop_next_dep=1),
        FinishInsn(),
    ]
    assert run.uop_base == 0 and run.uop_words.size == 0 and run.uop_words.dtype == np.uint32
    assert token_balance(run.insns) == {"l2g": (1, 1), "g2l": (0, 0), "g2s": (0, 0),
                                        "s2g": (1, 1)}


def test_synchronize_resets_cache_and_runs_accumulate() -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    k = UopKernel.gemm([Uop(0, 0, 0)])
    b.push_gemm(k)
    r1 = b.synchronize()
    assert b.num_insns == 0
    b.push_gemm(k)  # the cache was dropped: reloaded
    assert b.insns[0].memory_type == MemType.UOP and b.insns[0].x_size == 1
    runs = b.finish()
    assert runs[0] is r1 and len(runs) == 2 and b.total_insns == len(r1.insns) + len(runs[1].insns)
    assert all(isinstance(r, Run) and isinstance(r.insns[-1], FinishInsn) for r in runs)
    assert runs[1].uop_base == STAGING and decode_uops(runs[1].uop_words, DEFAULT) == [Uop()]
    with pytest.raises(RuntimeBuildError, match="after finish"):
        b.push_gemm(k)
    with pytest.raises(RuntimeBuildError, match="after finish"):
        b.finish()


def test_finish_after_explicit_synchronize_adds_no_run() -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    acc_load(b)
    b.synchronize()
    assert len(b.finish()) == 1
    assert CommandBuilder(DEFAULT, STAGING).finish() == []


def test_auto_synchronize_keeps_runs_within_max_insns() -> None:
    limit = 16
    b = CommandBuilder(DEFAULT, STAGING, max_insns=limit)
    k = UopKernel.alu(AluKind.ADD.opcode, [Uop(0, 1)], use_imm=True, imm=1)
    for i in range(40):
        b.dep_pop(2, 1)
        inp_load(b)
        b.dep_push(1, 2)
        b.dep_pop(1, 2)
        b.push_alu(k)
        b.dep_push(2, 1)
        assert b.num_insns <= limit - CLOSING_MAX_INSNS, i
    runs = b.finish()
    assert len(runs) > 3
    assert all(len(r.insns) <= limit and isinstance(r.insns[-1], FinishInsn) for r in runs)
    # every run reloads the kernel it uses: each ALU reads micro-ops loaded in its own run
    for r in runs:
        loads = [x for x in r.insns if isinstance(x, MemInsn) and x.memory_type == MemType.UOP
                 and x.x_size]
        alus = [x for x in r.insns if isinstance(x, AluInsn)]
        assert len(loads) == (1 if alus else 0)
    assert sum(isinstance(x, AluInsn) for r in runs for x in r.insns) == 40
    assert sum(isinstance(x, MemInsn) and x.memory_type == MemType.INP and x.x_size
               for r in runs for x in r.insns) == 40


def test_default_max_insns_from_max_xfer() -> None:
    assert CommandBuilder(DEFAULT, STAGING).max_insns == (1 << 25) // 16
    with pytest.raises(RuntimeBuildError, match="max_insns"):
        CommandBuilder(DEFAULT, STAGING, max_insns=4)


def test_staging_capacity_triggers_synchronize() -> None:
    b = CommandBuilder(DEFAULT, STAGING, uop_staging_bytes=16)  # four micro-ops
    k1 = UopKernel.gemm([Uop(0), Uop(1), Uop(2)])
    k2 = UopKernel.gemm([Uop(3), Uop(4)])
    b.push_gemm(k1)
    b.push_gemm(k2)  # 3 + 2 > 4: a new run
    runs = b.finish()
    assert [len(r.uop_words) for r in runs] == [3, 2]
    too_big = UopKernel.gemm([Uop(i) for i in range(5)])
    with pytest.raises(RuntimeBuildError, match="staging capacity"):
        CommandBuilder(DEFAULT, STAGING, uop_staging_bytes=16).push_gemm(too_big)


@pytest.mark.parametrize("phys", [0, -4096, 0x1234, 4096.0])
def test_staging_address_must_be_page_aligned(phys) -> None:
    with pytest.raises(RuntimeBuildError, match="uop_staging_phys"):
        CommandBuilder(DEFAULT, phys)


def test_staging_buffer_must_be_addressable() -> None:
    top = (DEFAULT.mem_fields["dram_base"].mask + 1) * DEFAULT.uop_elem_bytes
    CommandBuilder(DEFAULT, top - 4096, uop_staging_bytes=4096)
    with pytest.raises(RuntimeBuildError, match="beyond the reach of the 32-bit field dram_base"):
        CommandBuilder(DEFAULT, top - 4096, uop_staging_bytes=8192)
