"""``vta.host`` steps in ``vta-pack``: the buffers a host step reads and writes, and their
layouts.

A host step (``dialects/vta_host.py``) is host code between VTA regions.  For the regions
around it, it behaves like the caller of the function: the buffers it reads must be in device
DRAM when it starts (a region's output, or an argument), and the buffers it writes are read by
later regions as they read arguments.  Its operands are therefore function arguments or the
stand-ins of intermediate buffers (``passes/pack/intermediates.py``): int8 buffers layers hand
each other, i32 results a region stores as byte planes for it (``passes/pack/wide_outputs.py``),
and buffers only host steps use (:func:`host_buffer`); never a view of a buffer.

The host unpacks and packs whatever layout a buffer has (``vta_mlir.abi.ArgSpec``), so a host
step never chooses one: a buffer keeps the packing of the regions using it — the weight tiles
of a product reading it as its right operand included, N×K or K×N, which a layer could not
always store (``passes/pack/match_matmul_operands.py``) — and a buffer only host steps use
keeps its logical layout (:func:`logical_packing`, the role
:attr:`~.normal_form.Role.HOST`).  ``vta-pack`` rewrites the op with the packed buffers as
operands and the packings in its ``packings``; the body, on the logical types, is unchanged.
"""

from __future__ import annotations

from xdsl.dialects import memref
from xdsl.dialects.builtin import Float32Type, IntegerType, MemRefType, NoneAttr, Signedness
from xdsl.ir import BlockArgument, Operation, SSAValue

from vta_mlir.dialects.vta_host import HostOp
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.passes.pack.expr import HostStepBuffers, label
from vta_mlir.passes.pack.normal_form import Packing

__all__ = ["check_host_operands", "host_buffer", "logical_packing"]


def logical_packing(arg: BlockArgument) -> Packing:
    """The identity packing of a buffer only host steps use: its logical shape, unpadded."""
    t = arg.type
    assert isinstance(t, MemRefType)
    shape = tuple(t.get_shape())
    element = t.element_type
    dtype = "float32" if isinstance(element, Float32Type) else \
        f"int{element.width.data}"  # type: ignore[attr-defined]
    return Packing(shape, dtype, shape, shape, tuple(range(len(shape))))


def check_host_operands(op: HostOp, block_args: set[SSAValue]) -> HostStepBuffers:
    """The :class:`HostStepBuffers` of ``op`` after checking that each operand is a DRAM buffer the
    host can see: a function argument or an intermediate buffer (in ``block_args``, the
    function's block arguments and stand-ins), of a static integer type."""
    for value in op.operand_values:
        t = value.type
        if value not in block_args:
            owner = value.owner
            what = owner.name if isinstance(owner, Operation) else "a block argument"
            report_error(op, f"reads or writes {label(value)} ({t}), defined by {what}: a host "
                             "step works on function arguments and on whole buffers in DRAM "
                             "(the int8 buffers layers hand each other, the i32 results host "
                             "steps read, the buffers host steps hand each other)")
        assert isinstance(t, MemRefType)
        element = t.element_type
        integer = isinstance(element, IntegerType) \
            and element.signedness.data == Signedness.SIGNLESS and element.width.data in (8, 32)
        if not (integer or isinstance(element, Float32Type)):
            report_error(op, f"reads or writes {label(value)} ({t}): the buffers of a host "
                             "step hold i8, i32 or f32")
    inputs = [v for v in op.inputs if isinstance(v, BlockArgument)]
    outputs = [v for v in op.outputs if isinstance(v, BlockArgument)]
    return HostStepBuffers(op, tuple(inputs), tuple(outputs))


def host_buffer(alloc: memref.AllocOp | memref.AllocaOp) -> bool:
    """Whether ``alloc`` is a buffer host steps hand over besides the int8 intermediates: one
    that only host steps use (any element type: the scale a step computes and a later one
    reads), or an ``i32`` buffer a host step reads (a region's i32 result, stored as byte
    planes, ``passes/pack/wide_outputs.py``).  Such a buffer gets a stand-in as an int8
    intermediate does (``passes/pack/intermediates.py``)."""
    t = alloc.memref.type
    if not isinstance(t, MemRefType) or not isinstance(t.layout, NoneAttr) \
            or not isinstance(t.memory_space, NoneAttr) or any(d < 0 for d in t.get_shape()):
        return False
    users = [u.operation for u in alloc.memref.uses
             if not isinstance(u.operation, memref.DeallocOp)]
    hosts = [u for u in users if isinstance(u, HostOp)]
    if not hosts:
        return False
    element = t.element_type
    return len(hosts) == len(users) or (
        isinstance(element, IntegerType) and element.width.data == 32)
