"""``vta_mlir.trace``: the Chrome / Perfetto trace of a compiled program from Python, the same
JSON object ``vta-run --trace`` writes (both call :func:`vta_mlir.sim.trace.trace_json`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import vta_mlir
from vta_mlir import VTAError, compile, lower, trace
from vta_mlir.config import VTAConfig
from vta_mlir.tools import vta_run

#: Two element-wise layers, the first named by its location.
ADD = """linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>,
      affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}}
      ins(%{0}, %{1} : memref<2x32xi32>, memref<2x32xi32>) outs(%{2} : memref<2x32xi8>) {{
    ^bb0(%p: i32, %q: i32, %o: i8):
      %s = arith.addi %p, %q : i32
      %t = arith.trunci %s : i32 to i8
      linalg.yield %t : i8
    }}"""
TWO_LAYERS = f"""func.func @two(%a: memref<2x32xi32>, %b: memref<2x32xi32>, %y: memref<2x32xi8>,
                 %c: memref<2x32xi32>, %d: memref<2x32xi32>, %z: memref<2x32xi8>) {{
  {ADD.format("a", "b", "y")} loc("first")
  {ADD.format("c", "d", "z")} loc("second")
  return
}}
"""


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "two.mlir"
    path.write_text(TWO_LAYERS)
    return path


def test_trace_of_a_loaded_module(cfg: VTAConfig, program: Path) -> None:
    mod = compile(program, config=cfg)
    arrays = [np.full((2, 32), k, dtype=np.int32) for k in (1, 2, 3, 4)]
    mod(*arrays)
    data = trace(mod)
    # Valid JSON as it is (no NaN, only JSON types).
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    events = data["traceEvents"]
    threads = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert {"load", "compute", "store", "layers"} <= threads
    slices = [e for e in events if e["ph"] == "X"]
    layers = [e["name"] for e in slices if e["cat"] == "layer"]
    assert layers == ["first", "second"]
    assert len(slices) - len(layers) == mod.module.program.num_insns
    assert data["otherData"]["cycles"] == mod.last_run.cycles  # type: ignore[union-attr]
    assert data["otherData"]["model"] == cfg.model


def test_trace_matches_vta_run(
    program: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    written = tmp_path / "trace.json"
    status = vta_run.main([str(program), "--config", "batch2", "--random-inputs", "--trace",
                           str(written)])
    assert status == 0, capsys.readouterr().err
    from_file = json.loads(written.read_text())
    mod = compile(program, config="batch2")
    # The trace depends on the instructions only: before a call, after one, from the source.
    assert trace(mod) == from_file
    mod(*[np.ones((2, 32), dtype=np.int32)] * 4)
    assert trace(mod) == from_file
    assert trace(program, config="batch2") == from_file
    assert trace(lower(program, config="batch2")) == from_file
    assert vta_mlir.trace is trace


def test_trace_errors(program: Path) -> None:
    mod = compile(program)  # the default configuration
    with pytest.raises(VTAError, match="loaded on a device for"):
        trace(mod, config="block32")
    with pytest.raises(TypeError):
        trace(42)  # type: ignore[arg-type]
