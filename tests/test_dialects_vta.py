"""The ``vta`` dialect: ops built in Python verify and print/parse back unchanged (custom and
generic form), every verifier rule fires with its message (the cases of
``tests/filecheck/dialects/*/invalid.mlir``, checked here without the command-line tool), and
configuration-dependent rules follow the configuration."""

from __future__ import annotations

import pytest
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, MemRefType, ModuleOp, i8
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException

from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.dialects.vta import (
    AluKind,
    AluOp,
    DepPopOp,
    DepPushOp,
    DmaCopyOp,
    GemmOp,
    GemmResetOp,
    Module,
    StageOp,
    UopLoopOp,
    module_of,
)
from vta_mlir.isa import (
    MemType,
)

from .dialect_helpers import (
    CONFIGS,
    DEFAULT,
    FILECHECK,
    assert_round_trips,
    check_rejected,
    dialect_context,
    invalid_cases,
    memrefs,
    module_with,
    sram,
)


@pytest.fixture(scope="module")
def ctx() -> Context:
    return dialect_context()


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
    reset = UopLoopOp(16, dst_factor=1, body=[GemmResetOp(acc, 0)])
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
    assert "vta.gemm_reset %5[0]" in text
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


@pytest.mark.parametrize(("chunk", "message"), invalid_cases("vta"),
                         ids=[m[:60] for _, m in invalid_cases("vta")])
def test_vta_verifier_rules(ctx: Context, chunk: str, message: str) -> None:
    check_rejected(ctx, chunk, message)


def test_every_message_is_one_line() -> None:
    for dialect in ("vta", "vtaisa"):
        for _, message in invalid_cases(dialect):
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


def test_positions_are_index_values(ctx: Context) -> None:
    text = (
        '%x, %inp, %f = "test.op"() : () -> (memref<4x1x16xi8>, '
        "memref<4x1x16xi8, #vta.sram<inp>>, i32)\n"
        "vta.dma_copy %x[%f] -> %inp[0] y 1 x 1 stride 1 : memref<4x1x16xi8> -> "
        "memref<4x1x16xi8, #vta.sram<inp>>\n"
    )
    with pytest.raises(ParseError):
        Parser(ctx, text).parse_module()
