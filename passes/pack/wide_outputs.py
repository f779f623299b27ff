"""``i32`` results of ``vta-pack``: an accumulator that leaves the device as byte planes.

VTA's STORE writes the low ``OUT_WIDTH`` bits of each accumulator (``docs/isa.md`` §3.5), so an
``i32`` result cannot be stored as it is.  It leaves the device exactly as its
``ACC_WIDTH / OUT_WIDTH`` *planes* (four bytes with the shipped widths): the region stores the
accumulator's low bits (plane 0), shifts it right by ``OUT_WIDTH`` in place (an ALU ``shr``) and
stores plane 1, and so on; plane ``p`` holds bits ``p·OUT_WIDTH …`` of every element, the last
one its sign.  Three in-place shifts by ``OUT_WIDTH`` cost less than shifting copies of the
value by 8, 16 and 24 (which would need a copy of the accumulator first), and each store is
one plane of ``BATCH × BLOCK_OUT`` bytes per vector, as an int8 output's.

The packed buffer is the accumulator's layout with one more, outermost axis of planes
(``memref<4x…xi8>``); its ``vta.arg`` splits each element into its parts
(``vta_mlir.abi.ArgSpec.parts``: ``split_shape`` has the parts as a last axis, ``perm`` moves it
first), so the host reassembles the ``int32`` values (``b0 | b1 << 8 | b2 << 16 | b3 << 24``,
``b3`` signed) for ``vta-run``, the Python API and host steps alike.

A result whose range is known needs fewer planes (``passes/pack/plane_range.py``: the
products of int8 operands onto a zero-filled accumulator): the region stores only those, the
last one signed, and ``split_shape``'s parts axis holds their number.

An ``i32`` buffer receives a result here when it is a function argument the function writes
(the function's output) or an ``i32`` buffer that host steps read (a stand-in, as an int8
intermediate's, ``passes/pack/intermediates.py``).  Its first write must not read what it held
before (a ``linalg.fill``, or a ``linalg.generic`` that does not read its output): the caller's
initial contents never reach the device.  After the first write, later ops read and update the
value as they would a local buffer; the region ends at the last write.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, StridedLayoutAttr
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.config import VTAConfig
from vta_mlir.ir.locations import copy_location
from vta_mlir.isa import AluKind
from vta_mlir.passes.pack.expr import Expr, Narrow, Output, Value, error_with_note, label
from vta_mlir.passes.pack.normal_form import Packing, Role, alu_op, packing_for, store_op
from vta_mlir.passes.pack.plane_range import ConstantValues, result_planes

if TYPE_CHECKING:
    from vta_mlir.passes.pack.match import FunctionRecognizer

__all__ = ["plane_store_ops", "plane_view", "record_wide_write", "result_packing", "wide_packing",
           "wide_value"]


def wide_value(rec: FunctionRecognizer, arg: BlockArgument) -> Expr | None:
    """What the i32 argument ``arg`` holds once the function has written it; None before."""
    out = rec.outputs.get(arg)
    if out is None or not out.wide:
        return None
    return out.value.value


def record_wide_write(rec: FunctionRecognizer, op: Operation, dst: BlockArgument,
                      value: Value) -> None:
    """``op`` writes ``value`` into the i32 argument ``dst``: the region of ``dst`` now ends
    at ``op`` (module doc)."""
    first = rec.initial_reads.get(dst)
    if first is not None:
        error_with_note(op, f"writes {label(dst)}, an i32 result, after reading what it held "
                            "before: VTA never loads the caller's contents of a result; "
                            "initialise it first (linalg.fill)", first, "read here")
    assert isinstance(value, Expr)
    # The region comes where its last write is: the result moves to the end of the outputs,
    # and the host steps recorded after its earlier place move up by one.
    if dst in rec.outputs:
        place = list(rec.outputs).index(dst)
        del rec.outputs[dst]
        rec.host_steps = [(at - 1 if at > place else at, step) for at, step in rec.host_steps]
    rec.outputs[dst] = Output(dst, Narrow(value, True, op), op, wide=True)


def wide_packing(packing: Packing, planes: int, cfg: VTAConfig) -> Packing:
    """``packing`` (the accumulator's layout of an i32 result) with each element split into
    its ``planes`` planes of ``OUT_WIDTH`` bits, the planes outermost (module doc)."""
    return Packing(packing.shape, packing.dtype, packing.padded_shape,
                   (*packing.split_shape, planes), (len(packing.split_shape), *packing.perm),
                   memref_shape=(planes, *packing.memref_shape) if packing.memref_shape else (),
                   parts=planes, part_width=cfg.out_width)


def result_packing(out: Output, role: Role, flattened: Packing | None, cfg: VTAConfig,
                   constants: ConstantValues) -> Packing:
    """The packing of the i32 result ``out``: the accumulator's layout of its region (the
    packing of ``role``, or ``flattened``, the matrix view of an element-wise program of
    another rank), split into the planes its range needs (``passes/pack/plane_range.py``;
    ``constants``: the values of constant operands)."""
    shape = tuple(out.arg.type.get_shape())  # type: ignore[attr-defined]
    planes = result_planes(out.value.value, cfg, constants)
    return wide_packing(flattened or packing_for(role, shape, "int32", cfg), planes, cfg)


def plane_view(out: SSAValue, plane: int) -> memref.SubviewOp:
    """The rank-reducing ``memref.subview`` of plane ``plane`` of the packed result ``out``."""
    t = out.type
    assert isinstance(t, MemRefType)
    shape = list(t.get_shape())
    strides = [1] * len(shape)
    for d in reversed(range(len(shape) - 1)):
        strides[d] = strides[d + 1] * shape[d + 1]
    # A batch's slice of batched planes starts where the loop's batch does: its offset, and
    # so each plane's, is dynamic.
    dynamic = isinstance(t.layout, StridedLayoutAttr) and t.layout.get_offset() is None
    layout = StridedLayoutAttr(strides[1:], None if dynamic else plane * strides[0])
    result = MemRefType(t.element_type, shape[1:], layout)
    op = memref.SubviewOp.get(out, [plane, *[0] * (len(shape) - 1)], [1, *shape[1:]],
                              [1] * len(shape), result)
    op.result.name_hint = f"{out.name_hint or 'out'}_plane{plane}"
    return op


def plane_store_ops(acc: SSAValue, out: SSAValue, planes: int, cfg: VTAConfig,
                    source: Operation) -> list[Operation]:
    """The region's last ops: store the accumulator ``acc`` into plane 0 of ``out``, shift it
    right by ``OUT_WIDTH`` in place, store plane 1, and so on (module doc).  The views of the
    planes are inserted next to the buffer (located at ``source``), like the other views of
    packed buffers."""
    views = [plane_view(out, p) for p in range(planes)]
    copy_location(source, views)
    owner = out.owner
    Rewriter.insert_op(views, InsertPoint.after(owner) if isinstance(owner, Operation)
                       else InsertPoint.at_start(out.block))  # type: ignore[attr-defined]
    ops: list[Operation] = []
    for p, view in enumerate(views):
        ops.append(store_op(acc, view.result))
        if p + 1 < planes:
            ops.append(alu_op(AluKind.SHR, acc, imm=cfg.out_width))
    return ops
