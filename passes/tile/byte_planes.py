"""The byte planes of an i32 result in ``vta-tile`` (``passes/pack/wide_outputs.py``).

``vta-pack`` writes an i32 result as several stores of one accumulator, each a ``trunci`` into
one plane of the packed result, with an in-place ALU shift between two of them.  The region is
that of its last store (its *output*); the stores before it are ops of the region like its ALU
operations, tiled with them: per tile, store, shift, store, ... on the tile's SRAM views.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import memref
from xdsl.ir import Operation

__all__ = ["final_store"]


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
