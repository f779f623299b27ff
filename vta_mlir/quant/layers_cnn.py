"""Layers of detector necks and classifier heads: average pooling with any window, the
concatenation along channels and the rescaling of a tensor to another quantization (integer
semantics in ``docs/onnx.md`` §4.10–§4.11).

They join the layers of :mod:`vta_mlir.quant.program` (``Layer``); their emission is
:mod:`vta_mlir.quant.emit_cnn`. This module needs nothing but numpy and the requantization.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .requant import IMM_MAX, Requant, choose_requant, choose_requant_channels

__all__ = ["AveragePoolLayer", "ConcatLayer", "RescaleLayer", "ResizeLayer",
           "average_pool_layer", "rescale_layer", "taps_inside"]


@dataclass
class AveragePoolLayer:
    """``acc = Σ_window x padded with zx − KH·KW·zx + rounding`` (the taps inside the image,
    less their zero point), requantized by ``rq`` — one multiplier, or with ``multipliers`` one
    per output position (``OH × OW``: the divisor counts only the taps inside the image) —
    then ``+ zy`` clipped to int8. ``pads`` is (top, left, bottom, right)."""

    name: str
    src: str
    kernel: tuple[int, int]
    stride: tuple[int, int]
    pads: tuple[int, int, int, int]
    pad_value: int
    bias: int
    rq: Requant
    multipliers: np.ndarray | None
    zero_point: int
    dst: str


def taps_inside(size: tuple[int, int], kernel: tuple[int, int], stride: tuple[int, int],
                pads: tuple[int, int, int, int]) -> np.ndarray:
    """For each output position ``(oh, ow)``, how many taps of its window lie in the
    ``size`` image (``pads`` top, left, bottom, right): rows inside times columns inside."""
    (h, w), (kh, kw), (sh, sw), (pt, pl, pb, pr) = size, kernel, stride, pads
    oh, ow = (h + pt + pb - kh) // sh + 1, (w + pl + pr - kw) // sw + 1

    def inside(count: int, step: int, before: int, k: int, extent: int) -> np.ndarray:
        index = np.arange(count)[:, None] * step - before + np.arange(k)[None, :]
        return ((index >= 0) & (index < extent)).sum(axis=1)

    return np.outer(inside(oh, sh, pt, kh, h), inside(ow, sw, pl, kw, w)).astype(np.int64)


def average_pool_layer(name: str, src: str, size: tuple[int, int], x_scale: float,
                       x_zero_point: int, y_scale: float, y_zero_point: int, dst: str,
                       kernel: tuple[int, int], stride: tuple[int, int],
                       pads: tuple[int, int, int, int], count_include_pad: bool,
                       mode: str = "fixed") -> AveragePoolLayer:
    """The average pool of ``src`` (its ``size`` H × W) into ``dst``; ``ValueError`` when a
    multiplier has no fixed-point form (or the per-position ones need ``mode`` ``fixed``)."""
    window = kernel[0] * kernel[1]
    counts = taps_inside(size, kernel, stride, pads)
    multipliers: np.ndarray | None = None
    if count_include_pad or bool(np.all(counts == window)):
        rq = choose_requant(x_scale / (y_scale * window), mode)
    else:
        if mode != "fixed":
            raise ValueError("an average pool whose divisor varies at the borders "
                             "(count_include_pad=0) needs the fixed-point requantization")
        divisors = sorted({int(d) for d in counts.reshape(-1)})
        rq = choose_requant_channels([x_scale / (y_scale * d) for d in divisors])
        m_of = dict(zip(divisors, rq.channel_m, strict=True))
        multipliers = np.vectorize(lambda d: m_of[int(d)])(counts).astype(np.int32)
    bias = -window * x_zero_point + rq.rounding
    return AveragePoolLayer(name, src, kernel, stride, pads, x_zero_point, bias, rq,
                            multipliers, y_zero_point, dst)


@dataclass
class ConcatLayer:
    """``dst`` is the tensors ``srcs`` concatenated along the channels (each already at
    ``dst``'s quantization): no computation, each part written into its channel slice."""

    name: str
    srcs: list[str]
    dst: str


@dataclass
class ResizeLayer:
    """``dst[n, c, h, w] = src[n, c, h // fh, w // fw]``: a nearest upsampling by the integer
    ``factors`` (rows, columns), on the codes (the quantization is kept)."""

    name: str
    src: str
    factors: tuple[int, int]
    dst: str


@dataclass
class RescaleLayer:
    """``y = clip(round((q − zx)·m / 2^shift) + zy, −128, 127)`` (to nearest, ties up): a
    tensor requantized to another scale and zero point, ``m`` the product of ``factors`` (one
    or two immediates, ``docs/onnx.md`` §4.5)."""

    name: str
    src: str
    x_zero_point: int
    factors: tuple[int, ...]
    shift: int
    zero_point: int
    dst: str


#: The largest multiplier of a rescale: ``|(q − zx)·m| ≤ 255·2^22 < 2^31`` never wraps.
RESCALE_MULTIPLIER_MAX = 1 << 22


def rescale_layer(name: str, src: str, x_scale: float, x_zero_point: int, y_scale: float,
                  y_zero_point: int, dst: str) -> RescaleLayer:
    """``src`` requantized to ``y_scale`` and ``y_zero_point``: the largest ``shift`` with
    ``x_scale / y_scale · 2^shift ≤ 2^22``, ``m`` the nearest product of at most two
    immediates."""
    ratio = x_scale / y_scale
    shift = 0
    while ratio * 2.0 ** (shift + 1) <= RESCALE_MULTIPLIER_MAX and shift < 30:
        shift += 1
    return RescaleLayer(name, src, x_zero_point, _factors(ratio * 2.0 ** shift), shift,
                        y_zero_point, dst)


def _factors(target: float) -> tuple[int, ...]:
    """The integer nearest ``target`` that is one immediate or a product of two, as its
    factors."""
    if target <= IMM_MAX:
        return (max(1, round(target)),)
    first = np.arange(-(-int(target) // IMM_MAX), IMM_MAX + 1, dtype=np.int64)
    second = np.clip(np.rint(target / first), 1, IMM_MAX).astype(np.int64)
    best = int(np.argmin(np.abs(first * second - target)))
    return (int(first[best]), int(second[best]))
