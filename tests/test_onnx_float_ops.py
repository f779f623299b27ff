"""Float operations the host computes (``docs/onnx.md`` §4.15): each ONNX operation between the
dequantized float input and the graph's float output runs bit for bit as the numpy semantics of
``tests/onnx_float_semantics.py`` computes it, and within the documented float tolerance of
onnxruntime's float kernels (``ORT_DISABLE_ALL``); a float layer's quantized output within one
step."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from tests.onnx_float_semantics import FLOAT_TOLERANCE, dequantize, float_op, quantize
from vta_mlir import compile
from vta_mlir.frontend.onnx import OnnxImportError, import_program, import_text
from vta_mlir.quant.host_float import FloatLayer

SCALE, ZERO_POINT = 0.03, 3
SHAPE = (2, 4, 8)

#: (name, [(op, extra inputs (constants), attrs)], output shape, opset)
CASES = [
    ("add_vector", [("Add", [np.linspace(-1, 1, 8, dtype=np.float32)], {})], SHAPE, 17),
    ("sub_mean", [("ReduceMean", [], {"axes": [-1]}), ("Sub", ["x"], {})], SHAPE, 17),
    ("mul_div", [("Mul", [np.float32(1.7)], {}), ("Div", [np.float32(0.3)], {})], SHAPE, 17),
    ("sqrt_pow", [("Pow", [np.float32(2.0)], {}), ("Add", [np.float32(0.5)], {}),
                  ("Sqrt", [], {}), ("Pow", [np.float32(3.0)], {})], SHAPE, 17),
    ("erf_tanh_relu", [("Erf", [], {}), ("Tanh", [], {}), ("Relu", [], {})], SHAPE, 17),
    ("softmax", [("Softmax", [], {"axis": 1})], SHAPE, 17),
    ("reduce_mean", [("ReduceMean", [], {"axes": [0, 2], "keepdims": 0})], (4,), 17),
    ("layer_norm", [("LayerNormalization", [np.linspace(0.5, 1.5, 8, dtype=np.float32),
                                            np.linspace(-0.2, 0.2, 8, dtype=np.float32)],
                     {"axis": -1, "epsilon": 1e-5})], SHAPE, 17),
    ("layer_norm_2d", [("LayerNormalization", [np.full((4, 8), 1.25, np.float32)],
                        {"axis": 1})], SHAPE, 17),
    ("gelu", [("Gelu", [], {})], SHAPE, 20),
    ("gelu_tanh", [("Gelu", [], {"approximate": "tanh"})], SHAPE, 20),
    ("heads", [("Reshape", [np.array([2, 4, 2, 4], np.int64)], {}),
               ("Transpose", [], {"perm": [0, 2, 1, 3]}), ("Identity", [], {}),
               ("Cast", [], {"to": TensorProto.FLOAT})], (2, 2, 4, 4), 17),
]


def float_model(tmp: Path, name: str, ops: list, y_shape: tuple[int, ...], opset: int,
                quantized_output: bool = False) -> Path:
    """x → QuantizeLinear → DequantizeLinear → ``ops`` in a chain → y (float, or quantized
    and dequantized)."""
    inits = [numpy_helper.from_array(np.array(SCALE, np.float32), "s"),
             numpy_helper.from_array(np.array(ZERO_POINT, np.int8), "z")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["xq"], name="xq"),
             helper.make_node("DequantizeLinear", ["xq", "s", "z"], ["xd"], name="xd")]
    last = "xd"
    for k, (op, extra, attrs) in enumerate(ops):
        names = []
        for j, value in enumerate(extra):
            if isinstance(value, str):
                names.append("xd")
                continue
            names.append(f"c{k}_{j}")
            inits.append(numpy_helper.from_array(np.asarray(value), names[-1]))
        axes = attrs.get("axes") if op == "ReduceMean" and opset >= 18 else None
        node_attrs = {key: v for key, v in attrs.items() if axes is None or key != "axes"}
        nodes.append(helper.make_node(op, [last, *names], [f"t{k}"], name=f"{op.lower()}{k}",
                                      **node_attrs))
        last = f"t{k}"
    y = "y"
    if quantized_output:
        inits += [numpy_helper.from_array(np.array(0.01, np.float32), "sy"),
                  numpy_helper.from_array(np.array(-5, np.int8), "zy")]
        nodes += [helper.make_node("QuantizeLinear", [last, "sy", "zy"], ["yq"], name="yq"),
                  helper.make_node("DequantizeLinear", ["yq", "sy", "zy"], [y], name="yd")]
    else:
        nodes[-1].output[0] = y
    graph = helper.make_graph(nodes, name, [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)], [
        helper.make_tensor_value_info(y, TensorProto.FLOAT, y_shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    path = tmp / f"{name}.onnx"
    onnx.save(model, path)
    return path


def numpy_model(ops: list, x: np.ndarray) -> np.ndarray:
    real = dequantize(quantize(x, SCALE, ZERO_POINT), SCALE, ZERO_POINT)
    value = real
    for op, extra, attrs in ops:
        operands = [real if isinstance(e, str) else np.asarray(e) for e in extra]
        if op == "Reshape":
            attrs = {"shape": [int(d) for d in operands[0]]}
        value = float_op(op, [value, *operands], attrs)
    return value


def onnxruntime_output(path: Path, x: np.ndarray) -> np.ndarray:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


@pytest.mark.parametrize("name, ops, y_shape, opset", CASES, ids=[c[0] for c in CASES])
def test_float_op(tmp_path: Path, name: str, ops: list, y_shape: tuple[int, ...],
                  opset: int) -> None:
    path = float_model(tmp_path, name, ops, y_shape, opset)
    x = np.random.default_rng(3).standard_normal(SHAPE).astype(np.float32)
    (y,) = compile(import_text(path))(x)
    want = numpy_model(ops, x)
    assert y.dtype == np.float32 and y.shape == y_shape
    np.testing.assert_array_equal(y, want)
    ort_y = onnxruntime_output(path, x)
    assert np.all(np.abs(y - ort_y) <= FLOAT_TOLERANCE * (1 + np.abs(ort_y)))


def test_quantized_reshape(tmp_path: Path) -> None:
    """A quantized Reshape into heads and its Transpose (the quantizer's QDQ pairs around
    each): float layers, exact (dequantize, move, quantize at the same scale)."""
    ops = [("Reshape", [np.array([2, 4, 2, 4], np.int64)], {})]
    path = float_model(tmp_path, "reshape_q", ops, (2, 4, 2, 4), 17, quantized_output=True)
    (layer,) = import_program(path).layers
    assert isinstance(layer, FloatLayer) and [op.op for op in layer.ops] == ["Reshape"]
    x = np.random.default_rng(6).standard_normal(SHAPE).astype(np.float32)
    (y,) = compile(import_text(path))(x)
    want = dequantize(quantize(numpy_model(ops, x), 0.01, -5), 0.01, -5)
    np.testing.assert_array_equal(y, want)


def test_quantized_float_output(tmp_path: Path) -> None:
    """A float layer ending in a QuantizeLinear: the program's int8 output (a ``vta.quant``
    host step dequantizes it), within one step of onnxruntime."""
    ops = [("Gelu", [], {}), ("Mul", ["x"], {})]
    path = float_model(tmp_path, "gelu_q", ops, SHAPE, 20, quantized_output=True)
    program = import_program(path)
    (layer,) = program.layers
    assert isinstance(layer, FloatLayer) and [op.op for op in layer.ops] == ["Gelu", "Mul"]
    x = np.random.default_rng(4).standard_normal(SHAPE).astype(np.float32)
    (y,) = compile(import_text(path))(x)
    want = dequantize(quantize(numpy_model(ops, x), 0.01, -5), 0.01, -5)
    np.testing.assert_array_equal(y, want)
    assert np.all(np.abs(y - onnxruntime_output(path, x)) <= 0.01 * 1.001)


def test_layer_norm_outputs(tmp_path: Path) -> None:
    """A LayerNormalization's mean and inverse deviation outputs, as exporters name them: no
    reader, no matter; read, refused naming the node."""
    case = next(c for c in CASES if c[0] == "layer_norm")
    path = float_model(tmp_path, "ln_outputs", case[1], SHAPE, 17)
    model = onnx.load(str(path))
    node = next(n for n in model.graph.node if n.op_type == "LayerNormalization")
    node.output.extend(["mean", "inv_std"])
    onnx.save(model, path)
    x = np.random.default_rng(5).standard_normal(SHAPE).astype(np.float32)
    (y,) = compile(import_text(path))(x)
    np.testing.assert_array_equal(y, numpy_model(case[1], x))
    model.graph.node.append(helper.make_node("Identity", ["mean"], ["m2"], name="reads_mean"))
    onnx.save(model, path)
    with pytest.raises(OnnxImportError, match="node 'layernormalization0'.*'mean' is read"):
        import_program(path)
