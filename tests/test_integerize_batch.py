"""``vta-integerize`` on torch-mlir's batched products (``passes/integerize/batch.py``,
``edges.py``): ``linear3d`` of ``tests/data/torch_mlir``, a ``MatMul`` of a 1×16×32 activation
by a constant 32×24 weight quantized as the encoder's products are, which torch-mlir writes as
a ``linalg.quantized_batch_matmul`` against the weight broadcast to 1×32×24; and the static
encoder ``encoder``, whose products of two activations are batched products and whose float
code between them the host computes (``floats.py``).

``vta-run`` runs ``linear3d`` as it is on every configuration: the product on VTA, the host
quantizing the float input into the activation's rows, requantizing the product's int32 result
(only float code reads it, ``docs/onnx.md`` §4.19) and dequantizing the result; bit for bit as
the integer semantics of the ONNX model (``tests/onnx_semantics.py``, written independently of
the compiler) and, as ``docs/onnx.md`` §6 states for the ONNX route, within one output step of
onnxruntime on ≥ 99 % of the elements and never beyond two.  The encoder runs bit for bit as
the reference evaluator computes the file, every product on VTA, and agrees with onnxruntime
as the ONNX route's encoder does (``docs/onnx.md`` §6.2).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper
from xdsl.dialects import func

from tests.onnx_semantics import integer_model, onnxruntime_output
from tests.test_onnx_attention import last_step
from vta_mlir import compile
from vta_mlir.api import parse, run_pipeline
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.errors import VTAError
from vta_mlir.frontend.onnx import import_program
from vta_mlir.passes.integerize.lift import lift_function
from vta_mlir.quant.batch_product import BatchProductLayer
from vta_mlir.quant.host_float import FloatLayer
from vta_mlir.quant.host_requant import HostRequant
from vta_mlir.quant.program import DenseLayer, Program
from vta_mlir.reference import evaluate
from vta_mlir.tools import vta_run

DATA = Path(__file__).parent / "data" / "torch_mlir"
ONNX = DATA / "linear3d.onnx"
ENCODER = DATA / "encoder.onnx"


def _parameters() -> dict[str, float]:
    """The scales of the ONNX model's input and output codes (zero points 0: symmetric)."""
    inits = {i.name: numpy_helper.to_array(i) for i in onnx.load(str(ONNX)).graph.initializer}
    assert int(inits["x_zero_point"]) == 0 and int(inits["y_zero_point"]) == 0
    return {"x": float(inits["x_scale"]), "y": float(inits["y_scale"])}


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
def test_linear3d(tmp_path: Path, capsys: pytest.CaptureFixture[str], config: str) -> None:
    x = np.random.default_rng(1).standard_normal((1, 16, 32)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    status = vta_run.main([str(DATA / "linear3d.mlir"), "--config", config, "--input",
                           str(tmp_path / "x.npy"), "--output", str(tmp_path / "y.npy"),
                           "--stats", "-"])
    out, err = capsys.readouterr()
    assert status == 0, err
    y, stats = np.load(tmp_path / "y.npy"), json.loads(out)
    scales = _parameters()
    q = np.clip(np.rint(x / np.float32(scales["x"])), -128, 127).astype(np.int8)
    expected = integer_model(ONNX, q).astype(np.float32) * np.float32(scales["y"])
    assert y.shape == (1, 16, 24)
    np.testing.assert_array_equal(y, expected)
    assert stats["vta_mac_fraction"] == 1.0
    if config == "default":
        steps = np.abs(y - onnxruntime_output(ONNX, x)) / scales["y"]
        assert np.mean(steps <= 1.001) >= 0.99, f"{np.mean(steps <= 1.001):.3f} within one step"
        assert steps.max() <= 2 + 1e-3


@pytest.mark.parametrize(("old", "new", "expected"), [
    # The weight's zero point 3: its sums would have to be folded per input.
    ("%c0_i32, %c0_i32 : tensor<1x16x32xi8>, tensor<1x32x24xi8>",
     "%c0_i32, %c3_i32 : tensor<1x16x32xi8>, tensor<1x32x24xi8>",
     "weights are an int8 constant with zero point 0"),
    # The product reads the activation's float reals, not its codes.
    ("ins(%1, %3, %c0_i32", "ins(%arg0i, %3, %c0_i32", "reads int8 codes"),
], ids=["weight_zero_point", "float_operand"])
def test_batch_product_refused(old: str, new: str, expected: str) -> None:
    text = (DATA / "linear3d.mlir").read_text()
    assert text.count(old) == 1
    text = text.replace(old, new).replace(
        "%c0_i32 = arith.constant 0 : i32",
        "%c0_i32 = arith.constant 0 : i32\n    %c3_i32 = arith.constant 3 : i32\n"
        "    %arg0i = arith.constant dense<1> : tensor<1x16x32xi8>")
    with pytest.raises(VTAError, match=expected):
        compile(text, requant="fixed-point")


def _encoder_program() -> Program:
    module = parse((DATA / "encoder.mlir").read_text())
    run_pipeline(module, "vta-bufferize")
    function = next(op for op in module.ops if isinstance(op, func.FuncOp))
    return lift_function(module, function)[0]


def test_encoder_program() -> None:
    """The encoder's layers as the ONNX route's for ``encoder.onnx``: six dense layers and
    the two products of activations on VTA, every one requantized by the host with the same
    scales, zero points and clips; the float code between them in float layers."""
    program = _encoder_program()
    onnx_program = import_program(ENCODER)
    products = [(type(layer), program.tensors[layer.dst].shape) for layer in program.layers
                if isinstance(layer, DenseLayer | BatchProductLayer)]
    assert products == [(type(layer), onnx_program.tensors[layer.dst].shape)
                        for layer in onnx_program.layers
                        if isinstance(layer, DenseLayer | BatchProductLayer)]
    assert [t for t, _ in products].count(BatchProductLayer) == 2

    def f32(requant: HostRequant) -> tuple[object, ...]:
        return (*np.float32(requant.scale), requant.bias, requant.zero_point, requant.lo,
                requant.hi)
    assert [f32(r) for r in program.host_requant.values()] == [
        f32(r) for r in onnx_program.host_requant.values()]
    assert sum(isinstance(layer, FloatLayer) for layer in program.layers) == 7


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
def test_encoder(tmp_path: Path, capsys: pytest.CaptureFixture[str], config: str) -> None:
    """``vta-run encoder.mlir --check`` as the file is: bit for bit as the reference evaluator
    computes the file (in its bufferized form, as it evaluates tensors); every product on
    VTA."""
    x = np.random.default_rng(2).standard_normal((1, 16, 32)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    status = vta_run.main([str(DATA / "encoder.mlir"), "--config", config, "--input",
                           str(tmp_path / "x.npy"), "--output", str(tmp_path / "y.npy"),
                           "--check", "--stats", "-"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "check: PASS" in err
    stats = json.loads(out)
    reference = parse((DATA / "encoder.mlir").read_text())
    run_pipeline(reference, "vta-bufferize")
    (want,) = evaluate(reference, [x])
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), want)
    assert stats["vta_mac_fraction"] >= 0.99
    assert all(step.get("macs", 0) == 0 for step in stats["host_steps"])


def test_encoder_agrees_with_onnxruntime() -> None:
    """≥ 99 % of the outputs within one step of onnxruntime on ``encoder.onnx``
    (``ORT_DISABLE_ALL``) and none beyond two, the step the scale of the last
    DequantizeLinear of an activation (``docs/onnx.md`` §6.2)."""
    step = last_step(ENCODER)
    module = compile((DATA / "encoder.mlir").read_text(), requant="fixed-point")
    for seed in range(3):
        x = np.random.default_rng(seed).standard_normal((1, 16, 32)).astype(np.float32)
        (y,) = module(x)
        steps = np.abs(y - onnxruntime_output(ENCODER, x)) / step
        assert np.mean(steps <= 1.001) >= 0.99 and steps.max() <= 2.001


def test_encoder_float_code_refused() -> None:
    """Float code reading a product's scaled accumulator before its quantize (the scores
    divided without their quantize and dequantize) is one error at the op."""
    text = (DATA / "encoder.mlir").read_text()
    old = "ins(%35, %cst_6 : tensor<1x2x16x16xf32>"
    assert text.count(old) == 1
    with pytest.raises(VTAError, match=r":251:5: error: 'linalg.generic' op vta-integerize: "
                                       "float code reads the scaled accumulator of a product "
                                       "before its quantize"):
        compile(text.replace(old, "ins(%33, %cst_6 : tensor<1x2x16x16xf32>"),
                requant="fixed-point")
