"""Nearest upsampling by integer factors on VTA (``passes/pack/match_resize.py``,
``passes/tile/resize.py``): the linalg form torch-mlir writes (an input map ``(n, c, h, w) ->
(n, c, h floordiv fh, w floordiv fw)``), an ``i8`` copy or an ``i32`` buffer with an
epilogue, compiled, run on every shipped configuration and compared bit for bit with numpy
written here; a layer after it, and one error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vta_mlir import compile as vta_compile
from vta_mlir.config import VTAConfig
from vta_mlir.sim.hazards import program_hazards
from vta_mlir.tools import vta_opt


def _map(fh: int, fw: int) -> str:
    h = f"h floordiv {fh}" if fh > 1 else "h"
    w = f"w floordiv {fw}" if fw > 1 else "w"
    return f"affine_map<(n, c, h, w) -> (n, c, {h}, {w})>"


def resize_mlir(n: int, c: int, h: int, w: int, fh: int, fw: int, epilogue: bool) -> str:
    """``%x`` upsampled ``fh × fw`` into ``%y``: an i8 copy, or into an i32 buffer and then
    ``min((v >> 1) + 3, 50)``."""
    x_t, y_t = f"memref<{n}x{c}x{h}x{w}xi8>", f"memref<{n}x{c}x{h * fh}x{w * fw}xi8>"
    ident = "affine_map<(n, c, h, w) -> (n, c, h, w)>"
    iters = 'iterator_types = ["parallel", "parallel", "parallel", "parallel"]'
    if not epilogue:
        return f"""func.func @up(%x: {x_t}, %y: {y_t}) {{
  linalg.generic {{indexing_maps = [{_map(fh, fw)}, {ident}], {iters}}}
      ins(%x : {x_t}) outs(%y : {y_t}) {{
  ^bb0(%a: i8, %o: i8):
    linalg.yield %a : i8
  }}
  return
}}
"""
    acc_t = f"memref<{n}x{c}x{h * fh}x{w * fw}xi32>"
    return f"""func.func @up(%x: {x_t}, %y: {y_t}) {{
  %acc = memref.alloc() : {acc_t}
  linalg.generic {{indexing_maps = [{_map(fh, fw)}, {ident}], {iters}}}
      ins(%x : {x_t}) outs(%acc : {acc_t}) {{
  ^bb0(%a: i8, %o: i32):
    %e = arith.extsi %a : i8 to i32
    linalg.yield %e : i32
  }}
  linalg.generic {{indexing_maps = [{ident}, {ident}], {iters}}}
      ins(%acc : {acc_t}) outs(%y : {y_t}) {{
  ^bb0(%v: i32, %o: i8):
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32
    %c50 = arith.constant 50 : i32
    %s = arith.shrsi %v, %c1 : i32
    %a = arith.addi %s, %c3 : i32
    %m = arith.minsi %a, %c50 : i32
    %t = arith.trunci %m : i32 to i8
    linalg.yield %t : i8
  }}
  return
}}
"""


def resize_reference(x: np.ndarray, fh: int, fw: int, epilogue: bool) -> np.ndarray:
    y = x.repeat(fh, axis=2).repeat(fw, axis=3).astype(np.int32)
    return (np.minimum((y >> 1) + 3, 50) if epilogue else y).astype(np.int8)


@pytest.mark.parametrize(("c", "h", "w", "fh", "fw", "epilogue"), [
    (16, 4, 3, 2, 2, False),
    (40, 5, 6, 2, 2, True),      # channels not whole blocks; an epilogue
    (16, 3, 4, 3, 1, False),     # rows only
    (32, 2, 5, 1, 3, True),      # columns only
    (16, 48, 40, 2, 2, False),   # several tiles (double-buffered)
])
def test_resize_matches_numpy(cfg: VTAConfig, c: int, h: int, w: int, fh: int, fw: int,
                              epilogue: bool) -> None:
    n = cfg.batch
    x = np.random.default_rng(c + h + w).integers(-128, 128, (n, c, h, w), dtype=np.int8)
    module = vta_compile(resize_mlir(n, c, h, w, fh, fw, epilogue), config=cfg)
    (y,) = module(x)
    assert module.last_run.warnings == []
    assert program_hazards(module.module.program, cfg) == []
    np.testing.assert_array_equal(y, resize_reference(x, fh, fw, epilogue))


def test_resize_that_computes_is_diagnosed(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    text = resize_mlir(1, 16, 4, 4, 2, 2, False).replace(
        "    linalg.yield %a : i8", "    %d = arith.addi %a, %a : i8\n    linalg.yield %d : i8")
    path = tmp_path / "bad.mlir"
    path.write_text(text)
    assert vta_opt.main([str(path), "-p", "vta-pack"]) == 1
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1 and "computes on it: VTA upsamples a copy of the data" in errors[0]
