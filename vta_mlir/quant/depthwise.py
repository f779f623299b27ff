"""Depthwise convolution layers of a quantized program (``docs/onnx.md`` §4.7): every channel
of the input convolved with its own kernel into the same channel of the output (ONNX's
``Conv`` with ``group`` = channels and one output channel per input channel).

The integer semantics are a convolution's (§4.1) with the sums over the input channels reduced
to the layer's own channel: ``acc[n, c, oh, ow] = Σ_{kh, kw} q_x[n, c, ...] · q_w[c, 0, kh, kw]
+ bias'[c]``, the input zero point folded as ``bias' = bias − zx·Σ_{kh, kw} q_w[c]`` (over the
taps inside the input where padding meets a non-zero ``zx``), then the requantization and clip
of §3.  :func:`depthwise_conv_layer` builds it; the emission writes
``linalg.depthwise_conv_2d_nchw_chw`` (``vta_mlir.quant.emit``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .program import ConvLayer, QTensor, conv_layer
from .requant import Requant

__all__ = ["DepthwiseConvLayer", "depthwise_conv_layer"]


@dataclass
class DepthwiseConvLayer(ConvLayer):
    """A :class:`ConvLayer` whose ``weight`` is ``C × 1 × KH × KW``: output channel ``c`` is
    the convolution of input channel ``c`` with ``weight[c, 0]``."""

    @property
    def kernel(self) -> np.ndarray:
        """The ``C × KH × KW`` kernel of ``linalg.depthwise_conv_2d_nchw_chw``."""
        c, _, kh, kw = self.weight.shape
        return np.ascontiguousarray(self.weight.reshape(c, kh, kw))


def depthwise_conv_layer(name: str, x: QTensor, weight: np.ndarray, bias: np.ndarray,
                         stride: tuple[int, int], pads: tuple[int, int, int, int], y: QTensor,
                         rq: Requant) -> DepthwiseConvLayer:
    """``y = requant(dwconv(x padded with its zero point, weight) + bias)`` on codes (NCHW,
    ``weight`` ``C × 1 × KH × KW`` int8, ``pads`` top, left, bottom, right).  The zero point's
    term is a convolution's: with one input channel per output channel, the sums over the
    kernel's input channels are those over its one channel."""
    dense = conv_layer(name, x, weight, bias, stride, pads, y, rq)
    return DepthwiseConvLayer(dense.name, dense.src, dense.weight, dense.bias, dense.stride,
                              dense.pads, dense.rq, dense.zero_point, dense.lo, dense.hi,
                              dense.dst)
