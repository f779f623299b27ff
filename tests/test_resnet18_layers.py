"""The ResNet-18 layer table and benchmark (``benchmarks/resnet18_layers.py``,
``benchmarks/resnet18.py``):

* the bounds computed from a layer's shape and the configuration, against hand-computed values
  (C8 against ``docs/performance.md`` §5.1's figures);
* ``reference`` against a direct loop implementation, and against the numpy evaluation of the
  generated MLIR (``vta_mlir.reference.evaluate``) in every form ``conv_mlir`` writes;
* ``conv_mlir`` parses and goes through ``vta-pack``;
* the benchmark's run and report code on a program that compiles (a dense layer), with the
  layer figures around it, and its command line on a real layer: one line per layer (a failure
  is the first line of its error, never a traceback), exit status 0 or 1 with it.

``benchmarks/`` is not a package (xDSL installs a top-level ``benchmarks`` of its own), so its
modules are imported from the directory.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vta_mlir import lower, parse, print_ir, run_pipeline
from vta_mlir.config import VTAConfig
from vta_mlir.reference import evaluate

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import resnet18 as bench  # noqa: E402
import resnet18_layers as rl  # noqa: E402

DEFAULT = VTAConfig.load("default")


# ---------------------------------------------------------------------------------------------
# The table and the bounds


def test_table_is_section_6_2() -> None:
    assert [layer.name for layer in rl.LAYERS] == [f"C{i}" for i in range(1, 12)]
    c8 = rl.by_name("C8")
    assert dataclasses.astuple(c8) == ("C8", 1, 14, 14, 256, 256, 3, 3, 1, 1, 1, 1)
    assert (c8.out_height, c8.out_width) == (14, 14)
    assert rl.by_name("C1").y_shape == (1, 64, 112, 112)
    assert rl.by_name("c4").y_shape == (1, 128, 28, 28)
    assert rl.by_name("C9").y_shape == (1, 512, 7, 7)
    assert [layer.name for layer in rl.LAYERS if not layer.padded] == ["C4", "C7", "C10"]
    assert all(layer.batch == 2 for layer in rl.layers(VTAConfig.load("batch2")))
    with pytest.raises(KeyError, match="unknown layer"):
        rl.by_name("C12")


def test_c8_bounds() -> None:
    c8 = rl.by_name("C8")
    assert rl.macs(c8) == 115_605_504
    assert rl.gemm_bound(c8, DEFAULT) == 451_584  # docs/performance.md §5.1 gemm_counter
    assert rl.alu_cycles(c8, DEFAULT) == 5 * 3_136
    assert rl.compute_bound(c8, DEFAULT) == 467_264
    assert rl.compute_bound(c8, DEFAULT, residual=True) == 451_584 + 7 * 3_136
    # docs/performance.md §5.1: input 50,176 B, weights 589,824 B, output 50,176 B.
    assert rl.compulsory(c8, DEFAULT) == {"inp": 50_176, "wgt": 589_824, "acc": 16 * 64,
                                          "out": 50_176}
    assert rl.compulsory(c8, DEFAULT, residual=True)["acc"] == 16 * 64 + 50_176
    assert rl.compulsory_bytes(c8, DEFAULT) == 50_176 + 589_824 + 1_024 + 50_176


def test_strided_1x1_layers_read_a_quarter_of_their_input() -> None:
    c4 = rl.by_name("C4")
    whole = 64 * 56 * 56
    assert rl.compulsory(c4, DEFAULT) == {"inp": whole // 4, "wgt": 128 * 64, "acc": 8 * 64,
                                          "out": 128 * 28 * 28}
    c10 = rl.by_name("C10")
    assert rl.compulsory(c10, DEFAULT)["inp"] == 256 * 14 * 14 // 4
    assert rl.macs(c4) == 28 * 28 * 64 * 128
    assert rl.gemm_bound(c4, DEFAULT) == 8 * 4 * 28 * 28


def test_bounds_round_channels_and_batch_up_to_blocks() -> None:
    c1 = rl.by_name("C1")                                   # 3 input channels: one block
    assert rl.macs(c1) == 112 * 112 * 49 * 3 * 64
    assert rl.gemm_bound(c1, DEFAULT) == 4 * 1 * 112 * 112 * 49
    assert rl.compulsory(c1, DEFAULT)["inp"] == 224 * 224 * 16   # every row and column read
    assert rl.compulsory(c1, DEFAULT)["wgt"] == 4 * 1 * 49 * 256

    block32 = VTAConfig.load("block32")
    c8 = rl.by_name("C8", block32)
    assert rl.gemm_bound(c8, block32) == 8 * 8 * 196 * 9
    assert rl.compute_bound(c8, block32) == 8 * 8 * 196 * 9 + 5 * 8 * 196
    assert rl.gemm_bound(rl.by_name("C1", block32), block32) == 2 * 1 * 112 * 112 * 49

    batch2 = VTAConfig.load("batch2")
    c8 = rl.by_name("C8", batch2)
    assert c8.batch == 2 and rl.macs(c8) == 2 * 115_605_504
    assert rl.gemm_bound(c8, batch2) == 451_584             # one GEMM serves both rows
    assert rl.compulsory(c8, batch2)["inp"] == 16 * 196 * 32
    assert rl.compulsory(c8, batch2)["acc"] == 16 * 2 * 16 * 4


def test_bounds_need_no_run() -> None:
    """The figures of a layer that does not compile are still all there."""
    row = bench.bounds(rl.by_name("C8"), DEFAULT, residual=False)
    assert (row["macs"], row["gemm_bound"], row["compute_bound"]) == (115_605_504, 451_584,
                                                                      467_264)


# ---------------------------------------------------------------------------------------------
# The numpy reference and the MLIR


def _direct(layer: rl.Layer, x: np.ndarray, w: np.ndarray, bias: np.ndarray,
            res: np.ndarray | None) -> np.ndarray:
    n, c, h, wd = layer.x_shape
    y = np.zeros(layer.y_shape, dtype=np.int8)
    for b in range(n):
        for f in range(layer.out_filter):
            for oh in range(layer.out_height):
                for ow in range(layer.out_width):
                    total = 0
                    for ch in range(c):
                        for i in range(layer.hkernel):
                            for j in range(layer.wkernel):
                                r = oh * layer.hstride + i - layer.hpad
                                s = ow * layer.wstride + j - layer.wpad
                                if 0 <= r < h and 0 <= s < wd:
                                    total += int(x[b, ch, r, s]) * int(w[f, ch, i, j])
                    v = (total >> 8) + int(bias[f])
                    if res is not None:
                        v += int(res[b, f, oh, ow])
                    y[b, f, oh, ow] = max(min(v, 127), 0)
    return y


#: Small layers: padding and stride in each direction, channels not whole blocks.
TINY = [
    rl.Layer("T1", 2, 5, 6, 3, 4, 3, 2, 1, 0, 2, 1),
    rl.Layer("T2", 1, 7, 7, 5, 6, 3, 3, 1, 1, 1, 1),
    rl.Layer("T3", 1, 6, 6, 4, 3, 1, 1, 0, 0, 2, 2),
]


@pytest.mark.parametrize("layer", TINY, ids=lambda layer: layer.name)
@pytest.mark.parametrize("residual", [False, True], ids=["", "residual"])
def test_reference_against_loops(layer: rl.Layer, residual: bool) -> None:
    rng = np.random.default_rng(7)
    x, w, bias, *res = rl.random_inputs(layer, rng, residual=residual)
    bias = (bias // 64).astype(np.int32)        # keep some outputs inside (0, 127)
    r = res[0] if res else None
    want = _direct(layer, x, w, bias, r)
    got = rl.reference(layer, x, w, bias, r)
    assert got.dtype == np.int8 and got.shape == layer.y_shape
    assert np.array_equal(got, want)
    assert 0 < np.count_nonzero(want) < want.size


@pytest.mark.parametrize("layer", TINY, ids=lambda layer: layer.name)
@pytest.mark.parametrize("residual", [False, True], ids=["", "residual"])
@pytest.mark.parametrize("generic", [False, True], ids=["named", "generic"])
def test_mlir_computes_the_reference(layer: rl.Layer, residual: bool, generic: bool) -> None:
    text = rl.conv_mlir(layer, residual=residual, generic=generic)
    inputs = rl.random_inputs(layer, np.random.default_rng(3), residual=residual)
    (got,) = evaluate(text, inputs)
    assert np.array_equal(got, rl.reference(layer, *inputs))


def test_mlir_forms() -> None:
    padded = rl.conv_mlir(rl.by_name("C8"))
    assert "func.func @conv(%x: memref<1x256x14x14xi8>, %w: memref<256x256x3x3xi8>, " \
           "%bias: memref<256xi32>, %y: memref<1x256x14x14xi8>)" in padded
    assert "%xp = memref.alloc() : memref<1x256x16x16xi8>" in padded
    assert "linalg.fill ins(%c0_i8 : i8) outs(%xp" in padded
    assert "memref.subview %xp[0, 0, 1, 1] [1, 256, 14, 14] [1, 1, 1, 1]" in padded
    assert "memref.copy %x, %xin" in padded
    assert "ins(%xp, %w" in padded and padded.count("linalg.generic") == 1

    c4 = rl.conv_mlir(rl.by_name("C4"))
    assert "memref.subview" not in c4 and "%xp" not in c4 and "ins(%x, %w" in c4
    assert "strides = dense<2> : tensor<2xi64>" in c4

    generic = rl.conv_mlir(rl.by_name("C3"), generic=True, residual=True)
    assert "linalg.conv_2d" not in generic
    assert "-> (n, c, oh * 2 + kh, ow * 2 + kw)" in generic
    assert "%res: memref<1x128x28x28xi8>, %y: memref<1x128x28x28xi8>" in generic
    assert "arith.extsi %r : i8 to i32" in generic

    rect = rl.conv_mlir(TINY[0], generic=False)
    assert "strides = dense<[2, 1]> : tensor<2xi64>" in rect


@pytest.mark.parametrize("name", ["C1", "C4", "C7", "C8", "C10"])
@pytest.mark.parametrize("form", ["named", "residual", "generic"])
def test_pack_takes_the_layers(name: str, form: str) -> None:
    text = rl.conv_mlir(rl.by_name(name), residual=form == "residual", generic=form == "generic")
    module = parse(text, filename=f"{name}.mlir", config="default")
    run_pipeline(module, "vta-pack")
    packed = print_ir(module)
    assert "vta.arg" in packed and "linalg.conv_2d" not in packed


def test_pack_takes_the_layers_on_batch2() -> None:
    batch2 = VTAConfig.load("batch2")
    for name in ("C4", "C8"):
        module = parse(rl.conv_mlir(rl.by_name(name, batch2)), config=batch2)
        run_pipeline(module, "vta-pack")


# ---------------------------------------------------------------------------------------------
# The benchmark


def _dense_run() -> dict[str, Any]:
    """``run_binary``'s figures for a program the pipeline compiles today."""
    path = ROOT / "examples" / "dense_bias_relu.mlir"
    binary = lower(path, config=DEFAULT)
    from vta_mlir.tools.vta_run import random_inputs

    inputs = random_inputs(binary.inputs, 0)
    (expected,) = evaluate(path, inputs)
    return bench.run_binary(binary, DEFAULT, inputs, expected)


def test_run_binary_reports_a_real_run() -> None:
    run = _dense_run()
    assert run["check"] == "PASS"
    assert run["cycles"] > 0 and run["instructions"] > 0 and run["uop_words_loaded"] > 0
    assert set(run["busy"]) == set(run["utilisation"]) == {"load", "compute", "store"}
    assert 0 < run["utilisation"]["compute"] <= 1
    assert set(run["dram"]) == {"inp", "wgt", "acc", "out"}
    assert run["dram"]["wgt"] == run["counters"]["wgt_load_nbytes"] > 0


def test_report_once_layers_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    """The tables and the summary when layers compile (figures of a real run of another
    program), one layer failing."""
    run = _dense_run()

    def measure(layer: rl.Layer, cfg: VTAConfig, *, seed: int, residual: bool = False,
                double_buffer_compare: bool = False) -> dict[str, Any]:
        if layer.name == "C9":
            raise RuntimeError("no room\nsecond line")
        row = {**bench.bounds(layer, cfg, residual), **run, "compile_seconds": 0.5}
        if double_buffer_compare:
            row["double_buffer_false"] = {**run, "cycles": 2 * run["cycles"],
                                          "compile_seconds": 0.25}
        return row

    monkeypatch.setattr(bench, "measure_layer", measure)
    out_json = tmp_path / "r.json"
    status = bench.main(["--layers", "C8,C9,C1", "--no-progress", "--double-buffer-compare",
                         "--json", str(out_json)])
    out = capsys.readouterr().out
    assert status == 1
    lines = out.splitlines()
    c8 = next(line for line in lines if line.startswith("C8 "))
    assert "115,605,504" in c8 and "451,584" in c8 and "467,264" in c8 and "PASS" in c8
    assert any(line.startswith("C9 ") and line.endswith("failed: RuntimeError: no room")
               for line in lines)
    assert "second line" not in out
    assert any(line.startswith("total (2)") for line in lines)
    assert "DRAM bytes moved" in out and "double buffering" in out
    assert any(line.startswith("C8 ") and "2.000" in line for line in lines)   # the gain
    summary = lines[-1]
    assert summary.startswith("summary: C2-C11: 1 of 2 selected layers ran")
    assert f"C8 {run['cycles']:,} cycles vs TVM 567,724" in summary
    assert summary.endswith("compile 1.00 s (2 layers)")
    payload = json.loads(out_json.read_text())
    assert payload["layers"]["C9"]["error"] == "RuntimeError: no room"
    assert payload["layers"]["C8"]["gemm_bound"] == 451_584
    assert payload["summary"]["tvm_c8_cycles"] == 567_724


def test_cli_reports_each_layer_on_one_line(tmp_path: Path) -> None:
    """Before the pipeline compiles convolutions: a ``failed:`` line with the first line of
    the diagnostic and status 1; after: a checked row and status 0.  Never a traceback."""
    out_json = tmp_path / "r.json"
    proc = subprocess.run(
        [sys.executable, str(BENCH / "resnet18.py"), "--layers", "C10", "--no-progress",
         "--json", str(out_json)],
        capture_output=True, text=True, timeout=600, cwd=tmp_path)
    text = proc.stdout + proc.stderr
    assert "Traceback" not in text, text
    assert proc.returncode in (0, 1), text
    rows = [line for line in proc.stdout.splitlines() if line.startswith("C10 ")]
    row = json.loads(out_json.read_text())["layers"]["C10"]
    if proc.returncode == 1:
        # A failed layer is one line of the first table, and in no other table.
        assert len(rows) == 1 and "failed: " in rows[0], proc.stdout
        assert "\n" not in row.get("error", "")
    else:
        # The performance row, then the DRAM row.
        assert len(rows) == 2 and rows[0].endswith("PASS"), proc.stdout
        assert row["check"] == "PASS" and row["cycles"] >= row["gemm_bound"] == 25_088
    assert proc.stdout.splitlines()[-1].startswith("summary: ")


def test_cli_rejects_unknown_layers() -> None:
    proc = subprocess.run([sys.executable, str(BENCH / "resnet18.py"), "--layers", "C2,C13"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "unknown layer(s) C13" in proc.stderr and "Traceback" not in proc.stderr
