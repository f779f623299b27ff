"""The dynamically quantized encoder of ``examples/onnx/transformer.py`` (``quantize_dynamic``,
docs/onnx.md §4.17) end to end: every ``MatMulInteger`` on VTA with int32 results equal to
onnxruntime's bit for bit (exposed as graph outputs), every float node on the host
(LayerNormalization, GELU with Erf, Softmax, the heads' Reshape and Transpose, the attention
MatMuls of two float activations), the output within ``1e-3 · max|y|`` of onnxruntime's
(§6.1), on every shipped configuration; the float MatMul bit for bit as numpy computes its
documented float32 semantics; and the errors."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from vta_mlir import compile  # noqa: E402
from vta_mlir.config import VTAConfig  # noqa: E402
from vta_mlir.frontend.onnx import OnnxImportError, import_text  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "examples" / "onnx") not in sys.path:
    sys.path.insert(0, str(ROOT / "examples" / "onnx"))

from transformer import (  # noqa: E402
    EncoderShape,
    bert_encoder,
    encoder_inputs,
    quantize_dynamic_matmuls,
)

logging.getLogger().setLevel(logging.ERROR)

SHAPE = EncoderShape(layers=2, seq=16, hidden=32, heads=2, ffn=64)
#: docs/onnx.md §6.1: the int32 results are exact; only the float32 host arithmetic after them
#: rounds differently from onnxruntime's kernels.
TOLERANCE = 1e-3


def dynamic_encoder(folder: Path, shape: EncoderShape = SHAPE, *, expose: bool = True) -> Path:
    """The dynamically quantized encoder, with the int32 result of every MatMulInteger also a
    graph output when ``expose``."""
    path = quantize_dynamic_matmuls(bert_encoder(np.random.default_rng(0), shape),
                                    folder / "encoder.onnx")
    if expose:
        model = onnx.load(path)
        inits = {i.name: i for i in model.graph.initializer}
        for node in model.graph.node:
            if node.op_type == "MatMulInteger":
                cols = inits[node.input[1]].dims[1]
                model.graph.output.append(helper.make_tensor_value_info(
                    node.output[0], TensorProto.INT32, [1, shape.seq, cols]))
        onnx.save(model, path)
    return path


def onnxruntime_outputs(path: Path, x: np.ndarray) -> list[np.ndarray]:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})


@pytest.fixture(scope="module")
def encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return dynamic_encoder(tmp_path_factory.mktemp("dynamic_encoder"))


def test_the_encoder_agrees_with_onnxruntime(encoder: Path, cfg: VTAConfig) -> None:
    x = encoder_inputs(np.random.default_rng(1), SHAPE, 1)[0]
    expected = onnxruntime_outputs(encoder, x)
    module = compile(import_text(encoder), config=cfg)
    got = module(x)
    # Twelve device runs between host steps: each ends with no token left and no command
    # after its FINISH (no token crosses a host step).
    assert module.last_run.warnings == []
    assert len(got) == len(expected) == 1 + SHAPE.layers * 6
    y, *results = got
    for have, want in zip(results, expected[1:], strict=True):
        assert have.dtype == np.int32 and np.array_equal(have, want)
    assert y.shape == expected[0].shape and y.dtype == np.float32
    assert np.abs(y - expected[0]).max() <= TOLERANCE * np.abs(expected[0]).max()


def test_every_matmul_integer_runs_on_vta(tmp_path: Path) -> None:
    path = dynamic_encoder(tmp_path, expose=False)
    text = import_text(path)
    assert text.count("linalg.matmul ins(") == SHAPE.layers * 6
    module = compile(text)
    module(encoder_inputs(np.random.default_rng(2), SHAPE, 1)[0])
    stats = module.last_run
    s, h, f, heads = SHAPE.seq, SHAPE.hidden, SHAPE.ffn, SHAPE.heads
    integer = SHAPE.layers * (4 * s * h * h + 2 * s * h * f)
    assert stats.vta_macs >= integer  # type: ignore[union-attr]
    # The host's contractions: the attention products and LayerNormalization's sums of
    # squares (a reduction over a product), nothing else.
    attention = SHAPE.layers * 2 * heads * s * s * (h // heads)
    squares = SHAPE.layers * 2 * s * h
    assert stats.host_macs == attention + squares  # type: ignore[union-attr]


def _float_matmul_model(path: Path, a_shape: list[int], b_shape: list[int],
                        out_shape: list[int]) -> Path:
    """Two dynamically quantized projections of ``x`` multiplied together in float, as
    attention's scores are."""
    rng = np.random.default_rng(3)
    k = a_shape[-1]
    inits = [numpy_helper.from_array((rng.normal(size=(k, k)) * 0.3).astype(np.float32), w)
             for w in ("wa", "wb")]
    inits.append(numpy_helper.from_array(np.array(b_shape, np.int64), "b_shape"))
    nodes = [helper.make_node("MatMul", ["x", "wa"], ["a"], name="proj_a"),
             helper.make_node("MatMul", ["x", "wb"], ["b0"], name="proj_b"),
             helper.make_node("Reshape", ["b0", "b_shape"], ["b"], name="view_b"),
             helper.make_node("MatMul", ["a", "b"], ["y"], name="product")]
    graph = helper.make_graph(nodes, "product",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, a_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
                              inits)
    float_path = path.with_suffix(".f.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              float_path)
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(float_path), str(path), weight_type=QuantType.QInt8,
                     op_types_to_quantize=["MatMul"])
    model = onnx.load(path)
    names = {n.name: n for n in model.graph.node}
    assert names["product"].op_type == "MatMul"  # two activations: left float
    model.graph.output.extend([helper.make_tensor_value_info(v, TensorProto.FLOAT, s) for v, s
                               in (("a", a_shape), ("b", b_shape))])
    onnx.save(model, path)
    return path


def test_the_float_matmul_is_float32_in_index_order(tmp_path: Path, cfg: VTAConfig) -> None:
    # a: 2×1×4×8 times b: 2×8×4, the batch axes broadcast to 2×2 (each operand along one):
    # each product and sum rounded to float32, the sum from k = 0 on, as numpy computes it
    # here.
    path = _float_matmul_model(tmp_path / "product.onnx", [2, 1, 4, 8], [2, 8, 4],
                               [2, 2, 4, 4])
    x = np.random.default_rng(4).normal(size=(2, 1, 4, 8)).astype(np.float32)
    y, a, b = compile(import_text(path), config=cfg)(x)
    expected = np.zeros((2, 2, 4, 4), np.float32)
    for k in range(8):
        expected = (expected + a[..., :, k:k + 1] * b[..., k:k + 1, :]).astype(np.float32)
    assert np.array_equal(y, expected)
    want = onnxruntime_outputs(path, x)[0]
    assert np.abs(y - want).max() <= TOLERANCE * np.abs(want).max()


def test_float_matmuls_the_host_does_not_compute_are_one_error(tmp_path: Path) -> None:
    path = _float_matmul_model(tmp_path / "product.onnx", [1, 4, 8], [1, 2, 16], [1, 4, 16])
    with pytest.raises(OnnxImportError, match=r"node 'product' \(MatMul\): Incompatible "
                                              "dimensions"):
        import_text(path)
    # A vector operand (ONNX's rank-1 MatMul): the host computes products of matrices.
    path = _float_matmul_model(tmp_path / "vector.onnx", [1, 8], [8], [1])
    with pytest.raises(OnnxImportError, match=r"node 'product' \(MatMul\): a float MatMul of "
                                              r"shapes \(1, 8\) and \(8,\)"):
        import_text(path)


def test_the_tools_run_the_encoder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from vta_mlir.tools import vta_import_onnx, vta_run

    path = dynamic_encoder(tmp_path, expose=False)
    x = encoder_inputs(np.random.default_rng(5), SHAPE, 1)[0]
    np.save(tmp_path / "x.npy", x)
    mlir = tmp_path / "encoder.mlir"
    assert vta_import_onnx.main([str(path), "-o", str(mlir)]) == 0
    capsys.readouterr()
    assert vta_run.main([str(mlir), "--input", str(tmp_path / "x.npy"), "--output",
                         str(tmp_path / "y.npy"), "--stats", "-"]) == 0
    stats = json.loads(capsys.readouterr().out)
    s, h, f, heads = SHAPE.seq, SHAPE.hidden, SHAPE.ffn, SHAPE.heads
    integer = SHAPE.layers * (4 * s * h * h + 2 * s * h * f)
    host = SHAPE.layers * (2 * heads * s * s * (h // heads) + 2 * s * h)
    assert stats["vta_mac_fraction"] == pytest.approx(integer / (integer + host))
    y, expected = np.load(tmp_path / "y.npy"), onnxruntime_outputs(path, x)[0]
    assert np.abs(y - expected).max() <= TOLERANCE * np.abs(expected).max()
