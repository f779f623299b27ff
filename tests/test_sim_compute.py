"""GEMM and ALU (docs/isa.md §3.6, §3.7) against straightforward per-iteration references.

The references below loop over (i_out, i_in, uop) in Python exactly as the reference simulator
does, reading operands before writing, with int32 wrap-around; the simulator's vectorized paths
(matrix-product fast path, general gather/scatter path, vectorized and wavefront ALU) must agree
bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vta_mlir.config import VTAConfig
from vta_mlir.errors import SimulatorError
from vta_mlir.isa import AluInsn, AluKind, FinishInsn, GemmInsn, Uop, encode_uops
from vta_mlir.sim import Simulator, alu, functional, gemm, loops
from vta_mlir.sim.alu import run_alu
from vta_mlir.sim.gemm import run_gemm

CFGS = {name: VTAConfig.shipped(name) for name in ("default", "block32", "batch2")}


def wrap32(v: np.ndarray) -> np.ndarray:
    return ((v.astype(np.int64) + 2**31) & 0xFFFFFFFF) - 2**31


def iterations(insn: GemmInsn | AluInsn, uops: list[Uop]):
    for o in range(insn.iter_out):
        for i in range(insn.iter_in):
            for u in range(insn.uop_bgn, insn.uop_end):
                yield o, i, uops[u]


def ref_gemm(sim: Simulator, insn: GemmInsn, uops: list[Uop]) -> np.ndarray:
    acc = sim.acc.astype(np.int64)
    inp = sim.inp.astype(np.int64)
    wgt = sim.wgt.astype(np.int64)
    for o, i, u in iterations(insn, uops):
        d = u.dst_idx + o * insn.dst_factor_out + i * insn.dst_factor_in
        if insn.reset_reg:
            acc[d] = 0
            continue
        s = u.src_idx + o * insn.src_factor_out + i * insn.src_factor_in
        w = u.wgt_idx + o * insn.wgt_factor_out + i * insn.wgt_factor_in
        acc[d] = wrap32(acc[d] + inp[s] @ wgt[w].T)
    return acc.astype(np.int32)


def alu_f(op: int, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if op == AluKind.MIN.opcode:
        return np.minimum(x, y)
    if op == AluKind.MAX.opcode:
        return np.maximum(x, y)
    if op == AluKind.ADD.opcode:
        return wrap32(x + y)
    if op == AluKind.MUL.opcode:
        return wrap32(x * y)
    return np.where(y >= 0, x >> (y & 31), wrap32(x << ((-y) & 31)))


def ref_alu(sim: Simulator, insn: AluInsn, uops: list[Uop]) -> np.ndarray:
    lanes = sim.cfg.batch * sim.cfg.block_out
    acc = sim.acc.reshape(-1, lanes).astype(np.int64)
    for o, i, u in iterations(insn, uops):
        d = u.dst_idx + o * insn.dst_factor_out + i * insn.dst_factor_in
        s = u.src_idx + o * insn.src_factor_out + i * insn.src_factor_in
        x = acc[d].copy()
        y = np.full(lanes, insn.imm, dtype=np.int64) if insn.use_imm else acc[s].copy()
        acc[d] = alu_f(insn.alu_opcode, x, y)
    return acc.astype(np.int32).reshape(sim.acc.shape)


def fresh(cfg: VTAConfig, seed: int, uops: list[Uop], *, extreme: bool = False) -> Simulator:
    sim = Simulator(cfg)
    rng = np.random.default_rng(seed)
    if extreme:  # operands at the int8 limits and accumulators next to the int32 limits
        sim.inp[...] = rng.choice(np.array([-128, 127], dtype=np.int8), sim.inp.shape)
        sim.wgt[...] = rng.choice(np.array([-128, 127], dtype=np.int8), sim.wgt.shape)
        edge = np.array([2**31 - 1, -2**31, 2**31 - 100000, -2**31 + 100000], dtype=np.int64)
        sim.acc[...] = rng.choice(edge, sim.acc.shape).astype(np.int32)
    else:
        sim.inp[...] = rng.integers(-128, 128, sim.inp.shape, dtype=np.int8)
        sim.wgt[...] = rng.integers(-128, 128, sim.wgt.shape, dtype=np.int8)
        sim.acc[...] = rng.integers(-2**31, 2**31, sim.acc.shape, dtype=np.int64).astype(np.int32)
    sim.uop[:len(uops)] = encode_uops(uops, cfg)
    return sim


# ---- GEMM ----------------------------------------------------------------------------------

gemm_cases = st.fixed_dictionaries({
    "cfg": st.sampled_from(sorted(CFGS)),
    "seed": st.integers(0, 2**16),
    "extreme": st.booleans(),
    "uops": st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9), st.integers(0, 9)),
                     min_size=1, max_size=6),
    "iter_out": st.integers(1, 4),
    "iter_in": st.integers(1, 4),
    "factors": st.lists(st.integers(0, 4), min_size=6, max_size=6),
    "reset": st.booleans(),
})


def make_gemm(case: dict) -> tuple[GemmInsn, list[Uop]]:
    uops = [Uop(*u) for u in case["uops"]]
    f = case["factors"]
    insn = GemmInsn(reset_reg=int(case["reset"]), uop_bgn=0, uop_end=len(uops),
                    iter_out=case["iter_out"], iter_in=case["iter_in"], dst_factor_out=f[0],
                    dst_factor_in=f[1], src_factor_out=f[2], src_factor_in=f[3],
                    wgt_factor_out=f[4], wgt_factor_in=f[5])
    return insn, uops


@settings(max_examples=200, deadline=None)
@given(gemm_cases)
def test_gemm_fast_and_general_paths_match_reference(case: dict) -> None:
    """Random loop nests, including repeated destinations and int32 wrap-around."""
    insn, uops = make_gemm(case)
    cfg = CFGS[case["cfg"]]
    want = ref_gemm(fresh(cfg, case["seed"], uops, extreme=case["extreme"]), insn, uops)
    for fast in (True, False):
        sim = fresh(cfg, case["seed"], uops, extreme=case["extreme"])
        n = run_gemm(sim.sram, insn, fast=fast)
        assert np.array_equal(sim.acc, want), f"fast={fast}"
        assert n == (0 if insn.reset_reg else insn.iter_out * insn.iter_in * len(uops))


def test_gemm_tiled_matmul_takes_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = CFGS["default"]
    # 8 rows x 4 k-blocks x 3 n-blocks: i_out = M (dst 3, src 4), i_in = K (src 1, wgt 1),
    # uops = N (dst +1, wgt +4)
    uops = [Uop(n, 0, 4 * n) for n in range(3)]
    insn = GemmInsn(uop_bgn=0, uop_end=3, iter_out=8, iter_in=4, dst_factor_out=3,
                    src_factor_out=4, src_factor_in=1, wgt_factor_in=1)
    want = ref_gemm(fresh(cfg, 5, uops, extreme=True), insn, uops)
    sim = fresh(cfg, 5, uops, extreme=True)
    monkeypatch.setattr(gemm, "_gemm_general", lambda *a: pytest.fail("general path used"))
    run_gemm(sim.sram, insn)
    assert np.array_equal(sim.acc, want)


def test_gemm_convolution_uops_factorize(monkeypatch: pytest.MonkeyPatch) -> None:
    """'pixels x taps' micro-ops (dst = pixel, src = pixel + tap offset, wgt = tap) with
    repeated destinations still run as one matrix product."""
    cfg = CFGS["default"]
    uops = [Uop(p, p + 3 * (t // 3) + t % 3, t) for t in range(9) for p in range(6)]
    insn = GemmInsn(uop_bgn=0, uop_end=len(uops), iter_out=2, iter_in=3, dst_factor_out=18,
                    dst_factor_in=6, src_factor_in=8, wgt_factor_out=9)
    want = ref_gemm(fresh(cfg, 6, uops), insn, uops)
    sim = fresh(cfg, 6, uops)
    monkeypatch.setattr(gemm, "_gemm_general", lambda *a: pytest.fail("general path used"))
    run_gemm(sim.sram, insn)
    assert np.array_equal(sim.acc, want)


def test_gemm_long_reduction_uses_float64_exactly() -> None:
    cfg = CFGS["default"]
    uops = [Uop(0, 0, 0)]
    insn = GemmInsn(uop_bgn=0, uop_end=1, iter_out=1, iter_in=100, src_factor_in=1,
                    wgt_factor_in=1)  # K = 100 * 16 lanes: float32 could round
    sim = fresh(cfg, 7, uops, extreme=True)
    want = ref_gemm(fresh(cfg, 7, uops, extreme=True), insn, uops)
    run_gemm(sim.sram, insn)
    assert np.array_equal(sim.acc, want)


def test_gemm_repeated_iterations_multiply_exactly() -> None:
    cfg = CFGS["default"]
    uops = [Uop(1, 2, 3)]
    insn = GemmInsn(uop_bgn=0, uop_end=1, iter_out=700, iter_in=3)  # 2100 identical products
    sim = fresh(cfg, 8, uops, extreme=True)
    want = ref_gemm(fresh(cfg, 8, uops, extreme=True), insn, uops)
    assert run_gemm(sim.sram, insn) == 2100
    assert np.array_equal(sim.acc, want)


@pytest.mark.parametrize(
    ("insn", "message"),
    [
        (GemmInsn(uop_bgn=0, uop_end=1, iter_out=2, iter_in=1, dst_factor_out=2047),
         r"instruction 0 \(GEMM\): accumulator index 2048 out of range \(ACC depth 2048\)"),
        (GemmInsn(uop_bgn=0, uop_end=1, iter_out=1, iter_in=3, src_factor_in=1024),
         r"input index 2048 out of range \(INP depth 2048\) at i_out=0, i_in=2, uop=0"),
        (GemmInsn(uop_bgn=0, uop_end=1, iter_out=1, iter_in=3, wgt_factor_in=512),
         r"weight index 1024 out of range \(WGT depth 1024\)"),
        (GemmInsn(reset_reg=1, uop_bgn=0, uop_end=1, iter_out=3, iter_in=1, dst_factor_out=1024),
         r"GEMM reset\): accumulator index 2049"),
        (GemmInsn(uop_bgn=8190, uop_end=8193, iter_out=1, iter_in=1),
         r"micro-op range \[8190, 8193\) exceeds the UOP depth 8192"),
    ],
)
def test_gemm_out_of_range(insn: GemmInsn, message: str) -> None:
    sim = Simulator(CFGS["default"])
    sim.uop[0] = encode_uops([Uop(1, 0, 0)], sim.cfg)[0]
    with pytest.raises(SimulatorError, match=message):
        sim.run([insn, FinishInsn()], timing=False)


def test_an_instruction_too_large_to_simulate_is_refused_at_once() -> None:
    """16383 × 16383 iterations of one micro-op (a valid encoding) would take gigabytes of
    index arrays: refused before any is built."""
    sim = Simulator(CFGS["default"])
    sim.uop[0] = encode_uops([Uop(0, 0, 0)], sim.cfg)[0]
    insn = GemmInsn(reset_reg=1, uop_bgn=0, uop_end=1, iter_out=16383, iter_in=16383)
    with pytest.raises(SimulatorError, match=r"268402689 iterations is too large to simulate "
                                             rf"\(at most {loops.MAX_ITERATIONS}\)"):
        sim.run([insn, FinishInsn()], timing=False)


def test_a_runaway_run_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Instructions each within the limit, too many of them: stopped once the run's budget is
    spent; the next run has its own."""
    monkeypatch.setattr(functional, "MAX_RUN_ITERATIONS", 1000)
    sim = Simulator(CFGS["default"])
    sim.uop[0] = encode_uops([Uop(0, 0, 0)], sim.cfg)[0]
    insn = GemmInsn(uop_bgn=0, uop_end=1, iter_out=20, iter_in=20)  # 400 iterations
    sim.run([insn, insn, FinishInsn()], timing=False)
    sim.run([insn, insn, FinishInsn()], timing=False)
    with pytest.raises(SimulatorError, match="more than 1000 GEMM and ALU iterations"):
        sim.run([insn, insn, insn, FinishInsn()], timing=False)


def test_gemm_reset_ignores_src_and_wgt_and_is_not_counted() -> None:
    sim = Simulator(CFGS["default"])
    sim.acc[...] = 9
    insn = GemmInsn(reset_reg=1, uop_bgn=0, uop_end=1, iter_out=4, iter_in=1, dst_factor_out=2,
                    src_factor_out=5000, wgt_factor_out=5000)
    r = sim.run([insn, FinishInsn()], timing=False)
    assert r.counters["gemm_counter"] == 0
    assert (sim.acc[[0, 2, 4, 6]] == 0).all() and (sim.acc[[1, 3, 5, 7]] == 9).all()


# ---- ALU -----------------------------------------------------------------------------------

alu_cases = st.fixed_dictionaries({
    "cfg": st.sampled_from(sorted(CFGS)),
    "seed": st.integers(0, 2**16),
    "op": st.sampled_from([k.opcode for k in AluKind]),
    "use_imm": st.booleans(),
    "imm": st.integers(-2**15, 2**15 - 1),
    "uops": st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), min_size=1, max_size=5),
    "iter_out": st.integers(1, 4),
    "iter_in": st.integers(1, 5),
    "factors": st.lists(st.integers(0, 3), min_size=4, max_size=4),
})


def make_alu(case: dict) -> tuple[AluInsn, list[Uop]]:
    uops = [Uop(d, s, 0) for d, s in case["uops"]]
    f = case["factors"]
    insn = AluInsn(uop_bgn=0, uop_end=len(uops), iter_out=case["iter_out"],
                   iter_in=case["iter_in"], dst_factor_out=f[0], dst_factor_in=f[1],
                   src_factor_out=f[2], src_factor_in=f[3], alu_opcode=case["op"],
                   use_imm=int(case["use_imm"]), imm=case["imm"])
    return insn, uops


def alu_sim(cfg: VTAConfig, seed: int, uops: list[Uop], op: int) -> Simulator:
    sim = fresh(cfg, seed, uops)
    if op == AluKind.SHR.opcode:  # shift amounts across the interesting range, including |y| >= 32
        rng = np.random.default_rng(seed)
        sim.acc[...] = rng.integers(-40, 40, sim.acc.shape)
        sim.acc[::3] = rng.integers(-2**31, 2**31, sim.acc[::3].shape, dtype=np.int64)
    return sim


@settings(max_examples=250, deadline=None)
@given(alu_cases)
def test_alu_matches_sequential_reference(case: dict) -> None:
    """Random nests with repeated destinations and reads of earlier results."""
    insn, uops = make_alu(case)
    cfg = CFGS[case["cfg"]]
    want = ref_alu(alu_sim(cfg, case["seed"], uops, case["op"]), insn, uops)
    for vectorize in (True, False):
        sim = alu_sim(cfg, case["seed"], uops, case["op"])
        assert run_alu(sim.sram, insn, vectorize=vectorize) == \
            insn.iter_out * insn.iter_in * len(uops)
        assert np.array_equal(sim.acc, want), f"vectorize={vectorize}"


def _spy_waves(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = alu._apply_waves

    def spy(*args: object) -> None:
        calls.append(1)
        real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(alu, "_apply_waves", spy)
    return calls


@pytest.mark.parametrize(
    ("insn", "uops", "ordered"),
    [
        # prefix chain: iteration i reads what iteration i-1 wrote (conformance case 46)
        (AluInsn(uop_bgn=0, uop_end=1, iter_out=1, iter_in=15, dst_factor_in=1,
                 src_factor_in=1, alu_opcode=AluKind.ADD.opcode), [Uop(1, 0, 0)], True),
        # the same destination six times with an immediate (conformance case 47)
        (AluInsn(uop_bgn=0, uop_end=1, iter_out=8, iter_in=6, dst_factor_out=1,
                 alu_opcode=AluKind.ADD.opcode, use_imm=1, imm=30000), [Uop(0, 0, 0)], True),
        # reads an element a *later* iteration overwrites: gather-first is right
        (AluInsn(uop_bgn=0, uop_end=1, iter_out=1, iter_in=15, dst_factor_in=1,
                 src_factor_in=1, alu_opcode=AluKind.MUL.opcode), [Uop(0, 1, 0)], False),
        # x op x
        (AluInsn(uop_bgn=0, uop_end=1, iter_out=2, iter_in=8, dst_factor_out=8,
                 dst_factor_in=1, src_factor_out=8, src_factor_in=1, alu_opcode=AluKind.SHR.opcode),
         [Uop(0, 0, 0)], False),
        # distinct destinations reading a disjoint block
        (AluInsn(uop_bgn=0, uop_end=2, iter_out=1, iter_in=4, dst_factor_in=2, src_factor_in=2,
                 alu_opcode=AluKind.MIN.opcode), [Uop(0, 10, 0), Uop(1, 11, 0)], False),
    ],
)
def test_alu_dependence_detection(monkeypatch: pytest.MonkeyPatch, insn: AluInsn,
                                  uops: list[Uop], ordered: bool) -> None:
    cfg = CFGS["default"]
    want = ref_alu(alu_sim(cfg, 11, uops, insn.alu_opcode), insn, uops)
    sim = alu_sim(cfg, 11, uops, insn.alu_opcode)
    calls = _spy_waves(monkeypatch)
    run_alu(sim.sram, insn)
    assert np.array_equal(sim.acc, want)
    assert bool(calls) == ordered


@pytest.mark.parametrize(
    ("op", "x", "y", "want"),
    [
        (AluKind.SHR.opcode, -7, 1, -4),  # arithmetic shift
        (AluKind.SHR.opcode, 5, -3, 40),  # negative amount: left shift
        (AluKind.SHR.opcode, 2**30, -2, 0),  # bits shifted out
        (AluKind.SHR.opcode, 1 << 20, 33, 1 << 19),  # count masked to 5 bits (x86)
        (AluKind.SHR.opcode, 3, -33, 6),
        (AluKind.ADD.opcode, 2**31 - 1, 1, -2**31),
        (AluKind.MUL.opcode, 2**16, 2**16, 0),
        (AluKind.MUL.opcode, -3, 2**31 - 1, -3 * (2**31 - 1)),
        (AluKind.MIN.opcode, -5, 3, -5),
        (AluKind.MAX.opcode, -5, 3, 3),
    ],
)
def test_alu_arithmetic_edges(op: int, x: int, y: int, want: int) -> None:
    sim = Simulator(CFGS["default"])
    sim.uop[0] = encode_uops([Uop(0, 1, 0)], sim.cfg)[0]
    sim.acc[0] = x
    sim.acc[1] = y
    sim.run([AluInsn(uop_bgn=0, uop_end=1, iter_out=1, iter_in=1, alu_opcode=op),
             FinishInsn()], timing=False)
    assert (sim.acc[0] == np.int32(wrap32(np.array(want))[()])).all()
    if -2**15 <= y < 2**15:
        sim.acc[0] = x
        sim.run([AluInsn(uop_bgn=0, uop_end=1, iter_out=1, iter_in=1, alu_opcode=op,
                         use_imm=1, imm=y), FinishInsn()], timing=False)
        assert (sim.acc[0] == np.int32(wrap32(np.array(want))[()])).all()


def test_alu_errors() -> None:
    sim = Simulator(CFGS["default"])
    sim.uop[0] = encode_uops([Uop(0, 2047, 0)], sim.cfg)[0]
    with pytest.raises(SimulatorError, match=r"instruction 0 \(ALU.6\): unknown ALU opcode 6"):
        sim.run([AluInsn(uop_bgn=0, uop_end=1, iter_out=1, iter_in=1, alu_opcode=6),
                 FinishInsn()], timing=False)
    # the source index is checked even though the immediate is used
    with pytest.raises(SimulatorError, match="source accumulator index 2048 out of range"):
        sim.run([AluInsn(uop_bgn=0, uop_end=1, iter_out=1, iter_in=2, src_factor_in=1,
                         alu_opcode=AluKind.ADD.opcode, use_imm=1, imm=1), FinishInsn()],
                timing=False)
    assert sim.counters["alu_counter"] == 0


def test_gemm_plan_cache_follows_micro_op_changes() -> None:
    """A repeated GEMM reuses its plan only while its micro-op words are unchanged."""
    cfg = CFGS["default"]
    insn = GemmInsn(uop_bgn=0, uop_end=2, iter_out=3, iter_in=2, dst_factor_out=2,
                    src_factor_out=2, src_factor_in=1, wgt_factor_in=1)
    first = [Uop(0, 0, 0), Uop(1, 0, 4)]
    second = [Uop(1, 3, 2), Uop(0, 5, 7)]
    sim = fresh(cfg, 12, first)
    check = fresh(cfg, 12, first)
    for uops in (first, first, second, first):
        sim.uop[:2] = check.uop[:2] = encode_uops(uops, cfg)
        run_gemm(sim.sram, insn)
        check.acc[...] = ref_gemm(check, insn, uops)
        assert np.array_equal(sim.acc, check.acc)
    assert len(sim.sram.plans) == 2
