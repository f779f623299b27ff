"""``vta-integerize`` on torch-mlir's batched products (``passes/integerize/batch.py``,
``edges.py``): ``linear3d`` of ``tests/data/torch_mlir``, a ``MatMul`` of a 1×16×32 activation
by a constant 32×24 weight quantized as the encoder's products are, which torch-mlir writes as
a ``linalg.quantized_batch_matmul`` against the weight broadcast to 1×32×24.

``vta-run`` runs the file as it is on every configuration: the product on VTA, the host
quantizing the float input into the activation's rows and dequantizing the result from them;
bit for bit as the integer semantics of the ONNX model (``tests/onnx_semantics.py``, written
independently of the compiler) and, as ``docs/onnx.md`` §6 states for the ONNX route, within
one output step of onnxruntime on ≥ 99 % of the elements and never beyond two.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from tests.onnx_semantics import integer_model, onnxruntime_output
from vta_mlir import compile
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.errors import VTAError
from vta_mlir.tools import vta_run

DATA = Path(__file__).parent / "data" / "torch_mlir"
ONNX = DATA / "linear3d.onnx"


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


def test_encoder_float_code_refused() -> None:
    """The encoder's bias added to dequantized codes as reals (float code between a
    dequantize and the next quantize, which the pass does not read yet) is one error at the
    op."""
    with pytest.raises(VTAError, match="adds values this pass does not recognise"):
        compile((DATA / "encoder.mlir").read_text(), requant="fixed-point")
