"""Element-wise layers of necks and heads in fixed point (``docs/onnx.md`` §4.10–§4.11): ``Mul``
by a constant, ``HardSigmoid`` and ``HardSwish``.

``quantize_static`` leaves ``HardSigmoid`` and ``HardSwish`` in float between a
``DequantizeLinear`` and a ``QuantizeLinear``: their output code is a function of the input
code alone, so a layer's result can be compared with onnxruntime's float32 arithmetic on all
256 input codes.  :func:`hard_layer` does that when it chooses the constants: it keeps those
that agree on most codes, and records how far the fixed-point result can be from the float
one (``HardLayer.steps``, in output steps: 0 when they agree on every code).

With ``v = q − zx`` and ``h = clip(α·sx·v + β, 0, 1)`` (``HardSwish``: ``α = 1/6, β = 1/2``):

* ``H = clip(m·(v + ci) + cf, 0, D)`` is ``h`` at the scale ``D* = m / (α·sx)``: ``m`` the
  slope, an immediate; ``ci + cf/m`` the offset ``β / (α·sx)`` (its integer part, and its
  fraction times ``m`` rounded); ``D`` the nearest integer to ``D*``, an immediate;
* ``HardSigmoid``: ``y = requant(H)`` with ``M = 1 / (sy·D*)``;
* ``HardSwish``: ``P = v · H``, the product of the value and a function of it — on VTA two
  copies of ``v`` in two accumulators, ``H``'s immediate steps applied to one, then an ALU
  ``mul`` of the two tensors — and ``y = requant(P)`` with ``M = sx / (sy·D*)``;

each ``+ zy`` and clipped to int8 by §3's requantization (its rounding constant added first).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .requant import IMM_MAX, Requant, choose_requant

__all__ = ["HardLayer", "MulConstLayer", "hard_codes", "hard_layer", "mul_const_layer",
           "requant_codes"]


@dataclass
class HardLayer:
    """``HardSigmoid`` (``swish`` False) or ``HardSwish`` of ``src`` (module doc): ``offset``
    is ``ci − zx`` (added to the code), ``slope`` ``m``, ``fraction`` ``cf``, ``top`` ``D``;
    ``steps`` the largest distance to onnxruntime's float32 result over the 256 codes."""

    name: str
    src: str
    swish: bool
    x_zero_point: int
    offset: int
    slope: int
    fraction: int
    top: int
    rq: Requant
    zero_point: int
    dst: str
    steps: int


@dataclass
class MulConstLayer:
    """``y = requant((q − zx)·c) + zy`` clipped to int8: ``c = q_k − z_k`` the constant's codes
    less its zero point, one value or one per channel (``(C,)``), ``M = sx·sk / sy``."""

    name: str
    src: str
    x_zero_point: int
    factor: np.ndarray
    rq: Requant
    zero_point: int
    dst: str


def requant_codes(t: np.ndarray, rq: Requant, zero_point: int) -> np.ndarray:
    """§3 on ``t`` (the rounding constant added first), ``+ zy``, clipped to int8."""
    u = np.clip((t + rq.rounding) >> rq.s1, -rq.clip, rq.clip) * rq.m
    r = u if rq.s2 == 0 else ((u >> (rq.s2 - 1)) + 1) >> 1
    return np.clip(r + zero_point, -128, 127)


def hard_codes(layer: HardLayer, q: np.ndarray) -> np.ndarray:
    """The output codes of ``layer`` for the input codes ``q`` (its integer semantics)."""
    q = q.astype(np.int64)
    h = np.clip(layer.slope * (q + layer.offset) + layer.fraction, 0, layer.top)
    t = (q - layer.x_zero_point) * h if layer.swish else h
    return requant_codes(t, layer.rq, layer.zero_point)


def _float_codes(swish: bool, alpha: float, beta: float, sx: float, zx: int, sy: float,
                 zy: int) -> np.ndarray:
    """onnxruntime's float32 result for every input code −128…127: dequantize, the op,
    quantize (round half to even)."""
    f32 = np.float32
    x = (np.arange(-128, 128).astype(f32) - f32(zx)) * f32(sx)
    h = np.maximum(f32(0), np.minimum(f32(1), f32(alpha) * x + f32(beta)))
    y = x * h if swish else h
    return np.clip(np.rint(y / f32(sy)) + zy, -128, 127).astype(np.int64)


def hard_layer(name: str, src: str, swish: bool, alpha: float, beta: float, sx: float, zx: int,
               sy: float, zy: int, dst: str) -> HardLayer:
    """The layer of module doc whose constants agree with onnxruntime on the most codes (then
    the largest slope); ``ValueError`` when ``α·sx`` is too small for a slope of 1 with ``D``
    an immediate."""
    rate = alpha * sx
    if not (rate > 0 and math.isfinite(rate)) or rate * IMM_MAX < 1 or rate > IMM_MAX:
        raise ValueError(f"alpha·x_scale = {rate:g} is outside the fixed-point range of the "
                         "ALU's 16-bit immediates (a slope of at least 1/32767 and at most "
                         "32767)")
    if not math.isfinite(beta) or abs(beta / rate) > IMM_MAX:
        raise ValueError(f"beta / (alpha·x_scale) = {beta / rate:g} is outside the range of "
                         "the ALU's 16-bit immediates")
    expected = _float_codes(swish, alpha, beta, sx, zx, sy, zy)
    codes = np.arange(-128, 128)
    best: tuple[tuple[int, int, int], HardLayer] | None = None
    top_slope = math.floor(rate * IMM_MAX)
    for slope in range(top_slope, max(0, top_slope - 64), -1):
        scale = slope / rate                  # D*: H at h = 1
        offset = beta / rate
        whole = math.floor(offset)
        fraction = round(slope * (offset - whole))
        top = min(round(scale), IMM_MAX)
        multiplier = (sx if swish else 1.0) / (sy * scale)
        rq = choose_requant(multiplier)
        layer = HardLayer(name, src, swish, zx, whole - zx, slope, fraction, top, rq, zy, dst, 0)
        got = hard_codes(layer, codes)
        diff = np.abs(got - expected)
        layer.steps = int(diff.max())
        key = (int(np.count_nonzero(diff)), layer.steps, -slope)
        if best is None or key < best[0]:
            best = (key, layer)
    assert best is not None
    return best[1]


def mul_const_layer(name: str, src: str, sx: float, zx: int, factor: np.ndarray, sk: float,
                    sy: float, zy: int, dst: str) -> MulConstLayer:
    """The multiplication of ``src`` by a constant whose codes less their zero point are
    ``factor`` (module doc); ``ValueError`` from the requantization's choice."""
    return MulConstLayer(name, src, zx, factor.astype(np.int32), choose_requant(sx * sk / sy),
                         zy, dst)

