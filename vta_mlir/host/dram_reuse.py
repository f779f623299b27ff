"""Device DRAM for the temporaries of a host program, reused once a buffer is dead.

The intermediate activations of a network (``passes/pack/intermediates.py``) are DRAM
temporaries: a ``memref.alloc`` without a memory space.  Each is live from its first use to its
last one, counted in the top-level ops of the function (a use inside a loop or stage counts at
that loop or stage; uses through ``memref.subview`` / ``collapse_shape`` / ``expand_shape`` /
``cast`` views count for the buffer they view).  :func:`place_temporaries` gives them offsets in
one scratch segment so that two buffers share bytes only when their lifetimes do not overlap,
and the segment's size is the peak of live temporary bytes (up to alignment and fragmentation).

Why sharing is safe on VTA although the modules run concurrently: a buffer's first use is the
store of the layer writing it, which waits (through the compute module's tokens) for that
layer's computation, which runs after every earlier layer's computation, each of which waited
for the loads it consumed — the last reads of any buffer that died before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import func, memref
from xdsl.ir import Operation, SSAValue

__all__ = ["ALIGNMENT", "Placement", "lifetime", "place_temporaries"]

#: Every temporary starts on a DRAM page, so any DMA element size divides its address.
ALIGNMENT = 4096

_VIEWS = (memref.SubviewOp, memref.CollapseShapeOp, memref.ExpandShapeOp, memref.CastOp,
          memref.ReinterpretCastOp)


@dataclass(frozen=True)
class Placement:
    """Offsets (bytes, from the start of the scratch segment) and its size."""

    offsets: dict[SSAValue, int]
    nbytes: int


def lifetime(f: func.FuncOp, value: SSAValue) -> tuple[int, int] | None:
    """First and last top-level op of ``f`` using ``value`` or a view of it (None: unused)."""
    block = f.body.block
    order = {op: k for k, op in enumerate(block.ops)}
    first, last = None, None
    pending = [value]
    while pending:
        v = pending.pop()
        for use in v.uses:
            user = use.operation
            if isinstance(user, _VIEWS) and user.operands and user.operands[0] is v:
                pending.extend(user.results)
                continue
            if isinstance(user, memref.DeallocOp):
                continue
            top: Operation | None = block.find_ancestor_op_in_block(user)
            if top is None:
                continue
            k = order[top]
            first = k if first is None else min(first, k)
            last = k if last is None else max(last, k)
    return None if first is None or last is None else (first, last)


def _align(n: int) -> int:
    return -(-n // ALIGNMENT) * ALIGNMENT


def place_temporaries(f: func.FuncOp, buffers: Sequence[tuple[SSAValue, int]]) -> Placement:
    """Offsets for ``buffers`` (value, bytes) in one segment (module doc): the largest first,
    each at the lowest aligned offset free during its whole lifetime."""
    live: dict[SSAValue, tuple[int, int]] = {}
    for value, _ in buffers:
        # An unused temporary still gets bytes of its own, live from the start to the end.
        live[value] = lifetime(f, value) or (0, 1 << 62)
    placed: list[tuple[int, int, tuple[int, int]]] = []  # offset, end, lifetime
    offsets: dict[SSAValue, int] = {}
    for value, nbytes in sorted(buffers, key=lambda b: (-b[1], live[b[0]])):
        first, last = live[value]
        busy = sorted((start, end) for start, end, (f0, l0) in placed
                      if f0 <= last and first <= l0)
        offset = 0
        for start, end in busy:
            if offset + _align(nbytes) <= start:
                break
            offset = max(offset, end)
        offsets[value] = offset
        placed.append((offset, offset + _align(nbytes), (first, last)))
    size = max((offsets[value] + nbytes for value, nbytes in buffers), default=0)
    return Placement(offsets, size)
