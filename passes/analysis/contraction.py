"""The body of a GEMM contraction ``linalg.generic`` as ``vta-tensorize`` takes it, for the
passes that add contractions after ``vta-tile`` (``vta-bias-gemm``, ``vta-residual-gemm``)."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import i8, i32
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Region

__all__ = ["mac_region"]


def mac_region() -> Region:
    """``acc + extsi(x) · extsi(w)`` on an ``i8`` input, an ``i8`` weight and an ``i32``
    accumulator element."""
    block = Block(arg_types=[i8, i8, i32])
    xe = arith.ExtSIOp(block.args[0], i32)
    we = arith.ExtSIOp(block.args[1], i32)
    p = arith.MuliOp(xe, we)
    s = arith.AddiOp(block.args[2], p)
    block.add_ops([xe, we, p, s, linalg.YieldOp(s)])
    return Region(block)
