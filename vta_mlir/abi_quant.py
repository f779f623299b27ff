"""The per-tensor int8 quantization of an argument at a float edge of the program (``vta.quant``
in the IR): :class:`Quantization` and the host steps :func:`quantize` and :func:`dequantize`,
ONNX's ``QuantizeLinear`` and ``DequantizeLinear``."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vta_mlir.errors import BinaryFormatError

__all__ = ["QUANT_MAX", "QUANT_MIN", "Quantization", "dequantize", "quantize"]

#: The int8 range quantized values are clipped to.
QUANT_MIN, QUANT_MAX = -128, 127


@dataclass(frozen=True)
class Quantization:
    """The per-tensor int8 quantization of an argument at a float edge of the program: a
    positive finite ``scale`` and a ``zero_point`` in [-128, 127] (ONNX's
    ``QuantizeLinear`` / ``DequantizeLinear`` parameters)."""

    scale: float
    zero_point: int

    def __post_init__(self) -> None:
        scale, zp = self.scale, self.zero_point
        real = float | int | np.floating | np.integer
        if isinstance(scale, bool) or not isinstance(scale, real) \
                or not math.isfinite(float(scale)) or float(scale) <= 0:
            raise BinaryFormatError(
                f"quantization scale {scale!r} is not a positive finite number"
            )
        if isinstance(zp, bool) or not isinstance(zp, int | np.integer) \
                or not QUANT_MIN <= int(zp) <= QUANT_MAX:
            raise BinaryFormatError(
                f"quantization zero point {zp!r} is not an integer in [{QUANT_MIN}, {QUANT_MAX}]"
            )
        object.__setattr__(self, "scale", float(scale))
        object.__setattr__(self, "zero_point", int(zp))


def quantize(x: np.ndarray, quant: Quantization) -> np.ndarray:
    """ONNX ``QuantizeLinear`` to int8: ``clip(round_half_to_even(x / scale) + zero_point,
    -128, 127)``, the division in float32 as onnxruntime computes it."""
    values = x.astype(np.float32)
    with np.errstate(over="ignore"):  # beyond float32 saturates, as QuantizeLinear does
        scaled = np.rint(values / np.float32(quant.scale))
    return np.clip(scaled + quant.zero_point, QUANT_MIN, QUANT_MAX).astype(np.int8)


def dequantize(q: np.ndarray, quant: Quantization) -> np.ndarray:
    """ONNX ``DequantizeLinear`` of int8 values to float32: ``(q - zero_point) * scale``,
    in float32."""
    return (q.astype(np.float32) - np.float32(quant.zero_point)) * np.float32(quant.scale)
