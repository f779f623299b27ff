"""Fixed-point requantization with the ALU's 16-bit immediates (``docs/onnx.md`` §3).

An int32 value ``v`` at the scale ``s_in`` becomes the int8 code at the scale ``s_out`` by the
float multiplier ``M = s_in / s_out``. VTA has no float unit and its immediates are 16-bit
two's complement, so the multiplication is

    ``t = clip((v + 2^(s1 - 1)) >> s1, -C, C)``, ``u = t * m``, ``r = ((u >> (s2 - 1)) + 1) >> 1``

(``>>`` arithmetic; both shifts round to nearest, ties up. The constant ``2^(s1 - 1)`` is
folded into the layer's bias, which the accumulator adds anyway (:attr:`Requant.rounding`; 0
when ``s1 = 0``); the last step rounds without the constant ``2^(s2 - 1)``, which does not fit
an immediate; for ``s2 = 0`` it is ``r = u``). ``C`` is the
smallest bound at which every clipped value still saturates the int8 output, so the clip changes
no result, and ``|u| ≤ C·m < 2^31`` never wraps in int32. ``m`` is an immediate; ``C`` may
exceed one (:attr:`Requant.wide_clip`), and the clip then reads ``C`` and ``-C`` from constant
vectors: the shift ``s1`` needs no longer keep ``C`` small, and without it the requantization
loses nothing before the multiplication.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["IMM_MAX", "MAX_SHIFT", "MODES", "TYPICAL_STEPS", "Requant", "choose_requant",
           "choose_requant_channels", "clip_bound", "error_bound", "output_window",
           "round_shift"]

#: The largest ALU immediate (16-bit two's complement).
IMM_MAX = (1 << 15) - 1

#: ``fixed``: ``(s1, m, s2)`` minimising the error; ``pow2``: ``m = 1``, a rounding shift only.
MODES = ("fixed", "pow2")

#: A requantized value beyond this magnitude saturates the int8 output for any zero point
#: (the codes span 255 and the zero point lies within them).
_SATURATED = 256

#: Shifts the search tries (VTA's ALU shifts by a signed 16-bit amount; these are plenty).
MAX_SHIFT = 31


@dataclass(frozen=True)
class Requant:
    """``r = round_up((clip((v + rounding) >> s1, -clip, clip) * m) / 2^s2)`` as in the
    module docstring."""

    s1: int
    m: int
    s2: int
    clip: int
    #: Per-channel multipliers (per-channel weight scales), ``()`` when ``m`` applies to all;
    #: ``m`` is then the largest of them.
    channel_m: tuple[int, ...] = ()
    #: The clip bound of each channel's multiplier (``clip`` is the largest), ``()`` when per
    #: tensor.
    channel_clip: tuple[int, ...] = ()

    @property
    def multipliers(self) -> tuple[int, ...]:
        """The multiplier of each channel (one for all when per tensor)."""
        return self.channel_m or (self.m,)

    @property
    def wide_clip(self) -> bool:
        """Whether the clip bound exceeds an immediate (constant vectors then hold it)."""
        return self.clip > IMM_MAX

    @property
    def rounding(self) -> int:
        """``2^(s1 - 1)`` (0 when ``s1 = 0``): added to the value before ``>> s1`` so that the
        shift rounds to nearest; the layers fold it into their bias."""
        return (1 << self.s1) >> 1

    @property
    def multiplier(self) -> float:
        """The float multiplier this requantization applies."""
        return self.m / 2.0 ** (self.s1 + self.s2)


def clip_bound(m: int, s2: int) -> int:
    """The smallest ``C`` with ``C·m / 2^s2 ≥ 256``: larger inputs saturate anyway."""
    return -(-(_SATURATED << s2) // m) + 1


def _fits(m: int, clip: int) -> bool:
    """No clipped value times ``m`` wraps in int32."""
    return clip * m < 1 << 31


def _error(multiplier: float, s1: int, m: int, s2: int) -> float:
    """A bound of the error in output steps over the values that do not saturate: the rounding
    ``>> s1`` is off by up to ``2^(s1 - 1)`` accumulator units, and ``m`` misses the multiplier
    by a relative amount over values up to 256 steps."""
    return multiplier * ((1 << s1) >> 1) + abs(m / 2.0 ** (s1 + s2) - multiplier) * (
        _SATURATED / multiplier)


def choose_requant(multiplier: float, mode: str = "fixed") -> Requant:
    """The ``(s1, m, s2)`` of ``multiplier`` (``> 0``): ``m`` and the shifts immediates, the
    clip bound wide where that is more exact (:attr:`Requant.wide_clip`).

    ``fixed`` minimises :func:`_error` (ties: the smaller shifts); ``pow2`` rounds the
    multiplier to the nearest power of two ``2^-(s1 + s2)`` (``m = 1``).
    """
    if not (multiplier > 0 and math.isfinite(multiplier)):
        raise ValueError(f"requantization multiplier {multiplier!r} is not a positive number")
    if mode not in MODES:
        raise ValueError(f"requantization mode {mode!r}, not one of {', '.join(MODES)}")
    if mode == "pow2":
        # The shift is split so that the clip bound of the rounding shift fits an immediate.
        total = max(0, round(-math.log2(multiplier)))
        s2 = total
        while s2 > 0 and clip_bound(1, s2) > IMM_MAX:
            s2 -= 1
        return Requant(total - s2, 1, s2, clip_bound(1, s2))
    best: tuple[float, Requant] | None = None
    for s1 in range(MAX_SHIFT + 1):
        for s2 in range(MAX_SHIFT + 1 - s1):
            scaled = multiplier * 2.0 ** (s1 + s2)
            if not scaled < IMM_MAX + 1:  # also an overflow to infinity
                continue
            m = round(scaled)
            if not 1 <= m <= IMM_MAX:
                continue
            clip = clip_bound(m, s2)
            if not _fits(m, clip):
                continue
            err = _error(multiplier, s1, m, s2)
            if best is None or err < best[0] - 1e-12:
                best = (err, Requant(s1, m, s2, clip))
    if best is None:
        raise ValueError(f"requantization multiplier {multiplier:g} has no 16-bit fixed-point "
                         "form")
    return best[1]


#: The typical magnitude of a requantized value, in output steps, for which
#: :func:`choose_requant_channels` minimises the expected error (a quarter of the int8 range:
#: most activations are far from saturating).
TYPICAL_STEPS = 32


def _expected_error(multiplier: float, s1: int, m: int, s2: int) -> float:
    """The mean error, in output steps, of a value of :data:`TYPICAL_STEPS` steps: the rounding
    ``>> s1`` is off by ``2^(s1 - 2)`` accumulator units on average, and ``m`` misses the
    multiplier by a relative amount."""
    rounding = multiplier * 2.0 ** (s1 - 2) if s1 else 0.0
    return rounding + abs(m / 2.0 ** (s1 + s2) - multiplier) * (TYPICAL_STEPS / multiplier)


def choose_requant_channels(multipliers: Sequence[float]) -> Requant:
    """One ``(s1, s2)`` and a multiplier ``m`` per channel (per-channel weight scales).

    The multipliers are a constant vector the ``muli`` reads, not immediates: each is any
    int32 with ``m·C < 2^31`` for its own clip bound ``C`` (:attr:`Requant.channel_clip`), so
    ``s1`` need not shift the accumulator to keep ``m`` within 15 bits. The pair minimises the
    mean over the channels of :func:`_expected_error` — in practice ``s1 = 0``, multiply first
    and round once, unless a channel's multiplier is so small that rounding ``>> s1`` first
    costs less than its lost bits. The shifts stay immediates."""
    values = [float(v) for v in multipliers]
    if not values or not all(v > 0 and math.isfinite(v) for v in values):
        raise ValueError("requantization multipliers must be positive numbers")
    best: tuple[float, Requant] | None = None
    for s1 in range(MAX_SHIFT + 1):
        for s2 in range(MAX_SHIFT + 1 - s1):
            scaled = [v * 2.0 ** (s1 + s2) for v in values]
            if not all(x < 1 << 31 for x in scaled):  # also an overflow to infinity
                continue
            ms = [round(x) for x in scaled]
            if not all(1 <= m < 1 << 31 for m in ms):
                continue
            clips = [clip_bound(m, s2) for m in ms]
            if not all(_fits(m, clip) for m, clip in zip(ms, clips, strict=True)):
                continue
            err = sum(_expected_error(v, s1, m, s2)
                      for v, m in zip(values, ms, strict=True)) / len(values)
            if best is None or err < best[0] - 1e-12:
                best = (err, Requant(s1, max(ms), s2, max(clips), tuple(ms), tuple(clips)))
    if best is None:
        raise ValueError(f"per-channel multipliers {min(values):g}..{max(values):g} have no "
                         "common 32-bit fixed-point form")
    return best[1]


def round_shift(value: int, shift: int) -> int:
    """``((value >> (shift − 1)) + 1) >> 1``: ``value / 2^shift`` to nearest, ties up."""
    return value if shift == 0 else ((value >> (shift - 1)) + 1) >> 1


def output_window(rq: Requant, m: int, zero_point: int, lo: int,
                  hi: int) -> tuple[int, int] | None:
    """The bounds ``[t_lo, t_hi]`` of ``t`` (the value the multiplier ``m`` multiplies) within
    which ``round_shift(t·m, s2) + zero_point`` stays in ``[lo, hi]``, reaching both ends,
    and beyond which it leaves it.

    Clipping ``t`` to them instead of ``±C`` gives the same output without the clip after the
    requantization: values beyond them saturate either way, and ``|t|·m`` still never wraps.
    ``None`` when no such bounds exist: a requantized value that steps over an end (a
    multiplier above 1 per unit of ``t``), or bounds whose product with ``m`` would wrap.
    """
    limit = ((1 << 31) - 1) // m

    def value(t: int) -> int:
        return round_shift(t * m, rq.s2) + zero_point

    def first_above(bound: int) -> int:
        """The smallest ``t`` in ``[-limit, limit + 1]`` with ``value(t) > bound``."""
        low, high = -limit, limit + 1
        while low < high:
            mid = (low + high) // 2
            if mid <= limit and value(mid) <= bound:
                low = mid + 1
            else:
                high = mid
        return low

    t_hi = first_above(hi) - 1
    t_lo = first_above(lo - 1)
    if not -limit <= t_lo <= t_hi <= limit or value(t_hi) != hi or value(t_lo) != lo:
        return None
    return t_lo, t_hi


def error_bound(multiplier: float | Sequence[float], rq: Requant) -> float:
    """How far, in output steps, ``rq`` can put a value that does not saturate from
    ``round(v · multiplier)`` before that rounding: the rounding of ``>> s1`` and the
    multiplier's error over values up to 256 steps (the quantity :func:`choose_requant`
    minimises); with per-channel multipliers (``multiplier`` a sequence of them) the worst
    channel's."""
    if isinstance(multiplier, Sequence):
        return max(_error(float(v), rq.s1, m, rq.s2)
                   for v, m in zip(multiplier, rq.multipliers, strict=True))
    return _error(multiplier, rq.s1, rq.m, rq.s2)
