"""The packing of a depthwise convolution's kernel: block-diagonal GEMM weights.

VTA's GEMM multiplies a ``BATCH × BLOCK_IN`` input vector by a ``BLOCK_OUT × BLOCK_IN`` weight
block.  A depthwise convolution (``passes/pack/match_depthwise.py``) is the dense convolution
whose kernel, for each block of ``BLOCK`` channels and each tap ``(kh, kw)``, is the diagonal
matrix ``diag(w[c0 .. c0 + BLOCK, kh, kw])``: output channel ``c`` reads input channel ``c``
only.  Only the diagonal channel block of the dense kernel is non-zero, so the normal form keeps
that block alone — the kernel ``(C/BO, 1, KH, KW, BO, BI)`` — and reads the input channel block
equal to the output channel block (``passes/pack/normal_form.py``, ``conv_op`` with
``depthwise``): one GEMM micro-op per tap per ``BLOCK`` channels per output position.

The kernel ``C × KH × KW`` (or ``C × 1 × KH × KW``) becomes, at compile time
(``passes/pack/constants.py``), the ``C × BLOCK × KH × KW`` kernel of one channel block per
group, ``k[c, c mod BLOCK, kh, kw] = w[c, kh, kw]`` and 0 elsewhere (:func:`block_diagonal`),
packed as any convolution kernel.  The channels are zero-padded to whole blocks like every
channel count.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import SSAValue

from vta_mlir.config import VTAConfig
from vta_mlir.passes.pack.normal_form import Packing, Role, packing_for

__all__ = ["block_diagonal", "depthwise_kernel_packing"]


def block_diagonal(values: np.ndarray, block: int,
                   axes: tuple[int, ...] = (0, 1, 2)) -> np.ndarray:
    """The ``C × block × KH × KW`` kernel of a depthwise kernel whose dimensions ``axes`` are
    ``c``, ``kh`` and ``kw`` (``C × KH × KW``, ``C × 1 × KH × KW``, ``KH × KW × C``; module
    doc): channel ``c`` at column ``c mod block`` of its block."""
    c, kh, kw = (values.shape[a] for a in axes)
    rest = tuple(d for d in range(values.ndim) if d not in axes)
    kernel = values.transpose(*axes, *rest).reshape(c, kh, kw)
    expanded = np.zeros((c, block, kh, kw), dtype=values.dtype)
    expanded[np.arange(c), np.arange(c) % block] = kernel
    return expanded


def depthwise_kernel_packing(kernel: SSAValue, axes: tuple[int, int, int],
                             cfg: VTAConfig) -> Packing:
    """The packing of the constant int8 depthwise kernel ``kernel`` (its dimensions ``axes``
    the channels, ``kh`` and ``kw``): the ``kernel`` layout of its block-diagonal expansion,
    ``(C/BO, 1, KH, KW, BO, BI)``."""
    t = kernel.type
    assert isinstance(t, MemRefType)
    shape = tuple(t.get_shape())
    c, kh, kw = (shape[a] for a in axes)
    plain = packing_for(Role.KERNEL, (c, cfg.block_in, kh, kw), "int8", cfg)
    return Packing(shape, "int8", plain.padded_shape, plain.split_shape, plain.perm,
                   diagonal=axes)
