"""The pipeline runner (:mod:`vta_mlir.ir.pipeline`): an exception an xDSL pattern raises is
reported at the op it was rewriting, found without patching xDSL."""

from __future__ import annotations

import pytest
from xdsl.context import Context
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation

from tests.xdsl_ir import parse
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.ir.pipeline import available_passes, build_pipeline, failing_op, run_pipeline

TENSOR_MATMUL = """
func.func @t(%x: tensor<2x2xf32>, %z: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = linalg.matmul ins(%x, %x : tensor<2x2xf32>, tensor<2x2xf32>)
                     outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}"""


def test_failing_op_of_a_pattern_error(ctx: Context) -> None:
    module = parse(ctx, TENSOR_MATMUL)
    # xDSL's convert-linalg-to-loops has no lowering of linalg on tensors.
    with pytest.raises(NotImplementedError) as info:
        build_pipeline("convert-linalg-to-loops", available_passes()).apply(ctx, module)
    assert isinstance(failing_op(info.value), linalg.MatmulOp)


def test_failing_op_of_an_exception_without_op() -> None:
    assert failing_op(ValueError("plain")) is None
    try:
        raise KeyError("raised, not through emit_error")
    except KeyError as exc:
        assert failing_op(exc) is None


def test_run_pipeline_reports_a_pattern_error_at_the_op(ctx: Context) -> None:
    module = parse(ctx, TENSOR_MATMUL)
    with pytest.raises(DiagnosticError) as info:
        run_pipeline(module, "convert-linalg-to-loops", ctx=ctx)
    location = info.value.diagnostic.location
    assert location is not None and location.line == 3


def test_failing_op_is_the_innermost(ctx: Context) -> None:
    module = parse(ctx, TENSOR_MATMUL)
    matmul = next(op for op in module.walk() if isinstance(op, linalg.MatmulOp))
    try:
        matmul.emit_error("outer", ValueError("inner"))
    except ValueError as exc:
        func = matmul.parent_op()
        assert isinstance(func, Operation)
        try:
            func.emit_error("wrapping", exc)
        except ValueError as wrapped:
            assert failing_op(wrapped) is matmul
