"""``linalg.batch_matmul`` and ``linalg.quantized_batch_matmul``
(``vta_mlir/ir/upstream_fixes/linalg_batch_matmul.py``): their verifiers, and the reference
evaluator on their bodies and maps (a right operand per batch, one for every batch, transposed;
zero points), against numpy."""

from __future__ import annotations

import numpy as np
import pytest

from vta_mlir.ir.context import parse_module
from vta_mlir.ir.diagnostics import DiagnosticError, verify_op
from vta_mlir.reference.program import evaluate

_MAPS = {
    "kn": None,
    "shared": "[affine_map<(h, m, n, k) -> (h, m, k)>, affine_map<(h, m, n, k) -> (k, n)>, "
              "affine_map<(h, m, n, k) -> (h, m, n)>]",
    "nk": "[affine_map<(h, m, n, k) -> (h, m, k)>, affine_map<(h, m, n, k) -> (h, n, k)>, "
          "affine_map<(h, m, n, k) -> (h, m, n)>]",
}


def _program(maps: str | None, b_shape: str) -> str:
    prefix = "" if maps is None else f"indexing_maps = {maps} "
    return f"""func.func @f(%a: memref<3x4x8xi8>, %b: memref<{b_shape}xi8>,
                 %c: memref<3x4x5xi32>) {{
  linalg.batch_matmul {prefix}ins(%a, %b : memref<3x4x8xi8>, memref<{b_shape}xi8>)
      outs(%c : memref<3x4x5xi32>)
  return
}}"""


@pytest.mark.parametrize(("form", "b_shape"), [("kn", (3, 8, 5)), ("shared", (8, 5)),
                                                ("nk", (3, 5, 8))])
def test_batch_matmul_evaluates(form: str, b_shape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(0)
    a = rng.integers(-128, 128, (3, 4, 8), dtype=np.int8)
    b = rng.integers(-128, 128, b_shape, dtype=np.int8)
    c = rng.integers(-1000, 1000, (3, 4, 5)).astype(np.int32)
    (out,) = evaluate(_program(_MAPS[form], "x".join(map(str, b_shape))), [a, b, c])
    right = b.transpose(0, 2, 1) if form == "nk" else b  # "shared" broadcasts in the product
    np.testing.assert_array_equal(out, c + a.astype(np.int64) @ right.astype(np.int64))


def test_quantized_batch_matmul_subtracts_zero_points() -> None:
    text = """func.func @f(%a: memref<2x3x4xi8>, %b: memref<2x4x2xi8>, %c: memref<2x3x2xi32>) {
  %za = arith.constant 3 : i32
  %zb = arith.constant -5 : i32
  linalg.quantized_batch_matmul ins(%a, %b, %za, %zb : memref<2x3x4xi8>, memref<2x4x2xi8>,
      i32, i32) outs(%c : memref<2x3x2xi32>)
  return
}"""
    rng = np.random.default_rng(1)
    a = rng.integers(-128, 128, (2, 3, 4), dtype=np.int8)
    b = rng.integers(-128, 128, (2, 4, 2), dtype=np.int8)
    (out,) = evaluate(text, [a, b, np.zeros((2, 3, 2), np.int32)])
    expected = (a.astype(np.int64) - 3) @ (b.astype(np.int64) + 5)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize(("text", "message"), [
    (_program(None, "3x7x5"), "operand #1 has size 7 along loop d3, other operands 8"),
    (_program(_MAPS["shared"], "3x8x5"), "operand #1 has rank 3, but its indexing map"),
    (_program("[affine_map<(h, m, n, k) -> (h, m, k)>, affine_map<(h, m, n, k) -> (k, n)>]",
              "8x5"), "expected 3 indexing maps of the loops (b, m, n, k)"),
    ("""func.func @f(%a: memref<2x3x4xi8>, %b: memref<2x4x2xi8>, %c: memref<2x3x2xi32>) {
  %z = arith.constant 0 : i32
  linalg.quantized_batch_matmul ins(%a, %b, %z : memref<2x3x4xi8>, memref<2x4x2xi8>, i32)
      outs(%c : memref<2x3x2xi32>)
  return
}""", "expected 4 inputs (lhs, rhs, lhs zero point, rhs zero point) and 1 output"),
])
def test_bad_batch_matmul_is_a_verifier_error(text: str, message: str) -> None:
    with pytest.raises(DiagnosticError, match=message.replace("(", r"\(").replace(")", r"\)")):
        verify_op(parse_module(text))
