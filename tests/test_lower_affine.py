"""``lower-affine`` (``passes/lower_affine.py``): affine loops and accesses whose maps have
operands lower to ``scf``/``memref``/``arith`` that compute the same numbers (run through
xDSL's interpreter against numpy)."""

from __future__ import annotations

import numpy as np
from xdsl.context import Context
from xdsl.dialects import affine

from tests.xdsl_ir import AFFINE, RNG, interpret, ops_of, parse, run_passes


def test_affine_interprets_the_same_before_and_after_lower_affine(ctx: Context) -> None:
    a = RNG.integers(-50, 50, size=(6, 8), dtype=np.int32)
    expected = np.zeros((6, 8), np.int32)
    expected[3:6, 0:7] = a[0:6:2, 1:8]
    _, direct = interpret(ctx, parse(ctx, AFFINE), "stencil", a, np.zeros((6, 8), np.int32))
    np.testing.assert_array_equal(direct, expected)
    lowered = run_passes(ctx, parse(ctx, AFFINE), "lower-affine")
    assert not ops_of(lowered, affine.LoadOp) and not ops_of(lowered, affine.ForOp)
    _, via_scf = interpret(ctx, lowered, "stencil", a, np.zeros((6, 8), np.int32))
    np.testing.assert_array_equal(via_scf, expected)


def test_lower_affine_with_operands_in_bounds_and_min(ctx: Context) -> None:
    module = parse(
        ctx,
        """
        func.func @tiles(%a: memref<10xi32>) {
          %c7 = arith.constant 7 : index
          affine.for %t = 0 to 10 step 4 {
            %hi = affine.min affine_map<(d0)[s0] -> (d0 + 4, s0)>(%t)[%c7]
            affine.for %i = max affine_map<(d0) -> (d0, 1)>(%t) to %hi {
              %v = affine.load %a[%i] : memref<10xi32>
              %w = arith.addi %v, %v : i32
              affine.store %w, %a[%i] : memref<10xi32>
            }
          }
          return
        }""",
    )
    run_passes(ctx, module, "lower-affine")
    assert not ops_of(module, affine.MinOp)
    a = np.arange(10, dtype=np.int32)
    (out,) = interpret(ctx, module, "tiles", a)
    expected = a.copy()
    expected[1:7] *= 2  # indices max(t, 1) .. min(t + 4, 7) for t in 0, 4, 8
    np.testing.assert_array_equal(out, expected)

