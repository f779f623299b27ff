"""A VGG-style head through the ONNX frontend: Flatten of an N×C×H×W tensor with H·W > 1
before a Gemm (``docs/onnx.md`` §4.4), quantized by ``quantize_static``, on every shipped
configuration — bit-exact with the integer semantics of ``tests/onnx_semantics.py`` and within
one output step of onnxruntime (§6); and the Flattens only a dense layer may read."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.onnx_qdq_builder import QDQ
from tests.test_onnx_checks import cli_error
from tests.test_onnx_import import MODELS, check, quantized
from vta_mlir.config import SHIPPED_CONFIGS


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
def test_vgg_head(tmp_path: Path, symmetric: bool, config: str) -> None:
    check(quantized(tmp_path, MODELS["vgg_head"], symmetric), config, worst=1.0)


def _flatten_then(tmp_path: Path, reader: str | None) -> Path:
    qdq = QDQ((1, 3, 4, 4))
    qdq.conv("conv", 6)
    flat = qdq.op("Flatten", [qdq.last], "flat", axis=1)
    if reader is None:
        return qdq.save(tmp_path / "m.onnx", (1, 24))
    qdq.op(reader, [flat, flat], "sum")
    return qdq.save(tmp_path / "m.onnx", (1, 24))


@pytest.mark.parametrize(("reader", "expected"), [
    (None, "output 'y' is the Flatten of an N×C×H×W tensor with H·W > 1"),
    ("Add", "node 'sum' (Add): reads 'flat_odq', the Flatten of an N×C×H×W tensor"),
])
def test_flatten_read_by_other_than_dense(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                          reader: str | None, expected: str) -> None:
    assert expected in cli_error(tmp_path, _flatten_then(tmp_path, reader), capsys)

