"""The QOperator format on the ONNX route (``docs/onnx.md`` §2, "QOperator"): models quantized
by ``quantize_static(..., quant_format=QuantFormat.QOperator)`` — ``QLinearConv``,
``QLinearMatMul``, ``QGemm``, ``QLinearAdd``, ``QLinearGlobalAveragePool``, ``MaxPool`` and
``Flatten`` on codes, float sections between a dequantize and a quantize where the quantizer
leaves a ReLU in float — import with the integer semantics of their QDQ form.

Each run is bit-exact with the integer semantics (``tests/onnx_semantics.py`` reads the
QOperator nodes themselves) and within the agreement of §6 with onnxruntime running the
QOperator graph; operators whose QDQ form the importer does not take (``Concat``, ``Mul``,
``AveragePool``) get that form's error, naming the node.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper

from tests.onnx_semantics import onnxruntime_output, quant_params
from tests.test_onnx_checks import cli_error
from tests.test_onnx_import import MODELS, Builder, Built, check, float_model, init_tensor, quantize
from vta_mlir import compile
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.frontend.onnx import import_program, import_text
from vta_mlir.frontend.onnx.qdq import ConvLayer


def qoperator_model(tmp: Path, builder: Builder, symmetric: bool, *, uint8: bool = False,
                    per_channel: bool = False) -> Path:
    rng = np.random.default_rng(0)
    return quantize(float_model(builder, rng), tmp / f"{builder.__name__}.onnx", symmetric, rng,
                    per_channel, activations="QUInt8" if uint8 else "QInt8",
                    quant_format="QOperator")


def _ops(path: Path) -> set[str]:
    return {node.op_type for node in onnx.load(str(path)).graph.node}


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
@pytest.mark.parametrize("name", ["conv_relu", "small_cnn", "dense"])
def test_qoperator(tmp_path: Path, name: str, symmetric: bool, config: str) -> None:
    path = qoperator_model(tmp_path, MODELS[name], symmetric)
    assert _ops(path) & {"QLinearConv", "QGemm"}
    check(path, config, worst=1.0)


@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
def test_qoperator_residual(tmp_path: Path, symmetric: bool) -> None:
    """QLinearAdd; with symmetric activations the ReLUs stay in float between a dequantize
    and a quantize, the last one at the graph's output."""
    path = qoperator_model(tmp_path, MODELS["residual"], symmetric)
    assert "QLinearAdd" in _ops(path) and ("Relu" in _ops(path)) == symmetric
    check(path, "default", worst=2.0)


def test_qoperator_matmul_add(tmp_path: Path) -> None:
    """QLinearMatMul and the QLinearAdd of a constant."""
    path = qoperator_model(tmp_path, MODELS["matmul_add"], symmetric=False)
    assert {"QLinearMatMul", "QLinearAdd"} <= _ops(path)
    check(path, "default", worst=1.0)


def test_float_pool_of_the_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A global average pool of the graph's input, which the quantizer leaves in float: a
    float operation at the edge, which the host does not compute (docs/onnx.md §4.15)."""
    path = qoperator_model(tmp_path, MODELS["gap_fc"], symmetric=False)
    assert "GlobalAveragePool" in _ops(path)
    line = cli_error(tmp_path, path, capsys)
    assert "node 'gap' (GlobalAveragePool)" in line and "in float is not supported" in line


def test_qoperator_uint8_per_channel(tmp_path: Path) -> None:
    """uint8 activations and per-channel weights in the QOperator format."""
    path = qoperator_model(tmp_path, MODELS["small_cnn"], symmetric=False, uint8=True,
                           per_channel=True)
    conv = import_program(path).layers[0]
    assert isinstance(conv, ConvLayer) and len(conv.rq.channel_m) > 1
    for config in SHIPPED_CONFIGS:
        check(path, config, worst=1.0)


def test_same_program_as_qdq(tmp_path: Path) -> None:
    """The QOperator and QDQ forms of one quantization are the same integer program."""
    (tmp_path / "q").mkdir()
    qop = qoperator_model(tmp_path / "q", MODELS["small_cnn"], symmetric=False)
    rng = np.random.default_rng(0)
    qdq = quantize(float_model(MODELS["small_cnn"], rng), tmp_path / "qdq.onnx", False, rng)
    a, b = import_program(qop), import_program(qdq)
    assert [type(layer) for layer in a.layers] == [type(layer) for layer in b.layers]
    for la, lb in zip(a.layers, b.layers, strict=True):
        if isinstance(la, ConvLayer) and isinstance(lb, ConvLayer):
            np.testing.assert_array_equal(la.weight, lb.weight)
            np.testing.assert_array_equal(la.bias, lb.bias)
            assert la.rq == lb.rq


def _concat(rng: np.random.Generator) -> Built:
    inits = [init_tensor(rng, "w1", (8, 3, 3, 3), 0.3), init_tensor(rng, "w2", (8, 3, 3, 3), 0.3)]
    nodes = [helper.make_node("Conv", ["x", "w1"], ["a"], pads=[1, 1, 1, 1], name="conv1"),
             helper.make_node("Conv", ["x", "w2"], ["b"], pads=[1, 1, 1, 1], name="conv2"),
             helper.make_node("Concat", ["a", "b"], ["y"], axis=1, name="cat")]
    return nodes, inits, (1, 3, 6, 6), (1, 16, 6, 6)


def _mul(rng: np.random.Generator) -> Built:
    inits = [init_tensor(rng, "w1", (8, 3, 3, 3), 0.3), init_tensor(rng, "w2", (8, 3, 3, 3), 0.3)]
    nodes = [helper.make_node("Conv", ["x", "w1"], ["a"], pads=[1, 1, 1, 1], name="conv1"),
             helper.make_node("Conv", ["x", "w2"], ["b"], pads=[1, 1, 1, 1], name="conv2"),
             helper.make_node("Mul", ["a", "b"], ["y"], name="product")]
    return nodes, inits, (1, 3, 6, 6), (1, 8, 6, 6)


def _average_pool(rng: np.random.Generator) -> Built:
    inits = [init_tensor(rng, "w", (8, 3, 3, 3), 0.3)]
    nodes = [helper.make_node("Conv", ["x", "w"], ["a"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("AveragePool", ["a"], ["y"], kernel_shape=[2, 2],
                              strides=[2, 2], name="pool")]
    return nodes, inits, (1, 3, 6, 6), (1, 8, 3, 3)


@pytest.mark.parametrize(("builder", "qop"), [
    (_concat, "QLinearConcat"),
    (_average_pool, "QLinearAveragePool"),
], ids=["concat", "average_pool"])
def test_qoperator_neck_ops(tmp_path: Path, builder: Builder, qop: str) -> None:
    """QLinearConcat and QLinearAveragePool read as their QDQ forms (docs/onnx.md §4.7, §4.8;
    the QDQ forms' tests check them bit for bit): within one step of onnxruntime."""
    path = qoperator_model(tmp_path, builder, symmetric=False)
    assert qop in _ops(path)
    text = import_text(path)
    so, _ = quant_params(text, "output")
    dims = onnx.load(str(path)).graph.input[0].type.tensor_type.shape.dim
    shape = tuple(d.dim_value for d in dims)
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    (y,) = compile(text)(x)
    steps = np.abs(y - onnxruntime_output(path, x)) / so
    assert steps.max() <= 1.001


def test_unsupported_qoperator(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A QOperator node whose QDQ form the importer refuses: that form's error, named as the
    quantizer names the node (``<name>_quant``)."""
    path = qoperator_model(tmp_path, _mul, symmetric=False)
    assert "QLinearMul" in _ops(path)
    line = cli_error(tmp_path, path, capsys)
    assert "node 'product_quant' (Mul)" in line and "not of two tensors" in line


def test_unknown_qoperator_node(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A com.microsoft node outside the QOperator ops the importer reads."""
    path = qoperator_model(tmp_path, MODELS["conv_relu"], symmetric=False)
    model = onnx.load(str(path))
    conv = next(n for n in model.graph.node if n.op_type == "QLinearConv")
    conv.op_type, conv.domain = "QLinearConvTranspose", "com.microsoft"
    onnx.save(model, path)
    line = cli_error(tmp_path, path, capsys)
    assert "(QLinearConvTranspose)" in line and "com.microsoft" in line


def test_channels_last(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = qoperator_model(tmp_path, MODELS["small_cnn"], symmetric=False)
    model = onnx.load(str(path))
    pool = next(n for n in model.graph.node if n.op_type == "QLinearGlobalAveragePool")
    next(a for a in pool.attribute if a.name == "channels_last").i = 1
    onnx.save(model, path)
    line = cli_error(tmp_path, path, capsys)
    assert f"node '{pool.name}' (QLinearGlobalAveragePool)" in line and "channels_last" in line


@pytest.mark.parametrize(("model", "op", "expected"), [
    ("conv_relu", "QLinearConv", "has input size 5 not in range"),  # onnx's schema
    ("residual", "QLinearAdd", "triples"),  # com.microsoft: the importer's own count
])
def test_qoperator_node_missing_operands(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        model: str, op: str, expected: str) -> None:
    path = qoperator_model(tmp_path, MODELS[model], symmetric=False)
    graph = onnx.load(str(path))
    node = next(n for n in graph.graph.node if n.op_type == op)
    del node.input[5:]
    onnx.save(graph, path)
    line = cli_error(tmp_path, path, capsys)
    assert f"node '{node.name}' ({op})" in line and expected in line, line
