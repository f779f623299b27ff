"""The GEMM encoding of a per-channel int32 bias (``vta-bias-gemm``).

A bias ``b[o]`` is accumulated by ``k`` GEMM micro-ops that read one constant input vector
``x`` (every BATCH row the same) against ``k`` "bias weight" elements ``W_b[o, j, :]``:
``sum_j sum_i W_b[o, j, i] · x[i] = b[o]`` exactly.  ``x`` holds ``BLOCK_IN − 1`` lanes of the
smallest input value (``−2^(INP_WIDTH−1)``, −128) and one lane of 1, so one element contributes
``−128 · q + r`` with ``q`` the sum of its first ``BLOCK_IN − 1`` weights and ``r`` its last
weight: every value of magnitude up to ``(BLOCK_IN − 1) · WMAX · 128 − 64`` (``WMAX`` the
largest weight, 127) is exact, and ``k`` elements cover ``k`` times that.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vta_mlir.config import VTAConfig

__all__ = ["MAX_ELEMENTS", "BiasEncoding", "element_range", "encode_bias"]

#: The most weight elements per output-channel block a bias may take; a larger bias keeps
#: the ALU add.
MAX_ELEMENTS = 4


@dataclass(frozen=True)
class BiasEncoding:
    """``x``: the input vector (BLOCK_IN int values, the same for every BATCH row);
    ``weights``: ``(channels, k, BLOCK_IN)``, channel ``o``'s ``k`` weight rows."""

    x: np.ndarray
    weights: np.ndarray

    @property
    def elements(self) -> int:
        return int(self.weights.shape[1])


def _limits(width: int) -> tuple[int, int]:
    return -(1 << (width - 1)), (1 << (width - 1)) - 1


def element_range(cfg: VTAConfig) -> int:
    """The largest |bias| one weight element encodes exactly."""
    inp_min, _ = _limits(cfg.inp_width)
    _, wgt_max = _limits(cfg.wgt_width)
    scale = -inp_min
    return (cfg.block_in - 1) * wgt_max * scale - scale // 2


def _encode_one(value: int, cfg: VTAConfig) -> np.ndarray:
    """One weight row ``w`` with ``w · x = value`` (|value| within :func:`element_range`)."""
    inp_min, _ = _limits(cfg.inp_width)
    wgt_min, wgt_max = _limits(cfg.wgt_width)
    scale = -inp_min
    half = scale // 2
    # value = −scale · q + r, r in [−half, half): r ≡ value (mod scale).
    r = (value + half) % scale - half
    q = (r - value) // scale
    row = np.zeros(cfg.block_in, dtype=np.int64)
    row[-1] = r
    rest = q
    for lane in range(cfg.block_in - 1):
        part = min(max(rest, wgt_min), wgt_max)
        row[lane] = part
        rest -= part
    assert rest == 0 and -half >= wgt_min and half - 1 <= wgt_max
    return row


def encode_bias(bias: np.ndarray, cfg: VTAConfig) -> BiasEncoding | None:
    """The encoding of ``bias`` (one int32 per output channel) with the fewest weight elements
    per channel, or ``None`` when it would take more than :data:`MAX_ELEMENTS`."""
    values = np.asarray(bias, dtype=np.int64).reshape(-1)
    inp_min, _ = _limits(cfg.inp_width)
    x = np.full(cfg.block_in, inp_min, dtype=np.int64)
    x[-1] = 1
    one = element_range(cfg)
    largest = int(np.abs(values).max(initial=0))
    k = max(1, -(-largest // one))
    if k > MAX_ELEMENTS:
        return None
    weights = np.zeros((values.size, k, cfg.block_in), dtype=np.int64)
    for o, v in enumerate(values.tolist()):
        # Split v into k parts of magnitude at most ``one``: the first parts take all they can.
        rest = v
        for j in range(k):
            part = min(max(rest, -one), one)
            weights[o, j] = _encode_one(part, cfg)
            rest -= part
        assert rest == 0
    assert np.array_equal(weights.sum(axis=1) @ x, values)
    return BiasEncoding(x, weights)
