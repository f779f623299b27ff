"""``vta-raise-loops`` on split (tiled) loops: a pair ``ko`` / ``ki`` used only as ``c * ko +
ki`` is one loop of ``c * N`` iterations, in contractions and element-wise nests, in affine and
scf form (MLIR's ``lower-affine`` of the affine text), bit-exact against numpy on every shipped
configuration, through the API and ``vta-run --check``; pairs that are not such a split, and
dependences between nests split differently, stay refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import vta_mlir
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.tools import vta_run

from .numerics import trunc8, wrap

# k split 4 x 16 and n split 2 x 16 in the contraction (the accumulator's initialisation in the
# same split loops), n split 4 x 8 in the epilogue.
TILED_MATMUL = """
func.func @tiled_matmul(%x: memref<4x64xi8>, %w: memref<32x64xi8>, %y: memref<4x32xi8>) {
  %zero = arith.constant 0 : i32
  %c6 = arith.constant 6 : i32
  %c127 = arith.constant 127 : i32
  %acc = memref.alloc() : memref<4x32xi32>
  affine.for %m = 0 to 4 {
    affine.for %no = 0 to 2 {
      affine.for %ni = 0 to 16 {
        affine.store %zero, %acc[%m, 16 * %no + %ni] : memref<4x32xi32>
        affine.for %ko = 0 to 4 {
          affine.for %ki = 0 to 16 {
            %a = affine.load %x[%m, 16 * %ko + %ki] : memref<4x64xi8>
            %b = affine.load %w[16 * %no + %ni, 16 * %ko + %ki] : memref<32x64xi8>
            %s0 = affine.load %acc[%m, 16 * %no + %ni] : memref<4x32xi32>
            %ae = arith.extsi %a : i8 to i32
            %be = arith.extsi %b : i8 to i32
            %p = arith.muli %ae, %be : i32
            %s = arith.addi %s0, %p : i32
            affine.store %s, %acc[%m, 16 * %no + %ni] : memref<4x32xi32>
          }
        }
      }
    }
  }
  affine.for %m = 0 to 4 {
    affine.for %no = 0 to 4 {
      affine.for %ni = 0 to 8 {
        %v = affine.load %acc[%m, 8 * %no + %ni] : memref<4x32xi32>
        %r = arith.shrsi %v, %c6 : i32
        %lo = arith.maxsi %r, %zero : i32
        %hi = arith.minsi %lo, %c127 : i32
        %t = arith.trunci %hi : i32 to i8
        affine.store %t, %y[%m, 8 * %no + %ni] : memref<4x32xi8>
      }
    }
  }
  memref.dealloc %acc : memref<4x32xi32>
  return
}
"""

# An element-wise sum over an index split twice: 16 * a + 4 * b + c.
SPLIT_TWICE = """
func.func @add(%x: memref<2x64xi8>, %z: memref<2x64xi8>, %y: memref<2x64xi8>) {
  affine.for %r = 0 to 2 {
    affine.for %a = 0 to 4 {
      affine.for %b = 0 to 4 {
        affine.for %c = 0 to 4 {
          %u = affine.load %x[%r, 16 * %a + 4 * %b + %c] : memref<2x64xi8>
          %v = affine.load %z[%r, 16 * %a + 4 * %b + %c] : memref<2x64xi8>
          %ue = arith.extsi %u : i8 to i32
          %ve = arith.extsi %v : i8 to i32
          %s = arith.addi %ue, %ve : i32
          %t = arith.trunci %s : i32 to i8
          affine.store %t, %y[%r, 16 * %a + 4 * %b + %c] : memref<2x64xi8>
        }
      }
    }
  }
  return
}
"""


def _tiled_matmul(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    acc = wrap(x.astype(np.int64) @ w.astype(np.int64).T, 32)
    return trunc8(np.clip(acc >> 6, 0, 127))


def _split_twice(x: np.ndarray, z: np.ndarray) -> np.ndarray:
    return trunc8(x.astype(np.int64) + z.astype(np.int64))


PROGRAMS = {
    "tiled_matmul": (TILED_MATMUL, [(4, 64), (32, 64)], _tiled_matmul),
    "split_twice": (SPLIT_TWICE, [(2, 64), (2, 64)], _split_twice),
}


def _form(text: str, form: str) -> str:
    if form == "affine":
        return text
    module = vta_mlir.run_pipeline(vta_mlir.parse(text), "lower-affine")
    printed = vta_mlir.print_ir(module)
    assert "affine." not in printed and "scf.for" in printed
    return printed


@pytest.mark.parametrize("form", ["affine", "scf"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_split_loops_bit_exact(name: str, form: str, cfg: VTAConfig) -> None:
    text, shapes, reference = PROGRAMS[name]
    rng = np.random.default_rng(5)
    inputs = [rng.integers(-128, 128, size=shape, dtype=np.int8) for shape in shapes]
    result = vta_mlir.compile(_form(text, form), config=cfg)(*inputs)
    (y,) = result if isinstance(result, tuple) else (result,)
    np.testing.assert_array_equal(y, reference(*inputs))


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("form", ["affine", "scf"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_split_loops_vta_run_check(name: str, form: str, config: str, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / f"{name}.mlir"
    path.write_text(_form(PROGRAMS[name][0], form))
    status = vta_run.main([str(path), "--random-inputs", "--check", "--config", config])
    out = capsys.readouterr()
    assert status == 0, out.err
    assert "check: PASS" in out.out


def test_split_loops_raise_to_one_dimension() -> None:
    raised = vta_mlir.print_ir(vta_mlir.run_pipeline(vta_mlir.parse(TILED_MATMUL),
                                                     "vta-raise-loops"))
    assert "affine.for" not in raised
    # The contraction over (m, n, k): three dimensions, not five.
    assert 'iterator_types = ["parallel", "parallel", "reduction"]' in raised


# ---- what is not a split stays refused ---------------------------------------------------------

# ki runs over 8 values but the index steps by 4 per ko: the iterations overlap.
OVERLAPPING = """
func.func @overlap(%x: memref<20xi8>, %y: memref<20xi8>) {
  affine.for %ko = 0 to 4 {
    affine.for %ki = 0 to 8 {
      %v = affine.load %x[4 * %ko + %ki] : memref<20xi8>
      affine.store %v, %y[4 * %ko + %ki] : memref<20xi8>
    }
  }
  return
}
"""

# Two nests in one ko loop, split by 2 and by 4: the second reads elements of %t the first writes
# at later iterations of ko, so computing one after the other would change the result.
SPLIT_DIFFERENTLY = """
func.func @skew(%x: memref<16xi32>, %t: memref<32xi32>, %y: memref<32xi32>) {
  affine.for %ko = 0 to 8 {
    affine.for %ki = 0 to 2 {
      %v = affine.load %x[2 * %ko + %ki] : memref<16xi32>
      affine.store %v, %t[2 * %ko + %ki] : memref<32xi32>
    }
    affine.for %kj = 0 to 4 {
      %w = affine.load %t[4 * %ko + %kj] : memref<32xi32>
      affine.store %w, %y[4 * %ko + %kj] : memref<32xi32>
    }
  }
  return
}
"""


@pytest.mark.parametrize(("text", "message"), [
    (OVERLAPPING, "not distinct loop variables"),
    (SPLIT_DIFFERENTLY, "loop-carried dependence between two nests in this loop"),
])
def test_non_splits_are_refused(text: str, message: str) -> None:
    with pytest.raises(DiagnosticError, match=message):
        vta_mlir.run_pipeline(vta_mlir.parse(text), "vta-raise-loops")
