"""Concatenation along channels for ``vta-pack``: layers writing channel slices of one buffer
(and, alike, the columns of a matrix: the heads of a multi-head layer).

A detector neck concatenates feature maps along the channels.  In the memref form (what
``vta-bufferize`` makes of ``tensor.concat`` or ``tensor.insert_slice`` into a
``tensor.empty``, or what ``vta-import-onnx`` writes) the concatenation is one int8 buffer and
its *channel slices*, ``memref.subview %cat[0, c0, 0, 0] [N, C, H, W] [1, 1, 1, 1]``, which
layers write — directly, or by a ``memref.copy`` of a buffer into the slice.

On VTA the buffer lives in device DRAM in the tensor layout ``(N/B, C/BO, H, W, B, BO)``, whose
channel blocks are its outer dimension: a slice of whole blocks is a strided part of it, and
the layer writing the slice stores its output tiles there, with no copy.  So before anything
is recognised, :func:`rewrite_channel_slices` puts the function in that form:

* a ``memref.copy`` into a slice of a buffer written by one op and read by nothing else is
  removed, and that op writes the slice instead (the producer writes straight into the
  concatenation);
* any other copy into a slice (the buffer is read elsewhere too, or is an argument) becomes a
  *placement* layer: a 1×1 sum pool of the source into an ``i32`` accumulator and its
  ``trunci`` into the slice, a layer in the tensor layout that only moves the data;
* a concatenation into a function argument is built in a buffer of its own, copied into the
  argument at the end (the host's layout of an argument is the standard one).

``passes/pack/intermediates.py`` then gives each slice a stand-in (an *alias* of the buffer,
``Intermediate.channels``), so the recognizer sees a layer writing an argument, and
:func:`channel_slice_view` makes it a ``memref.subview`` of the packed buffer at channel block
``c0 / BO``: the layer's output DMA stores into it, a plain strided store.

VTA moves whole tensor elements (``BATCH × BLOCK_OUT`` values), so a slice must start at a
multiple of ``BLOCK_OUT`` and its last block must not hold channels of the next slice.  A
concatenation whose parts are not so aligned (24 + 16 channels on ``BLOCK_OUT`` 16, or 16 + 16
on 32) is *widened*: each part is written at whole blocks of a buffer of ``Σ ⌈C_i / BO⌉·BO``
channels (the gaps hold whatever the producers' padded channels compute), and one more layer,
a 1×1 convolution whose int8 kernel is 1 where an output channel takes a channel of the wide
buffer and 0 elsewhere (a constant global ``@<buffer>_select``), writes the concatenation —
exact, each output the one input it selects.  The cost is that layer's GEMM pass over the
concatenation; aligned concatenations cost nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    AffineMapAttr,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    i8,
    i32,
    i64,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import Conv2DNchwFchwOp
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.config import VTAConfig
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.locations import copy_location
from vta_mlir.ir.upstream_fixes.linalg_pooling import PoolingNchwSumOp
from vta_mlir.passes.pack.expr import label
from vta_mlir.passes.pack.normal_form import Packing

if TYPE_CHECKING:
    from vta_mlir.passes.pack.intermediates import Intermediate

__all__ = ["channel_offset", "channel_slice_view", "rewrite_channel_slices", "slice_source"]


def channel_offset(op: Operation) -> int | None:
    """The first channel of ``op`` when it is a channel slice of a static rank-4 int8 buffer,
    or the first column of a column slice of a matrix (the columns of one head of a
    multi-head layer, ``passes/pack/match_matmul_operands.py``): offsets 0 but along dimension
    1, the other dimensions whole, unit strides; a part of the channels, not all."""
    if not isinstance(op, memref.SubviewOp) or op.offsets or op.sizes or op.strides:
        return None
    t = op.source.type
    if not (isinstance(t, MemRefType) and t.get_num_dims() in (2, 4)
            and isinstance(t.element_type, IntegerType) and t.element_type.width.data == 8
            and isinstance(t.layout, NoneAttr) and all(d >= 0 for d in t.get_shape())):
        return None
    rank = t.get_num_dims()
    offsets = list(op.static_offsets.get_values())
    sizes = list(op.static_sizes.get_values())
    shape = t.get_shape()
    result = op.result.type
    if list(op.static_strides.get_values()) != [1] * rank or offsets[0] \
            or any(offsets[2:]) or [sizes[0], *sizes[2:]] != [shape[0], *shape[2:]] \
            or sizes[1] >= shape[1] or not isinstance(result, MemRefType) \
            or result.get_num_dims() != rank:
        return None
    return offsets[1]


def _is_concat_buffer(value: SSAValue) -> bool:
    """``value`` is written through channel slices: it has some, and no fill or other
    subview (the padding idiom fills its buffer and views its interior)."""
    users = [use.operation for use in value.uses]
    slices = [u for u in users if channel_offset(u) is not None]
    return bool(slices) and not any(
        isinstance(u, linalg.FillOp) or (isinstance(u, memref.SubviewOp) and u not in slices)
        for u in users)


def _first_use(block_ops: list[Operation], value: SSAValue) -> Operation:
    users = {use.operation for use in value.uses}
    return next(op for op in block_ops if op in users)


def rewrite_channel_slices(f: func.FuncOp, cfg: VTAConfig) -> list[memref.GlobalOp]:
    """Put the concatenations of ``f`` in the form the recognizer takes (module doc); returns
    the constants it adds to the module (the selections of unaligned concatenations)."""
    block = f.body.block
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    for arg in list(block.args):
        if _is_concat_buffer(arg) and _slices_written(arg):
            _into_own_buffer(arg, ret)
    for op in list(block.ops):
        _check_written_slice(op)
        if isinstance(op, memref.CopyOp) and channel_offset(op.destination.owner) is not None \
                and op.parent_block() is block:  # type: ignore[arg-type]
            view = op.destination.owner
            assert isinstance(view, memref.SubviewOp)
            if _is_concat_buffer(view.source) and not _fold_copy(op, view):
                if _rank(view.source) != 4:
                    report_error(op, f"copies into columns of {label(view.source)}: a layer "
                                     "writes a column slice of a matrix itself")
                _placement(op)
    added: list[memref.GlobalOp] = []
    for op in list(block.ops):
        if isinstance(op, memref.AllocOp) and _is_concat_buffer(op.memref) \
                and not _aligned(op.memref, cfg.block_out) and _rank(op.memref) == 4:
            added.append(_gapped(f, op, cfg.block_out))
    return added


def _rank(value: SSAValue) -> int:
    t = value.type
    return t.get_num_dims() if isinstance(t, MemRefType) else 0


def _slices_written(value: SSAValue) -> bool:
    """Some slice of ``value`` is written (a copy into it, or the output of an op)."""
    for view in _parts(value):
        for use in view.result.uses:
            user = use.operation
            if (isinstance(user, memref.CopyOp) and user.destination is view.result) \
                    or view.result in getattr(user, "outputs", ()):
                return True
    return False


def _parts(buffer: SSAValue) -> list[memref.SubviewOp]:
    """The channel slices of ``buffer``, by their first channel."""
    views = [u.operation for u in buffer.uses if channel_offset(u.operation) is not None]
    return sorted(views, key=lambda v: channel_offset(v) or 0)  # type: ignore[arg-type]


def _aligned(buffer: SSAValue, block: int) -> bool:
    """Every slice starts at a whole block, and its last block holds no channel of the next
    slice."""
    parts = _parts(buffer)
    for k, view in enumerate(parts):
        first, count = channel_offset(view) or 0, view.result.type.get_shape()[1]  # type: ignore[attr-defined]
        end = -(-(first + count) // block) * block
        if first % block or (k + 1 < len(parts) and end > (channel_offset(parts[k + 1]) or 0)):
            return False
    return True


def _gapped(f: func.FuncOp, alloc: memref.AllocOp, block: int) -> memref.GlobalOp:
    """An unaligned concatenation: its parts written at whole blocks of a wider buffer (each
    part's channels rounded up to blocks), then copied into the concatenation by a 1×1
    convolution whose kernel selects each channel (0 and 1: exact). Returns the kernel's
    global."""
    cat = alloc.memref
    n, total, h, w = cat.type.get_shape()  # type: ignore[attr-defined]
    parts = _parts(cat)
    starts, width = [], 0
    for view in parts:
        starts.append(width)
        width += -(-view.result.type.get_shape()[1] // block) * block  # type: ignore[attr-defined]
    wide = memref.AllocOp.get(i8, shape=[n, width, h, w])
    wide.memref.name_hint = f"{cat.name_hint or 'cat'}_blocks"
    copy_location(alloc, [wide])
    Rewriter.insert_op(wide, InsertPoint.after(alloc))
    select = np.zeros((total, width, 1, 1), np.int8)
    for view, start in zip(parts, starts, strict=True):
        first = channel_offset(view) or 0
        count = view.result.type.get_shape()[1]  # type: ignore[attr-defined]
        select[first + np.arange(count), start + np.arange(count), 0, 0] = 1
        part = memref.SubviewOp.from_static_parameters(
            wide.memref, wide.memref.type, [0, start, 0, 0], [n, count, h, w], [1] * 4)
        part.result.name_hint = view.result.name_hint
        copy_location(view, [part])
        Rewriter.replace_op(view, part)
    module = f.get_toplevel_object()
    assert isinstance(module, ModuleOp)
    taken = {op.sym_name.data for op in module.ops if isinstance(op, memref.GlobalOp)}
    name, k = f"{cat.name_hint or 'cat'}_select", 1
    while name in taken:
        name, k = f"{cat.name_hint or 'cat'}_select_{k}", k + 1
    kernel_t = MemRefType(i8, select.shape)
    glob = memref.GlobalOp.get(StringAttr(name), kernel_t, DenseIntOrFPElementsAttr(
        TensorType(i8, select.shape), BytesAttr(select.tobytes())), constant=UnitAttr(),
        sym_visibility=StringAttr("private"))
    copy_location(alloc, [glob])
    Rewriter.insert_op(glob, InsertPoint.before(f))
    # The selection, before the first op reading the concatenation.
    blk = f.body.block
    readers = [u.operation for u in cat.uses if not isinstance(u.operation, memref.DeallocOp)]
    first = min((blk.find_ancestor_op_in_block(r) or r for r in readers),
                key=blk.get_operation_index) if readers else blk.last_op
    assert first is not None
    zero = arith.ConstantOp.from_int_and_width(0, 32)
    kernel = memref.GetGlobalOp(name, kernel_t)
    acc = memref.AllocOp.get(i32, shape=[n, total, h, w])
    acc.memref.name_hint = "select_acc"
    fill = linalg.FillOp([zero.result], [acc.memref], res=())
    ones = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [2]), [1, 1])
    conv = Conv2DNchwFchwOp((wide.memref, kernel.memref), (acc.memref,), res=(),
                            dilations=ones, strides=ones)  # type: ignore[arg-type]
    ops = [zero, kernel, acc, fill, conv, _trunci(acc.memref, cat)]
    copy_location(parts[-1], ops)
    Rewriter.insert_op(ops, InsertPoint.before(first))
    return glob


def _check_written_slice(op: Operation) -> None:
    """A view of an allocation nothing fills (not the padding idiom) that a layer writes is a
    channel slice: an error at the view ``op`` otherwise."""
    t = op.source.type if isinstance(op, memref.SubviewOp) else None
    if not isinstance(t, MemRefType) or t.get_num_dims() != 4 or channel_offset(op) is not None \
            or not isinstance(op.source.owner, memref.AllocOp):  # type: ignore[union-attr]
        return
    users = [u.operation for u in op.source.uses]
    written = any(isinstance(u.operation, memref.CopyOp) and u.operation.destination is op.result
                  or op.result in getattr(u.operation, "outputs", ()) for u in op.result.uses)
    if written and not any(isinstance(u, linalg.FillOp) for u in users):
        report_error(op, f"is a part of {label(op.source)} other than a slice of its channels, "
                         "which a layer writes: VTA concatenates NCHW tensors along the "
                         "channels (a view with offsets 0 but along dimension 1, the other "
                         "dimensions whole, unit strides)")


def _into_own_buffer(arg: BlockArgument, ret: Operation) -> None:
    """The concatenation into the argument ``arg`` built in a buffer, copied into ``arg``."""
    t = arg.type
    assert isinstance(t, MemRefType)
    alloc = memref.AllocOp.get(t.element_type, shape=t.get_shape())
    alloc.memref.name_hint = f"{arg.name_hint or 'arg'}_cat"
    block = arg.block
    slices = [u.operation for u in arg.uses if channel_offset(u.operation) is not None]
    first = _first_use(list(block.ops), arg)
    copy_location(first, [alloc])
    Rewriter.insert_op(alloc, InsertPoint.before(first))
    for view in slices:
        view.operands = [alloc.memref, *view.operands[1:]]
    copy = memref.CopyOp(alloc.memref, arg)
    copy_location(slices[-1], [copy])
    Rewriter.insert_op(copy, InsertPoint.before(ret))


def _fold_copy(copy: memref.CopyOp, view: memref.SubviewOp) -> bool:
    """The op writing the copy's source writes the slice instead, when the source is a buffer
    of the function that op writes and nothing but the copy reads."""
    src = copy.source
    alloc = src.owner
    if not isinstance(alloc, memref.AllocOp):
        return False
    block = copy.parent_block()
    assert block is not None
    others = [u.operation for u in src.uses
              if u.operation is not copy and not isinstance(u.operation, memref.DeallocOp)]
    writers = [u for u in others if u.parent_block() is block]
    if not writers or any(block.get_operation_index(u) > block.get_operation_index(copy)
                          for u in writers):
        return False
    # Every other use writes the source (a fill of a pooling's output and the pooling, or one
    # layer's output): the layer's "outs" operands.
    if any(src not in getattr(u, "outputs", ()) or src in getattr(u, "inputs", ())
           for u in writers):
        return False
    first = writers[0]
    # The slice (and its buffer, when it comes later) before the first write.
    cat = view.source.owner
    order = list(block.ops)
    if isinstance(cat, memref.AllocOp) and order.index(cat) > order.index(first):
        cat.detach()
        Rewriter.insert_op(cat, InsertPoint.before(first))
    view.detach()
    Rewriter.insert_op(view, InsertPoint.before(first))
    for use in list(src.uses):
        if isinstance(use.operation, memref.DeallocOp):
            Rewriter.erase_op(use.operation)
    Rewriter.erase_op(copy)
    src.replace_all_uses_with(view.result)
    Rewriter.erase_op(alloc)
    return True


def _placement(copy: memref.CopyOp) -> None:
    """The copy as a layer in the tensor layout: a 1×1 sum pool of the source into an ``i32``
    accumulator, truncated into the slice."""
    src, dst = copy.source, copy.destination
    t = src.type
    assert isinstance(t, MemRefType)
    acc = memref.AllocOp.get(i32, shape=t.get_shape())
    acc.memref.name_hint = "place_acc"
    zero = arith.ConstantOp.from_int_and_width(0, 32)
    window = memref.AllocOp.get(i8, shape=[1, 1])
    window.memref.name_hint = "place_window"
    fill = linalg.FillOp([zero.result], [acc.memref], res=())
    ones = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [2]), [1, 1])
    pool = PoolingNchwSumOp((src, window.memref), (acc.memref,), res=(),
                            strides=ones, dilations=ones)  # type: ignore[arg-type]
    store = _trunci(acc.memref, dst)
    ops = [zero, acc, window, fill, pool, store]
    copy_location(copy, ops)
    Rewriter.insert_op(ops, InsertPoint.before(copy))
    Rewriter.erase_op(copy)


def _trunci(src: SSAValue, dst: SSAValue) -> linalg.GenericOp:
    """``dst = trunci(src)`` element for element (rank 4)."""
    block = Block(arg_types=[i32, i8])
    trunc = arith.TruncIOp(block.args[0], i8)
    block.add_ops([trunc, linalg.YieldOp(trunc.result)])
    ident = AffineMapAttr(AffineMap.identity(4))
    return linalg.GenericOp([src], [dst], Region(block), [ident, ident],
                            [IteratorTypeAttr.parallel()] * 4)


def slice_source(arg: BlockArgument,
                 intermediates: Collection[BlockArgument]) -> BlockArgument | None:
    """The buffer ``arg`` is a channel slice of (a stand-in), None when it is not one."""
    if not isinstance(intermediates, Mapping):
        return None
    inter = intermediates.get(arg)
    return inter.source if getattr(inter, "channels", None) is not None else None


def channel_slice_view(inter: Intermediate, buffer: SSAValue, buffer_packing: Packing,
                       packing: Packing, cfg: VTAConfig) -> memref.SubviewOp:
    """The slice ``inter`` of the packed ``buffer``: its channel blocks from ``channels /
    BO`` (module doc: whole blocks, else an error at the slice)."""
    assert inter.channels is not None and inter.source is not None
    bo = cfg.block_out
    first, count = inter.channels, packing.shape[1]
    if first % bo:  # rewrite_channel_slices widens unaligned concatenations
        what = "channels" if len(packing.shape) == 4 else "columns"
        report_error(inter.alloc, f"is {what} {first}..{first + count - 1} of "
                                  f"{label(inter.source)}, which do not start at a whole block "
                                  f"of {bo} {what}: VTA moves whole tensor elements")
    packed = buffer_packing.memref_type()
    sizes = list(packing.memref_type().get_shape())
    view = memref.SubviewOp.from_static_parameters(
        buffer, packed, [0, first // bo, *[0] * (len(sizes) - 2)], sizes, [1] * len(sizes))
    view.result.name_hint = inter.arg.name_hint
    copy_location(inter.alloc, [view])
    return view
