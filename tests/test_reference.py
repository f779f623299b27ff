"""The numpy reference evaluator (``vta_mlir.reference``) against results computed here
independently: numpy formulas for the example programs (``tests/workloads.py``), and
diagnostics at the op for what it does not evaluate.

The semantics of each ``arith`` op are checked in ``test_reference_arith.py``, the
structured ops in ``test_reference_structured.py``."""

from __future__ import annotations

import time

import numpy as np
import pytest

from vta_mlir.errors import VTAError
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.reference import arguments, evaluate

from .reference_helpers import reduction_text
from .workloads import WORKLOADS, Workload

# --------------------------------------------------------------------------------------------
# The example programs


@pytest.mark.parametrize("w", WORKLOADS, ids=lambda w: w.name)
def test_examples_match_numpy(w: Workload) -> None:
    arrays = w.draw(5)
    expected = w.expected(arrays)
    got = evaluate(w.path, list(arrays.values()))
    assert len(got) == len(expected)
    for (name, want), have in zip(expected.items(), got, strict=True):
        assert have.dtype == want.dtype
        np.testing.assert_array_equal(have, want, err_msg=f"{w.name}: {name}")


@pytest.mark.parametrize("w", WORKLOADS, ids=lambda w: w.name)
def test_example_arguments(w: Workload) -> None:
    args = arguments(w.path)
    assert [a.name for a in args if a.reads] == list(w.inputs)
    assert [a.name for a in args if a.writes] == list(w.expected(w.draw(0)))
    assert not any(a.reads and a.writes for a in args)
    for a in args:
        if a.reads:
            shape, dtype, _ = w.inputs[a.name]
            assert (a.shape, a.dtype) == (shape, dtype)


def test_inputs_are_not_modified_and_text_works() -> None:
    w = WORKLOADS[0]
    arrays = w.draw(1)
    copies = {k: v.copy() for k, v in arrays.items()}
    evaluate(w.path.read_text(), list(arrays.values()))
    for k in arrays:
        np.testing.assert_array_equal(arrays[k], copies[k])


def test_matrix_multiply_opt_is_fast() -> None:
    """1024 × 1024 weights: one einsum, not a loop per element."""
    w = next(w for w in WORKLOADS if w.name == "matrix_multiply_opt")
    arrays = w.draw(2)
    start = time.perf_counter()
    (y,) = evaluate(w.path, list(arrays.values()))
    assert time.perf_counter() - start < 5
    np.testing.assert_array_equal(y, w.expected(arrays)["y"])


# --------------------------------------------------------------------------------------------
# Errors


def _error_at(text: str, inputs: list[np.ndarray]) -> DiagnosticError:
    with pytest.raises(DiagnosticError) as info:
        evaluate(text, inputs)
    return info.value


def test_unsupported_op_is_a_diagnostic_at_the_op() -> None:
    text = """func.func @f(%x: memref<4xi32>, %y: memref<4xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<4xi32>) outs(%y : memref<4xi32>) {
  ^bb0(%a: i32, %o: i32):
    %r = math.ctlz %a : i32
    linalg.yield %r : i32
  }
  return
}
"""
    error = _error_at(text, [np.zeros(4, np.int32)])
    assert error.diagnostic.message == (
        "'math.ctlz' op is not supported by the reference evaluator")
    assert error.location is not None and error.location.line == 6


def test_element_accesses_in_loops() -> None:
    """Loop nests of the input run element by element: a prefix sum through affine maps, with
    scf index arithmetic, checked against numpy."""
    text = """func.func @f(%x: memref<16xi32>, %s: memref<17xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %z = arith.constant 0 : i32
  memref.store %z, %s[%c0] : memref<17xi32>
  scf.for %i = %c0 to %c16 step %c1 {
    %p = memref.load %s[%i] : memref<17xi32>
    %v = affine.load %x[%i] : memref<16xi32>
    %n = arith.addi %p, %v : i32
    %j = arith.addi %i, %c1 : index
    affine.store %n, %s[%j] : memref<17xi32>
  }
  return
}
"""
    x = np.arange(-8, 8, dtype=np.int32) * 3
    (s,) = evaluate(text, [x, np.full(17, 99, np.int32)])
    np.testing.assert_array_equal(s, np.concatenate([[0], np.cumsum(x)]))


def test_out_of_bounds_element_accesses_and_bf16_are_rejected() -> None:
    loads = """func.func @f(%x: memref<4xi32>, %y: memref<4xi32>) {
  %c4 = arith.constant 4 : index
  %v = memref.load %x[%c4] : memref<4xi32>
  return
}
"""
    error = _error_at(loads, [np.zeros(4, np.int32)])
    assert "accesses element (4,) of a buffer of shape (4,)" in error.diagnostic.message
    bf16 = """func.func @f(%y: memref<4xi32>) {
  %t = memref.alloc() : memref<4xbf16>
  return
}
"""
    with pytest.raises(VTAError, match="bf16 is not supported .* numpy has no bfloat16"):
        evaluate(bf16, [])


def test_reduction_it_cannot_vectorise() -> None:
    text = reduction_text("%t = arith.addi %x, %z : i32", "subi")
    error = _error_at(text, [np.zeros((6, 50), np.int32), np.zeros((50, 7), np.int32),
                             np.zeros((6, 7), np.int32)])
    assert "combines the accumulator once" in error.diagnostic.message


def test_bad_inputs() -> None:
    w = WORKLOADS[0]
    arrays = list(w.draw(0).values())
    with pytest.raises(VTAError, match="reads 2 argument"):
        evaluate(w.path, arrays[:1])
    with pytest.raises(VTAError, match="expected shape"):
        evaluate(w.path, [arrays[0].reshape(-1), arrays[1]])
    with pytest.raises(VTAError, match="expected integers"):
        evaluate(w.path, [arrays[0].astype(np.float32), arrays[1]])
    with pytest.raises(VTAError, match="do not fit"):
        evaluate(w.path, [arrays[0].astype(np.int64) * 4, arrays[1]])
