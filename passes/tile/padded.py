"""The padding idiom of stage 1, as the convolution and pooling tilers take it apart.

A convolution or a pooling reads its data through a padded buffer built by four ops before it
(``docs/pipeline.md``, stage 1): ``memref.alloc`` of the padded shape, ``linalg.fill`` with a
constant (0 for a convolution, any ``i8`` for a pooling), a ``memref.subview`` of the interior
(static offsets along H and W only, unit strides) and one copy of the unpadded DRAM tensor into
it.  The tilers never build that buffer: their input tiles are DMA loads of the unpadded tensor
whose pad fields supply the halo.  :func:`padded_buffer` checks the idiom and returns what the
tilers need; a DRAM buffer no subview is taken of is not a padded buffer but an intermediate
activation an earlier layer wrote (``passes/pack/intermediates.py``), read as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IntegerAttr, IntegerType, MemRefType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta_positions import sram_space

__all__ = ["PaddedBuffer", "constant_of", "is_dram", "padded_buffer", "shape_of"]


def shape_of(value: SSAValue) -> tuple[int, ...]:
    """The static shape of the memref ``value``."""
    t = value.type
    assert isinstance(t, MemRefType)
    return tuple(t.get_shape())


def is_dram(value: SSAValue, width: int | None = None) -> bool:
    """``value`` is a DRAM memref (of ``width``-bit integers when given)."""
    t = value.type
    return (isinstance(t, MemRefType) and sram_space(t) is None
            and (width is None or t.element_type == IntegerType(width)))


def constant_of(value: SSAValue) -> int | None:
    """The integer ``value`` is an ``arith.constant`` of, if it is one."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


@dataclass(frozen=True)
class PaddedBuffer:
    """The unpadded DRAM tensor ``source``, the padding (top, bottom, left, right), the fill
    ``value`` and the ops of the idiom (alloc, fill, subview, copy, deallocs)."""

    source: SSAValue
    pads: tuple[int, int, int, int]
    value: int
    ops: list[Operation]


def _channel_slice(view: memref.SubviewOp) -> bool:
    """``view`` is a part of a concatenation along the channels of a packed tensor: offsets 0
    but along the channel blocks, unit strides, whole but along the channel blocks."""
    offsets = list(view.static_offsets.get_values())
    sizes = list(view.static_sizes.get_values())
    full = shape_of(view.source)
    return (not view.offsets and len(full) == 6 and set(view.static_strides.get_values()) == {1}
            and all(offsets[k] == 0 and sizes[k] == full[k] for k in (0, 2, 3, 4, 5)))


def padded_buffer(reader: Operation, x: SSAValue, cfg: VTAConfig,
                  position: dict[Operation, int], fail: Callable[[Operation, str], NoReturn],
                  what: str) -> PaddedBuffer | None:
    """The padding idiom building ``x``, the data ``reader`` (a ``what``: "convolution",
    "pooling") reads; None when ``x`` is not a padded buffer (module doc)."""
    owner = x.owner
    views = [use.operation for use in x.uses if isinstance(use.operation, memref.SubviewOp)]
    if not isinstance(owner, memref.AllocOp) or not views \
            or all(_channel_slice(view) for view in views):
        return None  # not padded; channel slices are the parts of a concatenation
    fills, views, others, deallocs = [], [], [], []
    for use in x.uses:
        user = use.operation
        if user is reader:
            continue
        if isinstance(user, linalg.FillOp) and x in user.outputs:
            fills.append(user)
        elif isinstance(user, memref.SubviewOp):
            views.append(user)
        elif isinstance(user, memref.DeallocOp):
            deallocs.append(user)
        else:
            others.append(user)
    if others:
        fail(others[0], f"the padded data of a {what} is written only by a fill and a copy into "
                        f"its interior, and read only by the {what}")
    value = constant_of(fills[0].inputs[0]) if len(fills) == 1 else None
    if value is None or len(views) != 1:
        fail(reader, f"the data of the {what} is a padded buffer: memref.alloc, linalg.fill "
                     "with a constant, memref.copy into a subview")
    assert value is not None
    fill, view = fills[0], views[0]
    copies = [u.operation for u in view.result.uses]
    copy = copies[0] if len(copies) == 1 else None
    src: SSAValue | None = None
    if isinstance(copy, memref.CopyOp) and copy.destination is view.result:
        src = copy.source
    elif (isinstance(copy, linalg.CopyOp) and len(copy.outputs) == 1
          and copy.outputs[0] is view.result):
        src = copy.inputs[0]
    if copy is None or src is None or not is_dram(src, cfg.inp_width):
        fail(view, "the interior of the padded data is written by one copy of an int8 DRAM "
                   "tensor")
    assert copy is not None and src is not None
    offsets = list(view.static_offsets.get_values())
    sizes = list(view.static_sizes.get_values())
    strides = list(view.static_strides.get_values())
    full = shape_of(x)
    if (view.offsets or any(s != 1 for s in strides) or shape_of(src) != tuple(sizes)
            or any(offsets[k] != 0 or sizes[k] != full[k] for k in (0, 1, 4, 5))):
        fail(view, "the padded data pads only the rows and columns (static offsets, unit "
                   "strides, the whole batch and channels)")
    block = reader.parent_block()
    if not (fill.parent_block() is block and copy.parent_block() is block
            and position[fill] < position[copy] < position[reader]):
        fail(copy, f"the fill, then the copy into the interior, come before the {what} in its "
                   "block")
    pt, pl = offsets[2], offsets[3]
    pads = (pt, full[2] - pt - sizes[2], pl, full[3] - pl - sizes[3])
    limit = (1 << cfg.mem_fields["y_pad_0"].width) - 1
    if max(pads) > limit:
        fail(view, f"padding {pads} (top, bottom, left, right) exceeds {limit}, the largest a "
                   "DMA pads")
    return PaddedBuffer(src, pads, value, [owner, fill, view, copy, *deallocs])
