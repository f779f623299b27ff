"""``passes/integerize/fold.py``: generics on constants evaluated through their indexing maps,
an input transposed or broadcast along the dimensions its map does not name (the weight of a
batched product broadcast to ``1×K×N``), compared with numpy."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.linalg import ops as linalg

from passes.integerize.fold import fold_generic
from vta_mlir import parse

BODY = "^bb0(%in: i8, %out: i8):\n    linalg.yield %in : i8\n  }"


def _generic(in_map: str, in_shape: str, out_shape: str, rank: int) -> linalg.GenericOp:
    dims = ", ".join(f"d{i}" for i in range(rank))
    text = f"""func.func @f(%a: memref<{in_shape}xi8>, %b: memref<{out_shape}xi8>) {{
  linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({in_map})>,
                                  affine_map<({dims}) -> ({dims})>],
                  iterator_types = [{", ".join(['"parallel"'] * rank)}]}}
      ins(%a : memref<{in_shape}xi8>) outs(%b : memref<{out_shape}xi8>) {{
  {BODY}
  func.return
}}"""
    return next(op for op in parse(text).walk() if isinstance(op, linalg.GenericOp))


def test_broadcast_input() -> None:
    w = np.arange(-6, 6, dtype=np.int8).reshape(3, 4)
    folded = fold_generic(_generic("d1, d2", "3x4", "2x3x4", 3), [w])
    np.testing.assert_array_equal(folded, np.broadcast_to(w, (2, 3, 4)))


def test_transposed_input() -> None:
    w = np.arange(12, dtype=np.int8).reshape(3, 4)
    folded = fold_generic(_generic("d1, d0", "3x4", "4x3", 2), [w])
    np.testing.assert_array_equal(folded, w.T)


def test_diagonal_not_folded() -> None:
    """A map naming a dimension twice reads a diagonal: not a transpose or broadcast."""
    assert fold_generic(_generic("d0, d0", "4x4", "4x4", 2), [np.zeros((4, 4), np.int8)]) is None
