"""Networks with random int8 weights whose power-of-two requantization is calibrated on one
input, the way TVM quantized models for VTA: each layer's shift is chosen from the spread of
its accumulator so that activations stay in a useful int8 range (neither all zero nor all
saturated) with random weights.

:class:`Builder` adds layers in execution order; each is evaluated at once with the numpy model
(``numpy_model.run_layer``) on the calibration input, and its constants are picked from the
result:

* weights uniform in [-127, 127] (seeded), a bias uniform within half the accumulator's
  standard deviation, then the shift ``round(log2(std(acc + bias) / target))`` (target 24 for
  activations, 32 for the logits of the last fully connected layer);
* with the bias added after the shift (``epilogue="shift-bias"``), the shift
  ``round(log2(std(acc) / target))`` first, then a bias in output units, uniform within half
  the standard deviation of ``acc >> shift``;
* the global average pool's ``m / 2**s`` the reciprocal of ``H·W`` with the largest ``s`` that
  keeps ``m`` an ALU immediate (at most 32767) and ``127 · H·W · m`` within int32.
"""

from __future__ import annotations

import math

import numpy as np
from numpy_model import (
    EPILOGUES,
    INPUT,
    Conv,
    Dense,
    GlobalAvgPool,
    Layer,
    MaxPool,
    Network,
    conv_accumulator,
    dense_accumulator,
    run_layer,
)

__all__ = ["ACTIVATION_STD", "LOGIT_STD", "Builder", "avgpool_constants"]

#: The standard deviation aimed at for the values a layer clips to int8 (before the clip).
ACTIVATION_STD = 24.0
LOGIT_STD = 32.0
#: The largest immediate of a VTA ALU instruction (a signed 16-bit field).
IMM_MAX = 32767
WEIGHT_RANGE = (-127, 127)


def avgpool_constants(window: int) -> tuple[int, int]:
    """``(m, s)`` with ``m / 2**s`` closest to ``1 / window`` for the largest shift ``s`` that
    keeps ``m <= 32767`` and the product ``127 · window · m`` below ``2**31``."""
    for shift in range(24, -1, -1):
        m = max(1, round(2**shift / window))
        if m <= IMM_MAX and 127 * window * m < 2**31:
            return m, shift
    raise ValueError(f"no average-pool constants for a window of {window}")


def _shift_for(values: np.ndarray, target: float) -> int:
    std = float(np.std(values.astype(np.float64)))
    if std <= target:
        return 0
    return min(31, max(0, round(math.log2(std / target))))


class Builder:
    """A :class:`~numpy_model.Network` grown layer by layer, calibrated on ``x``; its
    convolutions and fully connected layers add their bias before or after the shift
    (``epilogue``, one of ``numpy_model.EPILOGUES``)."""

    def __init__(self, name: str, x: np.ndarray, rng: np.random.Generator,
                 epilogue: str = EPILOGUES[0]) -> None:
        if epilogue not in EPILOGUES:
            raise ValueError(f"epilogue must be one of {', '.join(EPILOGUES)}, "
                             f"not {epilogue!r}")
        self.network = Network(name, tuple(x.shape))  # type: ignore[arg-type]
        self.buffers: dict[str, np.ndarray] = {INPUT: x}
        self.rng = rng
        self.epilogue = epilogue

    def _add(self, layer: Layer) -> str:
        if layer.name in self.buffers:
            raise ValueError(f"layer name {layer.name!r} used twice")
        self.network.layers.append(layer)
        self.buffers[layer.name] = run_layer(layer, self.buffers)
        return layer.name

    def _weights(self, shape: tuple[int, ...]) -> np.ndarray:
        lo, hi = WEIGHT_RANGE
        return self.rng.integers(lo, hi, size=shape, endpoint=True, dtype=np.int8)

    def _bias_within_half_std(self, values: np.ndarray, channels: int) -> np.ndarray:
        spread = max(1, int(np.std(values.astype(np.float64)) / 2))
        return self.rng.integers(-spread, spread, size=channels, endpoint=True, dtype=np.int32)

    def _bias_and_shift(self, acc: np.ndarray, channel_axis: int,
                        target: float) -> tuple[np.ndarray, int]:
        channels = acc.shape[channel_axis]
        if self.epilogue == "shift-bias":
            shift = _shift_for(acc, target)
            return self._bias_within_half_std(acc >> shift, channels), shift
        bias = self._bias_within_half_std(acc, channels)
        shape = [1] * acc.ndim
        shape[channel_axis] = -1
        return bias, _shift_for(acc.astype(np.int64) + bias.reshape(shape), target)

    def conv(self, name: str, src: str, out_channels: int, kernel: int, *, stride: int = 1,
             pad: int = 0, relu: bool = True, residual: str | None = None) -> str:
        """A convolution of ``src``; ``residual`` names an earlier buffer added before the
        clip."""
        in_channels = self.buffers[src].shape[1]
        weight = self._weights((out_channels, in_channels, kernel, kernel))
        probe = Conv(name, src, weight, np.zeros(out_channels, np.int32), stride, pad, 0)
        acc = conv_accumulator(probe, self.buffers[src])
        bias, shift = self._bias_and_shift(acc, 1, ACTIVATION_STD)
        return self._add(Conv(name, src, weight, bias, stride, pad, shift, relu, residual,
                              self.epilogue))

    def maxpool(self, name: str, src: str, kernel: int, *, stride: int, pad: int = 0,
                pad_value: int = -128) -> str:
        return self._add(MaxPool(name, src, kernel, stride, pad, pad_value))

    def avgpool(self, name: str, src: str) -> str:
        _, _, h, w = self.buffers[src].shape
        multiplier, shift = avgpool_constants(h * w)
        return self._add(GlobalAvgPool(name, src, multiplier, shift))

    def dense(self, name: str, src: str, out_features: int) -> str:
        in_features = int(np.prod(self.buffers[src].shape[1:]))
        weight = self._weights((in_features, out_features))
        probe = Dense(name, src, weight, np.zeros(out_features, np.int32), 0)
        acc = dense_accumulator(probe, self.buffers[src])
        bias, shift = self._bias_and_shift(acc, 1, LOGIT_STD)
        return self._add(Dense(name, src, weight, bias, shift, self.epilogue))
