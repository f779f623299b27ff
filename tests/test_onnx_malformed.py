"""Malformed or unusual ONNX models that the importer's own rewrites and recognisers met before
``onnx.checker`` could refuse them, and paths that are no model file: each is one error line
naming the node, the tensor or the file (``docs/onnx.md`` §5), never an internal error.  The
one valid model among them (an input quantized twice alike) is compared with onnxruntime."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from tests.onnx_qdq_builder import QDQ, conv_model, initializer
from tests.test_onnx_checks import cli_error, external_weights_model
from tests.test_onnx_import import check
from vta_mlir.frontend.onnx import import_text
from vta_mlir.tools import vta_import_onnx


def _twice(tmp_path: Path, second_scale: float) -> Path:
    """The float input quantized by two QuantizeLinear nodes, the two branches added."""
    qdq = QDQ((2, 8))
    qdq.inits.append(numpy_helper.from_array(np.array(second_scale, np.float32), "s2"))
    qdq.nodes += [helper.make_node("QuantizeLinear", ["x", "s2", "z"], ["x_q2"], name="x_q2"),
                  helper.make_node("DequantizeLinear", ["x_q2", "s2", "z"], ["x_dq2"],
                                   name="x_dq2")]
    qdq.op("Add", ["x_dq", "x_dq2"], "add")
    return qdq.save(tmp_path / "m.onnx", (2, 8))


def test_input_quantized_twice_alike_runs(tmp_path: Path) -> None:
    """Both branches read the same codes: the Add doubles them, as onnxruntime does."""
    ort = pytest.importorskip("onnxruntime")
    from vta_mlir import compile as vta_compile

    path = _twice(tmp_path, 0.05)
    module = vta_compile(import_text(path))
    x = np.random.default_rng(3).uniform(-3, 3, (2, 8)).astype(np.float32)
    (y,) = module(x)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    (expected,) = ort.InferenceSession(str(path), options).run(None, {"x": x})
    # The input codes q, the Add's real 2·q·s quantized at s again: exactly 2q, saturated.
    np.testing.assert_array_equal(y, expected)


def test_input_quantized_twice_differently(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    line = cli_error(tmp_path, _twice(tmp_path, 0.1), capsys)
    assert "node 'x_q2' (QuantizeLinear): quantizes the input 'x' a second time" in line


def _matrix_vector(tmp_path: Path) -> Path:
    qdq = QDQ((2, 16))
    qdq.op("MatMul", [qdq.last, qdq.weight("v", (16,))], "mv")
    return qdq.save(tmp_path / "m.onnx", (2,))


def _clip_nan(tmp_path: Path) -> Path:
    qdq = conv_model()
    qdq.inits.append(numpy_helper.from_array(np.array(np.nan, np.float32), "lo"))
    qdq.op("Clip", [qdq.last, "lo"], "clip")
    return qdq.save(tmp_path / "m.onnx", (1, 4, 6, 6))


def _hard_sigmoid_huge(tmp_path: Path) -> Path:
    qdq = conv_model()
    qdq.op("HardSigmoid", [qdq.last], "hs", alpha=1e30, beta=1e30)
    return qdq.save(tmp_path / "m.onnx", (1, 4, 6, 6))


def _reference_attribute(tmp_path: Path) -> Path:
    model = conv_model().model((1, 4, 6, 6))
    conv = next(n for n in model.graph.node if n.op_type == "Conv")
    group = helper.make_attribute("group", 1)
    group.ref_attr_name = "g"
    conv.attribute.append(group)
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    return path


def _uint8_weight_zero_points(tmp_path: Path) -> Path:
    """uint8 weights with three zero points along axis 0, which has four elements."""
    model = conv_model().model((1, 4, 6, 6))
    w = initializer(model, "conv_w_q")
    codes = numpy_helper.to_array(w).astype(np.int16) + 128
    w.CopyFrom(numpy_helper.from_array(codes.astype(np.uint8), "conv_w_q"))
    model.graph.initializer.append(
        numpy_helper.from_array(np.full(3, 128, np.uint8), "conv_w_zp"))
    dq = next(n for n in model.graph.node if n.name == "conv_w_dq")
    dq.input.append("conv_w_zp")
    dq.attribute.append(helper.make_attribute("axis", 0))
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    return path


def _qoperator(tmp_path: Path, x_scale: np.ndarray, output: bool = True) -> Path:
    """QuantizeLinear, QLinearConv (with a bias), DequantizeLinear."""
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(np.array(0.05, np.float32), "s"),
             numpy_helper.from_array(np.array(0, np.int8), "z"),
             numpy_helper.from_array(x_scale.astype(np.float32), "xs"),
             numpy_helper.from_array(rng.integers(-100, 100, (4, 3, 3, 3)).astype(np.int8),
                                     "w"),
             numpy_helper.from_array(np.full(4, 0.01, np.float32), "ws"),
             numpy_helper.from_array(np.zeros(4, np.int8), "wz"),
             numpy_helper.from_array(np.arange(4, dtype=np.int32), "b")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["x_q"], name="x_q"),
             helper.make_node("QLinearConv", ["x_q", "xs", "z", "w", "ws", "wz", "s", "z", "b"],
                              ["c_q"] if output else [], name="conv_quant", pads=[1, 1, 1, 1]),
             helper.make_node("DequantizeLinear", ["c_q", "s", "z"], ["y"], name="c_dq")]
    graph = helper.make_graph(nodes, "qop", [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, (1, 3, 8, 8))], [
        helper.make_tensor_value_info("y", TensorProto.FLOAT, (1, 4, 8, 8))], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    return path


@pytest.mark.parametrize(("build", "expected"), [
    (_matrix_vector, "node 'mv' (MatMul): a weight of shape [16]"),
    (_clip_nan, "node 'clip' (Clip): a Clip bound is NaN"),
    (_hard_sigmoid_huge, "node 'hs' (HardSigmoid): alpha·x_scale = "),
    (_reference_attribute, "node 'conv' (Conv): attribute 'group' refers to 'g'"),
    (_uint8_weight_zero_points, "node 'conv_w_dq' (DequantizeLinear): 3 zero points for "
                                "'conv_w_q' of shape [4, 3, 3, 3] along axis 0"),
    (lambda p: _qoperator(p, np.full(3, 0.05)), "node 'conv_quant' (QLinearConv): the input's "
                                                "scale 'xs' has 3 values"),
    (lambda p: _qoperator(p, np.array(0.05), output=False), "has output size 0"),
], ids=["matrix-vector", "clip-nan", "hard-sigmoid-huge", "reference-attribute",
        "uint8-zero-points", "qoperator-input-scales", "qoperator-no-output"])
def test_refused_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                               build: object, expected: str) -> None:
    assert expected in cli_error(tmp_path, build(tmp_path), capsys)  # type: ignore[operator]


@pytest.mark.parametrize(("location", "expected"), [
    ("w\0.bin", "'w\\0.bin' cannot be opened (embedded null byte)"),
    ("loop_a.bin", "'loop_a.bin' cannot be opened (Symlink loop"),
    ("a" * 300 + ".bin", "cannot be opened ("),
], ids=["nul", "symlink-loop", "name-too-long"])
def test_external_data_that_cannot_be_opened(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str],
                                              location: str, expected: str) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "loop_a.bin").symlink_to("loop_b.bin")
    (folder / "loop_b.bin").symlink_to("loop_a.bin")
    line = cli_error(tmp_path, external_weights_model(tmp_path, location), capsys)
    assert "initializer 'conv_w_q'" in line and expected in line, line


@pytest.mark.parametrize("path", ["/dev/zero", "."], ids=["endless-device", "folder"])
def test_not_a_model_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], path: str) -> None:
    if not os.path.exists(path):
        pytest.skip(f"no {path} here")
    assert f"cannot open '{path}': not a regular file" in cli_error(tmp_path, Path(path), capsys)


def test_output_over_the_model_is_refused(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = conv_model().save(tmp_path / "m.onnx", (1, 4, 6, 6))
    before = path.read_bytes()
    assert vta_import_onnx.main([str(path), "-o", str(path)]) == 1
    assert "is the input file" in capsys.readouterr().err
    assert path.read_bytes() == before
    onnx.checker.check_model(onnx.load(path))


@pytest.mark.parametrize("name", ['a"b', "x\ny", "é", "\\", "a" * 300],
                         ids=["quote", "newline", "non-ascii", "backslash", "long"])
def test_any_node_name_compiles(tmp_path: Path, name: str) -> None:
    """A node name is only a name (escaped in location strings, shortened ASCII in symbols):
    the model runs bit-exactly as the integer semantics say and agrees with onnxruntime."""
    model = conv_model().model((1, 4, 6, 6))
    for node in model.graph.node:
        if node.name == "conv":
            node.name = name
    named = tmp_path / "named.onnx"
    named.write_bytes(model.SerializeToString())
    check(named, "default", worst=1.0)


def test_a_concat_of_one_tensor_is_a_copy(tmp_path: Path) -> None:
    qdq = conv_model()
    qdq.op("Concat", [qdq.last], "cat", axis=1)
    check(qdq.save(tmp_path / "cat.onnx", (1, 4, 6, 6)), "default", worst=1.0)
