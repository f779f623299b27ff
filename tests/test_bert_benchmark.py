"""The encoder benchmark (``benchmarks/bert_encoder.py``) on a tiny shape: it builds both
quantized forms, runs the static one and prints its figures, the bound agreeing with the one
counted here from the encoder's shape; the dynamic form runs beside it with its own figures;
``--json`` writes its file all at once. The agreement with onnxruntime is printed, not judged here
(``tests/test_onnx_attention.py`` checks it)."""

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

import bert_encoder as bench  # noqa: E402

from vta_mlir.config import VTAConfig  # noqa: E402


def encoder_counts(layers: int, seq: int, hidden: int, heads: int, ffn: int,
                   cfg: VTAConfig) -> tuple[int, int, int]:
    """The MatMuls' MACs, output vectors and constant weight bytes of the encoder."""
    def vectors(rows: int, cols: int) -> int:
        return -(-rows // cfg.batch) * -(-cols // cfg.block_out)

    d = hidden // heads
    macs = layers * (4 * seq * hidden * hidden + 2 * seq * hidden * ffn
                     + 2 * heads * seq * seq * d)
    count = layers * (4 * vectors(seq, hidden) + vectors(seq, ffn) + vectors(seq, hidden)
                      + heads * (vectors(seq, seq) + vectors(seq, d)))
    weights = layers * (4 * hidden * hidden + 2 * hidden * ffn)
    return macs, count, weights


def test_runs_and_prints_the_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    figures = tmp_path / "figures.json"
    figures.write_text("figures of an earlier run\n")
    earlier = figures.stat().st_ino
    shape = ["--layers", "1", "--seq", "16", "--hidden", "32", "--heads", "2", "--ffn", "64"]
    assert bench.main([*shape, "--no-progress", "--json", str(figures)]) == 0
    # --json replaces the file by a complete new one renamed into place (another inode), and
    # leaves no temporary file beside it.
    assert figures.stat().st_ino != earlier
    assert [p.name for p in tmp_path.iterdir()] == ["figures.json"]
    out = capsys.readouterr().out
    cfg = VTAConfig.shipped("default")
    macs, vectors, weights = encoder_counts(1, 16, 32, 2, 64, cfg)
    gemm = macs / (cfg.batch * cfg.block_in * cfg.block_out)
    bound = max(gemm + 4 * vectors, weights / cfg.timing.dram_bytes_per_cycle)
    assert f"MatMul MACs {macs:,}, constant weights {weights:,} bytes" in out, out
    row = re.search(r"^default\s+([\d.]+) % / ([\d.]+)\s+([\d.]+)\s+([\d,]+)\s+([\d,]+)\s+",
                    out, re.M)
    assert row and row[5] == f"{round(bound):,}", out
    assert 0.97 <= float(row[3]) <= 1
    # The dynamic form: within docs/onnx.md §6.1's 1e-3 of onnxruntime, its MatMulIntegers on
    # VTA (the attention products, about 10 % of the MACs at this shape, on the host).
    dyn = re.search(r"^default\s+([\d.e+-]+)\s+([\d.]+)\s+([\d,]+)\s+", out.split("dynamic")[-1],
                    re.M)
    assert dyn and float(dyn[1]) <= 1e-3 and 0.85 <= float(dyn[2]) < 1, out
    payload = json.loads(figures.read_text())
    (result,) = payload["results"]
    assert result["config"] == "default" and result["macs"] == macs
    assert result["bound"] == pytest.approx(bound)
    assert result["cycles"] == int(row[4].replace(",", "")) and result["error"] is None
    (dynamic,) = payload["dynamic"]
    assert dynamic["error"] is None and dynamic["cycles"] == int(dyn[3].replace(",", ""))


def test_bad_shape_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        bench.main(["--hidden", "30", "--heads", "4"])
    assert "--heads divides --hidden" in capsys.readouterr().err


def test_torch_mlir_form(capsys: pytest.CaptureFixture[str]) -> None:
    """``--torch-mlir FILE``: torch-mlir's lowering of the same model (the committed
    ``encoder.mlir`` is the benchmark's encoder at this shape and seed) beside the imported
    one, with the same bound, on VTA and as close to onnxruntime."""
    data = Path(__file__).parent / "data" / "torch_mlir" / "encoder.mlir"
    shape = ["--layers", "1", "--seq", "16", "--hidden", "32", "--heads", "2", "--ffn", "64"]
    assert bench.main([*shape, "--no-progress", "--torch-mlir", str(data)]) == 0
    out = capsys.readouterr().out
    static, torch = (re.search(r"^default\s+([\d.]+) % / ([\d.]+)\s+([\d.]+)\s+([\d,]+)\s+"
                               r"([\d,]+)\s+", part, re.M)
                     for part in out.split("torch-mlir")[:2])
    assert static and torch, out
    assert float(torch[1]) >= 99 and float(torch[2]) <= 2 and float(torch[3]) >= 0.97, out
    assert torch[5] == static[5], out  # the same model, the same bound


def test_missing_torch_mlir_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        bench.main(["--torch-mlir", str(tmp_path / "absent.mlir")])
    assert "no such file" in capsys.readouterr().err
