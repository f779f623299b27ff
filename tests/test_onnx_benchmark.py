"""The ONNX ResNet-18 benchmark (``benchmarks/onnx_resnet18.py``) on a small input: it builds,
quantizes, imports, compiles and runs the network and prints its figures; a failing step is one
line and exit status 1.  The agreement with onnxruntime is printed, not judged here (the
integer semantics are checked by ``tests/test_onnx_import.py``)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "benchmarks") not in sys.path:
    sys.path.insert(0, str(ROOT / "benchmarks"))

import onnx_resnet18 as bench  # noqa: E402


def resnet18_macs(size: int, classes: int) -> int:
    """ResNet-18's multiply-accumulates, counted from its architecture: the 7×7 stride-2 stem,
    the stride-2 max-pool, four stages of two basic blocks (3×3 convolutions, a 1×1 stride-2
    shortcut where a stage starts with stride 2), and the fully connected layer."""
    def conv(cin: int, cout: int, k: int, out: int) -> int:
        return cout * out * out * cin * k * k

    side = size // 2
    macs = conv(3, 64, 7, side)
    side //= 2  # the max-pool
    cin = 64
    for stage, cout in enumerate((64, 128, 256, 512)):
        for block in range(2):
            if stage and not block:
                side //= 2
                macs += conv(cin, cout, 1, side)
            macs += conv(cin, cout, 3, side) + conv(cout, cout, 3, side)
            cin = cout
    return macs + 512 * classes


def test_runs_and_prints_the_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    figures = tmp_path / "figures.json"
    status = bench.main(["--size", "32", "--classes", "10", "--no-progress",
                         "--json", str(figures)])
    out = capsys.readouterr().out
    assert status == 0, out
    # Each block's Add runs in the epilogue of its second convolution (docs/onnx.md §4.5).
    assert out.startswith("resnet18: input (1, 3, 32, 32), output (1, 10), 31 layers (8 Adds "
                          "fused into a layer's epilogue); ")
    assert re.search(r"^built and quantized in [\d.]+ s, imported in [\d.]+ s, onnxruntime "
                     r"\(CPU, ORT_DISABLE_ALL\) in [\d.]+ s$", out, re.M), out
    macs = resnet18_macs(32, 10)
    bound = -(-macs // 256)  # BATCH·BLOCK_IN·BLOCK_OUT of the default configuration
    total = re.search(rf"^total\s+{macs:,}\s+{bound:,}\s+([\d,]+)\s+([\d.]+)\s", out, re.M)
    assert total, out
    cycles = int(total[1].replace(",", ""))
    assert cycles > bound and total[2] == f"{cycles / bound:.2f}"
    # The layers' critical cycles add up to the total.
    assert re.search(rf"^total\s+{macs:,}\s+{bound:,}\s+{cycles:,}\s+[\d.]+\s+{cycles:,}\s+-$",
                     out, re.M), out
    # One row per layer, named after the ONNX nodes, with the layer's own MACs.
    conv1 = re.search(r"^conv1\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)\s+([\d.]+)\s+([\d,]+)\s+\w+$",
                      out, re.M)
    assert conv1 and conv1[1] == f"{64 * 16 * 16 * 3 * 49:,}", out
    for name in ("layer2.0.downsample", "layer4.1.conv2", "avgpool", "fc"):
        assert re.search(rf"^{re.escape(name)}\s+[\d,]+\s+[\d,]+\s+[\d,]+\s", out, re.M), name
    # The residual Adds run in their second convolution's epilogue (docs/onnx.md §4.5) and
    # the max-pool within conv1 (vta-tile fuses it): no rows of their own, and a note.
    assert not re.search(r"^(maxpool|layer\d\.\d\.add)\s", out, re.M), out
    assert "(no layer of their own: maxpool, layer1.0.add" in out, out
    assert re.search(r"^compile [\d.]+ s, run [\d.]+ s \(of which host steps [\d.]+ s\), "
                     r"peak memory [\d,]+ MB$", out, re.M), out
    assert re.search(r"^onnxruntime agreement: [\d.]+ % of \(1, 10\) outputs within one step "
                     r"\([\d.e-]+\), worst \d+ steps$", out, re.M), out
    payload = json.loads(figures.read_text())
    result = payload["results"][0]
    assert result["config"] == "default" and result["cycles"] == cycles
    assert sum(b["macs"] for b in result["layer_bounds"]) == macs
    # 31 layers of the model: the 8 Adds fused into convolutions, the max-pool into conv1.
    assert len(result["layers"]) == 31 - 8 - 1 and 0 <= result["within_one_step"] <= 1


def test_a_failing_step_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "broken.onnx"
    model.write_bytes(b"not a model")
    assert bench.main(["--torch-model", str(model), "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert out.strip().splitlines() == [out.strip()] and "Traceback" not in out
    assert out.startswith("onnx_resnet18: error: build: ")
