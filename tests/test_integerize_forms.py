"""``vta-integerize`` on torch-mlir's output for per-channel weights and uint8 activations
(``tests/data/torch_mlir``, ``*_pc`` and ``*_u8``; ``passes/integerize/channels.py`` and
``unsigned.py``).

torch-mlir keeps a layer with per-channel weights in float (a generic dequantizing the int8
weights with one scale and zero point per output channel, a float convolution or matrix
product, the float bias); the pass reads it as the integer layer with per-channel fixed-point
multipliers. uint8 codes (``fptoui``, the shift ``x + (−128)`` before a quantized
convolution, ``maxui`` for a ReLU, ``uitofp``/``extui``) become int8 codes with the zero
point minus 128. A ``QLinearConv`` (the QOperator format) reaches the pass as its QDQ form
does. Each file compiles and runs on every configuration, bit-exact with the
integer semantics of its ONNX model and within the agreement of ``docs/onnx.md`` §6 with
onnxruntime, exactly as the ONNX route computes the same model.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.onnx_semantics import expected_output, onnxruntime_output
from tests.test_integerize import DATA
from vta_mlir import compile, parse, run_pipeline
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.errors import VTAError
from vta_mlir.frontend.onnx import import_program

#: The files and the largest difference from onnxruntime each may show, in output steps: one,
#: and two for the residual blocks (asymmetric activations, whose Add reads the rounded
#: convolution output, docs/onnx.md §6) and the inverted residual blocks (depthwise
#: convolutions, kept in float with their per-channel weights as the dense ones are).
FORMS: dict[str, float] = {
    "conv_relu_pc": 1, "residual_pc": 2, "dense_pc": 1, "small_cnn_pc": 1,
    "mobilenet_block_pc": 2,
    "conv_relu_u8": 1, "residual_u8": 2, "small_cnn_u8": 1, "conv_relu_qop": 1,
}


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("name", sorted(FORMS))
def test_forms(name: str, config: str) -> None:
    onnx_path = DATA / f"{name}.onnx"
    shape = import_program(onnx_path).input.shape
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    (y,) = compile((DATA / f"{name}.mlir").read_text(), config=config, requant="fixed-point")(x)
    np.testing.assert_array_equal(y, expected_output(onnx_path, x))
    steps = np.abs(y - onnxruntime_output(onnx_path, x)) / import_program(onnx_path).output.scale
    assert np.mean(steps <= 1.001) >= 0.99, f"{np.mean(steps <= 1.001):.3f} within one step"
    assert steps.max() <= FORMS[name] + 1e-3, f"worst {steps.max():.2f} steps"


def _requant_of(text: str) -> dict[str, float]:
    module = parse(text)
    run_pipeline(module, "vta-bufferize,vta-integerize{requant=fixed-point}")
    return {k: v.value.data for k, v in module.attributes["vta.requant"].data.items()
            if k != "mode"}


def test_per_channel_multipliers() -> None:
    """The per-channel multipliers are a constant vector read by the ``muli``; the layer's
    constants are those of the ONNX route's program for the same model."""
    text = (DATA / "conv_relu_pc.mlir").read_text()
    module = parse(text)
    run_pipeline(module, "vta-bufferize,vta-integerize{requant=fixed-point}")
    printed = str(module)
    assert "@conv0_m : memref<16xi32>" in printed
    assert "f32" not in printed.split("func.func")[1]
    layer = import_program(DATA / "conv_relu_pc.onnx").layers[0]
    values = [int(v) for v in printed.split("@conv0_m : memref<16xi32> = dense<[")[1]
              .split("]")[0].split(",")]
    assert tuple(values) == layer.rq.channel_m
    assert 0 < _requant_of(text)["max_error_steps"] < 0.05


def test_uint8_zero_points() -> None:
    """The input and output of a uint8 file are int8 arguments with the uint8 zero points
    minus 128."""
    module = parse((DATA / "conv_relu_u8.mlir").read_text())
    run_pipeline(module, "vta-bufferize,vta-integerize{requant=fixed-point}")
    program = import_program(DATA / "conv_relu_u8.onnx")
    printed = str(module)
    assert f"zero_point = {program.input.zero_point} : i64" in printed
    assert program.input.zero_point == 145 - 128
    assert "fptoui" not in printed and "uitofp" not in printed


def _refused(text: str, match: str) -> None:
    module = parse(text)
    with pytest.raises(VTAError, match=match):
        run_pipeline(module, "vta-bufferize,vta-integerize{requant=fixed-point}")


def test_asymmetric_channel_weights_refused() -> None:
    """Per-channel weights with a zero point other than 0: one error at the contraction."""
    text = (DATA / "conv_relu_pc.mlir").read_text()
    assert text.count("dense<0> : tensor<16xi8>") == 1
    _refused(text.replace("dense<0> : tensor<16xi8>", "dense<3> : tensor<16xi8>"),
             "per-channel weights are symmetric")


def test_unsigned_codes_into_a_convolution_refused() -> None:
    """uint8 codes read by a quantized convolution without the shift to int8 first."""
    text = (DATA / "conv_relu_u8.mlir").read_text()
    shift = "arith.addi %in, %c-128_i8 : i8"
    assert text.count(shift) == 1
    _refused(text.replace(shift, "arith.addi %in, %c17_i8 : i8"), "is not a quantize")


def test_per_channel_weight_reshapes_keep_their_channel_axis() -> None:
    """A collapse of a dequantized depthwise kernel C × 1 × KH × KW to C × KH × KW keeps the
    scales on the channels; a reshape that splits the channels is one error at the op."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IntegerAttr, i32

    from passes.integerize.channels import weight_reshape
    from passes.integerize.meaning import DequantizedWeight, Unsupported

    q = np.arange(4 * 9, dtype=np.int8).reshape(4, 1, 3, 3)
    weight = DequantizedWeight(q, np.array([0.5, 0.25, 0.125, 1.0]), np.zeros(4, np.int64), 0)
    op = arith.ConstantOp(IntegerAttr(0, i32))
    collapsed = weight_reshape(op, weight, (4, 3, 3))
    assert collapsed.axis == 0 and np.array_equal(collapsed.q, q.reshape(4, 3, 3))
    # Channels last stay last when a leading unit dimension is added.
    last = DequantizedWeight(q.reshape(9, 4), weight.scale, weight.zero_point, 1)
    assert weight_reshape(op, last, (1, 9, 4)).axis == 2
    with pytest.raises(Unsupported, match="across their channels"):
        weight_reshape(op, weight, (2, 2, 9))
