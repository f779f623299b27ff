"""``AveragePool`` through the ONNX frontend (``docs/onnx.md`` §4.7): 3×3 windows of stride 1
padded by 1 counting the padding and not, and a 2×2 window of stride 2, quantized by
``quantize_static``, on every shipped configuration — bit-exact with the integer semantics of
``tests/onnx_semantics_cnn.py`` and within one output step of onnxruntime (§6); the pools'
errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.onnx_qdq_builder import QDQ
from tests.test_onnx_checks import cli_error
from tests.test_onnx_import import MODELS, check, quantized
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.frontend.onnx import OnnxImportError, import_program
from vta_mlir.quant.layers_cnn import AveragePoolLayer


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
def test_avgpool_block(tmp_path: Path, symmetric: bool, config: str) -> None:
    path = quantized(tmp_path, MODELS["avgpool_block"], symmetric)
    pools = [layer for layer in import_program(path).layers
             if isinstance(layer, AveragePoolLayer)]
    # count_include_pad=1 divides by 9 everywhere; =0 by 4, 6 or 9: one multiplier each.
    assert pools[0].multipliers is None and pools[1].multipliers is not None
    assert len(set(pools[1].multipliers.reshape(-1).tolist())) == 3
    check(path, config, worst=1.0)


def _pool(tmp_path: Path, **attrs: object) -> Path:
    qdq = QDQ((1, 3, 6, 6))
    qdq.conv("conv", 4, pads=[1, 1, 1, 1])
    qdq.op("AveragePool", [qdq.last], "avg", kernel_shape=[3, 3], **attrs)
    pads = attrs.get("pads", [0, 0, 0, 0])
    size = 6 + pads[0] + pads[2] - 2  # type: ignore[index]
    return qdq.save(tmp_path / "m.onnx", (1, 4, size, size))


@pytest.mark.parametrize(("attrs", "expected"), [
    ({"ceil_mode": 1}, "node 'avg' (AveragePool): ceil_mode, dilations and auto_pad are not "
                       "supported"),
    ({"pads": [3, 0, 0, 0]}, "node 'avg' (AveragePool): pads [3, 0, 0, 0] not smaller than "
                             "the kernel 3×3"),
])
def test_bad_average_pool(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                          attrs: dict[str, object], expected: str) -> None:
    assert expected in cli_error(tmp_path, _pool(tmp_path, **attrs), capsys)


def test_border_divisors_need_fixed_point(tmp_path: Path) -> None:
    """Per-position multipliers (count_include_pad=0 with padding) are fixed-point only."""
    path = _pool(tmp_path, pads=[1, 1, 1, 1], count_include_pad=0)
    with pytest.raises(OnnxImportError, match="count_include_pad=0.*fixed-point"):
        import_program(path, requant="pow2")
