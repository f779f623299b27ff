"""Command builder (docs/isa.md §4): the TVM tutorial streams of §5.7 field by field and the
dependency rules (lazy pops, NOPs, push onto the last instruction).

Synchronisation is in ``test_command_builder_sync.py``, micro-kernels and the micro-op cache
in ``test_command_builder_kernels.py``, loads and stores in ``test_command_builder_memory.py``
and runs against numpy in ``test_command_builder_simulator.py``."""

from __future__ import annotations

import numpy as np
import pytest

from vta_mlir.errors import RuntimeBuildError
from vta_mlir.isa import AluInsn, FinishInsn, GemmInsn, MemInsn, MemType, Uop, decode_insns
from vta_mlir.runtime.command_builder import CommandBuilder, Stage, insn_stage
from vta_mlir.runtime.uop_kernel import UopKernel

from .command_builder_helpers import (
    DATA,
    DEFAULT,
    STAGING,
    acc_load,
    inp_load,
    matrix_multiply,
    token_balance,
    vector_add,
)

# ---------------------------------------------------------------------------------------------
# The streams of docs/isa.md §5.7


@pytest.mark.parametrize(
    ("name", "program", "addrs", "count"),
    [
        ("tvm_vta_get_started", vector_add, (0x1000, 0x2000, 0x3000), 8),
        ("tvm_matrix_multiply", matrix_multiply, (0x1000, 0x2000, 0x12000), 56),
    ],
)
def test_tvm_streams_field_by_field(name, program, addrs, count) -> None:
    ref = np.load(DATA / f"{name}.npz")
    b = CommandBuilder(DEFAULT, int(ref["run_uop_base"][0]))
    program(b, *addrs)
    runs = b.finish()
    assert len(runs) == len(ref["run_insn_count"]) == 1
    run = runs[0]
    assert len(run.insns) == count == int(ref["run_insn_count"][0])
    expected = decode_insns(ref["insns"], DEFAULT)
    for i, (got, want) in enumerate(zip(run.insns, expected, strict=True)):
        assert got == want, f"instruction {i}"
    assert np.array_equal(b.encode(run), ref["insns"])
    assert run.uop_words.dtype == np.uint32
    assert run.uop_words.tobytes() == ref["uops"].tobytes()
    assert run.uop_base == int(ref["run_uop_base"][0])
    assert len(run.uop_words) * 4 == int(ref["run_uop_nbytes"][0])


def test_matrix_multiply_token_balance() -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    matrix_multiply(b, 0x1000, 0x2000, 0x12000)
    (run,) = b.finish()
    assert token_balance(run.insns) == {"g2l": (17, 17), "l2g": (17, 17), "g2s": (1, 1),
                                        "s2g": (1, 1)}


# ---------------------------------------------------------------------------------------------
# Dependencies (docs/isa.md §4.6)


def test_pops_attach_lazily_to_next_instruction_of_target_stage() -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    b.dep_pop(2, 1)  # load waits for compute: pop_next of the next load-stage instruction
    b.dep_pop(1, 2)  # compute waits for load: pop_prev of the next compute-stage instruction
    assert b.num_insns == 0 and b.has_pending_pops
    acc_load(b)  # compute stage
    inp_load(b)  # load stage
    first, second = b.insns
    assert (first.pop_prev_dep, first.pop_next_dep) == (1, 0)
    assert (second.pop_prev_dep, second.pop_next_dep) == (0, 1)
    assert not b.has_pending_pops


def test_load_uop_absorbs_pending_compute_pops() -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    b.dep_pop(1, 2)
    b.dep_pop(3, 2)
    b.push_gemm(UopKernel.gemm([Uop(0, 0, 0)]))
    load_uop, gemm = b.insns
    assert load_uop.memory_type == MemType.UOP and load_uop.pop_prev_dep and load_uop.pop_next_dep
    assert isinstance(gemm, GemmInsn) and not gemm.pop_prev_dep and not gemm.pop_next_dep


def test_second_pop_on_same_flag_commits_a_nop() -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    b.dep_pop(2, 1)
    b.dep_pop(2, 1)
    (nop,) = b.insns
    assert nop == MemInsn(memory_type=MemType.INP, pop_next_dep=1)
    inp_load(b)
    assert b.insns[1].pop_next_dep == 1


@pytest.mark.parametrize(
    ("stage", "to", "nop"),
    [
        (1, 2, MemInsn(memory_type=MemType.INP, push_next_dep=1)),
        (2, 1, MemInsn(memory_type=MemType.UOP, push_prev_dep=1)),
        (2, 3, MemInsn(memory_type=MemType.UOP, push_next_dep=1)),
        (3, 2, MemInsn(is_store=1, memory_type=MemType.UOP, push_prev_dep=1)),
    ],
)
def test_push_nop_encodings(stage: int, to: int, nop: MemInsn) -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    b.dep_push(stage, to)
    assert b.insns == [nop]
    word = int.from_bytes(b.encode().tobytes(), "little")
    opcode = 1 if stage == 3 else 0
    mem = {1: MemType.INP, 2: MemType.UOP, 3: 0}[stage]
    flag = 1 << (5 if stage > to else 6)
    assert word == opcode | flag | (mem << 7)


def test_push_goes_onto_last_instruction_of_pushing_stage() -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    inp_load(b)
    b.dep_push(1, 2)
    assert b.num_insns == 1 and b.insns[0].push_next_dep == 1
    b.dep_push(1, 2)  # flag already used: a NOP carries the second token
    assert b.num_insns == 2 and b.insns[1] == MemInsn(memory_type=MemType.INP, push_next_dep=1)
    acc_load(b)
    b.dep_push(2, 1)
    b.dep_push(2, 3)  # both flags of one compute instruction
    assert b.num_insns == 3 and b.insns[2].push_prev_dep and b.insns[2].push_next_dep


def test_push_from_other_stage_than_last_instruction_adds_nop() -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    acc_load(b)
    b.dep_push(1, 2)
    assert b.insns[-1] == MemInsn(memory_type=MemType.INP, push_next_dep=1)
    assert b.insns[0].push_next_dep == 0


def test_load_nop_has_no_stage_but_store_nop_has() -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    b.dep_push(1, 2)  # load NOP with push_next
    b.dep_push(1, 2)  # the last instruction is a load NOP: no stage, so another NOP
    assert b.num_insns == 2
    b2 = CommandBuilder(DEFAULT, STAGING)
    b2.dep_pop(2, 3)
    b2.dep_push(3, 2)  # commit emits a STORE NOP (pop_prev); the push then goes onto it
    assert b2.insns == [MemInsn(is_store=1, memory_type=0, pop_prev_dep=1, push_prev_dep=1)]
    assert insn_stage(b.insns[0]) is None and insn_stage(b2.insns[0]) is Stage.STORE


def test_push_commits_pending_pops_of_pushing_stage_first() -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    b.dep_pop(2, 1)
    b.dep_push(1, 2)
    assert b.insns == [MemInsn(memory_type=MemType.INP, pop_next_dep=1),
                       MemInsn(memory_type=MemType.INP, push_next_dep=1)]


@pytest.mark.parametrize("pair", [(1, 3), (3, 1), (2, 2), (0, 1), (2, 4)])
def test_invalid_dependency_pairs(pair: tuple[int, int]) -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    with pytest.raises(RuntimeBuildError, match="no token queue"):
        b.dep_push(*pair)
    with pytest.raises(RuntimeBuildError, match="no token queue"):
        b.dep_pop(*pair)


def test_insn_stage() -> None:
    assert insn_stage(MemInsn(memory_type=MemType.WGT, x_size=1)) is Stage.LOAD
    assert insn_stage(MemInsn(memory_type=MemType.ACC_8BIT, x_size=1)) is Stage.COMPUTE
    assert insn_stage(MemInsn(memory_type=MemType.UOP, x_size=0)) is None
    assert insn_stage(MemInsn(is_store=1, memory_type=MemType.OUT, x_size=0)) is Stage.STORE
    assert insn_stage(AluInsn()) is Stage.COMPUTE and insn_stage(FinishInsn()) is Stage.COMPUTE
