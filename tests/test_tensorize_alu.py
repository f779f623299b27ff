"""``vta-tensorize`` of element-wise ALU operations and fills on accumulators loaded from DRAM
(``docs/pipeline.md`` stage 4): the ``vta.alu`` / ``vta.gemm_reset`` micro-ops each makes, and
bit-exact runs on the simulator against numpy, for every shipped configuration.
"""

from __future__ import annotations

import numpy as np
import pytest

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import AluOp, GemmOp, GemmResetOp, UopLoopOp

from .tensorize_helpers import (
    FILL,
    alu_program,
    compile_ir,
    compute_insns,
    elementwise,
    ops_of,
    run_on_device,
)

# ---------------------------------------------------------------------------------------------
# Element-wise ALU operations


ALU_CASES = {
    # name: (linalg body, numpy of (a, b), ALU op and immediate of the kernel)
    "add_tensor": (elementwise("arith.addi", "%o", "%x"), lambda a, b: a + b, ("add", None)),
    "add_transposed": (
        elementwise("arith.addi", "%x", "%o", in_map="#tr"),
        lambda a, b: a + b.transpose(1, 0, 2, 3),
        ("add", None),
    ),
    "max_tensor": (elementwise("arith.maxsi", "%x", "%o"), np.maximum, ("max", None)),
    "min_imm": (
        elementwise("arith.minsi", "%c", "%o", const="%c = arith.constant -3 : i32"),
        lambda a, b: np.minimum(a, -3),
        ("min", -3),
    ),
    "sub_imm": (
        elementwise("arith.subi", "%o", "%c", const="%c = arith.constant 1000 : i32"),
        lambda a, b: a - 1000,
        ("add", -1000),
    ),
    "shl_imm": (
        elementwise("arith.shli", "%o", "%c", const="%c = arith.constant 3 : i32"),
        lambda a, b: a << 3,
        ("shr", -3),
    ),
    "shr_imm": (
        elementwise("arith.shrsi", "%x", "%c", ins="%sa", const="%c = arith.constant 2 : i32"),
        lambda a, b: a >> 2,
        ("shr", 2),
    ),
    "mul_imm": (
        elementwise("arith.muli", "%c", "%o", const="%c = arith.constant -7 : i32"),
        lambda a, b: a * -7,
        ("mul", -7),
    ),
    "add_self": (elementwise("arith.addi", "%o", "%x", ins="%sa"), lambda a, b: a + a,
                 ("add", None)),
}


@pytest.mark.parametrize("case", sorted(ALU_CASES))
def test_alu_micro_op(case: str) -> None:
    cfg = VTAConfig.shipped("default")
    body, _, (kind, imm) = ALU_CASES[case]
    module = compile_ir(alu_program(cfg, body), cfg)
    (alu,) = ops_of(module, AluOp)
    assert alu.kind.value == kind
    assert (alu.imm_value if alu.use_imm else None) == imm
    (kernel,) = ops_of(module, UopLoopOp)[:1]
    levels = kernel.loops()
    if case == "add_transposed":
        # dst walks p then q, the source q then p: two levels that cannot merge.
        assert [(lp.field("extent"), lp.field("dst_factor"), lp.field("src_factor"))
                for lp in levels] == [(4, 4, 1), (4, 1, 4)]
    else:
        # The two element loops are contiguous: one level of 16.
        assert [(lp.field("extent"), lp.field("dst_factor")) for lp in levels] == [(16, 1)]


@pytest.mark.parametrize("case", sorted(ALU_CASES))
def test_alu_runs_bit_exact(cfg: VTAConfig, case: str) -> None:
    body, reference, _ = ALU_CASES[case]
    module = compile_ir(alu_program(cfg, body), cfg)
    rng = np.random.default_rng(7)
    shape = (1, 16, cfg.batch, cfg.block_out)
    a = rng.integers(-(1 << 20), 1 << 20, shape, dtype=np.int32)
    b = rng.integers(-(1 << 20), 1 << 20, shape, dtype=np.int32)
    (y,), binary = run_on_device(module, cfg, a, b)
    grid = (4, 4, cfg.batch, cfg.block_out)
    with np.errstate(over="ignore"):
        expected = reference(a.reshape(grid), b.reshape(grid)).astype(np.int32)
    np.testing.assert_array_equal(y, expected.reshape(shape).astype(np.int8))
    assert compute_insns(binary) == (0, 1)


# ---------------------------------------------------------------------------------------------
# Fills: a reset, then an ALU add of a nonzero value


@pytest.mark.parametrize("value", [0, -7, 300])
def test_fill(value: int) -> None:
    cfg = VTAConfig.shipped("default")
    module = compile_ir(alu_program(cfg, FILL.format(value=value)), cfg)
    assert len(ops_of(module, GemmResetOp)) == 1
    assert not ops_of(module, GemmOp)
    alus = ops_of(module, AluOp)
    assert [(a.kind.value, a.imm_value) for a in alus] == ([("add", value)] if value else [])


@pytest.mark.parametrize("value", [0, -7, 300])
def test_fill_runs_bit_exact(cfg: VTAConfig, value: int) -> None:
    # Fill, then add b: the result is b + value (truncated to int8 by the store).
    body = FILL.format(value=value) + elementwise("arith.addi", "%o", "%x")
    module = compile_ir(alu_program(cfg, body), cfg)
    rng = np.random.default_rng(3)
    shape = (1, 16, cfg.batch, cfg.block_out)
    a = rng.integers(-1000, 1000, shape, dtype=np.int32)
    b = rng.integers(-1000, 1000, shape, dtype=np.int32)
    (y,), binary = run_on_device(module, cfg, a, b)
    np.testing.assert_array_equal(y, (b + value).astype(np.int8))
    assert compute_insns(binary) == (1, 1 + (value != 0))
