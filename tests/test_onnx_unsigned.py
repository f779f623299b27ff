"""uint8 quantization on the ONNX route (``docs/onnx.md`` §2, "uint8"): models quantized by
``quantize_static`` with ``activation_type=QuantType.QUInt8`` (and uint8 weights quantized
symmetrically) import as int8 programs whose codes are the uint8 ones minus 128, with zero
points shifted alike; the float input and output stay float.

Each run is bit-exact with the integer semantics (``tests/onnx_semantics.py`` shifts the uint8
codes of the ONNX graph itself) and within one output step of onnxruntime, as int8 models are
(§6); asymmetric uint8 weights are refused naming the node.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from tests.onnx_qdq_builder import conv_model
from tests.test_onnx_checks import cli_error
from tests.test_onnx_import import MODELS, check, float_model, quantize
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.frontend.onnx import import_program
from vta_mlir.frontend.onnx.qdq import ConvLayer


def uint8_model(tmp: Path, name: str, symmetric: bool, *, weights: str = "QInt8",
                weight_symmetric: bool | None = None, per_channel: bool = False,
                quant_format: str = "QDQ") -> Path:
    rng = np.random.default_rng(0)
    return quantize(float_model(MODELS[name], rng), tmp / f"{name}.onnx", symmetric, rng,
                    per_channel, activations="QUInt8", weights=weights,
                    quant_format=quant_format, weight_symmetric=weight_symmetric)


def _zero_points(path: Path) -> dict[str, np.ndarray]:
    return {i.name: numpy_helper.to_array(i) for i in onnx.load(str(path)).graph.initializer
            if i.name.endswith("zero_point")}


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
@pytest.mark.parametrize("name", ["conv_relu", "small_cnn"])
def test_uint8_activations(tmp_path: Path, name: str, symmetric: bool, config: str) -> None:
    path = uint8_model(tmp_path, name, symmetric)
    zps = _zero_points(path)
    assert zps["x_zero_point"].dtype == np.uint8
    program = import_program(path)
    # The input's zero point is the uint8 one minus 128.
    assert program.input.zero_point == int(zps["x_zero_point"]) - 128
    check(path, config, worst=1.0)


@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
def test_uint8_residual(tmp_path: Path, symmetric: bool) -> None:
    """An Add of two uint8 tensors: both zero points shifted, the Add's rescale unchanged."""
    check(uint8_model(tmp_path, "residual", symmetric), "default", worst=2.0)


def test_uint8_per_channel(tmp_path: Path) -> None:
    path = uint8_model(tmp_path, "bottleneck", symmetric=False, per_channel=True)
    for config in SHIPPED_CONFIGS:
        check(path, config, worst=2.0)


def test_uint8_symmetric_weights(tmp_path: Path) -> None:
    """uint8 weights quantized symmetrically (zero point 128) are centred: int8 codes
    ``q − 128`` with zero point 0."""
    path = uint8_model(tmp_path, "small_cnn", symmetric=False, weights="QUInt8",
                       weight_symmetric=True)
    zps = _zero_points(path)
    assert zps["w1_zero_point"].dtype == np.uint8 and int(zps["w1_zero_point"]) == 128
    w1 = numpy_helper.to_array(next(i for i in onnx.load(str(path)).graph.initializer
                                    if i.name == "w1_quantized"))
    conv = import_program(path).layers[0]
    assert isinstance(conv, ConvLayer)
    np.testing.assert_array_equal(conv.weight, w1.astype(np.int16) - 128)
    for config in SHIPPED_CONFIGS:
        check(path, config, worst=1.0)


def test_uint8_matmul_add_constant(tmp_path: Path) -> None:
    """The Add of a constant quantized as a uint8 activation (asymmetric): its codes shifted
    or centred, its real value unchanged."""
    check(uint8_model(tmp_path, "matmul_add", symmetric=False), "default", worst=1.0)


def test_quantize_without_zero_point(tmp_path: Path) -> None:
    """A QuantizeLinear without a zero point writes uint8 codes with zero point 0 (ONNX's
    default): the importer gives them the int8 zero point −128."""
    model = conv_model().model((1, 4, 6, 6))
    for node in model.graph.node:
        if node.op_type in ("QuantizeLinear", "DequantizeLinear") and node.input[2:] == ["z"]:
            del node.input[2]
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    program = import_program(path)
    assert program.input.zero_point == -128 and program.output.zero_point == -128
    check(path, "default", worst=1.0)


def test_asymmetric_uint8_weights(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """onnxruntime's default for uint8 weights is asymmetric: refused at the convolution."""
    path = uint8_model(tmp_path, "conv_relu", symmetric=False, weights="QUInt8")
    line = cli_error(tmp_path, path, capsys)
    assert "node 'conv' (Conv)" in line and "uint8 weights 'w_quantized'" in line
    assert "WeightSymmetric" in line
