"""Command builder (docs/isa.md §4.7): loads and stores — DRAM addresses from the configuration
and field overflow checks."""

from __future__ import annotations

import pytest

from vta_mlir.config import VTAConfig
from vta_mlir.errors import RuntimeBuildError
from vta_mlir.isa import MemType, Uop, decode_insns, decode_uops, encode_insns
from vta_mlir.runtime.command_builder import CommandBuilder, Stage, elem_bytes, insn_stage

from .command_builder_helpers import DEFAULT, STAGING, matrix_multiply, vector_add

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
