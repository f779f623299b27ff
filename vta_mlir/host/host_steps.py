"""The host steps of a host program: each ``vta.host`` as the ``vtaisa.host_step`` the linked
program holds (``dialects/vtaisa_host.py``).

A step's buffers are the DRAM buffers the layout placed for its operands (an argument's
segment, or the place of an intermediate buffer in the temporaries), each described by an
:class:`~vta_mlir.abi.ArgSpec` with the packing ``vta-pack`` recorded on the op, so that the
runtime unpacks exactly the layout the device wrote and packs exactly the one the device reads.
Its function is the op's body as ``func.func @step``, in a module with copies of the
``memref.global`` s the body reads.
"""

from __future__ import annotations

from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DictionaryAttr,
    Float32Type,
    MemRefType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Operation, SSAValue

from vta_mlir.abi import ArgSpec
from vta_mlir.dialects.vta_host import HostOp
from vta_mlir.dialects.vtaisa_host import STEP_FUNCTION, HostStepOp
from vta_mlir.errors import BinaryFormatError
from vta_mlir.host.layout import Layout
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.locations import location_of

__all__ = ["host_step_op"]


def _dims(packing: DictionaryAttr, key: str) -> tuple[int, ...]:
    value = packing.data.get(key)
    if not isinstance(value, DenseArrayBase):
        return ()
    return tuple(int(v) for v in value.get_values())


def _specs(op: HostOp, layout: Layout) -> list[ArgSpec]:
    if op.packings is None:
        report_error(op, "has no packings: vta-pack gives every host step the layouts of its "
                         "operands before the program is lowered")
    specs: list[ArgSpec] = []
    taken: set[str] = set()
    for index, (value, packing) in enumerate(
            zip(op.operand_values, op.packings.data, strict=True)):
        buffer = layout.dram.get(value)
        if buffer is None:
            report_error(op, f"operand {index} is not a DRAM buffer the program places")
        if "repeat" in packing.data or "window" in packing.data:
            report_error(op, f"operand {index} ({buffer.label}) is held replicated or as "
                             "convolution patches, which the host cannot read back")
        stem = buffer.label.lstrip("%@") or f"arg{index}"
        name, n = stem, 1
        while name in taken:
            name, n = f"{stem}_{n}", n + 1
        taken.add(name)
        dtype = packing.data["dtype"]
        assert isinstance(dtype, StringAttr)
        try:
            specs.append(ArgSpec(
                name=name,
                direction="in" if index < len(op.inputs) else "inout",
                dtype=dtype.data,
                shape=_dims(packing, "shape"),
                padded_shape=_dims(packing, "padded_shape"),
                split_shape=_dims(packing, "split_shape"),
                perm=_dims(packing, "perm"),
                packed_dtype=_packed_dtype(value),
                segment=buffer.segment,
                phys=buffer.phys,
            ))
        except BinaryFormatError as e:
            report_error(op, f"operand {index}: {e}")
    return specs


def _packed_dtype(value: SSAValue) -> str:
    """The element type of the packed buffer ``value``: an int32 result is held as bytes
    (``vta_mlir.abi.ArgSpec.parts``)."""
    t = value.type
    assert isinstance(t, MemRefType)
    element = t.element_type
    return "float32" if isinstance(element, Float32Type) else \
        f"int{element.width.data}"  # type: ignore[attr-defined]


def _globals_read(op: HostOp) -> list[Operation]:
    """Copies of the ``memref.global`` s the body of ``op`` reads, from the module around it."""
    names = {g.name_.root_reference.data for g in op.walk() if isinstance(g, memref.GetGlobalOp)}
    if not names:
        return []
    module = op.get_toplevel_object()
    found = {g.sym_name.data: g for g in module.walk() if isinstance(g, memref.GlobalOp)} \
        if isinstance(module, ModuleOp) else {}
    missing = sorted(names - found.keys())
    if missing:
        report_error(op, f"reads the global @{missing[0]}, which the module does not define")
    return [found[name].clone() for name in sorted(names)]


def host_step_op(op: HostOp, layout: Layout) -> HostStepOp:
    """The ``vtaisa.host_step`` of ``op`` (module docstring)."""
    specs = _specs(op, layout)
    body = op.body.clone()
    block = body.block
    block.add_op(func.ReturnOp())
    step = func.FuncOp(STEP_FUNCTION, ([a.type for a in block.args], []), body)
    return HostStepOp(op.step_name.data, specs, ModuleOp([*_globals_read(op), step]),
                      str(location_of(op, inherit=True) or ""))
