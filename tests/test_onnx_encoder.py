"""A transformer encoder's feed-forward block through the ONNX importer (``docs/onnx.md``
§4.15–§4.16): rank-3 MatMuls on VTA as products of their rows, the bias Adds, LayerNorms and
GELU in float on the host, the float input and output at the edges; a MatMul whose result is
read in float with its heads split out; the errors. Each program runs on every shipped
configuration bit for bit as numpy computes its documented integer and float semantics
(``tests/onnx_semantics.py``, ``tests/onnx_float_semantics.py``) and as the reference evaluator
does (``docs/reference.md``), and agrees with onnxruntime as ``docs/onnx.md`` §6 says."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper, numpy_helper

from tests.onnx_float_models import (
    Graph,
    encoder_block,
    head_split,
    heads_product,
    kept_value,
    quantize,
    rows_matmul,
)
from tests.onnx_float_semantics import FLOAT_TOLERANCE, dequantize, layer_norm
from tests.onnx_semantics import integer_model
from vta_mlir import compile
from vta_mlir.config import VTAConfig
from vta_mlir.frontend.onnx import OnnxImportError, import_program, import_text
from vta_mlir.quant.fuse import ResidualAdd, emission_units
from vta_mlir.quant.host_float import FloatLayer
from vta_mlir.quant.program import AddLayer, DenseLayer, FloatTensor
from vta_mlir.reference import evaluate
from vta_mlir.tools import vta_run

logging.getLogger().setLevel(logging.ERROR)  # quantize_static's pre-processing advice

#: The encoder block's GELU stays in float: its `+ 1` would be an Add of a scalar constant.
ENCODER_OPS, ENCODER_EXCLUDE = ["MatMul", "Add"], ["gelu_add"]


def session(model: onnx.ModelProto | Path) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    source = model.SerializeToString() if isinstance(model, onnx.ModelProto) else str(model)
    return ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])


@pytest.fixture(scope="module")
def encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    model, _ = encoder_block()
    return quantize(tmp_path_factory.mktemp("encoder"), model, "encoder", ENCODER_OPS,
                    exclude=ENCODER_EXCLUDE)


def numpy_output(path: Path, x: np.ndarray) -> np.ndarray:
    """The model's output as the integer semantics and the float semantics of
    ``docs/onnx.md`` §3–§4.15 compute it, in numpy (``tests/onnx_semantics.py``)."""
    model = onnx.load(str(path))
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    out = integer_model(path, np.zeros(x.shape, np.int8), x)
    writer = next(n for n in model.graph.node if model.graph.output[0].name in n.output)
    if writer.op_type != "DequantizeLinear":
        return out
    return dequantize(out, float(inits[writer.input[1]]), int(inits[writer.input[2]]))


def run_exact(path: Path, cfg: VTAConfig, x: np.ndarray) -> np.ndarray:
    """The program of ``path`` on ``cfg``, checked bit for bit against the numpy semantics and
    the reference evaluator."""
    text = import_text(path)
    (y,) = compile(text, config=cfg)(x)
    np.testing.assert_array_equal(y, numpy_output(path, x))
    (want,) = evaluate(text, [x])
    np.testing.assert_array_equal(y, want)
    return y


def test_encoder_layers(encoder: Path) -> None:
    """Device layers for the products, their bias Adds and the residual Add; host layers for
    the quantization of the float input, the LayerNorms and the GELU."""
    program = import_program(encoder)
    assert isinstance(program.input, FloatTensor) and isinstance(program.output, FloatTensor)
    kinds = [(type(layer).__name__, layer.name) for layer in program.layers]
    assert kinds == [("FloatLayer", "x_QuantizeLinear"), ("DenseLayer", "proj"),
                     ("AddLayer", "proj_bias"), ("FloatLayer", "ln1"), ("DenseLayer", "up"),
                     ("AddLayer", "up_bias"), ("FloatLayer", "gelu_div"),
                     ("DenseLayer", "down"), ("AddLayer", "down_bias"),
                     ("AddLayer", "residual"), ("FloatLayer", "ln2")]
    dense = [layer for layer in program.layers if isinstance(layer, DenseLayer)]
    # One product of the 16 rows each, on int8 matrices stored as such.
    assert [program.tensors[layer.src].shape for layer in dense] == [(16, 32), (16, 32), (16, 64)]
    gelu = program.layers[6]
    assert isinstance(gelu, FloatLayer)
    assert [op.op for op in gelu.ops] == ["Div", "Erf", "Add", "Mul", "Mul"]
    # Each bias Add continues its product's epilogue; the residual Add is a layer of its own.
    fused = [(unit.layer.name, unit.add.name) for unit in emission_units(program)
             if isinstance(unit, ResidualAdd)]
    assert fused == [("proj", "proj_bias"), ("up", "up_bias"), ("down", "down_bias")]


def test_encoder_runs_exactly(encoder: Path, cfg: VTAConfig) -> None:
    x = np.random.default_rng(1).standard_normal((1, 16, 32)).astype(np.float32)
    y = run_exact(encoder, cfg, x)
    assert y.dtype == np.float32 and y.shape == (1, 16, 32)


def test_encoder_agrees_with_onnxruntime(encoder: Path, tmp_path: Path) -> None:
    """In two parts (``docs/onnx.md`` §6): the residual's codes, the last int8 tensor, ≥ 99 %
    within one step of onnxruntime's and none beyond three (a LayerNorm's output is finer
    than its input, ``docs/onnx.md`` §4.15); the last LayerNorm on onnxruntime's own
    residual within the float tolerance of ``docs/onnx.md`` §4.15."""
    model = onnx.load(str(encoder))
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    ln2 = next(n for n in model.graph.node if n.name == "ln2")
    residual = ln2.input[0]
    # The block up to the residual: its output the dequantized residual.
    cut = onnx.load(str(encoder))
    cut.graph.node.remove(next(n for n in cut.graph.node if n.name == "ln2"))
    cut.graph.output[0].name = residual
    cut_path = tmp_path / "residual.onnx"
    onnx.save(cut, cut_path)
    step = float(inits["residual_scale"])
    ort_full, ort_cut = session(encoder), session(cut_path)
    module = compile(import_text(cut_path))
    for seed in range(4):
        x = np.random.default_rng(seed).standard_normal((1, 16, 32)).astype(np.float32)
        (r,) = module(x)
        ort_r = ort_cut.run(None, {"x": x})[0]
        steps = np.abs(r - ort_r) / step
        assert np.mean(steps <= 1.001) >= 0.99 and steps.max() <= 3.001
        want = layer_norm(ort_r, inits[ln2.input[1]], inits[ln2.input[2]], -1, 1e-5)
        ort_y = ort_full.run(None, {"x": x})[0]
        assert np.all(np.abs(want - ort_y) <= FLOAT_TOLERANCE * (1 + np.abs(ort_y)))


def test_value_shared_by_host_layers(tmp_path: Path, cfg: VTAConfig) -> None:
    """A LayerNorm of the float input quantized for a MatMul and, in float, added to the
    product: the second host layer computes the LayerNorm again from the float input (host
    steps hand each other int8 buffers), bit for bit the same value."""
    model, _ = kept_value()
    path = quantize(tmp_path, model, "kept", ["MatMul"])
    q = onnx.load(str(path))
    next(n for n in q.graph.node if n.name == "residual").input[1] = "ln"
    onnx.save(q, path)
    program = import_program(path)
    first, last = program.layers[0], program.layers[-1]
    assert isinstance(first, FloatLayer) and isinstance(last, FloatLayer)
    assert [op.op for op in last.ops] == ["LayerNormalization", "Add"] and last.reads == ["x"]
    x = np.random.default_rng(6).standard_normal((1, 8, 16)).astype(np.float32)
    run_exact(path, cfg, x)


def test_cli_float_edges(encoder: Path, tmp_path: Path) -> None:
    """vta-run --input/--output exchange float32 arrays at float edges; --random-inputs
    draws them, --check compares with the reference evaluator."""
    text = import_text(encoder)
    source = tmp_path / "encoder.mlir"
    source.write_text(text)
    x = np.random.default_rng(7).standard_normal((1, 16, 32)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    assert vta_run.main([str(source), "--input", str(tmp_path / "x.npy"), "--output",
                         str(tmp_path / "y.npy")]) == 0
    y = np.load(tmp_path / "y.npy")
    (want,) = evaluate(text, [x])
    assert y.dtype == np.float32 and np.array_equal(y, want)
    assert vta_run.main([str(source), "--random-inputs", "--check"]) == 0


def test_decomposed_layer_norm(tmp_path: Path) -> None:
    """LayerNorm written as ReduceMean, Sub, Pow, Sqrt, Div, Mul, Add (older exporters): the
    same float layers, bit-exact on the default configuration."""
    model, _ = encoder_block(decomposed=True)
    path = quantize(tmp_path, model, "decomposed", ENCODER_OPS,
                    exclude=[*ENCODER_EXCLUDE, "ln1_eps", "ln2_eps", "ln1", "ln2"])
    x = np.random.default_rng(5).standard_normal((1, 16, 32)).astype(np.float32)
    run_exact(path, VTAConfig.shipped("default"), x)


def test_rows_matmul(tmp_path: Path, cfg: VTAConfig) -> None:
    """A 2×4×16 activation by a 16×8 weight: one product of the 8 rows; the bias Add on the
    rows; the output dequantized by the host into 2×4×8."""
    model, _ = rows_matmul()
    path = quantize(tmp_path, model, "rows", ["MatMul", "Add"])
    program = import_program(path)
    dense, add = program.layers[1], program.layers[2]
    assert isinstance(dense, DenseLayer) and program.tensors[dense.dst].shape == (8, 8)
    assert isinstance(add, AddLayer) and add.const.shape == (8,)
    x = np.random.default_rng(2).standard_normal((2, 4, 16)).astype(np.float32)
    y = run_exact(path, cfg, x)
    assert y.shape == (2, 4, 8)
    scale = program.tensors[add.dst].scale
    assert np.abs(y - session(path).run(None, {"x": x})[0]).max() <= scale * 1.001


def without_product_quantization(path: Path, name: str) -> None:
    """The model at ``path`` with the product ``name``'s output pair taken out: its result
    read in float, as onnxruntime's quantizer writes it when it quantizes only MatMuls and
    leaves the output of a product to its float reader (the version here quantizes it)."""
    model = onnx.load(str(path))
    for node in [n for n in model.graph.node if n.name in (f"{name}_QuantizeLinear",
                                                            f"{name}_DequantizeLinear")]:
        model.graph.node.remove(node)
    for node in model.graph.node:
        for k, value in enumerate(node.input):
            if value == f"{name}_DequantizeLinear_Output":
                node.input[k] = name
    onnx.save(model, path)


@pytest.mark.parametrize("float_result", [True, False], ids=["float", "quantized"])
def test_head_split(tmp_path: Path, cfg: VTAConfig, float_result: bool) -> None:
    """MatMul → float bias Add → Reshape → Transpose → QuantizeLinear: one layer with the bias
    folded at the accumulator's scale, writing the 8×16 matrix the heads are a view of; the
    Softmax reads the heads through that view. With the product's output quantized, the bias
    Add, Reshape and Transpose are a float layer reading its rows."""
    model, _ = head_split()
    path = quantize(tmp_path, model, "heads", ["MatMul", "Softmax"])
    if float_result:
        without_product_quantization(path, "query")
    program = import_program(path)
    dense = next(layer for layer in program.layers if isinstance(layer, DenseLayer))
    assert program.tensors[dense.dst].shape == (8, 16)
    floats = [layer for layer in program.layers if isinstance(layer, FloatLayer)]
    assert [[op.op for op in layer.ops] for layer in floats][1:] == \
        ([["Softmax"]] if float_result else [["Add", "Reshape", "Transpose"]])
    inits = {i.name: numpy_helper.to_array(i) for i in onnx.load(str(path)).graph.initializer}
    # The bias rounded once to the accumulator's scale (within half a unit), the input zero
    # point and the requantization's rounding folded with it.
    x_scale, w_scale = float(inits["x_scale"]), float(inits["query_w_scale"])
    zx = int(inits["x_zero_point"])
    weight = inits["query_w_quantized"].astype(np.int64)
    bias = np.rint(inits["query_b"].astype(np.float64) / (x_scale * w_scale))
    expected = bias - zx * weight.sum(axis=0) + dense.rq.rounding
    folded = dense.bias.astype(np.int64)
    if float_result:
        assert np.array_equal(folded, expected)
    x = np.random.default_rng(3).standard_normal((1, 8, 16)).astype(np.float32)
    y = run_exact(path, cfg, x)
    assert y.shape == (1, 2, 8, 8)
    nodes = onnx.load(str(path)).graph.node
    probs = next(n for n in nodes if n.op_type == "Softmax")
    out_scale = float(inits[next(n for n in nodes if n.op_type == "QuantizeLinear"
                                 and n.input[0] == probs.output[0]).input[1]])
    assert np.abs(y - session(path).run(None, {"x": x})[0]).max() <= 2 * out_scale * 1.001


def _import_error(path: Path) -> str:
    with pytest.raises(OnnxImportError) as info:
        import_program(path)
    return str(info.value)


def test_float_result_refused(tmp_path: Path) -> None:
    """A MatMul whose result the host would read in float (its bias Add then a Relu, not a
    QuantizeLinear): refused, naming the node."""
    g = Graph((1, 8, 16))
    y = g.op("Relu", [g.matmul("x", 16, 16, "dense")], "act")
    path = quantize(tmp_path, g.model(g.op("Softmax", [y], "probs"), (1, 8, 16)), "float_result",
                    ["MatMul", "Softmax"])
    # onnxruntime 1.32 quantizes the product's output here: take that pair out.
    model = onnx.load(str(path))
    pair = [n for n in model.graph.node if n.name in ("dense_QuantizeLinear",
                                                      "dense_DequantizeLinear")]
    for node in pair:
        model.graph.node.remove(node)
    next(n for n in model.graph.node if n.name == "dense_bias").input[0] = "dense"
    onnx.save(model, path)
    assert "node 'dense' (MatMul)" in _import_error(path) and "read in float" in \
        _import_error(path)


def test_product_of_heads_refused(tmp_path: Path) -> None:
    """A MatMul of heads split out of a product's rows (a view of its matrix): refused,
    naming the node."""
    model, _ = heads_product()
    path = quantize(tmp_path, model, "heads_product", ["MatMul"])
    without_product_quantization(path, "query")
    line = _import_error(path)
    assert "node 'per_head' (MatMul)" in line and "heads" in line


def test_errors(tmp_path: Path) -> None:
    """A dynamic Reshape and a Cast to an integer type in float, named by their node."""
    model, _ = rows_matmul()
    path = quantize(tmp_path, model, "rows", ["MatMul", "Add"])
    q = onnx.load(str(path))
    last = q.graph.node[-1]
    out = q.graph.output[0].name
    last.output[0] = "pre"
    shape = helper.make_node("Shape", ["pre"], ["shape"], name="shape_of")
    q.graph.node.extend([helper.make_node("Cast", ["pre"], ["int"], name="to_int", to=6),
                         helper.make_node("Cast", ["int"], [out], name="back", to=1)])
    onnx.save(q, path)
    assert "node 'to_int' (Cast)" in _import_error(path) and "float32" in _import_error(path)
    q.graph.node.remove(q.graph.node[-1])
    q.graph.node.remove(q.graph.node[-1])
    q.graph.node.extend([shape, helper.make_node("Reshape", ["pre", "shape"], [out],
                                                 name="dynamic")])
    onnx.save(q, path)
    assert "node 'shape_of' (Shape)" in _import_error(path)
