"""The ``vtaisa`` dialect: every verifier rule fires with its message (the cases of
``tests/filecheck/dialects/vtaisa/invalid.mlir``), ``vtaisa`` ops and ``vta_mlir.isa`` records
convert into each other exactly, legal instructions verify and print back, and
``.vtab → vtaisa → .vtab`` is byte-identical."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from vta_mlir import isa
from vta_mlir.abi import ArgSpec
from vta_mlir.binary import BinaryModule, Linker, from_bytes, to_bytes
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.dialects import vtaisa
from vta_mlir.dialects.vta import (
    DepPushOp,
    get_config,
)
from vta_mlir.dialects.vtaisa import (
    AluInsnOp,
    FinishInsnOp,
    GemmInsnOp,
    LoadInsnOp,
    ProgramOp,
    StoreInsnOp,
    insn_to_op,
    op_to_insn,
)
from vta_mlir.dialects.vtaisa_program import module_to_program, program_to_module
from vta_mlir.errors import VTAError
from vta_mlir.isa import (
    AluInsn,
    FinishInsn,
    GemmInsn,
    Insn,
    MemInsn,
    MemType,
    Uop,
    encode_insn,
    encode_uops,
)
from vta_mlir.program import Program, Run, Segment

from .dialect_helpers import (
    CONFIGS,
    DEFAULT,
    FILECHECK,
    assert_round_trips,
    check_rejected,
    dialect_context,
    generic,
    invalid_cases,
    module_with,
)


@pytest.fixture(scope="module")
def ctx() -> Context:
    return dialect_context()


@pytest.mark.parametrize(("chunk", "message"), invalid_cases("vtaisa"),
                         ids=[m[:60] for _, m in invalid_cases("vtaisa")])
def test_vtaisa_verifier_rules(ctx: Context, chunk: str, message: str) -> None:
    check_rejected(ctx, chunk, message)



# ---------------------------------------------------------------------------------------------
# vtaisa: instruction ops and isa records


def _u(width: int) -> st.SearchStrategy[int]:
    return st.integers(0, (1 << width) - 1)


def _flags() -> dict[str, st.SearchStrategy[int]]:
    return {f: st.integers(0, 1) for f in
            ("pop_prev_dep", "pop_next_dep", "push_prev_dep", "push_next_dep")}


def any_insn(cfg: VTAConfig) -> st.SearchStrategy[Insn]:
    """Any record whose fields fit their widths (not necessarily a legal instruction)."""
    mem, gemm, alu = cfg.mem_fields, cfg.gemm_fields, cfg.alu_fields

    def fields(layout, names):
        return {n: _u(layout[n].width) for n in names}

    imm_w = alu["imm"].width
    return st.one_of(
        st.builds(MemInsn, is_store=st.integers(0, 1), **_flags(),
                  **fields(mem, vtaisa.MEM_FIELDS)),
        st.builds(GemmInsn, **_flags(), **fields(gemm, vtaisa.GEMM_FIELDS)),
        st.builds(AluInsn, **_flags(), **fields(alu, vtaisa.ALU_FIELDS[:-1]),
                  imm=st.integers(-(1 << (imm_w - 1)), (1 << (imm_w - 1)) - 1)),
        st.builds(FinishInsn, **_flags()),
    )


@st.composite
def legal_insn(draw: st.DrawFn, cfg: VTAConfig) -> Insn:
    """A record the verifier accepts (fields, memory types, SRAM ranges, flags per module)."""
    kind = draw(st.sampled_from(("load", "store", "gemm", "alu", "finish")))
    flags = {f: draw(st.integers(0, 1)) for f in
             ("pop_prev_dep", "pop_next_dep", "push_prev_dep", "push_next_dep")}
    if kind in ("load", "store"):
        store = kind == "store"
        nop = draw(st.booleans())
        if store:
            mt = MemType.OUT if not nop else draw(st.sampled_from(list(MemType)))
            flags["pop_next_dep"] = flags["push_next_dep"] = 0
        else:
            mt = draw(st.sampled_from([t for t in MemType if t != MemType.OUT]))
            if mt in (MemType.INP, MemType.WGT):
                flags["pop_prev_dep"] = flags["push_prev_dep"] = 0
        if nop:
            return MemInsn(is_store=int(store), memory_type=int(mt), **flags)
        depth = cfg.acc_buff_depth if store or mt == MemType.ACC_8BIT \
            else cfg.sram_depth(mt.name.lower())
        pads = [0] * 4 if store else [draw(st.integers(0, min(15, depth // 8))) for _ in range(4)]
        x = draw(st.integers(1, max(1, depth // 4 - pads[2] - pads[3])))
        rows = max(1, depth // ((pads[2] + x + pads[3]) * 2))
        y = draw(st.integers(1, rows))
        total = (pads[0] + y + pads[1]) * (pads[2] + x + pads[3])
        if total > depth:
            pads[0] = pads[1] = 0
            total = y * (pads[2] + x + pads[3])
        sram_base = draw(st.integers(0, depth - total))
        return MemInsn(is_store=int(store), memory_type=int(mt), sram_base=sram_base,
                       dram_base=draw(_u(32)), y_size=y, x_size=x, x_stride=draw(_u(16)),
                       y_pad_0=pads[0], y_pad_1=pads[1], x_pad_0=pads[2], x_pad_1=pads[3],
                       **flags)
    if kind == "finish":
        return FinishInsn(**flags)
    layout = cfg.gemm_fields if kind == "gemm" else cfg.alu_fields
    end = draw(st.integers(0, cfg.uop_buff_depth))
    values = {
        "reset_reg": draw(st.integers(0, 1)),
        "uop_bgn": draw(st.integers(0, min(end, layout["uop_bgn"].mask))),
        "uop_end": end,
        "iter_out": draw(_u(14)),
        "iter_in": draw(_u(14)),
    }
    for n in ("dst_factor_out", "dst_factor_in", "src_factor_out", "src_factor_in"):
        values[n] = draw(_u(layout[n].width))
    if kind == "gemm":
        for n in ("wgt_factor_out", "wgt_factor_in"):
            values[n] = draw(_u(layout[n].width))
        return GemmInsn(**values, **flags)
    opcode = draw(st.sampled_from([k.opcode for k in isa.AluKind]))
    return AluInsn(**values, **flags, alu_opcode=opcode,
                   use_imm=draw(st.integers(0, 1)), imm=draw(st.integers(-32768, 32767)))


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_insn_records_round_trip_exactly(name: str) -> None:
    cfg = CONFIGS[name]

    @settings(max_examples=150, deadline=None)
    @given(any_insn(cfg))
    def check(insn: Insn) -> None:
        # An op holds only a memory type and an ALU opcode that name one.
        bad = (isinstance(insn, MemInsn) and insn.memory_type not in set(isa.MemType)) or (
            isinstance(insn, AluInsn) and isa.AluKind.from_opcode(insn.alu_opcode) is None)
        if bad:
            with pytest.raises(VerifyException, match="is not a"):
                insn_to_op(insn)
            return
        op = insn_to_op(insn)
        back = op_to_insn(op)
        assert back == insn and type(back) is type(insn)
        assert encode_insn(back, cfg) == encode_insn(insn, cfg)

    check()


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_legal_insns_verify_and_print_back(ctx: Context, name: str) -> None:
    cfg = CONFIGS[name]

    @settings(max_examples=60, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.lists(legal_insn(cfg), min_size=1, max_size=6))
    def check(insns: list[Insn]) -> None:
        module = module_with([insn_to_op(i) for i in insns], cfg)
        text = assert_round_trips(ctx, module)
        parsed = Parser(ctx, text).parse_module()
        assert [op_to_insn(op) for op in parsed.ops] == insns

    check()


def test_vtaisa_syntax_of_each_instruction() -> None:
    cases = [
        (MemInsn(memory_type=MemType.INP, pop_next_dep=1, sram_base=0, dram_base=0x100,
                 y_size=16, x_size=16, x_stride=14, y_pad_0=1, y_pad_1=1, x_pad_0=1, x_pad_1=1),
         "vtaisa.load inp sram 0 dram 0x100 y 16 x 16 stride 14 pad [1, 1, 1, 1] "
         "deps [pop_next]"),
        (MemInsn(is_store=1, memory_type=MemType.OUT, dram_base=0x10, y_size=1, x_size=16,
                 x_stride=16, push_prev_dep=1),
         "vtaisa.store out sram 0 dram 0x10 y 1 x 16 stride 16 deps [push_prev]"),
        (GemmInsn(pop_prev_dep=1, push_prev_dep=1, uop_bgn=1, uop_end=2, iter_out=16, iter_in=1,
                  dst_factor_out=1, wgt_factor_out=1),
         "vtaisa.gemm uop 1 to 2 iter [16, 1] dst [1, 0] src [0, 0] wgt [1, 0] "
         "deps [pop_prev, push_prev]"),
        (AluInsn(alu_opcode=isa.AluKind.SHR.opcode, use_imm=1, imm=-3, uop_bgn=3, uop_end=4,
                 iter_out=1, iter_in=1),
         "vtaisa.alu shr uop 3 to 4 iter [1, 1] dst [0, 0] src [0, 0] imm -3"),
        (AluInsn(alu_opcode=isa.AluKind.ADD.opcode, reset_reg=1, imm=5, uop_end=1, iter_out=1,
                 iter_in=1),
         "vtaisa.alu add reset uop 0 to 1 iter [1, 1] dst [0, 0] src [0, 0] imm_unused 5"),
        (FinishInsn(), "vtaisa.finish"),
    ]
    for insn, text in cases:
        op = insn_to_op(insn)
        op.verify()
        assert str(op) == text
    assert isinstance(insn_to_op(cases[0][0]), LoadInsnOp)
    assert isinstance(insn_to_op(cases[1][0]), StoreInsnOp)
    assert isinstance(insn_to_op(cases[2][0]), GemmInsnOp)
    assert isinstance(insn_to_op(cases[3][0]), AluInsnOp)
    assert isinstance(insn_to_op(cases[5][0]), FinishInsnOp)
    with pytest.raises(TypeError):
        op_to_insn(DepPushOp("load", "compute"))
    with pytest.raises(TypeError):
        LoadInsnOp(bogus=1)


def test_vtaisa_field_widths_follow_the_configuration() -> None:
    # src_factor of GEMM is as wide as the INP depth, of ALU as the ACC depth (batch2: 10 / 11).
    cfg = CONFIGS["batch2"]
    assert cfg.gemm_fields["src_factor_in"].width == 10
    assert cfg.alu_fields["src_factor_in"].width == 11
    alu = insn_to_op(AluInsn(src_factor_in=1024, uop_end=1))
    module_with([alu], cfg).verify()
    gemm = insn_to_op(GemmInsn(src_factor_in=1024, uop_end=1))
    with pytest.raises(VerifyException, match="src_factor_in = 1024 does not fit its 10-bit"):
        module_with([gemm], cfg).verify()


def test_printed_program(ctx: Context) -> None:
    path = FILECHECK / "vtaisa" / "ops.mlir"
    module = Parser(ctx, path.read_text()).parse_module()
    assert_round_trips(ctx, module)
    binary = module_to_program(module)
    assert binary.base == 0x40000 and binary.config.timing.dma_latency == 40
    assert [len(r.insns) for r in binary.program.runs] == [17, 1]
    assert binary.program.runs[0].uop_words.tolist() == encode_uops(
        [Uop(0, 0, 0), Uop(1, 64, 3)], binary.config).tolist()
    assert [a.name for a in binary.args] == ["x", "w", "y"]
    assert binary.segment("bias").data.tolist() == list(range(64))


# ---------------------------------------------------------------------------------------------
# .vtab -> vtaisa -> .vtab


BASE = 0x40000


def sample_module(cfg: VTAConfig) -> BinaryModule:
    """Two runs: load, GEMM, ALU and store with flags, NOPs, a constant and a staging image."""
    link = Linker(BASE)
    x = link.argument(ArgSpec.for_layout("x", "in", "int8", (cfg.batch, 4 * cfg.block_in),
                                         "NC", cfg))
    w = link.argument(ArgSpec.for_layout("w", "in", "int8", (cfg.block_out, 4 * cfg.block_in),
                                         "OI", cfg))
    y = link.argument(ArgSpec.for_layout("y", "out", "int8", (cfg.batch, cfg.block_out),
                                         "NC", cfg))
    link.segment("const", 300, np.arange(300, dtype=np.uint8) % 251)
    staging = link.segment("uops", 64)
    uops = [Uop(0, 0, 0), Uop(0, 1, 1), Uop(0, 2, 2), Uop(0, 3, 3)]
    run0 = [
        MemInsn(memory_type=MemType.UOP, dram_base=staging.phys // 4, y_size=1, x_size=4,
                x_stride=4),
        MemInsn(memory_type=MemType.INP, dram_base=x.phys // cfg.inp_elem_bytes, y_size=1,
                x_size=4, x_stride=4, x_pad_0=1),
        MemInsn(memory_type=MemType.WGT, dram_base=w.phys // cfg.wgt_elem_bytes, y_size=1,
                x_size=4, x_stride=4, push_next_dep=1),
        GemmInsn(reset_reg=1, uop_bgn=0, uop_end=1, iter_out=1, iter_in=1),
        GemmInsn(pop_prev_dep=1, uop_bgn=0, uop_end=4, iter_out=1, iter_in=1),
        AluInsn(alu_opcode=isa.AluKind.SHR.opcode, use_imm=1, imm=-2, uop_bgn=0, uop_end=1,
                iter_out=1, iter_in=1, push_next_dep=1),
        MemInsn(is_store=1, memory_type=MemType.OUT, dram_base=y.phys // cfg.out_elem_bytes,
                y_size=1, x_size=1, x_stride=1, pop_prev_dep=1, push_prev_dep=1),
        MemInsn(memory_type=MemType.INP, push_next_dep=1),
        MemInsn(memory_type=MemType.UOP, pop_prev_dep=1, pop_next_dep=1),
        FinishInsn(),
    ]
    run1 = [MemInsn(is_store=1, memory_type=MemType.UOP, push_prev_dep=1),
            MemInsn(memory_type=MemType.UOP, pop_next_dep=1), FinishInsn()]
    runs = [Run(run0, encode_uops(uops, cfg), staging.phys), Run(run1)]
    return BinaryModule(cfg, Program(runs, link.segments), [x, w, y], BASE)


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_vtab_to_vtaisa_to_vtab_is_byte_identical(ctx: Context, name: str) -> None:
    cfg = CONFIGS[name]
    data = to_bytes(sample_module(cfg))
    module = program_to_module(from_bytes(data))
    assert get_config(module) == cfg
    text = assert_round_trips(ctx, module)
    for source in (text, generic(module)):
        parsed = Parser(ctx, source).parse_module()
        parsed.verify()
        assert to_bytes(module_to_program(parsed)) == data


def test_program_ops_expose_the_binary() -> None:
    binary = sample_module(DEFAULT)
    module = program_to_module(binary)
    (program,) = module.ops
    assert isinstance(program, ProgramOp) and program.base_address == BASE
    rebuilt = program.to_binary()
    assert to_bytes(rebuilt) == to_bytes(binary)
    runs = [op for op in program.body.block.ops if isinstance(op, vtaisa.RunOp)]
    assert runs[0].uops_op is not None and len(runs[0].uops_op) == 4
    assert runs[1].uops_op is None
    assert [type(op_to_insn(i)) for i in runs[1].instructions] == [MemInsn, MemInsn, FinishInsn]


def test_micro_op_words_outside_the_fields_are_reported() -> None:
    cfg = CONFIGS["block32"]  # 11 + 11 + 9 = 31 micro-op bits: bit 31 is padding
    assert sum(f.width for f in cfg.uop_fields.values()) == 31
    binary = sample_module(cfg)
    binary.program.runs[0].uop_words[1] |= np.uint32(1 << 31)
    with pytest.raises(VTAError, match="micro-op word 1 .* sets bits outside the micro-op fields"):
        program_to_module(binary)


def test_module_to_program_needs_exactly_one_program() -> None:
    with pytest.raises(VTAError, match="found 0"):
        module_to_program(ModuleOp([]))
    two = ModuleOp([vtaisa.program_op(sample_module(DEFAULT)),
                    vtaisa.program_op(sample_module(DEFAULT))])
    with pytest.raises(VTAError, match="found 2"):
        module_to_program(two)


def test_program_verifier_applies_the_binary_checks() -> None:
    binary = sample_module(DEFAULT)
    module = program_to_module(binary)
    module.verify()
    (program,) = module.ops
    run = next(op for op in program.body.block.ops if isinstance(op, vtaisa.RunOp))
    store = next(op for op in run.instructions if isinstance(op, StoreInsnOp))
    store.dram_base = builtin.IntegerAttr(0x10, 64)
    with pytest.raises(VerifyException, match="STORE touches DRAM .* outside every segment"):
        module.verify()
    with pytest.raises(VTAError, match="outside every segment"):
        module_to_program(module)


def test_segment_and_arg_ops() -> None:
    seg = vtaisa.SegmentOp("c", BASE, 4, b"\x01\x02\xfe\xff")
    assert seg.contents == b"\x01\x02\xfe\xff"
    assert str(seg) == 'vtaisa.segment "c" phys 0x40000 size 4 data "0x0102FEFF"'
    assert seg.to_segment().data.tolist() == [1, 2, 254, 255]
    spec = ArgSpec.for_layout("x", "inout", "int32", (3, 5), "NC", DEFAULT, segment="x",
                              phys=BASE)
    arg = vtaisa.ArgOp.from_spec(spec)
    assert arg.to_spec() == spec
    assert str(arg).startswith('vtaisa.arg "x" inout int32 [3, 5] padded [3, 16]')


def repeated_module(cfg: VTAConfig) -> BinaryModule:
    """``sample_module`` with a per-column bias replicated over the batch lanes."""
    binary = sample_module(cfg)
    top = max(s.phys + s.nbytes for s in binary.program.segments)
    phys = -(-top // 4096) * 4096
    bias = ArgSpec.for_layout("bias", "in", "int32", (3 * cfg.block_out - 5,), "NC", cfg,
                              repeat=(cfg.batch,))
    binary.program.segments.append(Segment("bias", phys, bias.packed_nbytes))
    binary.args.append(bias.placed("bias", phys))
    return binary


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_repeated_arg_round_trips_through_vtaisa(ctx: Context, name: str) -> None:
    cfg = CONFIGS[name]
    data = to_bytes(repeated_module(cfg))
    module = program_to_module(from_bytes(data))
    text = assert_round_trips(ctx, module)
    assert f" repeat [{cfg.batch}] padded " in text
    assert text.count(" repeat [") == 1  # only the repeated argument prints the field
    for source in (text, generic(module)):
        parsed = Parser(ctx, source).parse_module()
        parsed.verify()
        assert to_bytes(module_to_program(parsed)) == data


def test_repeated_arg_op() -> None:
    cfg = CONFIGS["batch2"]
    spec = ArgSpec.for_layout("bias", "in", "int32", (40,), "NC", cfg, repeat=(2,),
                              segment="bias", phys=BASE)
    arg = vtaisa.ArgOp.from_spec(spec)
    assert arg.to_spec() == spec
    assert str(arg) == ('vtaisa.arg "bias" in int32 [40] repeat [2] padded [48] '
                        'split [1, 2, 3, 16] perm [0, 2, 1, 3] packed int32 segment "bias" '
                        'phys 0x40000')
    plain = vtaisa.ArgOp.from_spec(ArgSpec("x", "in", "int8", (2, 16), (2, 16), (1, 2, 1, 16),
                                           (0, 2, 1, 3), "int8", "x", BASE))
    assert plain.repeat is None and "repeat" not in str(plain)
    bad = vtaisa.ArgOp("bias", "out", "int32", (40,), (48,), (1, 2, 3, 16), (0, 2, 1, 3),
                       "int32", "bias", BASE, repeat=(2,))
    with pytest.raises(VerifyException, match="only allowed for 'in' arguments, not 'out'") \
            as info:
        bad.verify()
    assert "\n" not in str(info.value)
