"""Intermediate activations of ``vta-pack``: int8 buffers one layer writes and later ones read.

A network is one function whose layers hand their results to each other through int8
``memref.alloc`` buffers::

    %h = memref.alloc() : memref<1x64x56x56xi8>
    linalg.generic ... ins(%acc, %bias ...) outs(%h ...) { ... arith.trunci ... }   // layer 1
    ...
    memref.copy %h, %interior ...                    // layer 2 reads %h (padded convolution)
    linalg.generic ... ins(%acc2, %h ...) outs(%y ...) { ... arith.extsi ... }   // a residual

On VTA such a buffer lives in device DRAM, in the packed layout of the layer writing it, which
is the layout the next layers read (``docs/pipeline.md``, "Layers"): nothing is unpacked or
repacked between layers.  :func:`stand_in_intermediates` gives the function one *stand-in*
block argument per such buffer (as ``passes/pack/constants.py`` does for constants), so the
recognizer and the planner treat it as an argument that one region writes and later regions
read; ``vta-pack`` then turns each stand-in into a ``memref.alloc`` of its packed type, a DRAM
temporary that ``vta-lower-to-isa`` places by lifetime (``vta_mlir/host/dram_reuse.py``).

A ``memref.collapse_shape`` of an intermediate (``1x512x1x1 → 1x512``, the pooled features a
fully connected layer reads) gets a stand-in of its own, an *alias* of the buffer: packed as a
matrix where the buffer is packed as a tensor, which is the same bytes when the collapsed
dimensions are units; ``vta-pack`` checks that and reads the buffer through a
``memref.collapse_shape`` of its packed type.

Not intermediates: the zero-padded buffers of the padding idiom (an allocation a
``memref.subview`` is taken of, ``passes/pack/match_conv.py``), the window operand of a pooling
op (it carries only a shape), and i32 buffers (accumulators).  A ``memref.dealloc`` of an
intermediate is dropped: its lifetime ends at its last use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, IntegerType, MemRefType, NoneAttr, i64
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.config import VTAConfig
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.locations import copy_location
from vta_mlir.passes.pack.concat import channel_offset, channel_slice_view
from vta_mlir.passes.pack.expr import error_with_note, label
from vta_mlir.passes.pack.host_steps import host_buffer
from vta_mlir.passes.pack.normal_form import Packing, Role

__all__ = ["Intermediate", "collapse_reassociation", "intermediate_buffers",
           "same_element_order", "stand_in_intermediates"]


@dataclass(eq=False)
class Intermediate:
    """The stand-in ``arg`` of the int8 buffer ``alloc`` allocates; for an alias, the
    ``memref.collapse_shape`` ``view`` of the buffer standing in for ``source``."""

    arg: BlockArgument
    alloc: Operation
    source: BlockArgument | None = None
    view: memref.CollapseShapeOp | None = None
    #: The first channel of an alias that is a channel slice of the buffer (a layer's part of
    #: a concatenation, ``passes/pack/concat.py``), None for a collapsed view.
    channels: int | None = None

    @property
    def buffer(self) -> BlockArgument:
        """The stand-in of the buffer itself (``arg``, or the one an alias views)."""
        return self.source if self.source is not None else self.arg


def _is_int8_buffer(t: object) -> bool:
    return (isinstance(t, MemRefType) and isinstance(t.element_type, IntegerType)
            and t.element_type.width.data == 8 and isinstance(t.layout, NoneAttr)
            and isinstance(t.memory_space, NoneAttr) and all(d >= 0 for d in t.get_shape()))


def _is_window_operand(op: Operation, value: SSAValue) -> bool:
    """``value`` is the shape-only window operand of a pooling op (its second input)."""
    inputs = getattr(op, "inputs", ())
    return op.name.startswith("linalg.pooling") and len(inputs) == 2 and inputs[1] is value


def _intermediate_allocs(f: func.FuncOp) -> list[memref.AllocOp | memref.AllocaOp]:
    found: list[memref.AllocOp | memref.AllocaOp] = []
    for op in f.body.block.ops:
        if not isinstance(op, memref.AllocOp | memref.AllocaOp) or op.dynamic_sizes:
            continue
        value = op.memref
        if host_buffer(op):
            found.append(op)
            continue
        if not _is_int8_buffer(value.type):
            continue
        users = [use.operation for use in value.uses]
        if any(isinstance(u, memref.SubviewOp) and channel_offset(u) is None for u in users):
            continue  # a zero-padded buffer of the padding idiom
        if users and all(_is_window_operand(u, value) or isinstance(u, memref.DeallocOp)
                         for u in users):
            continue
        found.append(op)
    return found


def stand_in_intermediates(f: func.FuncOp) -> dict[BlockArgument, Intermediate]:
    """Replace every int8 intermediate buffer of ``f`` (module doc) by a stand-in block
    argument appended after the existing ones, and each ``memref.collapse_shape`` of one by an
    alias stand-in; drop their ``memref.dealloc`` s."""
    block = f.body.block
    found: dict[BlockArgument, Intermediate] = {}
    for alloc in _intermediate_allocs(f):
        value = alloc.memref
        _check_not_used_after_dealloc(block, value)
        arg = block.insert_arg(value.type, len(block.args))
        arg.name_hint = value.name_hint
        found[arg] = Intermediate(arg, alloc)
        for use in list(value.uses):
            user = use.operation
            if isinstance(user, memref.DeallocOp):
                Rewriter.erase_op(user)
            elif channel_offset(user) is not None:
                assert isinstance(user, memref.SubviewOp)
                # A channel slice a layer writes (passes/pack/concat.py): an alias of the
                # buffer, contiguous like a buffer of its own.
                t = user.result.type
                assert isinstance(t, MemRefType)
                alias = block.insert_arg(MemRefType(t.element_type, t.get_shape()),
                                         len(block.args))
                alias.name_hint = user.result.name_hint or value.name_hint
                found[alias] = Intermediate(alias, user, arg, None, channel_offset(user))
                user.result.replace_all_uses_with(alias)
                Rewriter.erase_op(user)
            elif isinstance(user, memref.CollapseShapeOp):
                if user.parent_block() is not block:
                    report_error(user, "collapses an intermediate buffer inside a region op: "
                                       "a layer reads it at the top level of the function")
                alias = block.insert_arg(user.result.type, len(block.args))
                alias.name_hint = user.result.name_hint or value.name_hint
                found[alias] = Intermediate(alias, user, arg, user)
                for view_use in list(user.result.uses):
                    if isinstance(view_use.operation, memref.DeallocOp):
                        Rewriter.erase_op(view_use.operation)
                user.result.replace_all_uses_with(alias)
                Rewriter.erase_op(user)
        value.replace_all_uses_with(arg)
        Rewriter.erase_op(alloc)
    return found


def _check_not_used_after_dealloc(block: Block, value: SSAValue) -> None:
    """``value`` (or a view of it) is not used after a ``memref.dealloc`` of it: its lifetime
    ends there, and its device DRAM may already hold another buffer."""
    deallocs = [u.operation for u in value.uses if isinstance(u.operation, memref.DeallocOp)]
    if not deallocs:
        return
    first = min(deallocs, key=lambda op: block.get_operation_index(op))
    end = block.get_operation_index(first)
    pending = [value]
    while pending:
        v = pending.pop()
        for use in v.uses:
            user = use.operation
            if isinstance(user, memref.CollapseShapeOp) or channel_offset(user) is not None:
                pending.extend(user.results)
            if isinstance(user, memref.DeallocOp) and user.memref is value:
                continue
            top = block.find_ancestor_op_in_block(user)
            if top is not None and block.get_operation_index(top) > end:
                error_with_note(user, f"uses {label(value)} after it is deallocated: a "
                                      "buffer's lifetime ends at its memref.dealloc", first,
                                "deallocated here")


def _element_order(packing: Packing) -> np.ndarray:
    """The logical element (C-order index, -1 for padding) at each packed position."""
    total = int(np.prod(packing.shape))
    index = np.arange(total, dtype=np.int64).reshape(packing.shape)
    padded = np.full(packing.padded_shape, -1, dtype=np.int64)
    padded[tuple(slice(0, n) for n in packing.shape)] = index
    if packing.repeat:
        padded = np.broadcast_to(padded, (*packing.repeat, *padded.shape))
    return padded.reshape(packing.split_shape).transpose(packing.perm).reshape(-1)


def same_element_order(buffer: Packing, alias: Packing) -> bool:
    """The packed images of a buffer and of its collapsed view hold the same elements in the
    same places (the collapse keeps C order, so logical indices agree)."""
    if buffer.window or alias.window or buffer.repeat or alias.repeat:
        return False
    first, second = _element_order(buffer), _element_order(alias)
    return first.shape == second.shape and bool(np.array_equal(first, second))


def collapse_reassociation(source: Sequence[int],
                           target: Sequence[int]) -> list[list[int]] | None:
    """Groups of consecutive ``source`` dimensions whose products are the ``target``
    dimensions (unit dimensions joining the group before them); None if there are none."""
    groups: list[list[int]] = []
    d = 0
    for n in target:
        group: list[int] = []
        size = 1
        while d < len(source) and (size < n or not group):
            group.append(d)
            size *= source[d]
            d += 1
        if size != n:
            return None
        groups.append(group)
    while d < len(source) and source[d] == 1 and groups:
        groups[-1].append(d)
        d += 1
    return groups if d == len(source) and groups else None


def intermediate_buffers(
    intermediates: dict[BlockArgument, Intermediate],
    packings: dict[BlockArgument, tuple[Packing, Role, Operation]],
    before: Operation,
    cfg: VTAConfig,
) -> dict[BlockArgument, SSAValue]:
    """The packed DRAM buffer of every intermediate the regions use, allocated at the start of
    the function (module doc), and the views of its aliases (collapsed, or channel slices)."""
    buffers: dict[BlockArgument, SSAValue] = {}
    for arg, inter in intermediates.items():
        if inter.source is not None or arg not in packings:
            continue
        packed = packings[arg][0].memref_type()
        alloc = memref.AllocOp.get(packed.element_type, shape=packed.get_shape())
        alloc.memref.name_hint = arg.name_hint
        copy_location(inter.alloc, [alloc])
        Rewriter.insert_op(alloc, InsertPoint.before(before))
        buffers[arg] = alloc.memref
    for arg, inter in intermediates.items():
        if inter.source is None or arg not in packings:
            continue
        packing, _, user = packings[arg]
        source = packings.get(inter.source)
        if source is None:  # an alias read before its buffer is written: diagnosed already
            continue
        if inter.channels is not None:
            part = channel_slice_view(inter, buffers[inter.source], source[0], packing, cfg)
            Rewriter.insert_op(part, InsertPoint.before(before))
            buffers[arg] = part.result
            continue
        target = packing.memref_type().get_shape()
        groups = collapse_reassociation(source[0].memref_type().get_shape(), target)
        if groups is None or not same_element_order(source[0], packing):
            error_with_note(user, f"reads {label(arg)}, a collapsed view of "
                                  f"{label(inter.source)}, whose packed layout is not that of "
                                  "the buffer: a layer reads a collapsed intermediate only "
                                  "where the collapsed dimensions are units (N×C×1×1 → N×C), "
                                  "or as the activations of a dense layer (N×C×H×W → "
                                  "N×(C·H·W))",
                            inter.alloc, "collapsed here")
        view = memref.CollapseShapeOp(
            operands=[buffers[inter.source]],
            result_types=[packing.memref_type()],
            properties={"reassociation": ArrayAttr(
                [ArrayAttr([IntegerAttr(d, i64) for d in g]) for g in groups])})
        view.result.name_hint = arg.name_hint
        copy_location(inter.alloc, [view])
        Rewriter.insert_op(view, InsertPoint.before(before))
        buffers[arg] = view.result
    return buffers
