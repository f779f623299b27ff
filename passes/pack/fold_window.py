"""Convolutions with few input channels folded into 1×1 convolutions of their patches.

A convolution of ``C`` input channels pads them to whole ``BLOCK_IN`` blocks and reduces over
``ceil(C / BLOCK_IN) · KH · KW`` blocks; with ``C`` much smaller than ``BLOCK_IN`` (ResNet's
stem: 3 channels, a 7×7 kernel, 49 blocks on the default configuration) most of that GEMM work
multiplies zeros.  The host can instead pack the data as its convolution patches (im2col, the
``window`` of ``vta_mlir.abi.ArgSpec``): ``(N, C, H, W)`` → ``(N, C·KH·KW, OH, OW)``, the
convolution's zero padding included, and the OIHW kernel as its own patches for the window
``(KH, KW, 1, 1, 0, 0, 0, 0)``, ``(O, C·KH·KW, 1, 1)`` with the channels in the same order.
The convolution is then a 1×1 convolution of stride 1 reducing over
``ceil(C·KH·KW / BLOCK_IN)`` blocks (10 for the stem), whose output is the original one in the
same packed layout ``(N/B, O/BO, OH, OW, B, BO)``, so the epilogue and the output are unchanged.

The data grows by about ``KH·KW / (stride_h · stride_w)`` in DRAM, so a convolution is folded
only when the reduction shrinks at least by half (:data:`FOLD_GAIN`), and only when the
argument and kernel are read by the convolution alone (another use would need the plain
layout) and the patches cover exactly the convolution's output positions.
"""

from __future__ import annotations

from xdsl.dialects.builtin import MemRefType
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.ir import SSAValue

from vta_mlir.abi import windowed_shape
from vta_mlir.config import VTAConfig
from vta_mlir.passes.pack.match_conv import Conv
from vta_mlir.passes.pack.normal_form import Packing, Role, packing_for

__all__ = ["FOLD_GAIN", "folded_packings", "reduction_blocks"]

#: A convolution is folded when its reduction has at least this many times fewer blocks.
FOLD_GAIN = 2


def reduction_blocks(channels: int, kh: int, kw: int, block_in: int) -> tuple[int, int]:
    """The ``BLOCK_IN`` blocks a convolution reduces over: ``(direct, folded)``."""
    return -(-channels // block_in) * kh * kw, -(-(channels * kh * kw) // block_in)


def _memref(value: SSAValue) -> MemRefType:
    t = value.type
    assert isinstance(t, MemRefType)
    return t


def _windowed(
    role: Role, shape: tuple[int, ...], window: tuple[int, ...], dtype: str, cfg: VTAConfig
) -> Packing:
    """The packing of ``role`` applied to the patches of an argument of logical ``shape``."""
    plain = packing_for(role, windowed_shape(shape, window), dtype, cfg)
    return Packing(shape, dtype, plain.padded_shape, plain.split_shape, plain.perm, window=window)


def folded_packings(conv: Conv, cfg: VTAConfig) -> tuple[Packing, Packing] | None:
    """The packings of ``conv``'s data and kernel as patches (module doc) when folding the
    kernel window into the reduction pays; None to keep the direct convolution."""
    assert isinstance(conv.op, LinalgStructuredOperation)
    shape = tuple(_memref(conv.act).get_shape())
    kernel_shape = tuple(_memref(conv.wgt).get_shape())
    o, c, kh, kw = kernel_shape
    oh, ow = _memref(conv.op.outputs[0]).get_shape()[2:]
    direct, folded = reduction_blocks(c, kh, kw, cfg.block_in)
    if folded * FOLD_GAIN > direct:
        return None
    # Only the convolution (and the copy into its zero-padded buffer) may read the argument
    # and the kernel: any other reader needs their plain layouts.
    readers = {conv.op} if conv.padding is None else {conv.op, conv.padding.copy}
    if any(use.operation not in readers for use in conv.act.uses) or any(
        use.operation is not conv.op for use in conv.wgt.uses
    ):
        return None
    top, bottom, left, right = (0, 0, 0, 0) if conv.padding is None else conv.padding.pads
    sh, sw = conv.strides
    window = (kh, kw, sh, sw, top, bottom, left, right)
    if windowed_shape(shape, window)[2:] != (oh, ow):
        return None  # the convolution leaves rows or columns of its input unused
    # The recognizer accepts i8 data and kernels only.
    return (
        _windowed(Role.DATA, shape, window, "int8", cfg),
        _windowed(Role.KERNEL, kernel_shape, (kh, kw, 1, 1, 0, 0, 0, 0), "int8", cfg),
    )
