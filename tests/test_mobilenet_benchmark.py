"""The MobileNetV2 benchmark (``benchmarks/mobilenet_v2.py``) on a small input: it builds,
quantizes, imports, compiles and runs the network and prints its figures, the two bounds
agreeing with the ones counted here from MobileNetV2's architecture; a failing step is one line
and exit status 1.  The agreement with onnxruntime is printed, not judged here (the integer
semantics are checked by ``tests/test_onnx_import.py`` and ``tests/test_onnx_depthwise.py``)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
for folder in (ROOT / "benchmarks", ROOT / "examples" / "onnx"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

import mobilenet_v2 as bench  # noqa: E402
import models  # noqa: E402

#: (t, c, n, s) of MobileNetV2's inverted residual stages.
STAGES = ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
          (6, 160, 3, 2), (6, 320, 1, 1))


def mobilenet_counts(size: int, classes: int, block: int = 16) -> tuple[int, int, int, int]:
    """Width 1.0 MobileNetV2's dense MACs, depthwise MACs, depthwise tap cycles (one per tap per
    ``block`` channels per output position) and output vectors (``block`` channels at one
    position) of its convolutions and fully connected layer, at batch 1."""
    def blocks(channels: int) -> int:
        return -(-channels // block)

    side = -(-size // 2)
    dense, dw, taps, vectors = 32 * side * side * 27, 0, 0, blocks(32) * side * side
    cin = 32
    for t, c, n, s in STAGES:
        for index in range(n):
            hidden = cin * t
            if t > 1:
                dense += cin * hidden * side * side
                vectors += blocks(hidden) * side * side
            side = -(-side // (s if index == 0 else 1))
            dw += hidden * 9 * side * side
            taps += 9 * blocks(hidden) * side * side
            dense += hidden * c * side * side
            vectors += (blocks(hidden) + blocks(c)) * side * side
            cin = c
    dense += 320 * 1280 * side * side + 1280 * classes
    vectors += blocks(1280) * side * side + blocks(classes)
    return dense, dw, taps, vectors


@pytest.mark.slow  # 64 layers to compile: the ResNet-18 benchmark's test is the short form
def test_runs_and_prints_the_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    figures = tmp_path / "figures.json"
    status = bench.main(["--size", "32", "--classes", "10", "--no-progress",
                         "--json", str(figures)])
    out = capsys.readouterr().out
    assert status == 0, out
    # 52 convolutions (17 depthwise), 10 residual Adds, the pool and the classifier; each Add
    # runs in the epilogue of its block's projection (docs/onnx.md §4.5).
    assert out.startswith("mobilenet_v2: input (1, 3, 32, 32), output (1, 10), 64 layers (10 "
                          "Adds fused into a layer's epilogue), ")
    dense, dw, taps, vectors = mobilenet_counts(32, 10)
    gemm = -(-(dense + dw) // 256)  # BATCH·BLOCK_IN·BLOCK_OUT of the default configuration
    aware = -(-dense // 256) + taps + 5 * vectors
    total = re.search(rf"^total\s+-\s+{dense + dw:,}\s+{gemm:,}\s+{aware:,}\s+([\d,]+)\s+"
                      r"([\d.]+)\s+([\d.]+)\s", out, re.M)
    assert total, out
    cycles = int(total[1].replace(",", ""))
    assert cycles > aware > gemm
    assert total[2] == f"{cycles / gemm:.2f}" and total[3] == f"{cycles / aware:.2f}"
    # The first block's depthwise layer: 32 channels at 16×16, two blocks of channels.
    row = re.search(r"^features\.1\.dw\s+depthwise\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)\s+[\d,]+\s",
                    out, re.M)
    assert row and row.groups() == (f"{32 * 256 * 9:,}", f"{32 * 256 * 9 // 256:,}",
                                    f"{9 * 2 * 256 + 5 * 2 * 256:,}"), out
    for name, kind in (("features.0", "conv"), ("features.2.expand", "conv"),
                       ("features.3.project", r"conv\+add"), ("avgpool", "avgpool"),
                       ("classifier", "dense")):
        assert re.search(rf"^{re.escape(name)}\s+{kind}\s+[\d,]+\s+[\d,]+\s+[\d,]+\s+[\d,]+\s",
                         out, re.M), name
    assert re.search(rf"^MACs: {dense + dw:,} \({dw:,} depthwise\); vta_mac_fraction 1\.0000; "
                     r"2 host steps$", out, re.M), out
    assert re.search(r"^compile [\d.]+ s, run [\d.]+ s \(of which host steps [\d.]+ s\), "
                     r"peak memory [\d,]+ MB$", out, re.M), out
    assert re.search(r"^onnxruntime agreement: [\d.]+ % of \(1, 10\) outputs within one step "
                     r"\([\d.e-]+\), worst \d+ steps$", out, re.M), out
    result = json.loads(figures.read_text())["results"][0]
    assert result["config"] == "default" and result["cycles"] == cycles
    assert result["vta_mac_fraction"] == 1.0
    assert sum(b["macs"] for b in result["layer_bounds"]) == dense + dw
    assert not re.search(r"^features\.\d+\.add\s", out, re.M), out
    assert len(result["layers"]) == 64 - 10 and 0 <= result["within_one_step"] <= 1


def test_a_failing_step_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("no graph\nsecond line")

    monkeypatch.setattr(models, "mobilenet_v2", broken)
    assert bench.main(["--size", "32", "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert out == "mobilenet_v2: error: build: ValueError: no graph\n"
