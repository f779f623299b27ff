"""The byte planes of an i32 result in ``vta-tile`` (``passes/pack/wide_outputs.py``).

``vta-pack`` writes an i32 result as several stores of one accumulator, each a ``trunci`` into
one plane of the packed result, with an in-place ALU shift between two of them.  The region is
that of its last store (its *output*); the stores before it are ops of the region like its ALU
operations, tiled with them: per tile, store, shift, store, ... on the tile's SRAM views.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, memref
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation

__all__ = ["final_store", "is_plane_store", "plane_segments"]


def final_store(output: Operation, is_output: Callable[[Operation], bool]) -> Operation:
    """The last of the stores (ops for which ``is_output`` holds) reading the accumulator
    ``output`` reads, in its block: the output of the region ``output`` belongs to."""
    block = output.parent_block()
    assert block is not None
    last = output
    for use in output.operands[0].uses:
        user = use.operation
        if isinstance(user, memref.DeallocOp) or user.parent_block() is not block:
            continue
        if is_output(user) and last.is_before_in_block(user):
            last = user
    return last


def is_plane_store(op: Operation, output: Operation) -> bool:
    """Whether ``op`` is a store before the region's ``output`` of the accumulator it stores:
    a ``trunci`` generic of that accumulator into DRAM, a byte plane of an i32 result."""
    if op is output or not isinstance(op, linalg.GenericOp) or len(op.inputs) != 1 \
            or op.inputs[0] is not output.operands[0]:
        return False
    body = list(op.body.block.ops)
    return len(body) == 2 and isinstance(body[0], arith.TruncIOp)


def plane_segments(ops: Sequence[Operation], output: Operation) -> list[list[Operation]]:
    """The region's ``ops`` (program order, ``output`` last) cut after each of its stores:
    segment 0 computes the value and stores plane 0, segment ``p`` shifts it and stores plane
    ``p``."""
    segments: list[list[Operation]] = [[]]
    for op in ops:
        segments[-1].append(op)
        if op is output or is_plane_store(op, output):
            segments.append([])
    assert not segments[-1], "the region ends at its last store"
    return segments[:-1]
