"""``host-fallback=any``: an integer op VTA cannot lower runs on the host instead of being an
error (``vta-to-isa{host-fallback=any}``, ``vta-run --host-fallback=any``, ``compile(...,
host_fallback="any")``), bit for bit as numpy computes it here, on every shipped
configuration; by default it stays an error naming the op and its line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vta_mlir import VTAError, compile, lower, parse, print_ir, run_pipeline
from vta_mlir.config import VTAConfig
from vta_mlir.ir.diagnostics import DiagnosticError
from vta_mlir.tools import vta_run

IDENTITY = "affine_map<(i, j) -> (i, j)>"
#: A VTA layer, then a division by 3 (no ALU operation divides).
PROGRAM = f"""func.func @f(%x: memref<4x32xi8>, %w: memref<32x16xi8>, %y: memref<4x16xi8>) {{
  %h = memref.alloc() : memref<4x16xi8>
  %acc = memref.alloc() : memref<4x16xi32>
  %c0 = arith.constant 0 : i32
  linalg.fill ins(%c0 : i32) outs(%acc : memref<4x16xi32>)
  linalg.matmul ins(%x, %w : memref<4x32xi8>, memref<32x16xi8>) outs(%acc : memref<4x16xi32>)
  linalg.generic {{indexing_maps = [{IDENTITY}, {IDENTITY}],
                  iterator_types = ["parallel", "parallel"]}}
      ins(%acc : memref<4x16xi32>) outs(%h : memref<4x16xi8>) {{
  ^bb0(%a: i32, %o: i8):
    %c6 = arith.constant 6 : i32
    %s = arith.shrsi %a, %c6 : i32
    %t = arith.trunci %s : i32 to i8
    linalg.yield %t : i8
  }}
  linalg.generic {{indexing_maps = [{IDENTITY}, {IDENTITY}],
                  iterator_types = ["parallel", "parallel"]}}
      ins(%h : memref<4x16xi8>) outs(%y : memref<4x16xi8>) {{
  ^bb0(%a: i8, %o: i8):
    %c3 = arith.constant 3 : i8
    %d = arith.divsi %a, %c3 : i8
    linalg.yield %d : i8
  }}
  return
}}
"""


def reference(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    h = ((((x.astype(np.int64) @ w.astype(np.int64)) >> 6) + 128) % 256 - 128)
    return (np.sign(h) * (np.abs(h) // 3)).astype(np.int8)  # divsi rounds toward zero


def test_by_default_the_op_is_an_error() -> None:
    with pytest.raises(DiagnosticError, match="'arith.divsi' op is not supported"):
        lower(PROGRAM)


def test_any_runs_it_on_the_host(cfg: VTAConfig) -> None:
    rng = np.random.default_rng(4)
    x = rng.integers(-128, 128, size=(4, 32), dtype=np.int8)
    w = rng.integers(-128, 128, size=(32, 16), dtype=np.int8)
    module = compile(PROGRAM, config=cfg, host_fallback="any")
    (y,) = module(x, w)
    assert np.array_equal(y, reference(x, w))
    steps = [s for s in module.last_run.host_steps if s["step"] == "compute"]  # type: ignore[union-attr]
    assert len(steps) == 1 and module.last_run.runs == 1  # type: ignore[union-attr]


def test_the_pipeline_option_outlines_the_refused_op_only() -> None:
    module = run_pipeline(parse(PROGRAM), "vta-outline-host-steps{fallback=any}")
    text = print_ir(module)
    host = text[text.index("vta.host "):]
    assert text.count("vta.host ") == 1 and "arith.divsi" in host and "linalg.matmul" not in host
    with pytest.raises(VTAError, match="host-fallback is 'float' or 'any'"):
        lower(PROGRAM, pipeline="vta-to-isa{host-fallback=gpu}")
    with pytest.raises(VTAError, match="requant is 'none' or 'fixed-point', not 'bogus'"):
        lower(PROGRAM, pipeline="vta-to-isa{requant=bogus}")


def test_vta_run_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "div.mlir"
    source.write_text(PROGRAM)
    assert vta_run.main([str(source), "--random-inputs", "--check"]) == 1
    capsys.readouterr()
    assert vta_run.main([str(source), "--random-inputs", "--check",
                         "--host-fallback=any"]) == 0
    out, err = capsys.readouterr()
    assert out.endswith("check: PASS\n")
    assert err.startswith("vta-run: warning: ran on the host, not on VTA: host@")
