"""Products whose codes only float code reads, requantized by the host (``docs/onnx.md``
§4.19): which products qualify, the emitted form (int32 accumulators on VTA, no epilogue; the
float layer's ``QuantizeLinear`` of the exact product), the exact bias of an asymmetric input and
per-channel weight scales, each program bit for bit as numpy computes the semantics on every
shipped configuration, and the agreement with onnxruntime that follows."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnxruntime.quantization import QuantFormat, QuantType, quantize_static

from tests.onnx_float_models import Graph, inputs
from tests.onnx_float_semantics import FLOAT_TOLERANCE
from tests.test_onnx_encoder import run_exact, session
from vta_mlir import compile
from vta_mlir.config import VTAConfig
from vta_mlir.frontend.onnx import import_program, import_text
from vta_mlir.quant.host_float import FloatLayer
from vta_mlir.quant.program import DenseLayer

logging.getLogger().setLevel(logging.ERROR)  # quantize_static's pre-processing advice


class _Reader:
    def __init__(self, data: list[np.ndarray]) -> None:
        self.data = iter([{"x": x} for x in data])

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self.data, None)


def _quantized(tmp: Path, model: onnx.ModelProto, per_channel: bool, symmetric: bool) -> Path:
    src, dst = tmp / "model.onnx", tmp / "model.q.onnx"
    onnx.save(model, src)
    shape = tuple(d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim)
    quantize_static(str(src), str(dst), _Reader(inputs(shape, 8, 3)),  # type: ignore[arg-type]
                    quant_format=QuantFormat.QDQ, activation_type=QuantType.QInt8,
                    weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul"],
                    per_channel=per_channel, extra_options={"ActivationSymmetric": symmetric})
    return dst


def _two_products() -> onnx.ModelProto:
    """1×16×32: LayerNorm → MatMul → Softmax (float code reads the product), and LayerNorm →
    MatMul → MatMul → Relu (the first product read by an integer layer, the second by float
    code), the two added into the graph's float output."""
    g = Graph((1, 16, 32), seed=11)
    ln = g.layer_norm("x", 32, "ln")
    probs = g.op("Softmax", [g.matmul(ln, 32, 24, "scores", bias=False)], "probs", axis=-1)
    hidden = g.matmul(ln, 32, 24, "hidden", bias=False)
    out = g.matmul(hidden, 24, 24, "out", bias=False)
    both = g.op("Add", [probs, g.op("Relu", [out], "relu")], "both")
    return g.model(both, (1, 16, 24))


@pytest.fixture(scope="module", params=[(False, True), (True, False)],
                ids=["per-tensor-symmetric", "per-channel-asymmetric"])
def model(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    per_channel, symmetric = request.param
    return _quantized(tmp_path_factory.mktemp("host_requant"), _two_products(), per_channel,
                      symmetric)


def test_products_read_only_by_float_code(model: Path) -> None:
    """The scores and the last product are read by float code only; the hidden product is
    read by the next product, an integer layer, and keeps its requantization on VTA."""
    program = import_program(model)
    dense = {layer.name: layer for layer in program.layers if isinstance(layer, DenseLayer)}
    assert set(dense) == {"scores", "hidden", "out"}
    host = program.host_requant
    assert set(host) == {dense["scores"].dst, dense["out"].dst}
    readers = [layer for layer in program.layers if isinstance(layer, FloatLayer)
               and dense["scores"].dst in layer.srcs]
    assert readers and all(program.element(dense[n].dst) == "i32" for n in ("scores", "out"))
    assert program.element(dense["hidden"].dst) == "i8"
    for name in ("scores", "out"):
        hr = host[dense[name].dst]
        # One scale per column with per-channel weights (one multiplier per channel on VTA).
        assert len(hr.scale) == (dense[name].weight.shape[1] if dense[name].rq.channel_m else 1)
        # An asymmetric input's zero point is an exact bias −z·Σ_k w, added by the host.
        assert bool(hr.bias) == (program.tensors[dense[name].src].zero_point != 0)


def test_emitted_form(model: Path) -> None:
    """The product writes its int32 accumulators with no epilogue; the float layer reading
    them quantizes the product as QuantizeLinear does and dequantizes it."""
    text = import_text(model)
    program = import_program(model)
    scores = next(layer for layer in program.layers if layer.name == "scores")
    rows, cols = program.tensors[scores.dst].shape
    product = next(line for line in text.splitlines() if 'loc("scores")' in line and
                   "linalg.matmul" in line)
    assert f"memref<{rows}x{cols}xi32>" in product
    body = text[text.index(f"ins(%{scores.dst.replace('.', '_')}"):]
    body = body[:body.index("linalg.yield")]
    for op in ("arith.sitofp", "arith.mulf", "arith.divf", "math.roundeven", "arith.maximumf",
               "arith.minimumf", "arith.subf"):
        assert op in body


def test_runs_exactly(model: Path, cfg: VTAConfig) -> None:
    x = np.random.default_rng(4).standard_normal((1, 16, 32)).astype(np.float32)
    y = run_exact(model, cfg, x)
    assert y.shape == (1, 16, 24) and y.dtype == np.float32


def test_agrees_with_onnxruntime(model: Path) -> None:
    """The host's codes are onnxruntime's wherever its float32 product and the exact one round
    alike (docs/onnx.md §6.2): ≥ 99 % of the outputs within the float tolerance of §4.15 of
    onnxruntime's, and every one within it plus one code of each product it reads."""
    program = import_program(model)
    module = compile(import_text(model))
    ort = session(model)
    step = {name: program.tensors[next(layer for layer in program.layers
                                       if layer.name == name).dst].scale
            for name in ("scores", "out")}
    for seed in range(3):
        x = np.random.default_rng(seed).standard_normal((1, 16, 32)).astype(np.float32)
        (y,) = module(x)
        want = ort.run(None, {"x": x})[0]
        close = FLOAT_TOLERANCE * (1 + np.abs(want))
        diff = np.abs(y - want)
        assert np.mean(diff <= close) >= 0.99
        assert np.all(diff <= close + (step["scores"] + step["out"]) * 1.001)
