"""The cycles of one ``vta-coproc-sync`` command under the cycle model (docs/timing-model.md):
what :mod:`.protocol` weighs when a token could be pushed earlier at a small price in NOPs.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import IntegerType, MemRefType
from xdsl.ir import Operation

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import AluOp, DmaCopyOp, UopLoopOp
from vta_mlir.dialects.vta_positions import sram_element_shape, sram_space

__all__ = ["command_cycles"]


def _dma_cycles(op: DmaCopyOp, cfg: VTAConfig) -> int:
    """``dma_latency + ⌈DRAM bytes / bytes per cycle⌉ + padding elements``."""
    src_space, dst_space = sram_space(op.src.type), sram_space(op.dst.type)
    space = dst_space if dst_space is not None else src_space
    dram = op.src if dst_space is not None else op.dst
    dram_t = dram.type
    if space is None or not isinstance(dram_t, MemRefType):
        return 0
    scalar = dram_t.get_element_type()
    width = scalar.width.data if isinstance(scalar, IntegerType) else 8
    elem_bytes = math.prod(sram_element_shape(space, cfg)) * width // 8
    y, x = op.y_size.value.data, op.x_size.value.data
    rows = y + op.y_pad_0.value.data + op.y_pad_1.value.data
    cols = x + op.x_pad_0.value.data + op.x_pad_1.value.data
    t = cfg.timing
    return t.dma_latency + -(-y * x * elem_bytes // t.dram_bytes_per_cycle) + rows * cols - y * x


def command_cycles(op: Operation, cfg: VTAConfig) -> int:
    """The cycles the cycle model charges for the command ``op``: a DMA copy or a micro-kernel
    (``pipeline_depth`` plus one cycle per micro-op and iteration, two for an ALU micro-op
    reading a second accumulator element)."""
    if isinstance(op, DmaCopyOp):
        return _dma_cycles(op, cfg)
    t = cfg.timing
    if not isinstance(op, UopLoopOp):
        reads = isinstance(op, AluOp) and op.src is not None
        return t.pipeline_depth + (2 if reads else 1)
    iterations = math.prod(level.extent.value.data for level in op.loops())
    uops = sum(1 for _ in op.micro_op_sequence())
    reading = any(isinstance(u, AluOp) and u.src is not None for u in op.micro_ops())
    return t.pipeline_depth + (2 if reading else 1) * iterations * uops
