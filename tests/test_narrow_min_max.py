"""Element-wise ``arith.maxsi`` / ``minsi`` on i8 values (no ``extsi`` / ``trunci`` around
them): the ALU computes them on the sign-extended values, which is exact, bit-exact against
numpy on every shipped configuration."""

from __future__ import annotations

import numpy as np
import pytest

import vta_mlir
from vta_mlir.config import VTAConfig
from vta_mlir.ir.diagnostics import DiagnosticError

SHAPE = (16, 64)
T = "memref<16x64xi8>"


def _generic(inputs: int, body: str, constants: str = "") -> str:
    args = ", ".join(f"%in{i}: {T}" for i in range(inputs))
    maps = ", ".join(["affine_map<(d0, d1) -> (d0, d1)>"] * (inputs + 1))
    names = ", ".join(f"%in{i}" for i in range(inputs))
    types = ", ".join([T] * inputs)
    block = ", ".join(f"%x{i}: i8" for i in range(inputs))
    return f"""
func.func @f({args}, %out: {T}) {{
  {constants}
  linalg.generic {{indexing_maps = [{maps}], iterator_types = ["parallel", "parallel"]}}
      ins({names} : {types}) outs(%out : {T}) {{
  ^bb0({block}, %o: i8):
{body}
  }}
  return
}}
"""


CASES = {
    "max(a, b)": (_generic(2, "    %m = arith.maxsi %x0, %x1 : i8\n    linalg.yield %m : i8"),
                  lambda a, b: np.maximum(a, b)),
    "min(a, b)": (_generic(2, "    %m = arith.minsi %x0, %x1 : i8\n    linalg.yield %m : i8"),
                  lambda a, b: np.minimum(a, b)),
    "max(a, c)": (_generic(1, "    %m = arith.maxsi %x0, %c : i8\n    linalg.yield %m : i8",
                           "%c = arith.constant -3 : i8"),
                  lambda a: np.maximum(a, np.int8(-3))),
    "clamp(c1, a, c2)": (
        _generic(1, "    %l = arith.maxsi %lo, %x0 : i8\n    %h = arith.minsi %l, %hi : i8\n"
                    "    linalg.yield %h : i8",
                 "%lo = arith.constant -20 : i8\n  %hi = arith.constant 90 : i8"),
        lambda a: np.clip(a, -20, 90).astype(np.int8)),
    "max(a, b) + 1 widened": (
        _generic(2, "    %m = arith.maxsi %x0, %x1 : i8\n    %e = arith.extsi %m : i8 to i32\n"
                    "    %s = arith.addi %e, %one : i32\n    %t = arith.trunci %s : i32 to i8\n"
                    "    linalg.yield %t : i8", "%one = arith.constant 1 : i32"),
        lambda a, b: (np.maximum(a, b).astype(np.int32) + 1).astype(np.int8)),
}


@pytest.mark.parametrize("case", CASES)
def test_i8_min_max_bit_exact(case: str, cfg: VTAConfig) -> None:
    text, reference = CASES[case]
    rng = np.random.default_rng(3)
    count = reference.__code__.co_argcount
    inputs = [rng.integers(-128, 128, size=SHAPE, dtype=np.int8) for _ in range(count)]
    result = vta_mlir.compile(text, config=cfg)(*inputs)
    (y,) = result if isinstance(result, tuple) else (result,)
    np.testing.assert_array_equal(y, reference(*inputs))


def test_min_max_of_a_truncated_value_is_refused() -> None:
    text = _generic(1, "    %e = arith.extsi %x0 : i8 to i32\n    %s = arith.addi %e, %e : i32\n"
                       "    %t = arith.trunci %s : i32 to i8\n    %m = arith.maxsi %t, %x0 : i8\n"
                       "    linalg.yield %m : i8")
    with pytest.raises(DiagnosticError, match="maximum or minimum of a value truncated to i8"):
        vta_mlir.lower(text)
