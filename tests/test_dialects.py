"""The ``vta`` and ``vtaisa`` dialects: ops built in Python verify and print/parse back unchanged
(custom and generic form), every verifier rule fires with its message (the cases of
``tests/filecheck/dialects/*/invalid.mlir``, checked here without the command-line tool),
configuration-dependent rules follow the configuration, ``vtaisa`` ops and ``vta_mlir.isa``
records convert into each other exactly, and ``.vtab → vtaisa → .vtab`` is byte-identical."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects import affine, arith, builtin, func, memref, test
from xdsl.dialects.builtin import IndexType, MemRefType, ModuleOp, i8
from xdsl.ir import Attribute, Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

from vta_mlir import isa
from vta_mlir.abi import ArgSpec
from vta_mlir.binary import BinaryModule, Linker, from_bytes, to_bytes
from vta_mlir.config import SHIPPED_CONFIGS, TimingParams, VTAConfig
from vta_mlir.dialects import vta, vtaisa
from vta_mlir.dialects.vta import (
    CONFIG_ATTR_NAME,
    AluKind,
    AluOp,
    DepPopOp,
    DepPushOp,
    DmaCopyOp,
    GemmOp,
    Module,
    Sram,
    SramAttr,
    StageOp,
    UopLoopOp,
    VTAConfigAttr,
    get_config,
    module_of,
    set_module_config,
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

CONFIGS = {name: VTAConfig.shipped(name) for name in SHIPPED_CONFIGS}
DEFAULT = CONFIGS["default"]
FILECHECK = Path(__file__).parent / "filecheck" / "dialects"


@pytest.fixture(scope="module")
def ctx() -> Context:
    c = Context()
    for d in (builtin.Builtin, arith.Arith, affine.Affine, func.Func, memref.MemRef, test.Test,
              vta.VTA, vtaisa.VTAISA):
        c.load_dialect(d)
    return c


def generic(op: Operation) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(op)
    return out.getvalue()


def assert_round_trips(ctx: Context, module: ModuleOp) -> str:
    """``module`` verifies and prints back unchanged from its custom and its generic form."""
    module.verify()
    text = str(module)
    again = Parser(ctx, text).parse_module()
    again.verify()
    assert str(again) == text
    from_generic = Parser(ctx, generic(module)).parse_module()
    from_generic.verify()
    assert str(from_generic) == text
    return text


def memrefs(*types: Attribute) -> test.TestOp:
    return test.TestOp(result_types=list(types))


def sram(space: str, count: int, cfg: VTAConfig = DEFAULT) -> MemRefType:
    s = Sram(space)
    return MemRefType(vta.sram_element_type(s, cfg), [count, *vta.sram_element_shape(s, cfg)],
                      memory_space=SramAttr(s))


def module_with(ops: list[Operation], cfg: VTAConfig | None = None) -> ModuleOp:
    module = ModuleOp(ops)
    if cfg is not None:
        set_module_config(module, cfg)
    return module


# ---------------------------------------------------------------------------------------------
# The configuration attribute and its helpers


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_config_attr_round_trips_to_an_equal_config(ctx: Context, name: str) -> None:
    cfg = CONFIGS[name]
    attr = VTAConfigAttr.from_config(cfg)
    assert attr.config == cfg
    parsed = Parser(ctx, str(attr)).parse_attribute()
    assert parsed == attr and isinstance(parsed, VTAConfigAttr) and parsed.config == cfg
    assert "dma_latency" not in str(attr)  # default timing is not printed


def test_config_attr_carries_timing_and_target(ctx: Context) -> None:
    cfg = VTAConfig(target="pynq", hw_ver="0.0.1",
                    timing=TimingParams(dma_latency=7, dram_bytes_per_cycle=16,
                                        pipeline_depth=2, clock_mhz=333.5))
    attr = VTAConfigAttr.from_config(cfg)
    text = str(attr)
    assert 'target = "pynq"' in text and "clock_mhz = 333.5" in text
    parsed = Parser(ctx, text).parse_attribute()
    assert isinstance(parsed, VTAConfigAttr) and parsed.config == cfg
    # Timing keys left out take their defaults.
    short = Parser(ctx, text.replace(", clock_mhz = 333.5", "")).parse_attribute()
    assert isinstance(short, VTAConfigAttr)
    assert short.config.timing.clock_mhz == TimingParams().clock_mhz


@pytest.mark.parametrize(("change", "message"), [
    (lambda t: t.replace(", log_block = 4", ""), "missing key(s) log_block"),
    (lambda t: t.replace("log_block = 4", "log_block = 4, log_block = 4"), "given twice"),
    (lambda t: t.replace("log_block = 4", "block = 4"), "unknown #vta.config key 'block'"),
    (lambda t: t.replace("log_block = 4", "log_block = 2"), "LOG_BLOCK = 2 is out of range"),
    (lambda t: t.replace('"sim"', '"fpga"'), "TARGET 'fpga' is not one of"),
    (lambda t: t.replace("log_block = 4", "log_block = 4, dma_latency = -1"),
     "timing.dma_latency = -1 is out of range"),
])
def test_config_attr_rejects_bad_text(ctx: Context, change, message: str) -> None:
    text = change(str(VTAConfigAttr.from_config(DEFAULT)))
    with pytest.raises((ParseError, VerifyException), match=re.escape(message)):
        Parser(ctx, text).parse_attribute()


def test_get_config_finds_the_nearest_ancestor() -> None:
    op = DepPushOp("load", "compute")
    assert get_config(op) == DEFAULT  # detached: the default configuration
    inner = ModuleOp([op])
    outer = ModuleOp([inner])
    set_module_config(outer, CONFIGS["batch2"])
    assert get_config(op) == CONFIGS["batch2"]
    set_module_config(inner, CONFIGS["block32"])
    assert get_config(op) == CONFIGS["block32"]
    assert get_config(inner) == CONFIGS["block32"]


def test_set_module_config() -> None:
    module = ModuleOp([])
    set_module_config(module, CONFIGS["block32"])
    assert module.attributes[CONFIG_ATTR_NAME] == VTAConfigAttr.from_config(CONFIGS["block32"])
    set_module_config(module, VTAConfig.shipped("block32"))  # the same one again: fine
    with pytest.raises(VTAError, match="built for configuration sim_1x32.* but configuration "
                                       "sim_1x16"):
        set_module_config(module, DEFAULT)
    timed = VTAConfig(timing=TimingParams(dma_latency=1))
    other = ModuleOp([])
    set_module_config(other, DEFAULT)
    with pytest.raises(VTAError, match="timing dma_latency=1"):
        set_module_config(other, timed)
    odd = ModuleOp([])
    odd.attributes[CONFIG_ATTR_NAME] = builtin.StringAttr("default")
    with pytest.raises(VTAError, match="is not a #vta.config"):
        set_module_config(odd, DEFAULT)


# ---------------------------------------------------------------------------------------------
# vta ops built in Python


def test_vta_ops_built_in_python(ctx: Context) -> None:
    x_t = MemRefType(i8, [1, 64, 1, 16])
    y_t = MemRefType(i8, [1, 64, 1, 16])
    bias_t = MemRefType(i8, [4, 1, 16])
    vals = memrefs(x_t, y_t, bias_t, sram("inp", 16), sram("wgt", 256), sram("acc", 16),
                   IndexType())
    x, y, bias, inp, wgt, acc, i = vals.results
    load = DmaCopyOp(x, inp, x_size=4, y_size=2, x_stride=16, src_pos=(i, 3), dst_pos=1,
                     pad=(1, 0, 0, 1))
    load8 = DmaCopyOp(bias, acc, x_size=4, dst_pos=i)
    store = DmaCopyOp(acc, y, x_size=16, src_pos=0, dst_pos=i)
    reset = UopLoopOp(16, dst_factor=1, body=[GemmOp(acc, 0, reset=True)])
    gemm = UopLoopOp(16, 1, 0, 16, [UopLoopOp(16, 0, 1, 1, [GemmOp(acc, 0, inp, 0, wgt, 0)])])
    shr = UopLoopOp(16, 1, 1, body=[AluOp("shr", acc, 0, imm=-8)])
    add = AluOp(AluKind.ADD, acc, (i, 1), src=acc, src_pos=5)
    stages = [
        DepPushOp("store", "compute"),
        StageOp("load", [DepPopOp("compute", "load"), load, DepPushOp("load", "compute")]),
        StageOp("compute", [DepPopOp("load", "compute"), load8, reset, gemm, shr, add,
                            DepPushOp("compute", "store")]),
        StageOp("store", [DepPopOp("compute", "store"), store, DepPushOp("store", "compute")]),
        DepPopOp("store", "compute"),
    ]
    module = module_with([vals, *stages], DEFAULT)
    text = assert_round_trips(ctx, module)
    assert "vta.dma_copy %0[%6 + 3] -> %3[1] y 2 x 4 stride 16 pad [1, 0, 0, 1]" in text
    assert "vta.gemm reset %5[0]" in text
    assert "vta.uop_loop 16 dst 1 wgt 16 {" in text
    assert "vta.alu shr %5[0], -8" in text
    assert "vta.alu add %5[%6 + 1], %5[5]" in text

    assert (load.is_store, load.memory_type, load.module) == (False, MemType.INP, Module.LOAD)
    assert (load8.memory_type, load8.module) == (MemType.ACC_8BIT, Module.COMPUTE)
    assert (store.is_store, store.memory_type, store.module) == (True, MemType.OUT, Module.STORE)
    assert load.sram_position == (None, 1) and load.dram_position == (i, 3)
    assert store.sram is acc and store.dram is y and store.pads == (0, 0, 0, 0)
    assert [module_of(op) for op in (load, load8, store, reset, add)] == [
        Module.LOAD, Module.COMPUTE, Module.STORE, Module.COMPUTE, Module.COMPUTE]
    assert module_of(stages[0]) == Module.STORE and module_of(stages[-1]) == Module.COMPUTE
    assert module_of(vals) is None
    assert [lp.field("extent") for lp in gemm.loops()] == [16, 16]
    assert len(gemm.micro_ops()) == 1 and gemm.is_kernel
    assert add.kind == AluKind.ADD and not add.use_imm and add.imm_value == 0
    assert shr.micro_ops()[0].imm_value == -8 and AluKind.SHR.opcode == 3


def test_vta_printed_forms(ctx: Context) -> None:
    path = FILECHECK / "vta" / "ops.mlir"
    module = Parser(ctx, path.read_text()).parse_module()
    assert_round_trips(ctx, module)


# ---------------------------------------------------------------------------------------------
# Every verifier rule, from the invalid.mlir files


def _invalid_cases(dialect: str) -> list[tuple[str, str]]:
    text = (FILECHECK / dialect / "invalid.mlir").read_text()
    cases = []
    for chunk in text.split("// -----"):
        found = re.findall(r"expected-error(?: @[+-]\d+)? \{\{(.*)\}\}", chunk)
        if found:
            assert len(found) == 1, chunk
            cases.append((chunk, found[0]))
    return cases


def _check_rejected(ctx: Context, chunk: str, message: str) -> None:
    with pytest.raises((ParseError, VerifyException)) as info:
        Parser(ctx, chunk).parse_module().verify()
    assert message in str(info.value)


@pytest.mark.parametrize(("chunk", "message"), _invalid_cases("vta"),
                         ids=[m[:60] for _, m in _invalid_cases("vta")])
def test_vta_verifier_rules(ctx: Context, chunk: str, message: str) -> None:
    _check_rejected(ctx, chunk, message)


@pytest.mark.parametrize(("chunk", "message"), _invalid_cases("vtaisa"),
                         ids=[m[:60] for _, m in _invalid_cases("vtaisa")])
def test_vtaisa_verifier_rules(ctx: Context, chunk: str, message: str) -> None:
    _check_rejected(ctx, chunk, message)


def test_every_message_is_one_line() -> None:
    for dialect in ("vta", "vtaisa"):
        for _, message in _invalid_cases(dialect):
            assert "\n" not in message


# ---------------------------------------------------------------------------------------------
# Rules that follow the configuration


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_sram_shapes_follow_the_configuration(name: str) -> None:
    cfg = CONFIGS[name]
    x = MemRefType(i8, [64 * cfg.batch * cfg.block_in])
    for count in (1, cfg.inp_buff_depth):
        vals = memrefs(x, sram("inp", count, cfg))
        copy = DmaCopyOp(vals.results[0], vals.results[1], x_size=1)
        module_with([vals, copy], cfg).verify()
    vals = memrefs(x, sram("inp", cfg.inp_buff_depth + 1, cfg))
    copy = DmaCopyOp(vals.results[0], vals.results[1], x_size=1)
    with pytest.raises(VerifyException, match=f"more than the INP SRAM depth {cfg.inp_buff_depth}"):
        module_with([vals, copy], cfg).verify()
    # A buffer shaped for another configuration is rejected.
    other = CONFIGS["block32" if name != "block32" else "default"]
    vals = memrefs(x, sram("inp", 4, other))
    copy = DmaCopyOp(vals.results[0], vals.results[1], x_size=1)
    tile = f"{cfg.batch}x{cfg.block_in}"
    with pytest.raises(VerifyException, match=f"shaped \\[elements...\\]x{tile}"):
        module_with([vals, copy], cfg).verify()


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_uop_loop_factor_widths_follow_the_configuration(name: str) -> None:
    cfg = CONFIGS[name]

    def kernel(factors: dict[str, int]) -> ModuleOp:
        vals = memrefs(sram("acc", 4, cfg), sram("inp", 4, cfg), sram("wgt", 4, cfg))
        acc, inp, wgt = vals.results
        loop = UopLoopOp(1, **factors, body=[GemmOp(acc, 0, inp, 0, wgt, 0)])
        return module_with([vals, loop], cfg)

    for kind, field in (("dst", "dst_factor_out"), ("src", "src_factor_out"),
                        ("wgt", "wgt_factor_out")):
        width = cfg.gemm_fields[field].width
        top = (1 << width) - 1
        kernel({f"{kind}_factor": top}).verify()
        with pytest.raises(VerifyException, match=f"{kind}_factor = {top + 1} does not fit its "
                                                  f"{width}-bit field"):
            kernel({f"{kind}_factor": top + 1}).verify()


def test_kernel_size_is_bounded_by_the_uop_sram() -> None:
    small = VTAConfig(log_uop_buff_size=3)  # a 2-entry micro-op SRAM
    assert small.uop_buff_depth == 2

    def kernel(n: int) -> ModuleOp:
        vals = memrefs(sram("acc", 8, small))
        acc = vals.results[0]
        loop = UopLoopOp(2, 4, body=[AluOp("add", acc, k, imm=1) for k in range(n)])
        return module_with([vals, loop], small)

    kernel(2).verify()
    with pytest.raises(VerifyException, match="3 micro-ops, more than the UOP SRAM depth 2"):
        kernel(3).verify()


def test_write_hazard_window_is_two_micro_ops() -> None:
    vals = memrefs(sram("acc", 8))
    acc = vals.results[0]
    ok = UopLoopOp(1, body=[AluOp("add", acc, k % 3, imm=1) for k in range(6)])
    module_with([vals, ok]).verify()


def test_dynamic_positions_skip_static_bounds() -> None:
    vals = memrefs(MemRefType(i8, [64, 1, 16]), sram("inp", 4), IndexType())
    x, inp, i = vals.results
    copy = DmaCopyOp(x, inp, x_size=4, src_pos=(i, 1000), dst_pos=(i, -3))
    module_with([vals, copy]).verify()
    c = arith.ConstantOp.from_int_and_width(1, IndexType())
    late = DmaCopyOp(x, inp, x_size=4, dst_pos=c)
    with pytest.raises(VerifyException, match=r"covers SRAM elements \[1, 5\)"):
        module_with([vals.clone(), c, late]).verify()


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


def test_positions_are_index_values(ctx: Context) -> None:
    text = (
        '%x, %inp, %f = "test.op"() : () -> (memref<4x1x16xi8>, '
        "memref<4x1x16xi8, #vta.sram<inp>>, i32)\n"
        "vta.dma_copy %x[%f] -> %inp[0] y 1 x 1 stride 1 : memref<4x1x16xi8> -> "
        "memref<4x1x16xi8, #vta.sram<inp>>\n"
    )
    with pytest.raises(ParseError):
        Parser(ctx, text).parse_module()
