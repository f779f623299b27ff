"""ISA: the encoding vectors of docs/isa.md §2.8, encode/decode and disassemble/parse round trips
on every shipped configuration, and clear errors for values that do not fit."""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.errors import EncodingError
from vta_mlir.isa import (
    AluInsn,
    AluKind,
    FinishInsn,
    GemmInsn,
    Insn,
    MemInsn,
    MemType,
    Uop,
    decode_insn,
    decode_insns,
    decode_uop_fields,
    decode_uops,
    disassemble,
    encode_insn,
    encode_insns,
    encode_uop,
    encode_uops,
    format_insn,
    parse_asm,
    parse_insn,
)

DEFAULT = VTAConfig.shipped("default")


def _words(insn: Insn) -> tuple[int, int]:
    w = encode_insn(insn, DEFAULT)
    return w & (2**64 - 1), w >> 64


# docs/isa.md §2.8 (produced by compiling the upstream header with the default configuration)
SECTION_2_8 = [
    (AluInsn(push_next_dep=1, alu_opcode=AluKind.ADD.opcode, uop_bgn=0, uop_end=1, iter_out=1,
             iter_in=64, dst_factor_in=1, src_factor_in=1), 0x0080000800200044, 0x0000200200000800),
    (AluInsn(alu_opcode=AluKind.SHR.opcode, use_imm=1, imm=-3, uop_bgn=3, uop_end=4, iter_out=1,
             iter_in=1), 0x0002000800800304, 0xFFFDB00000000000),
    (MemInsn(memory_type=MemType.ACC, sram_base=64, dram_base=0x12345, y_size=1, x_size=64,
             x_stride=64), 0x0000048D14010180, 0x0000004000400001),
    (MemInsn(pop_next_dep=1, memory_type=MemType.INP, sram_base=0, dram_base=0x100, y_size=16,
             x_size=16, x_stride=14, y_pad_0=1, y_pad_1=1, x_pad_0=1, x_pad_1=1),
     0x0000000400000110, 0x1111000E00100010),
    (GemmInsn(pop_prev_dep=1, push_prev_dep=1, uop_bgn=1, uop_end=2, iter_out=16, iter_in=1,
              dst_factor_out=1, wgt_factor_out=1), 0x000200800040012A, 0x0000100000000001),
    (FinishInsn(), 0x3, 0x0),
]


@pytest.mark.parametrize(("insn", "word0", "word1"), SECTION_2_8)
def test_section_2_8_vectors(insn: Insn, word0: int, word1: int) -> None:
    assert _words(insn) == (word0, word1)
    raw = encode_insns([insn], DEFAULT)
    assert raw.tobytes() == word0.to_bytes(8, "little") + word1.to_bytes(8, "little")
    assert decode_insn(raw, DEFAULT) == insn


def test_section_2_8_uop_vector() -> None:
    assert encode_uop(Uop(dst_idx=5, src_idx=64, wgt_idx=3), DEFAULT) == 0x00C20005
    words = encode_uops([Uop(5, 64, 3), Uop(1, 2, 3)], DEFAULT)
    assert decode_uops(words, DEFAULT) == [Uop(5, 64, 3), Uop(1, 2, 3)]


def _insn_strategy(cfg: VTAConfig) -> st.SearchStrategy[Insn]:
    def build(cls: type, layout_name: str, extra: dict) -> st.SearchStrategy[Insn]:
        layout = cfg.field_layouts()[layout_name]
        kwargs = {}
        for f in fields(cls):
            if f.name in extra:
                kwargs[f.name] = extra[f.name]
            elif f.name == "imm":
                kwargs[f.name] = st.integers(-(2**15), 2**15 - 1)
            else:
                kwargs[f.name] = st.integers(0, layout[f.name].mask)
        return st.builds(cls, **kwargs)

    flags = {n: st.integers(0, 1) for n in
             ("pop_prev_dep", "pop_next_dep", "push_prev_dep", "push_next_dep")}
    return st.one_of(
        build(MemInsn, "mem", {"is_store": st.integers(0, 1)}),
        build(GemmInsn, "gemm", {}),
        build(AluInsn, "alu", {}),
        st.builds(FinishInsn, **flags),
    )


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_encode_decode_round_trip(name: str) -> None:
    cfg = VTAConfig.shipped(name)

    @settings(max_examples=300, deadline=None)
    @given(st.lists(_insn_strategy(cfg), min_size=1, max_size=8))
    def check(insns: list[Insn]) -> None:
        raw = encode_insns(insns, cfg)
        assert raw.dtype == np.uint8 and raw.size == 16 * len(insns)
        back = decode_insns(raw, cfg)
        assert back == insns
        assert np.array_equal(encode_insns(back, cfg), raw)
        assert parse_asm(disassemble(insns)) == insns

    check()


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_uop_round_trip(name: str) -> None:
    cfg = VTAConfig.shipped(name)
    f = cfg.uop_fields

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.builds(Uop, st.integers(0, f["dst_idx"].mask),
                              st.integers(0, f["src_idx"].mask),
                              st.integers(0, f["wgt_idx"].mask)), max_size=10))
    def check(uops: list[Uop]) -> None:
        words = encode_uops(uops, cfg)
        assert decode_uops(words, cfg) == uops
        dst, src, wgt = decode_uop_fields(words, cfg)
        assert list(dst) == [u.dst_idx for u in uops]

    check()


@pytest.mark.parametrize(
    ("insn", "message"),
    [
        (MemInsn(sram_base=1 << 16), "sram_base = 65536 does not fit its 16-bit field"),
        (MemInsn(x_pad_0=16), "x_pad_0 = 16 does not fit its 4-bit field"),
        (MemInsn(dram_base=-1), "dram_base = -1 does not fit"),
        (GemmInsn(iter_out=1 << 14), "iter_out = 16384 does not fit its 14-bit field"),
        (GemmInsn(wgt_factor_in=1024), "wgt_factor_in = 1024 does not fit its 10-bit field"),
        (AluInsn(use_imm=1, imm=40000), "imm = 40000 does not fit a signed 16-bit field"),
        (AluInsn(alu_opcode=8), "alu_opcode = 8 does not fit its 3-bit field"),
    ],
)
def test_field_overflow_is_an_error(insn: Insn, message: str) -> None:
    with pytest.raises(EncodingError, match=message):
        encode_insn(insn, DEFAULT)


def test_uop_overflow_is_an_error() -> None:
    with pytest.raises(EncodingError, match="wgt_idx = 1024 does not fit its 10-bit field"):
        encode_uop(Uop(0, 0, 1024), DEFAULT)
    # the same index fits the block32 configuration's 9-bit field?  No: its WGT depth is 512
    with pytest.raises(EncodingError, match="wgt_idx = 512 does not fit its 9-bit field"):
        encode_uop(Uop(0, 0, 512), VTAConfig.shipped("block32"))


def test_decode_errors() -> None:
    with pytest.raises(EncodingError, match="unknown opcode 5"):
        decode_insn((5).to_bytes(16, "little"), DEFAULT)
    with pytest.raises(EncodingError, match="instruction 1: unknown opcode 7"):
        decode_insns(bytes(16) + (7).to_bytes(16, "little"), DEFAULT)
    with pytest.raises(EncodingError, match="not a multiple of 16"):
        decode_insns(bytes(20), DEFAULT)


def test_padding_bits_are_ignored_on_decode() -> None:
    word = encode_insn(MemInsn(memory_type=MemType.INP, x_size=1, y_size=1), DEFAULT)
    assert decode_insn(word | (0b111111 << 58), DEFAULT) == decode_insn(word, DEFAULT)


def test_disassembly_is_readable() -> None:
    lines = [format_insn(i) for i, _, _ in SECTION_2_8]
    assert lines == [
        "ALU ADD uop=0:1 iter=1x64 dst=0,1 src=0,1 [push_next]",
        "ALU SHR uop=3:4 iter=1x1 dst=0,0 src=0,0 imm=-3",
        "LOAD ACC sram=64 dram=0x12345 y=1 x=64 stride=64",
        "LOAD INP sram=0 dram=0x100 y=16 x=16 stride=14 pad=1,1,1,1 [pop_next]",
        "GEMM uop=1:2 iter=16x1 dst=1,0 src=0,0 wgt=1,0 [pop_prev,push_prev]",
        "FINISH",
    ]
    listing = disassemble([i for i, _, _ in SECTION_2_8])
    assert listing.splitlines()[0].startswith("0: ALU ADD")
    assert parse_asm("# a comment\n\n" + listing) == [i for i, _, _ in SECTION_2_8]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("JUMP 3", "unknown instruction 'JUMP'"),
        ("LOAD", "missing memory type"),
        ("LOAD INP sram=zero", "expected an integer"),
        ("LOAD INP pad=1,2", "expected 4 values"),
        ("GEMM uop=1", "expected two integers"),
        ("ALU FOO uop=0:1", "expected an integer"),
        ("FINISH now", "FINISH takes no operands"),
        ("FINISH [pop_everything]", "unknown dependency flag"),
        ("GEMM bogus=1", "unknown operand"),
    ],
)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(EncodingError, match=message):
        parse_insn(text)
    with pytest.raises(EncodingError, match="line 2"):
        parse_asm("FINISH\n" + text)
