"""Command builder (docs/isa.md §4): the TVM tutorial streams of §5.7 field by field, each runtime
rule (lazy pops, NOPs, push onto the last instruction, micro-op cache and its wrap-around, kernel
checks, field overflow, automatic synchronisation) and, on the simulator, results against numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vta_mlir.config import VTAConfig
from vta_mlir.errors import RuntimeBuildError
from vta_mlir.isa import (
    AluInsn,
    AluKind,
    FinishInsn,
    GemmInsn,
    Insn,
    MemInsn,
    MemType,
    Uop,
    decode_insns,
    decode_uops,
    encode_insns,
    module_of,
)
from vta_mlir.program import Program, Run
from vta_mlir.runtime.command_builder import (
    CLOSING_MAX_INSNS,
    CommandBuilder,
    Stage,
    elem_bytes,
    insn_stage,
)
from vta_mlir.runtime.uop_kernel import (
    KernelMode,
    KernelRecorder,
    UopCache,
    UopKernel,
    UopLoop,
    UopPlacement,
)

DATA = Path(__file__).parent / "data" / "conformance"
DEFAULT = VTAConfig.shipped("default")
STAGING = 0x40000


# ---------------------------------------------------------------------------------------------
# Programs of docs/isa.md §5.7


def vector_add(b: CommandBuilder, a: int, bb: int, c: int, n: int = 64) -> None:
    """``vta_get_started``: C = int8(A + B) over ``n`` accumulator elements."""
    b.load_buffer_2d(a, 0, n, 1, n, 0, 0, 0, 0, 0, MemType.ACC)
    b.load_buffer_2d(bb, 0, n, 1, n, 0, 0, 0, 0, n, MemType.ACC)
    b.begin_kernel()
    b.loop_begin(n, 1, 1, 0)
    b.uop_push(KernelMode.ALU, False, 0, n, 0, AluKind.ADD.opcode, False, 0)
    b.loop_end()
    b.push_alu(b.end_kernel())
    b.dep_push(2, 3)
    b.dep_pop(2, 3)
    b.store_buffer_2d(0, MemType.OUT, c, 0, n, 1, n)


def matrix_multiply(b: CommandBuilder, a: int, w: int, c: int, kb: int = 16, nb: int = 16) -> None:
    """``matrix_multiply``: the calls of the lowered IR of §5.4 (b)."""
    b.begin_kernel()
    b.loop_begin(nb, 1, 0, 0)
    b.uop_push(KernelMode.GEMM, True, 0, 0, 0)
    b.loop_end()
    b.push_gemm(b.end_kernel())
    b.dep_push(2, 1)
    gemm = None
    for ko in range(kb):
        b.dep_pop(2, 1)
        b.load_buffer_2d(a, ko, 1, 1, 1, 0, 0, 0, 0, 0, MemType.INP)
        b.load_buffer_2d(w, ko, 1, nb, kb, 0, 0, 0, 0, 0, MemType.WGT)
        b.dep_push(1, 2)
        b.dep_pop(1, 2)
        if gemm is None:  # the call site's kernel is recorded once, then reused
            b.begin_kernel()
            b.loop_begin(nb, 1, 0, 1)
            b.uop_push(KernelMode.GEMM, False, 0, 0, 0)
            b.loop_end()
            gemm = b.end_kernel()
        b.push_gemm(gemm)
        b.dep_push(2, 1)
    b.dep_push(2, 3)
    b.dep_pop(2, 1)
    b.dep_pop(2, 3)
    b.store_buffer_2d(0, MemType.OUT, c, 0, nb, 1, nb)


def token_balance(insns: list[Insn]) -> dict[str, tuple[int, int]]:
    """(pushes, pops) of each token queue (docs/isa.md §3.2 flag table)."""
    counts = {q: [0, 0] for q in ("l2g", "g2l", "g2s", "s2g")}
    for insn in insns:
        m = module_of(insn)
        prev_q, next_q = {"load": (None, "l2g"), "compute": ("g2l", "g2s"),
                          "store": ("s2g", None)}[m]
        pop_prev_q, pop_next_q = {"load": (None, "g2l"), "compute": ("l2g", "s2g"),
                                  "store": ("g2s", None)}[m]
        if insn.push_prev_dep:
            counts[prev_q][0] += 1
        if insn.push_next_dep:
            counts[next_q][0] += 1
        if insn.pop_prev_dep:
            counts[pop_prev_q][1] += 1
        if insn.pop_next_dep:
            counts[pop_next_q][1] += 1
    return {q: (a, b) for q, (a, b) in counts.items()}


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


def _acc_load(b: CommandBuilder, sram: int = 0) -> None:
    b.load_buffer_2d(0x1000, 0, 1, 1, 1, 0, 0, 0, 0, sram, MemType.ACC)


def _inp_load(b: CommandBuilder) -> None:
    b.load_buffer_2d(0x1000, 0, 1, 1, 1, 0, 0, 0, 0, 0, MemType.INP)


def test_pops_attach_lazily_to_next_instruction_of_target_stage() -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    b.dep_pop(2, 1)  # load waits for compute: pop_next of the next load-stage instruction
    b.dep_pop(1, 2)  # compute waits for load: pop_prev of the next compute-stage instruction
    assert b.num_insns == 0 and b.has_pending_pops
    _acc_load(b)  # compute stage
    _inp_load(b)  # load stage
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
    _inp_load(b)
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
    _inp_load(b)
    b.dep_push(1, 2)
    assert b.num_insns == 1 and b.insns[0].push_next_dep == 1
    b.dep_push(1, 2)  # flag already used: a NOP carries the second token
    assert b.num_insns == 2 and b.insns[1] == MemInsn(memory_type=MemType.INP, push_next_dep=1)
    _acc_load(b)
    b.dep_push(2, 1)
    b.dep_push(2, 3)  # both flags of one compute instruction
    assert b.num_insns == 3 and b.insns[2].push_prev_dep and b.insns[2].push_next_dep


def test_push_from_other_stage_than_last_instruction_adds_nop() -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    _acc_load(b)
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
    _acc_load(b)
    b.synchronize()
    assert len(b.finish()) == 1
    assert CommandBuilder(DEFAULT, STAGING).finish() == []


def test_auto_synchronize_keeps_runs_within_max_insns() -> None:
    limit = 16
    b = CommandBuilder(DEFAULT, STAGING, max_insns=limit)
    k = UopKernel.alu(AluKind.ADD.opcode, [Uop(0, 1)], use_imm=True, imm=1)
    for i in range(40):
        b.dep_pop(2, 1)
        _inp_load(b)
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


# ---------------------------------------------------------------------------------------------
# Micro-kernels (docs/isa.md §4.4) and the micro-op cache (§4.5)


def _uop_loads(insns: list[Insn]) -> list[MemInsn]:
    return [x for x in insns if isinstance(x, MemInsn) and not x.is_store
            and x.memory_type == MemType.UOP and x.x_size]


def test_kernel_cache_reuse_by_identity_and_key() -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    k = UopKernel.gemm([Uop(0, 0, 0)], [UopLoop(4, 1, 1, 0)])
    b.push_gemm(k)
    b.push_gemm(k)
    assert len(_uop_loads(b.insns)) == 1
    twin = UopKernel.gemm([Uop(0, 0, 0)], [UopLoop(4, 1, 1, 0)])
    assert twin == k
    b.push_gemm(twin)  # another call site with equal contents: loaded again, as the reference
    assert len(_uop_loads(b.insns)) == 2
    b.push_gemm(k, key="site")
    b.push_gemm(twin, key="site")  # same key: resident
    assert len(_uop_loads(b.insns)) == 3
    gemms = [x for x in b.insns if isinstance(x, GemmInsn)]
    assert [(g.uop_bgn, g.uop_end) for g in gemms] == [(0, 1), (0, 1), (1, 2), (2, 3), (2, 3)]
    with pytest.raises(RuntimeBuildError, match="different kernel"):
        b.push_gemm(UopKernel.gemm([Uop(1, 0, 0)]), key="site")
    with pytest.raises(RuntimeBuildError, match="mode is GEMM"):
        b.push_alu(k)


def test_recorded_kernel_fields_and_loop_mapping() -> None:
    rec = KernelRecorder()
    rec.begin()
    rec.loop_begin(3, 8, 5, 2)
    rec.loop_begin(4, 2, 1, 0)
    rec.push(KernelMode.GEMM, False, 0, 0, 0, opcode=3, use_imm=True, imm=9)  # ignored for GEMM
    rec.push(KernelMode.GEMM, False, 1, 1, 1)
    rec.loop_end()
    rec.loop_end()
    k = rec.end()
    loops = [UopLoop(3, 8, 5, 2), UopLoop(4, 2, 1)]
    assert k == UopKernel.gemm([Uop(0, 0, 0), Uop(1, 1, 1)], loops)
    b = CommandBuilder(DEFAULT, STAGING)
    b.push_gemm(k)
    assert b.insns[1] == GemmInsn(uop_bgn=0, uop_end=2, iter_out=3, iter_in=4, dst_factor_out=8,
                                  dst_factor_in=2, src_factor_out=5, src_factor_in=1,
                                  wgt_factor_out=2, wgt_factor_in=0)


def test_single_loop_gemm_outer_alu_inner() -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    b.push_gemm(UopKernel.gemm([Uop()], [UopLoop(5, 2, 3, 1)], reset=True))
    b.push_alu(UopKernel.alu(AluKind.SHR, [Uop(0, 0)], [UopLoop(7, 1, 2, 9)], use_imm=True, imm=-3))
    b.push_alu(UopKernel.alu(AluKind.MAX.opcode, [Uop(0, 1)]))
    gemm, alu, alu0 = (x for x in b.insns if not isinstance(x, MemInsn))
    assert gemm == GemmInsn(reset_reg=1, uop_bgn=0, uop_end=1, iter_out=5, iter_in=1,
                            dst_factor_out=2, src_factor_out=3, wgt_factor_out=1)
    assert alu == AluInsn(uop_bgn=1, uop_end=2, iter_out=1, iter_in=7, dst_factor_in=1,
                          src_factor_in=2, alu_opcode=AluKind.SHR.opcode, use_imm=1, imm=-3)
    assert alu0 == AluInsn(uop_bgn=2, uop_end=3, iter_out=1, iter_in=1,
                           alu_opcode=AluKind.MAX.opcode)


def test_builder_recording_api_and_state_errors() -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    with pytest.raises(RuntimeBuildError, match="no micro-kernel is being recorded"):
        b.uop_push(0, False, 0, 0)
    b.begin_kernel()
    with pytest.raises(RuntimeBuildError, match="being recorded"):
        b.begin_kernel()
    with pytest.raises(RuntimeBuildError, match="being recorded"):
        _acc_load(b)
    with pytest.raises(RuntimeBuildError, match="being recorded"):
        b.synchronize()
    b.uop_push(KernelMode.ALU, False, 0, 1, 0, AluKind.ADD.opcode, True, 5)
    k = b.end_kernel()
    assert k.mode == KernelMode.ALU and k.use_imm and k.imm == 5


def test_write_hazard_rule() -> None:
    rec = KernelRecorder()
    rec.begin()
    rec.push(0, False, 0, 0, 0)
    rec.push(0, False, 1, 0, 0)
    with pytest.raises(RuntimeBuildError, match="write hazard"):
        rec.push(0, False, 0, 1, 0)  # same dst as two micro-ops before
    with pytest.raises(RuntimeBuildError, match="write hazard"):
        rec.push(0, False, 1, 1, 0)  # same dst as the previous one
    rec.push(0, False, 2, 0, 0)
    rec.push(0, False, 0, 0, 0)  # three back: allowed
    assert rec.end().size == 4
    with pytest.raises(RuntimeBuildError, match="write hazard"):
        UopKernel.gemm([Uop(3), Uop(4), Uop(3)])


def test_recording_fatal_checks() -> None:
    def started() -> KernelRecorder:
        rec = KernelRecorder()
        rec.begin()
        return rec

    rec = started()
    rec.push(0, False, 0, 0)
    with pytest.raises(RuntimeBuildError, match="before the kernel's first uop_push"):
        rec.loop_begin(2, 1, 1)
    rec = started()
    rec.loop_begin(2, 1, 1)
    rec.loop_begin(2, 1, 1)
    with pytest.raises(RuntimeBuildError, match="at most 2 loops"):
        rec.loop_begin(2, 1, 1)
    rec = started()
    rec.push(0, False, 0, 0)
    with pytest.raises(RuntimeBuildError, match="one mode"):
        rec.push(1, False, 1, 0)
    with pytest.raises(RuntimeBuildError, match="agree on reset"):
        rec.push(0, True, 1, 0)
    rec = started()
    rec.push(1, False, 0, 0, 0, AluKind.ADD.opcode, True, 1)
    with pytest.raises(RuntimeBuildError, match="share opcode"):
        rec.push(1, False, 1, 0, 0, AluKind.ADD.opcode, True, 2)
    with pytest.raises(RuntimeBuildError, match="signed 16-bit"):
        started().push(1, False, 0, 0, 0, AluKind.ADD.opcode, True, 1 << 15)
    with pytest.raises(RuntimeBuildError, match="at least one micro-op"):
        started().end()
    with pytest.raises(RuntimeBuildError, match="without a matching loop_begin"):
        started().loop_end()
    rec = started()
    rec.loop_begin(2, 1, 1)
    rec.push(0, False, 0, 0)
    with pytest.raises(RuntimeBuildError, match="still open"):
        rec.end()
    with pytest.raises(RuntimeBuildError, match="mode 2"):
        started().push(2, False, 0, 0)
    with pytest.raises(RuntimeBuildError, match="negative"):
        started().push(0, False, -1, 0)


def test_direct_kernel_checks() -> None:
    assert UopKernel.alu(AluKind.ADD, [Uop()], use_imm=True, imm=-(1 << 15)).imm == -(1 << 15)
    with pytest.raises(RuntimeBuildError, match="signed 16-bit"):
        UopKernel.alu(AluKind.ADD.opcode, [Uop()], use_imm=True, imm=1 << 15)
    with pytest.raises(RuntimeBuildError, match="at most 2 loops"):
        UopKernel.gemm([Uop()], [UopLoop(1)] * 3)
    with pytest.raises(RuntimeBuildError, match="at least one"):
        UopKernel.gemm([])
    with pytest.raises(RuntimeBuildError, match="ALU opcode 7"):
        UopKernel.alu(7, [Uop()])
    with pytest.raises(RuntimeBuildError, match="GEMM kernel takes no ALU"):
        UopKernel(KernelMode.GEMM, (Uop(),), use_imm=True)
    with pytest.raises(RuntimeBuildError, match="negative"):
        UopLoop(-1)


def test_kernel_field_checks_against_config(cfg: VTAConfig) -> None:
    b = CommandBuilder(cfg, STAGING)
    too_long = UopKernel.gemm([Uop(i % 3) for i in range(cfg.uop_buff_depth + 1)])
    with pytest.raises(RuntimeBuildError, match="UOP buffer depth"):
        b.push_gemm(too_long)
    dst = cfg.uop_fields["dst_idx"]
    with pytest.raises(RuntimeBuildError, match=f"dst_idx = {dst.mask + 1} does not fit"):
        b.push_gemm(UopKernel.gemm([Uop(dst.mask + 1)]))
    with pytest.raises(RuntimeBuildError, match="extent 16384 does not fit"):
        b.push_gemm(UopKernel.gemm([Uop()], [UopLoop(1 << 14, 1)]))
    wgt = cfg.gemm_fields["wgt_factor_out"]
    with pytest.raises(RuntimeBuildError, match="wgt_factor"):
        b.push_gemm(UopKernel.gemm([Uop()], [UopLoop(2, 1, 1, wgt.mask + 1)]))
    # ALU kernels ignore the weight factor; the source factor indexes the accumulator
    b.push_alu(UopKernel.alu(AluKind.ADD.opcode, [Uop()], [UopLoop(2, 1, 1, wgt.mask + 1)]))
    src = cfg.alu_fields["src_factor_out"]
    with pytest.raises(RuntimeBuildError, match="src_factor"):
        b.push_alu(UopKernel.alu(AluKind.ADD.opcode, [Uop()], [UopLoop(2, 1, src.mask + 1)]))
    assert b.num_insns == 2  # failed pushes emit nothing


def test_uop_cache_placement_and_eviction() -> None:
    cache = UopCache(depth=10, staging_capacity=1000)
    ks = {name: UopKernel.gemm([Uop(i) for i in range(n)])
          for name, n in (("a", 4), ("b", 4), ("c", 3), ("d", 2), ("e", 5))}
    assert cache.load("a", ks["a"]) == UopPlacement(0, 4, 0)
    assert cache.resident("a") == UopPlacement(0, 4, None)
    assert cache.load("b", ks["b"]).sram_begin == 4
    assert cache.reference_offset("b") == 4 and not cache.wrapped
    c = cache.load("c", ks["c"])  # 8 + 3 > 10: wrap to 0, evicting a
    assert (c.sram_begin, c.sram_end, c.staging_offset) == (0, 3, 8) and cache.wrapped
    assert cache.resident("a") is None and cache.resident("b") is not None
    assert cache.reference_offset("c") == 0  # where the reference would read c (a's old copy)
    d = cache.load("d", ks["d"])  # [3, 5) overlaps b at [4, 8): b evicted
    assert (d.sram_begin, d.sram_end, d.staging_offset) == (3, 5, 11)
    assert cache.resident("b") is None and cache.resident("c") is not None
    e = cache.load("e", ks["e"])  # [5, 10)
    assert (e.sram_begin, e.sram_end) == (5, 10)
    staging = cache.staging
    for k, off in ((ks["a"], 0), (ks["b"], 4), (ks["c"], 8), (ks["d"], 11), (ks["e"], 13)):
        assert staging[off : off + k.size] == list(k.uops)
    cache.reset()
    assert cache.staging == [] and cache.resident("e") is None


def _distinct_alu_kernels(count: int, size: int, acc_elems: int) -> list[UopKernel]:
    """ALU ADD-immediate kernels whose destination patterns differ (odd strides mod acc_elems)."""
    return [UopKernel.alu(AluKind.ADD, [Uop((j * (2 * i + 1)) % acc_elems, 0) for j in range(size)],
                          use_imm=True, imm=i + 1) for i in range(count)]


def test_wrap_around_staging_is_append_only() -> None:
    depth = DEFAULT.uop_buff_depth
    size = depth * 3 // 8
    ks = _distinct_alu_kernels(3, size, 512)
    b = CommandBuilder(DEFAULT, STAGING)
    for k in ks + [ks[1], ks[0], ks[2]]:
        b.push_alu(k)
    (run,) = b.finish()
    loads = _uop_loads(run.insns)
    # k0, k1, k2 (wraps to 0, evicts k0), k1 resident, k0 reloaded (evicts k1), k2 resident
    assert [(x.sram_base, x.x_size) for x in loads] == [(0, size), (size, size), (0, size),
                                                         (size, size)]
    uops = decode_uops(run.uop_words, DEFAULT)
    base = STAGING // 4
    for load, k in zip(loads, [ks[0], ks[1], ks[2], ks[0]], strict=True):
        off = load.dram_base - base
        assert uops[off : off + load.x_size] == list(k.uops)
    assert len(uops) == 4 * size
    alus = [x for x in run.insns if isinstance(x, AluInsn)]
    assert [(a.uop_bgn, a.imm) for a in alus] == [(0, 1), (size, 2), (0, 3), (size, 2),
                                                  (size, 1), (0, 3)]


# ---------------------------------------------------------------------------------------------
# Loads and stores: addresses and field checks (docs/isa.md §4.7)


def test_dram_base_from_config_elem_bytes(cfg: VTAConfig) -> None:
    b = CommandBuilder(cfg, STAGING)
    phys = 0x100000
    for mt in (MemType.INP, MemType.WGT, MemType.ACC, MemType.ACC_8BIT):
        b.load_buffer_2d(phys, 3, 1, 1, 1, 0, 0, 0, 0, 0, mt)
    b.store_buffer_2d(0, MemType.OUT, phys, 5, 1, 1, 1)
    sizes = {MemType.INP: cfg.inp_elem_bytes, MemType.WGT: cfg.wgt_elem_bytes,
             MemType.ACC: cfg.acc_elem_bytes, MemType.ACC_8BIT: cfg.acc8_elem_bytes,
             MemType.OUT: cfg.out_elem_bytes, MemType.UOP: cfg.uop_elem_bytes}
    for mt, n in sizes.items():
        assert elem_bytes(cfg, mt) == n
    for insn in b.insns:
        off = 5 if insn.is_store else 3
        assert insn.dram_base == phys // sizes[MemType(insn.memory_type)] + off
    stages = [insn_stage(x) for x in b.insns]
    assert stages == [Stage.LOAD, Stage.LOAD, Stage.COMPUTE, Stage.COMPUTE, Stage.STORE]
    assert decode_insns(encode_insns(b.insns, cfg), cfg) == b.insns


def test_programs_on_every_shipped_config(cfg: VTAConfig) -> None:
    b = CommandBuilder(cfg, STAGING)
    vector_add(b, 0x1000 * cfg.acc_elem_bytes, 0x2000 * cfg.acc_elem_bytes, 0x3000)
    matrix_multiply(b, 0x1000, 0x100 * cfg.wgt_elem_bytes, 0x12000)
    runs = b.finish()
    (run,) = runs
    # vector add's 5 body instructions, matrix multiply's 52, one closing sequence of 4
    assert len(run.insns) == 5 + 52 + 4
    assert decode_insns(b.encode(run), cfg) == run.insns
    assert run.insns[0].dram_base == 0x1000 and run.insns[1].dram_base == 0x2000
    assert decode_uops(run.uop_words, cfg) == [Uop(0, 64), Uop(0, 0), Uop(0, 0)]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"x_size": 1 << 16}, "x_size = 65536 does not fit the 16-bit field x_size"),
        ({"y_size": -1}, "y_size = -1 does not fit"),
        ({"x_stride": 1 << 16}, "x_stride .* x_stride"),
        ({"x_pad_before": 16}, "x_pad_before = 16 does not fit the 4-bit field x_pad_0"),
        ({"y_pad_after": 16}, "y_pad_after = 16 .* y_pad_1"),
        ({"sram_index": 1 << 16}, "sram_index .* sram_base"),
        ({"sram_index": 2047, "x_size": 2}, r"SRAM elements \[2047, 2049\) exceed the INP"),
        ({"x_size": 8, "y_size": 8, "x_pad_before": 1, "sram_index": 2000}, "exceed the INP"),
        ({"dram_phys": 0x1008}, "not a multiple of the INP element size"),
        ({"dram_phys": 1 << 40}, "does not fit the 32-bit field dram_base"),
        ({"elem_offset": -0x1000}, "does not fit the 32-bit field dram_base"),
        ({"memory_type": MemType.UOP}, "push_gemm/push_alu"),
        ({"memory_type": MemType.OUT}, "OUT cannot be loaded"),
        ({"memory_type": 9}, "unknown memory_type 9"),
    ],
)
def test_load_field_errors(kwargs: dict, match: str) -> None:
    args = dict(dram_phys=0x1000, elem_offset=0, x_size=1, y_size=1, x_stride=1, x_pad_before=0,
                y_pad_before=0, x_pad_after=0, y_pad_after=0, sram_index=0,
                memory_type=MemType.INP)
    args.update(kwargs)
    b = CommandBuilder(DEFAULT, STAGING)
    with pytest.raises(RuntimeBuildError, match=match) as info:
        b.load_buffer_2d(**args)
    assert "\n" not in str(info.value)
    assert b.num_insns == 0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"memory_type": MemType.ACC}, "memory_type must be OUT"),
        ({"x_size": 1 << 16}, "x_size"),
        ({"sram_index": 2041, "x_size": 4, "y_size": 2}, r"\[2041, 2049\) exceed the OUT"),
        ({"dram_phys": 0x1001}, "not a multiple of the OUT element size"),
    ],
)
def test_store_field_errors(kwargs: dict, match: str) -> None:
    args = dict(sram_index=0, memory_type=MemType.OUT, dram_phys=0x1000, elem_offset=0,
                x_size=1, y_size=1, x_stride=1)
    args.update(kwargs)
    with pytest.raises(RuntimeBuildError, match=match):
        CommandBuilder(DEFAULT, STAGING).store_buffer_2d(**args)


def test_zero_size_load_is_accepted_as_nop() -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    b.load_buffer_2d(0x1000, 0, 0, 0, 0, 0, 0, 0, 0, 0xFFFF, MemType.INP)
    assert b.insns[0].x_size == 0 and insn_stage(b.insns[0]) is None


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
    ks = _distinct_alu_kernels(3, size, acc_elems)
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
                                  for x in _uop_loads(runs[0].insns))
    out = _execute(cfg, runs, {acc_phys: acc.tobytes()}, 0x300000,
                   {out_phys: acc_elems * cfg.out_elem_bytes})
    expected = acc.astype(np.int64)
    for i in order:
        for u in ks[i].uops:
            expected[u.dst_idx] += ks[i].imm
    got = np.frombuffer(out[out_phys], dtype=np.int8).reshape(acc_elems, -1)
    assert np.array_equal(got, expected.astype(np.int8))
