"""Dynamically quantized models (``onnxruntime.quantization.quantize_dynamic``, docs/onnx.md
§4.17): built with onnx.helper and quantized here, imported, run on every shipped
configuration and compared with onnxruntime — the int32 results of every ``MatMulInteger``
bit for bit (exposed as graph outputs), the float outputs within ``1e-3 · max|y|`` (§6); bad
input is one error naming the node."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnxruntime.quantization import QuantType, quantize_dynamic  # noqa: E402

from vta_mlir import compile  # noqa: E402
from vta_mlir.config import VTAConfig  # noqa: E402
from vta_mlir.frontend.onnx import OnnxImportError, import_program, import_text  # noqa: E402

#: docs/onnx.md §4.17: the float arithmetic after the exact int32 results may round
#: differently from onnxruntime's kernels.
TOLERANCE = 1e-3


def _model(path: Path, shape: list[int | str], layers: list[tuple[int, bool, bool]],
           seed: int) -> Path:
    """A float model of dense layers ``(outputs, bias, relu)`` on an input of ``shape``, saved
    at ``path``."""
    rng = np.random.default_rng(seed)
    nodes, inits = [], []
    prev, width = "x", int(shape[-1])
    for k, (n, bias, relu) in enumerate(layers):
        w = f"w{k}"
        inits.append(numpy_helper.from_array(
            (rng.normal(size=(width, n)) * 0.2).astype(np.float32), w))
        nodes.append(helper.make_node("MatMul", [prev, w], [f"m{k}"], name=f"fc{k}"))
        prev = f"m{k}"
        if bias:
            inits.append(numpy_helper.from_array(
                (rng.normal(size=(n,)) * 0.1).astype(np.float32), f"b{k}"))
            nodes.append(helper.make_node("Add", [prev, f"b{k}"], [f"a{k}"], name=f"bias{k}"))
            prev = f"a{k}"
        if relu:
            nodes.append(helper.make_node("Relu", [prev], [f"r{k}"], name=f"relu{k}"))
            prev = f"r{k}"
        width = n
    nodes[-1].output[0] = "y"
    out_shape = [*shape[:-1], width]
    graph = helper.make_graph(nodes, "net",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
                              inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def _quantized(tmp_path: Path, shape: list[int | str], layers: list[tuple[int, bool, bool]],
               *, expose: bool = True, seed: int = 0, **options: object) -> Path:
    """The dynamically quantized model, with the int32 result of every MatMulInteger also a
    graph output when ``expose``."""
    float_path = _model(tmp_path / "float.onnx", shape, layers, seed)
    path = tmp_path / "dynamic.onnx"
    quantize_dynamic(float_path, path, weight_type=QuantType.QInt8, **options)  # type: ignore[arg-type]
    if expose:
        model = onnx.load(path)
        rows = [int(d) for d in shape[:-1]]
        for node in model.graph.node:
            if node.op_type == "MatMulInteger":
                cols = next(i for i in model.graph.initializer if i.name == node.input[1]).dims[1]
                model.graph.output.append(helper.make_tensor_value_info(
                    node.output[0], TensorProto.INT32, [*rows, cols]))
        onnx.save(model, path)
    return path


def _onnxruntime(path: Path, x: np.ndarray) -> list[np.ndarray]:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})


CASES = {
    "matmul_2d": ([4, 32], [(48, False, False)]),
    "matmul_3d": ([1, 16, 32], [(48, False, False)]),
    "mlp": ([1, 16, 32], [(48, True, True), (16, True, False)]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_dynamic_models_agree_with_onnxruntime(tmp_path: Path, cfg: VTAConfig, case: str
                                               ) -> None:
    shape, layers = CASES[case]
    path = _quantized(tmp_path, shape, layers)
    x = np.random.default_rng(7).normal(size=shape).astype(np.float32)
    expected = _onnxruntime(path, x)
    got = compile(import_text(path), config=cfg)(x)
    assert len(got) == len(expected) == 1 + len(layers)
    y, *results = got
    for have, want in zip(results, expected[1:], strict=True):
        assert have.dtype == np.int32 and np.array_equal(have, want)
    assert y.shape == expected[0].shape and y.dtype == np.float32
    assert np.abs(y - expected[0]).max() <= TOLERANCE * np.abs(expected[0]).max()


def _conv_model(path: Path) -> Path:
    """A Conv with a bias, padding 1 and stride 2, then a ReLU and a second Conv unpadded."""
    rng = np.random.default_rng(5)
    inits = [numpy_helper.from_array((rng.normal(size=(16, 3, 3, 3)) * 0.2).astype(np.float32),
                                     "w0"),
             numpy_helper.from_array((rng.normal(size=(16,)) * 0.1).astype(np.float32), "b0"),
             numpy_helper.from_array((rng.normal(size=(8, 16, 1, 1)) * 0.2).astype(np.float32),
                                     "w1")]
    nodes = [helper.make_node("Conv", ["x", "w0", "b0"], ["c0"], name="conv0", pads=[1, 1, 1, 1],
                              strides=[2, 2]),
             helper.make_node("Relu", ["c0"], ["r0"], name="relu0"),
             helper.make_node("Conv", ["r0", "w1"], ["y"], name="conv1")]
    graph = helper.make_graph(nodes, "convnet",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                             [1, 3, 9, 9])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                                             [1, 8, 5, 5])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def test_conv_integer_agrees_with_onnxruntime(tmp_path: Path, cfg: VTAConfig) -> None:
    path = tmp_path / "convnet.q.onnx"
    quantize_dynamic(_conv_model(tmp_path / "convnet.onnx"), path, weight_type=QuantType.QInt8)
    model = onnx.load(path)
    convs = [n for n in model.graph.node if n.op_type == "ConvInteger"]
    assert len(convs) == 2
    for node, shape in zip(convs, ([1, 16, 5, 5], [1, 8, 5, 5]), strict=True):
        model.graph.output.append(helper.make_tensor_value_info(node.output[0],
                                                                TensorProto.INT32, shape))
    onnx.save(model, path)
    x = (np.random.default_rng(9).normal(size=(1, 3, 9, 9)) + 0.5).astype(np.float32)
    expected = _onnxruntime(path, x)
    y, *results = compile(import_text(path), config=cfg)(x)
    for have, want in zip(results, expected[1:], strict=True):
        assert np.array_equal(have, want)
    assert np.abs(y - expected[0]).max() <= TOLERANCE * np.abs(expected[0]).max()


def test_the_codes_span_the_zero_point_and_both_ends(tmp_path: Path) -> None:
    # The input's range is asymmetric: its zero point is neither 0 nor 128, and codes reach 0
    # and 255 (the shift to int8 meets -128 and 127).
    shape, layers = CASES["matmul_2d"]
    path = _quantized(tmp_path, shape, layers)
    x = (np.random.default_rng(8).normal(size=shape) + 0.7).astype(np.float32)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    model = onnx.load(path)
    dql = next(n for n in model.graph.node if n.op_type == "DynamicQuantizeLinear")
    model.graph.output.extend([
        helper.make_tensor_value_info(dql.output[0], TensorProto.UINT8, shape),
        helper.make_tensor_value_info(dql.output[2], TensorProto.UINT8, [])])
    codes = ort.InferenceSession(model.SerializeToString(),
                                 providers=["CPUExecutionProvider"]).run(
                                     [dql.output[0], dql.output[2]], {"x": x})
    assert codes[0].min() == 0 and codes[0].max() == 255 and 0 < int(codes[1]) < 128
    y, result = compile(import_text(path))(x)
    assert np.array_equal(result, session.run(None, {"x": x})[1])


def test_the_program_is_host_code_around_vta_contractions(tmp_path: Path) -> None:
    path = _quantized(tmp_path, *CASES["mlp"], expose=False)
    text = import_text(path)
    assert "attributes {vta.host_float}" in text
    assert text.count("linalg.matmul") == 2
    module = compile(text)
    module(np.zeros((1, 16, 32), np.float32))
    # Quantize, then per layer: correct and scale (and quantize the next layer's input).
    assert module.last_run.runs == 2  # type: ignore[union-attr]


def test_import_program_refuses_a_dynamic_model(tmp_path: Path) -> None:
    path = _quantized(tmp_path, *CASES["matmul_2d"], expose=False)
    with pytest.raises(OnnxImportError, match="node 'x_QuantizeLinear' "
                                              r"\(DynamicQuantizeLinear\): a dynamically "
                                              "quantized model"):
        import_program(path)


def _hand_model(path: Path, nodes: list[onnx.NodeProto], inits: list[onnx.TensorProto],
                shape: list[int | str], out_shape: list[int], out_type: int) -> Path:
    graph = helper.make_graph(nodes, "bad",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", out_type, out_shape)], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def test_bad_input_is_one_error_naming_the_node(tmp_path: Path) -> None:
    # A dynamic shape.
    path = _quantized(tmp_path, ["n", 32], [(48, False, False)], expose=False)
    with pytest.raises(OnnxImportError, match="node 'x_QuantizeLinear' "
                                              r"\(DynamicQuantizeLinear\): input 'x' has a "
                                              "dynamic or unknown shape"):
        import_text(path)
    # Per-column weight zero points.
    path = _quantized(tmp_path, [4, 32], [(48, False, False)], expose=False, per_channel=True)
    with pytest.raises(OnnxImportError, match=r"node 'fc0_quant' \(MatMulInteger\): "
                                              "per-column weight zero points"):
        import_text(path)
    # A weight that is not a constant: the codes of the input by themselves.
    dql = helper.make_node("DynamicQuantizeLinear", ["x"], ["q", "s", "z"], name="quant")
    mm = helper.make_node("MatMulInteger", ["q", "q", "z", "z"], ["y"], name="square")
    path = _hand_model(tmp_path / "act.onnx", [dql, mm], [], [4, 4], [4, 4], TensorProto.INT32)
    with pytest.raises(OnnxImportError, match=r"node 'square' \(MatMulInteger\): the weight "
                                              "'q' is not a constant"):
        import_text(path)
    # An operator the dynamic route does not compute.
    sig = helper.make_node("Sigmoid", ["x"], ["y"], name="act")
    path = _hand_model(tmp_path / "sig.onnx", [dql, sig], [], [4, 4], [4, 4], TensorProto.FLOAT)
    with pytest.raises(OnnxImportError, match=r"node 'act' \(Sigmoid\): unsupported op "
                                              "'Sigmoid' in a dynamically quantized model"):
        import_text(path)


def test_the_vtab_and_vta_run_keep_the_host_steps(tmp_path: Path) -> None:
    from vta_mlir.tools import vta_import_onnx, vta_run, vta_translate

    path = _quantized(tmp_path, *CASES["mlp"], expose=False)
    x = np.random.default_rng(11).normal(size=(1, 16, 32)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    mlir, vtab = tmp_path / "mlp.mlir", tmp_path / "mlp.vtab"
    assert vta_import_onnx.main([str(path), "-o", str(mlir)]) == 0
    assert vta_translate.main(["--emit=bin", str(mlir), "-o", str(vtab)]) == 0
    assert vta_run.main([str(vtab), "--input", str(tmp_path / "x.npy"),
                         "--output", str(tmp_path / "y.npy")]) == 0
    y, expected = np.load(tmp_path / "y.npy"), _onnxruntime(path, x)[0]
    assert np.abs(y - expected).max() <= TOLERANCE * np.abs(expected).max()
    assert vta_run.main([str(mlir), "--random-inputs", "--check"]) == 0
