"""Depthwise convolutions on the ONNX route (``docs/onnx.md`` §4.7): a ``Conv`` with ``group``
= channels, quantized by ``quantize_static`` (per tensor and per channel, symmetric and
asymmetric activations), with a ReLU or a ReLU6 (``Clip`` 0..6) folded into it, imported,
compiled and run on the simulator.

Each run is bit-exact with the numpy model of the integer semantics
(``tests/onnx_semantics.py``) and, dequantized, within the agreement of §6 with onnxruntime
(``ORT_DISABLE_ALL``): ≥ 99 % of the outputs within one output step, none beyond one for a
layer, two after a residual ``Add`` (``mobilenet_block``).  A grouping VTA does not run is one
error line naming the node.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.frontend.onnx import import_program
from vta_mlir.quant.depthwise import DepthwiseConvLayer
from vta_mlir.tools import vta_import_onnx

from .test_onnx_import import check, quantized

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "onnx"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))
from models import MODELS, Built, float_model, init_tensor, quantize  # noqa: E402

logging.getLogger().setLevel(logging.ERROR)  # quantize_static's pre-processing advice


def depthwise(channels: int, size: int, kernel: int, stride: int, pad: int,
              activation: str) -> Callable[[np.random.Generator], Built]:
    """A depthwise ``Conv`` (``group`` = channels, a bias) and ``activation``: ``relu6`` (a
    ``Clip`` between the constants 0 and 6), ``relu`` or none."""

    def build(rng: np.random.Generator) -> Built:
        inits = [init_tensor(rng, "w", (channels, 1, kernel, kernel), 0.4),
                 init_tensor(rng, "b", (channels,), 0.3),
                 helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0]),
                 helper.make_tensor("six", TensorProto.FLOAT, [], [6.0])]
        out = "c" if activation else "y"
        nodes = [helper.make_node("Conv", ["x", "w", "b"], [out], group=channels,
                                  kernel_shape=[kernel, kernel], strides=[stride, stride],
                                  pads=[pad] * 4, name="dw")]
        if activation == "relu6":
            nodes.append(helper.make_node("Clip", ["c", "zero", "six"], ["y"], name="relu6"))
        elif activation == "relu":
            nodes.append(helper.make_node("Relu", ["c"], ["y"], name="relu"))
        o = (size + 2 * pad - kernel) // stride + 1
        return nodes, inits, (1, channels, size, size), (1, channels, o, o)

    build.__name__ = f"dw{channels}_k{kernel}_s{stride}_p{pad}_{activation or 'none'}"
    return build


LAYERS = {
    "c24_k3_s1_p1_relu6": depthwise(24, 8, 3, 1, 1, "relu6"),
    "c40_k5_s2_p2_relu": depthwise(40, 9, 5, 2, 2, "relu"),
    "c8_k3_s2_p0": depthwise(8, 7, 3, 2, 0, ""),
    "c16_k3_s2_p1_relu6": depthwise(16, 8, 3, 2, 1, "relu6"),
}


@pytest.mark.parametrize("per_channel", [False, True], ids=["per_tensor", "per_channel"])
@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
@pytest.mark.parametrize("name", sorted(LAYERS))
def test_depthwise_layers(tmp_path: Path, name: str, symmetric: bool, per_channel: bool) -> None:
    path = quantized(tmp_path, LAYERS[name], symmetric, per_channel=per_channel)
    (layer,) = import_program(path).layers
    assert isinstance(layer, DepthwiseConvLayer)
    assert (len(layer.rq.channel_m) > 1) == per_channel
    check(path, "default", worst=1.0)


@pytest.mark.parametrize("config", [c for c in SHIPPED_CONFIGS if c != "default"])
@pytest.mark.parametrize("name", ["c24_k3_s1_p1_relu6", "c40_k5_s2_p2_relu"])
def test_depthwise_other_configs(tmp_path: Path, name: str, config: str) -> None:
    check(quantized(tmp_path, LAYERS[name], False, per_channel=True), config, worst=1.0)


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
def test_mobilenet_block(tmp_path: Path, symmetric: bool, config: str) -> None:
    """Two inverted residual blocks: expansion, depthwise (stride 1, then 2), projection, a
    residual Add (two steps at most after it, §6)."""
    path = quantized(tmp_path, MODELS["mobilenet_block"], symmetric)
    kinds = [type(layer).__name__ for layer in import_program(path).layers]
    assert kinds.count("DepthwiseConvLayer") == 2
    check(path, config, worst=2.0)


# ---------------------------------------------------------------------------------------------
# Groupings VTA does not run


def grouped(group: int, out: int, dilation: int = 1) -> Callable[[np.random.Generator], Built]:
    def build(rng: np.random.Generator) -> Built:
        inits = [init_tensor(rng, "w", (out, 8 // group, 3, 3), 0.3)]
        nodes = [helper.make_node("Conv", ["x", "w"], ["y"], group=group, kernel_shape=[3, 3],
                                  dilations=[dilation, dilation], name="grouped")]
        o = 8 - 2 * dilation
        return nodes, inits, (1, 8, 8, 8), (1, out, o, o)

    build.__name__ = f"grouped{group}_{out}_{dilation}"
    return build


def import_error(tmp_path: Path, model: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """The one error line of ``vta-import-onnx`` on ``model`` (no output file, no traceback)."""
    out = tmp_path / "out.mlir"
    assert vta_import_onnx.main([str(model), "-o", str(out)]) == 1
    assert not out.exists()
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize(("group", "out", "dilation", "message"), [
    (2, 8, 1, "a convolution of 2 groups on 8 input channels; grouped convolutions are "
              "supported with group 1 (dense) or group = channels (depthwise)"),
    (8, 16, 1, "a depthwise convolution of 8 input channels into 16 outputs (channel "
               "multiplier 2); depthwise convolutions are supported with one output channel "
               "per input channel"),
    (8, 8, 2, "dilated convolutions are not supported"),
])
def test_unsupported_groupings(tmp_path: Path, capsys: pytest.CaptureFixture[str], group: int,
                               out: int, dilation: int, message: str) -> None:
    rng = np.random.default_rng(0)
    path = quantize(float_model(grouped(group, out, dilation), rng), tmp_path / "g.onnx", True,
                    rng)
    assert onnx.load(str(path)).graph.node
    line = import_error(tmp_path, path, capsys)
    assert line == f"vta-import-onnx: error: node 'grouped' (Conv): {message}"
