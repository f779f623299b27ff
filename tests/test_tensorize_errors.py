"""``vta-tensorize``: the ops it leaves alone, and what it reports (one error at the op
responsible, the module left unchanged).
"""

from __future__ import annotations

import pytest

from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.ir.context import make_context, parse_module, print_module
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.passes.tensorize import TensorizePass

from .tensorize_helpers import (
    FILL,
    alu_program,
    compile_ir,
    elementwise,
)

# ---------------------------------------------------------------------------------------------
# What stays and what is reported


def test_untouched_ops() -> None:
    """DMA copies, host loops and linalg on DRAM are not the pass's business."""
    text = """
func.func @host(%x: memref<4x1x16xi32>, %y: memref<4x1x16xi32>) {
  %c1 = arith.constant 1 : i32
  linalg.fill ins(%c1 : i32) outs(%x : memref<4x1x16xi32>)
  affine.for %i = 0 to 4 {
    %acc = memref.alloc() : memref<4x1x16xi32, #vta.sram<acc>>
    vta.dma_copy %x[0] -> %acc[0] y 1 x 4 stride 4
        : memref<4x1x16xi32> -> memref<4x1x16xi32, #vta.sram<acc>>
  }
  return
}
"""
    ctx = make_context()
    module = parse_module(text, ctx=ctx)
    before = print_module(module)
    TensorizePass().apply(ctx, module)
    assert print_module(module) == before


ERRORS = {
    "fill of an input buffer": (
        """
func.func @f(%inp: memref<4x1x16xi8, #vta.sram<inp>>) {
  %c0 = arith.constant 0 : i8
  linalg.fill ins(%c0 : i8) outs(%inp : memref<4x1x16xi8, #vta.sram<inp>>)
  return
}""",
        4,
        "fills a #vta.sram<inp> buffer",
    ),
    "division": (
        """
#m = affine_map<(a, b, c) -> (a, b, c)>
func.func @f(%acc: memref<4x1x16xi32, #vta.sram<acc>>) {
  %c = arith.constant 3 : i32
  linalg.generic {indexing_maps = [#m], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%acc : memref<4x1x16xi32, #vta.sram<acc>>) {
  ^bb0(%o: i32):
    %0 = arith.divsi %o, %c : i32
    linalg.yield %0 : i32
  }
  return
}""",
        5,
        "'arith.divsi' is not an ALU operation",
    ),
    "wrong element shape": (
        """
#m = affine_map<(a, b, c) -> (a, b, c)>
func.func @f(%acc: memref<4x1x8xi32, #vta.sram<acc>>) {
  %c = arith.constant 3 : i32
  linalg.generic {indexing_maps = [#m], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%acc : memref<4x1x8xi32, #vta.sram<acc>>) {
  ^bb0(%o: i32):
    %0 = arith.addi %o, %c : i32
    linalg.yield %0 : i32
  }
  return
}""",
        5,
        "must be shaped [elements...]x1x16",
    ),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_at_the_op(case: str) -> None:
    text, line, message = ERRORS[case]
    cfg = VTAConfig.shipped("default")
    with pytest.raises(DiagnosticError) as info:
        compile_ir(text, cfg)
    diagnostic = info.value.diagnostic
    assert message in diagnostic.message
    assert diagnostic.message.startswith("'linalg.")
    assert diagnostic.location is not None and diagnostic.location.line == line


def test_error_leaves_module_unchanged() -> None:
    """Everything is matched before anything is rewritten."""
    cfg = VTAConfig.shipped("default")
    text = alu_program(cfg, FILL.format(value=1) + elementwise("arith.divsi", "%o", "%x"))
    ctx = make_context()
    module = parse_module(text, ctx=ctx)
    before = print_module(module)
    with pytest.raises(DiagnosticError):
        TensorizePass().apply(ctx, module)
    assert print_module(module) == before


def test_shipped_configurations_listed() -> None:
    assert set(SHIPPED_CONFIGS) == {"default", "block32", "batch2"}
