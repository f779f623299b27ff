"""Command builder (docs/isa.md §4.4–§4.5): micro-kernels (recording, loop mapping, the write
hazard rule, kernel checks) and the micro-op cache (reuse, placement, eviction, the
wrap-around of the staging buffer)."""

from __future__ import annotations

import pytest

from vta_mlir.config import VTAConfig
from vta_mlir.errors import RuntimeBuildError
from vta_mlir.isa import AluInsn, AluKind, GemmInsn, MemInsn, Uop, decode_uops
from vta_mlir.runtime.command_builder import CommandBuilder
from vta_mlir.runtime.uop_kernel import (
    KernelMode,
    KernelRecorder,
    UopCache,
    UopKernel,
    UopLoop,
    UopPlacement,
)

from .command_builder_helpers import DEFAULT, STAGING, acc_load, distinct_alu_kernels, uop_loads

# ---------------------------------------------------------------------------------------------
# Micro-kernels (docs/isa.md §4.4) and the micro-op cache (§4.5)


def test_kernel_cache_reuse_by_identity_and_key() -> None:
    b = CommandBuilder(DEFAULT, STAGING)
    k = UopKernel.gemm([Uop(0, 0, 0)], [UopLoop(4, 1, 1, 0)])
    b.push_gemm(k)
    b.push_gemm(k)
    assert len(uop_loads(b.insns)) == 1
    twin = UopKernel.gemm([Uop(0, 0, 0)], [UopLoop(4, 1, 1, 0)])
    assert twin == k
    b.push_gemm(twin)  # another call site with equal contents: loaded again, as the reference
    assert len(uop_loads(b.insns)) == 2
    b.push_gemm(k, key="site")
    b.push_gemm(twin, key="site")  # same key: resident
    assert len(uop_loads(b.insns)) == 3
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
        acc_load(b)
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


def test_wrap_around_staging_is_append_only() -> None:
    depth = DEFAULT.uop_buff_depth
    size = depth * 3 // 8
    ks = distinct_alu_kernels(3, size, 512)
    b = CommandBuilder(DEFAULT, STAGING)
    for k in ks + [ks[1], ks[0], ks[2]]:
        b.push_alu(k)
    (run,) = b.finish()
    loads = uop_loads(run.insns)
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
