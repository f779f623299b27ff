"""A requantization chosen so that the multiplication can go first (``docs/onnx.md`` §3, "A
multiplier fitted to the accumulator's range").

:func:`choose_requant` and :func:`choose_requant_channels` pick ``(s1, m, s2)`` from the
multipliers alone: ``s2`` as large as the clip bound ``C`` allows (``C·m < 2^31``), and for
small per-tensor multipliers a first shift ``s1 > 0``. The five-operation epilogue of
:mod:`vta_mlir.quant.product_first` then often does not apply — the shift comes first, or
``acc·m`` could leave int32 for the accumulators the weights can produce — and the layer keeps
the eight-cycle form (eleven per channel, where the multipliers, the clip bounds and the bias
are all vectors).

Without the clip before the multiplication, ``C`` no longer bounds ``m``: the accumulator's
real range does. :func:`product_first_requant` picks ``s1 = 0`` and the largest ``s2`` whose
``m = round(M·2^s2)`` (an immediate per tensor, any int32 per channel) keeps
``acc·m + bias·m + K`` within int32 over that range — a multiplier with as many bits as the
range leaves — when its error bound (:func:`vta_mlir.quant.requant.error_bound`, over the
whole unsaturated range) stays within :data:`MAX_ERROR` output steps
(:data:`MAX_ERROR_CHANNELS` per channel) or within that of the multiplier-only choice.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .product_first import accumulator_bounds, product_first_bias
from .program import ConvLayer, DenseLayer, Layer
from .requant import IMM_MAX, MAX_SHIFT, Requant, clip_bound, error_bound

__all__ = ["MAX_ERROR", "MAX_ERROR_CHANNELS", "fitted_requant", "product_first_requant"]

#: The largest error bound, in output steps over the unsaturated range (values up to 256
#: steps), a fitted per-tensor multiplier may have: an eighth of a step, so that a value a
#: quarter of the range from zero (where activations lie) moves by at most 1/32 step.
MAX_ERROR = 0.125

#: The same for per-channel multipliers (the worst channel's): 1/32 step. Per-channel
#: weights are chosen for their precision, and a residual ``Add`` that rescales a projection
#: by up to 2 turns its hidden one-code differences into two output steps (``docs/onnx.md``
#: §3, "Per-channel weights"): a bound of 1/16 already took the per-channel bottleneck below
#: 99 % of its outputs within one step of onnxruntime.
MAX_ERROR_CHANNELS = 0.03125

def product_first_requant(current: Requant, multipliers: Sequence[float], bias: np.ndarray,
                          zero_point: int, acc_lo: np.ndarray,
                          acc_hi: np.ndarray) -> Requant | None:
    """The requantization with ``s1 = 0`` and the largest ``s2`` for which the
    multiplication can go first over accumulators in ``[acc_lo, acc_hi]`` (per output
    channel), or ``None`` when ``current`` already allows it (its codes stay) or no such
    ``s2`` has an error bound within :data:`MAX_ERROR` (:data:`MAX_ERROR_CHANNELS`) or
    that of ``current``.

    ``multipliers`` holds the float multiplier of each channel (one value when per tensor);
    ``bias`` is the layer's bias without the rounding constant of ``current``'s first shift.
    """
    per_channel = bool(current.channel_m)
    if product_first_bias(current, bias + current.rounding, zero_point, acc_lo,
                          acc_hi) is not None:
        return None
    values = [float(v) for v in multipliers]
    for s2 in range(MAX_SHIFT, -1, -1):
        ms = [round(v * 2.0 ** s2) for v in values]
        if min(ms) < 1 or max(ms) > (IMM_MAX if not per_channel else (1 << 31) - 1):
            continue
        clips = [clip_bound(m, s2) for m in ms]
        rq = Requant(0, max(ms), s2, max(clips), tuple(ms) if per_channel else (),
                     tuple(clips) if per_channel else ())
        if product_first_bias(rq, bias, zero_point, acc_lo, acc_hi) is None:
            continue
        target = values if per_channel else values[0]
        allowed = max(MAX_ERROR_CHANNELS if per_channel else MAX_ERROR,
                      error_bound(target, current))
        return rq if error_bound(target, rq) <= allowed else None
    return None


def fitted_requant(layer: Layer, weight: np.ndarray, codes: tuple[int, int],
                   multipliers: np.ndarray, mode: str) -> Requant | None:
    """:func:`product_first_requant` for a convolution or dense ``layer`` just built (its
    ``rq`` from the multipliers alone): ``weight`` has the output channels first, ``codes``
    is the range of the input codes, ``multipliers`` the float multiplier of each output
    channel. ``None`` (keep ``layer.rq``) in the power-of-two mode and with a bias per output
    element."""
    if mode != "fixed" or not isinstance(layer, ConvLayer | DenseLayer) or \
            layer.bias.ndim != 1:
        return None
    acc_lo, acc_hi = accumulator_bounds(weight, *codes)
    values = multipliers if np.any(multipliers != multipliers[0]) else multipliers[:1]
    return product_first_requant(layer.rq, values.tolist(),
                                 layer.bias.astype(np.int64) - layer.rq.rounding,
                                 layer.zero_point, acc_lo, acc_hi)
