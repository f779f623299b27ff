"""Verification of what a pass changed only: :class:`vta_mlir.ir.unchanged.Untouched`, the
``vouched`` ops of ``verify_op``, and the lowering's own verification of the instructions it
builds (``vta-lower-to-isa``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, UnitAttr, i32, i64
from xdsl.ir import Operation

from vta_mlir import parse
from vta_mlir.dialects.vtaisa_insns import InsnOp, LoadInsnOp
from vta_mlir.ir.diagnostics import DiagnosticError, verify_op
from vta_mlir.ir.unchanged import Untouched
from vta_mlir.passes.lower_to_isa import LowerToIsaPass, verify_lowered

ADDS = """
func.func @f(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b : i32
  %1 = arith.muli %0, %b : i32
  %2 = arith.subi %1, %a : i32
  func.return %2 : i32
}
"""


def _ops(module: ModuleOp, cls: type[Operation]) -> list[Operation]:
    return [op for op in module.walk() if isinstance(op, cls)]


def test_untouched_ops_are_vouched_for() -> None:
    module = parse(ADDS)
    untouched = Untouched(module)
    assert all(untouched(op) for op in module.walk())


def test_a_changed_operand_attribute_or_place_is_not() -> None:
    module = parse(ADDS)
    untouched = Untouched(module)
    (add,), (mul,), (sub,) = (_ops(module, c) for c in (arith.AddiOp, arith.MuliOp,
                                                         arith.SubiOp))
    # A user whose operand a rewrite replaced.
    mul.operands = [mul.operands[1], mul.operands[0]]
    # An op given an attribute in place.
    add.attributes["marked"] = UnitAttr()
    assert not untouched(mul) and not untouched(add)
    assert untouched(sub)
    # An op that now ends its block (what followed it was erased).
    ret = sub.next_op
    assert ret is not None
    sub.detach()
    assert not untouched(mul) and untouched(ret)


def test_an_op_moved_into_a_new_op_is_not() -> None:
    module = parse("""
func.func @f(%a: i32) {
  %0 = arith.addi %a, %a : i32
  func.return
}
""")
    untouched = Untouched(module)
    (func_op,) = [op for op in module.walk() if op.name == "func.func"]
    assert untouched(func_op)
    clone = func_op.clone()
    module.body.block.add_op(clone)
    (moved,) = [op for op in clone.walk() if isinstance(op, arith.AddiOp)]
    assert not untouched(clone) and not untouched(moved)


def test_vouched_ops_skip_their_own_verifier_but_not_dominance() -> None:
    module = parse(ADDS)
    (add,) = _ops(module, arith.AddiOp)
    # An invalid op: an i64 constant where the addition's operands must match its i32 result.
    wrong = arith.ConstantOp(IntegerAttr(1, i64))
    wrong_use = arith.AddiOp(wrong.result, wrong.result, result_type=i32)
    add.parent.insert_ops_before([wrong, wrong_use], add)
    with pytest.raises(DiagnosticError):
        verify_op(module)
    verify_op(module, vouched=lambda op: op is wrong_use)
    # Used before it is defined: reported even when vouched for.
    wrong_use.detach()
    add.parent.insert_op_before(wrong_use, wrong)
    with pytest.raises(DiagnosticError, match="does not dominate"):
        verify_op(module, vouched=lambda op: op is wrong_use)


#: TVM's ``vta_get_started`` at the ``vta`` level.
VECTOR_ADD = Path(__file__).resolve().parent.parent / "examples" / "vta" / "vector_add.mlir"


def test_the_lowering_checks_the_instructions_it_builds() -> None:
    from xdsl.context import Context

    from vta_mlir.config import VTAConfig

    module = parse(VECTOR_ADD.read_text(), config="default")
    LowerToIsaPass().apply(Context(), module)
    loads = _ops(module, LoadInsnOp)
    assert loads and all(isinstance(op, InsnOp) for op in loads)
    cfg = VTAConfig.load("default")
    verify_lowered(module, cfg)
    # A field beyond its width: the instruction's own checks still catch it.
    too_wide = 1 << cfg.field_layouts()["mem"]["x_size"].width
    loads[0].properties["x_size"] = IntegerAttr(too_wide, i64)
    with pytest.raises(DiagnosticError, match="x_size"):
        verify_lowered(module, cfg)
