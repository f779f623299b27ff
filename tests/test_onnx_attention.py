"""Attention through the ONNX importer (``docs/onnx.md`` §4.18): the MatMuls of two int8
activations (``Q·K`` and ``P·V``) as batched products on VTA, in the static QDQ encoder of
``examples/onnx/transformer.py`` (two post-norm layers, 2 heads) end to end: bit for bit as
numpy computes the documented integer and float semantics (``tests/onnx_semantics.py``) and as
the reference evaluator does, on every shipped configuration, every MatMul on VTA; within the
agreement of ``docs/onnx.md`` §6.2 of onnxruntime; and the errors."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from tests.onnx_float_models import Graph, quantize
from tests.test_onnx_encoder import numpy_output, run_exact, session
from vta_mlir import compile
from vta_mlir.config import VTAConfig
from vta_mlir.frontend.onnx import OnnxImportError, import_program, import_text
from vta_mlir.quant.batch_product import BatchProductLayer
from vta_mlir.quant.host_float import FloatLayer
from vta_mlir.reference import evaluate

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "examples" / "onnx") not in sys.path:
    sys.path.insert(0, str(ROOT / "examples" / "onnx"))

from transformer import (  # noqa: E402
    EncoderShape,
    bert_encoder,
    encoder_inputs,
    quantize_static_matmuls,
)

logging.getLogger().setLevel(logging.ERROR)  # quantize_static's pre-processing advice

SHAPE = EncoderShape(layers=2, seq=16, hidden=32, heads=2, ffn=64)


def static_encoder(folder: Path, shape: EncoderShape = SHAPE, symmetric: bool = True) -> Path:
    rng = np.random.default_rng(0)
    return quantize_static_matmuls(bert_encoder(rng, shape), folder / "encoder.onnx",
                                   encoder_inputs(rng, shape, 8), symmetric=symmetric)


@pytest.fixture(scope="module")
def encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return static_encoder(tmp_path_factory.mktemp("attention"))


def last_step(path: Path) -> float:
    """The scale of the last DequantizeLinear of an activation (docs/onnx.md §6.2)."""
    model = onnx.load(str(path))
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in model.graph.initializer}
    last = [n for n in model.graph.node
            if n.op_type == "DequantizeLinear" and n.input[0] not in inits][-1]
    return float(inits[last.input[1]])


def _inputs(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((1, SHAPE.seq, SHAPE.hidden)).astype(
        np.float32)


def test_attention_layers(encoder: Path) -> None:
    """Per layer two batched products on the heads, stored as the B×M×K tensors they read;
    the float layers around them on the host."""
    program = import_program(encoder)
    products = [layer for layer in program.layers if isinstance(layer, BatchProductLayer)]
    assert [layer.name for layer in products] == ["layer0.scores", "layer0.context",
                                                  "layer1.scores", "layer1.context"]
    d = SHAPE.head_dim
    for layer in products:
        a, b = program.tensors[layer.a], program.tensors[layer.b]
        assert a.zero_point == b.zero_point == 0
        assert program.tensors[layer.dst].shape == (SHAPE.heads, SHAPE.seq, SHAPE.seq if
                                                    layer.name.endswith("scores") else d)
        # Stored batch by batch; the ONNX shape is a view of the same C-order elements.
        assert program.views[layer.dst][0] == (1, *program.tensors[layer.dst].shape)
    scores, context = products[:2]
    assert program.tensors[scores.a].shape == (2, SHAPE.seq, d)   # query heads
    assert program.tensors[scores.b].shape == (2, d, SHAPE.seq)   # key heads, K×N per head
    assert program.tensors[context.a].shape == (2, SHAPE.seq, SHAPE.seq)  # probabilities
    floats = [[op.op for op in layer.ops] for layer in program.layers
              if isinstance(layer, FloatLayer)]
    assert ["Div", "Softmax"] in floats and ["Transpose", "Reshape"] in floats


def test_emitted_product(encoder: Path) -> None:
    text = import_text(encoder)
    assert text.count("linalg.batch_matmul") == 4
    assert ("linalg.batch_matmul ins(%layer0_query_heads_QuantizeLinear_Output, "
            "%layer0_key_heads_QuantizeLinear_Output : memref<2x16x16xi8>, memref<2x16x16xi8>)"
            in text)


def test_encoder_runs_exactly(encoder: Path, cfg: VTAConfig) -> None:
    """Bit for bit the numpy semantics and the reference evaluator; every MatMul on VTA (the
    host's multiply-accumulates are the LayerNorms' sums of squares)."""
    x = _inputs(1)
    text = import_text(encoder)
    module = compile(text, config=cfg)
    (y,) = module(x)
    assert y.shape == (1, SHAPE.seq, SHAPE.hidden) and y.dtype == np.float32
    np.testing.assert_array_equal(y, numpy_output(encoder, x))
    (want,) = evaluate(text, [x])
    np.testing.assert_array_equal(y, want)
    stats = module.last_run
    matmuls = {n.name for n in onnx.load(str(encoder)).graph.node if n.op_type == "MatMul"}
    assert not matmuls & {step["operation"] for step in stats.host_steps if step["macs"]}
    assert stats.vta_mac_fraction >= 0.99


def test_encoder_agrees_with_onnxruntime(encoder: Path) -> None:
    """≥ 99 % of the outputs within one step of onnxruntime and none beyond two, the step the
    scale of the last DequantizeLinear before the float tail (docs/onnx.md §6.2)."""
    step = last_step(encoder)
    module = compile(import_text(encoder))
    ort = session(encoder)
    for seed in range(3):
        x = _inputs(seed)
        (y,) = module(x)
        steps = np.abs(y - ort.run(None, {"x": x})[0]) / step
        assert np.mean(steps <= 1.001) >= 0.99 and steps.max() <= 2.001


def test_input_times_its_transpose(tmp_path: Path, cfg: VTAConfig) -> None:
    """``x · xᵀ`` of the float input: both operands quantized by host steps into the shapes
    the product reads (1×8×16 and 1×16×8)."""
    g = Graph((1, 8, 16))
    scores = g.op("MatMul", ["x", g.op("Transpose", ["x"], "keys", perm=[0, 2, 1])], "scores")
    path = quantize(tmp_path, g.model(scores, (1, 8, 8)), "scores", ["MatMul"])
    program = import_program(path)
    (product,) = [layer for layer in program.layers if isinstance(layer, BatchProductLayer)]
    assert program.tensors[product.b].shape == (1, 16, 8)
    x = np.random.default_rng(4).standard_normal((1, 8, 16)).astype(np.float32)
    y = run_exact(path, cfg, x)
    np.testing.assert_array_equal(y, numpy_output(path, x))


def _import_error(path: Path) -> str:
    with pytest.raises(OnnxImportError) as info:
        import_program(path)
    return str(info.value)


def test_asymmetric_operands_refused(tmp_path: Path) -> None:
    """Zero points on the operands of a product of two activations: their sums change with
    the input, so they cannot be folded; refused naming the node."""
    path = static_encoder(tmp_path, EncoderShape(1, 8, 16, 2, 16), symmetric=False)
    line = _import_error(path)
    assert line.startswith("node 'layer0.scores' (MatMul): operand ") and \
        "zero points of 0" in line


def test_dynamic_sequence_refused(encoder: Path, tmp_path: Path) -> None:
    """A symbolic sequence length: refused naming the node that reads the input."""
    model = onnx.load(str(encoder))
    for value in (model.graph.input[0], model.graph.output[0]):
        value.type.tensor_type.shape.dim[1].dim_param = "sequence"
    path = tmp_path / "dynamic.onnx"
    onnx.save(model, path)
    line = _import_error(path)
    assert line.startswith("node 'x_QuantizeLinear' (QuantizeLinear): input 'x' has a "
                           "dynamic or unknown shape")


def test_attention_mask_refused(encoder: Path, tmp_path: Path) -> None:
    """An attention mask, a second input added to the scores before the Softmax: one error
    naming the Add."""
    model = onnx.load(str(encoder))
    softmax = next(n for n in model.graph.node if n.name == "layer0.softmax")
    at = list(model.graph.node).index(softmax)
    model.graph.node.insert(at, helper.make_node("Add", [softmax.input[0], "mask"],
                                                 ["masked"], name="layer0.mask"))
    softmax.input[0] = "masked"
    model.graph.input.append(helper.make_tensor_value_info(
        "mask", TensorProto.FLOAT, (1, 1, SHAPE.seq, SHAPE.seq)))
    path = tmp_path / "mask.onnx"
    onnx.save(model, path)
    assert _import_error(path) == (
        "node 'layer0.mask' (Add): reads 'mask', a second graph input; an attention mask added "
        "to the scores is not supported (the importer takes one graph input)")


def test_broadcast_operand_refused(tmp_path: Path) -> None:
    """``[2, 8, 16] × [16, 8]``: one operand read for every batch, refused naming the node."""
    g = Graph((2, 8, 16))
    mean = g.op("ReduceMean", ["x"], "mean", axes=[0], keepdims=0)
    scores = g.op("MatMul", ["x", g.op("Transpose", [mean], "keys", perm=[1, 0])], "scores")
    path = quantize(tmp_path, g.model(scores, (2, 8, 8)), "broadcast", ["MatMul"])
    line = _import_error(path)
    assert line.startswith("node 'scores' (MatMul): operand ") and \
        "is broadcast over the batch (2,)" in line


def test_operand_stored_as_rows_refused(tmp_path: Path) -> None:
    """``P · V`` with ``V`` a product's quantized output, stored as the matrix of its rows
    (docs/onnx.md §4.16) rather than batch by batch: refused naming the node."""
    g = Graph((1, 8, 16))
    t = g.op("Tanh", ["x"], "t")
    scores = g.op("MatMul", [t, g.op("Transpose", [t], "keys", perm=[0, 2, 1])], "scores")
    context = g.op("MatMul", [scores, g.matmul("x", 16, 8, "value", bias=False)], "context")
    path = quantize(tmp_path, g.model(context, (1, 8, 8)), "rows", ["MatMul"])
    line = _import_error(path)
    assert line.startswith("node 'context' (MatMul): operand ") and \
        "is stored as (8, 8), not as the batches of matrices (1, 8, 8)" in line
