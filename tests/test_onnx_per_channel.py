"""Per-channel weight scales on the ONNX route (``docs/onnx.md`` §3, "per-channel"): one pair
of shifts, one int32 multiplier per output channel, multiplied first and rounded once.

The ResNet-50 bottleneck block of ``examples/onnx/models.py`` (1×1, 3×3, 1×1 and the residual
Add) runs bit-exact with the integer semantics and within the agreement of §6 (≥ 99 % of the
outputs within one step of onnxruntime, none beyond two): a one-code difference in the last
convolution becomes two steps through the Add, whose rescale of that operand is above 1.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from tests.onnx_qdq_builder import QDQ
from tests.test_onnx_import import MODELS, check, quantized
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.frontend.onnx import import_program, import_text
from vta_mlir.frontend.onnx.qdq import ConvLayer
from vta_mlir.quant.requant import (
    IMM_MAX,
    choose_requant_channels,
    error_bound,
    output_window,
    round_shift,
)


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
def test_bottleneck(tmp_path: Path, symmetric: bool, config: str) -> None:
    path = quantized(tmp_path, MODELS["bottleneck"], symmetric, per_channel=True)
    convs = [layer for layer in import_program(path).layers if isinstance(layer, ConvLayer)]
    assert len(convs) == 3 and all(len(layer.rq.channel_m) > 1 for layer in convs)
    check(path, config, worst=2.0)


def test_channel_multipliers_are_not_immediates() -> None:
    """The multipliers are a constant vector: beyond 15 bits where the shifts allow it, and the
    accumulator is multiplied before any shift (``s1 = 0``) at the scales of convolutions."""
    multipliers = [0.0041, 0.0023, 0.021, 0.0009]
    rq = choose_requant_channels(multipliers)
    assert rq.s1 == 0 and max(rq.channel_m) > IMM_MAX
    assert len(rq.channel_clip) == len(multipliers) and rq.clip == max(rq.channel_clip)
    for m, clip, v in zip(rq.channel_m, rq.channel_clip, multipliers, strict=True):
        assert m * clip < 1 << 31 and clip * m >= 256 << rq.s2
        assert abs(m / 2.0 ** rq.s2 / v - 1) < 2e-4
    # The bound the tensor route reports is the worst channel's.
    assert error_bound(multipliers, rq) == max(
        error_bound(v, replace(rq, m=m, channel_m=()))
        for v, m in zip(multipliers, rq.channel_m, strict=True))


def test_tiny_channel_multiplier_shifts_first() -> None:
    """A channel whose multiplier would keep few bits after the largest shifts the
    accumulator allows rounds the accumulator first (``s1 > 0``)."""
    rq = choose_requant_channels([1e-6, 2e-6])
    assert rq.s1 > 0 and min(rq.channel_m) >= 1 << 11


def test_channel_clip_bounds_never_wrap() -> None:
    """A multiplier above 1 has no output window (§3): each channel is clipped to its own
    bound, whose product with its multiplier stays within int32 for every channel."""
    multipliers = [3.0, 0.002]
    rq = choose_requant_channels(multipliers)
    assert output_window(rq, rq.channel_m[0], 0, -128, 127) is None
    for m, clip, v in zip(rq.channel_m, rq.channel_clip, multipliers, strict=True):
        for t in (-clip, clip):
            assert abs(t * m) < 1 << 31
            assert abs(round_shift(t * m, rq.s2)) >= 256  # saturates, as the clip must
        assert math.isclose(m / 2.0 ** (rq.s1 + rq.s2), v, rel_tol=1e-3)


def test_per_channel_residual(tmp_path: Path) -> None:
    """The residual block of the other tests with per-channel weights, every configuration."""
    path = quantized(tmp_path, MODELS["residual"], symmetric=False, per_channel=True)
    for config in SHIPPED_CONFIGS:
        check(path, config, worst=2.0)


def test_channel_bounds_saturate() -> None:
    """The integer model clips a per-channel layer at the largest channel bound: a value beyond
    any channel's own bound saturates that channel's output too, so the results agree."""
    rq = choose_requant_channels([0.004, 0.0005])
    for m, clip in zip(rq.channel_m, rq.channel_clip, strict=True):
        beyond = np.array([clip, rq.clip], np.int64) * m
        assert np.all(np.abs([round_shift(int(v), rq.s2) for v in beyond]) >= 256)


@pytest.mark.parametrize("config", SHIPPED_CONFIGS)
def test_channel_multiplier_above_one(tmp_path: Path, config: str) -> None:
    """A convolution whose channels' multipliers straddle 1 (weight scales 0.01 and 40 at
    activation scales 0.05): no output window for the large one, each channel clipped to its
    own bound from a vector, then the output clip."""
    qdq = QDQ((1, 3, 6, 6))
    qdq.conv("conv", 2, pads=[1, 1, 1, 1])
    model = qdq.model((1, 2, 6, 6))
    scales = numpy_helper.from_array(np.array([0.01, 40.0], np.float32), "ws_channels")
    model.graph.initializer.append(scales)
    dequantize = next(n for n in model.graph.node if n.name == "conv_w_dq")
    dequantize.input[1] = "ws_channels"
    dequantize.attribute.append(helper.make_attribute("axis", 0))
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    layer = import_program(path).layers[0]
    assert isinstance(layer, ConvLayer) and layer.rq.channel_m[1] > 1 << layer.rq.s2
    assert "conv_clip_hi" in import_text(path)
    check(path, config, worst=1.0)
