"""The depthwise convolutions added to xDSL's linalg (``vta_mlir/ir/upstream_fixes/
linalg_depthwise_conv.py``): each parses, prints back in MLIR's syntax and verifies; its hidden
body (with the zero points of the ``_q`` forms) evaluated by the reference evaluator is the
numpy convolution written here; malformed operands are verifier errors."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.context import Context

from vta_mlir.ir.context import parse_module, print_module
from vta_mlir.ir.diagnostics import DiagnosticError, verify_op
from vta_mlir.reference import evaluate

ATTRS = "{dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}"

NCHW = f"""func.func @f(%x: memref<1x3x7x7xi8>, %w: memref<3x3x3xi8>,
                       %y: memref<1x3x3x3xi32>) {{
  linalg.depthwise_conv_2d_nchw_chw {ATTRS}
      ins(%x, %w : memref<1x3x7x7xi8>, memref<3x3x3xi8>) outs(%y : memref<1x3x3x3xi32>)
  func.return
}}"""

NHWC_Q = f"""func.func @f(%x: memref<1x7x7x3xi8>, %w: memref<3x3x3xi8>, %zx: i32, %zw: i32,
                         %y: memref<1x3x3x3xi32>) {{
  linalg.depthwise_conv_2d_nhwc_hwc_q {ATTRS}
      ins(%x, %w, %zx, %zw : memref<1x7x7x3xi8>, memref<3x3x3xi8>, i32, i32)
      outs(%y : memref<1x3x3x3xi32>)
  func.return
}}"""

GROUPED_Q = f"""func.func @f(%x: memref<1x2x2x7x7xi8>, %w: memref<2x1x2x3x3xi8>, %zx: i32, %zw: i32,
                            %y: memref<1x2x1x3x3xi32>) {{
  linalg.conv_2d_ngchw_gfchw_q {ATTRS}
      ins(%x, %w, %zx, %zw : memref<1x2x2x7x7xi8>, memref<2x1x2x3x3xi8>, i32, i32)
      outs(%y : memref<1x2x1x3x3xi32>)
  func.return
}}"""


def with_zero_points(text: str, zx: int, zw: int) -> str:
    """``text`` with its zero points as constants (the evaluator takes memref arguments)."""
    head, body = text.split(") {\n", 1)
    head = head.replace(", %zx: i32, %zw: i32,", ",")
    return (f"{head}) {{\n  %zx = arith.constant {zx} : i32\n  %zw = arith.constant {zw} : i32\n"
            f"{body}")


def depthwise(x: np.ndarray, w: np.ndarray, stride: int) -> np.ndarray:
    """NCHW data, a C×KH×KW kernel."""
    n, c, h, wd = x.shape
    _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, c, oh, ow), np.int64)
    for i in range(kh):
        for j in range(kw):
            out += x[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride].astype(np.int64) \
                * w[None, :, i, j, None, None]
    return out


@pytest.mark.parametrize("text", [NCHW, NHWC_Q, GROUPED_Q], ids=["nchw", "nhwc_q", "grouped_q"])
def test_ops_print_back(ctx: Context, text: str) -> None:
    module = parse_module(text, ctx=ctx)
    verify_op(module)
    printed = print_module(module, ctx=ctx)
    assert printed == print_module(parse_module(printed, ctx=ctx), ctx=ctx)
    assert printed.split("linalg.")[1].split(" ")[0] in text


def test_nchw_body() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(-128, 128, (1, 3, 7, 7)).astype(np.int8)
    w = rng.integers(-128, 128, (3, 3, 3)).astype(np.int8)
    (y,) = evaluate(NCHW, [x, w, np.zeros((1, 3, 3, 3), np.int32)])
    np.testing.assert_array_equal(y, depthwise(x, w, 2))


def test_nhwc_q_body_subtracts_the_zero_points() -> None:
    rng = np.random.default_rng(1)
    x = rng.integers(-128, 128, (1, 7, 7, 3)).astype(np.int8)
    w = rng.integers(-128, 128, (3, 3, 3)).astype(np.int8)
    y0 = np.full((1, 3, 3, 3), 5, np.int32)
    (y,) = evaluate(with_zero_points(NHWC_Q, -3, 2), [x, w, y0])
    xd = np.moveaxis(x.astype(np.int64) + 3, 3, 1)
    wd = np.moveaxis(w.astype(np.int64) - 2, 2, 0)
    np.testing.assert_array_equal(y, 5 + np.moveaxis(depthwise(xd, wd, 2), 1, 3))


def test_grouped_q_body() -> None:
    rng = np.random.default_rng(2)
    x = rng.integers(-128, 128, (1, 2, 2, 7, 7)).astype(np.int8)
    w = rng.integers(-128, 128, (2, 1, 2, 3, 3)).astype(np.int8)
    (y,) = evaluate(with_zero_points(GROUPED_Q, 4, 0),
                    [x, w, np.zeros((1, 2, 1, 3, 3), np.int32)])
    want = np.zeros((1, 2, 1, 3, 3), np.int64)
    for g in range(2):
        for c in range(2):
            want[:, g, 0] += depthwise((x[:, g, c:c + 1].astype(np.int64) - 4),
                                       w[g, 0, c][None], 2)[:, 0]
    np.testing.assert_array_equal(y, want)


@pytest.mark.parametrize(("text", "message"), [
    (NCHW.replace("ins(%x, %w : memref<1x3x7x7xi8>, memref<3x3x3xi8>)",
                  "ins(%x : memref<1x3x7x7xi8>)"),
     "expected 2 inputs and 1 output, got 1 and 1"),
    (NHWC_Q.replace("%zw: i32", "%zw: memref<3xi32>").replace("i32, i32)",
                                                               "i32, memref<3xi32>)"),
     "operand #3 (a zero point) must be a scalar, got memref<3xi32>"),
])
def test_verifier_errors(ctx: Context, text: str, message: str) -> None:
    with pytest.raises(DiagnosticError, match=message.replace("(", r"\(").replace(")", r"\)")):
        verify_op(parse_module(text, ctx=ctx))
