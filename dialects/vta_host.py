"""``vta.host``: a step of the program that the host computes, between device runs.

An operation VTA cannot compute — a float Softmax, a Sigmoid, a dequantize-compute-quantize
chain — runs on the CPU, on the host's view of the DRAM buffers, with the semantics of the
reference evaluator (:mod:`vta_mlir.reference`).  ``vta-outline-host-steps`` puts each run of
such ops into one ``vta.host``, whose region is a function body on its operands::

    vta.host "softmax" ins(%logits : memref<1x10xi8>) outs(%probs : memref<1x10xi8>) {
    ^bb0(%x: memref<1x10xi8>, %y: memref<1x10xi8>):
      %f = memref.alloc() : memref<1x10xf32>
      linalg.generic ... ins(%x) outs(%f) { sitofp, mulf }        // dequantize
      ...                                                       // softmax in f32
      linalg.generic ... ins(%f) outs(%y) { roundeven, fptosi }  // quantize
    }

The region is isolated from above: everything it reads comes in through its operands (``ins``
are read, ``outs`` written; an operand may be both, listed in ``outs``), so the body can be
evaluated on its own.  Before ``vta-pack`` each block argument has its operand's type.
``vta-pack`` gives the operands the packed types of the buffers the device's layers use and
records, per operand, how the host unpacks and packs it (``packings``: one dictionary per
operand, the fields of a ``vta.arg``); the block arguments keep the logical types.  The device
passes never look inside a ``vta.host`` (:func:`device_walk`).  ``vta-lower-to-isa`` ends the
device run before the step and starts a new one after it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, MemRefType, StringAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import IsolatedFromAbove, NoTerminator
from xdsl.utils.exceptions import VerifyException

__all__ = ["HostOp", "device_walk"]


@irdl_op_definition
class HostOp(IRDLOperation):
    """A step the host computes between device runs (module docstring)."""

    name = "vta.host"

    inputs = var_operand_def(MemRefType)
    outputs = var_operand_def(MemRefType)
    step_name = prop_def(StringAttr, prop_name="name")
    packings = opt_prop_def(ArrayAttr[DictionaryAttr])
    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(IsolatedFromAbove(), NoTerminator())

    assembly_format = (
        "$name (`ins` `(` $inputs^ `:` type($inputs) `)`)? "
        "(`outs` `(` $outputs^ `:` type($outputs) `)`)? (`packings` $packings^)? "
        "attr-dict-with-keyword $body"
    )

    def __init__(
        self,
        name: str,
        inputs: Sequence[SSAValue | Operation],
        outputs: Sequence[SSAValue | Operation],
        body: Region,
        *,
        packings: Sequence[DictionaryAttr] | None = None,
        attributes: dict[str, Attribute] | None = None,
    ) -> None:
        properties: dict[str, Attribute] = {"name": StringAttr(name)}
        if packings is not None:
            properties["packings"] = ArrayAttr(packings)
        super().__init__(
            operands=[inputs, outputs],
            properties=properties,
            regions=[body],
            attributes=attributes or {},
        )

    @property
    def operand_values(self) -> tuple[SSAValue, ...]:
        """The inputs, then the outputs: the order of the body's block arguments."""
        return (*self.inputs, *self.outputs)

    @property
    def entry(self) -> Block:
        return self.body.block

    def verify_(self) -> None:
        operands = self.operand_values
        args = self.entry.args
        if len(args) != len(operands):
            raise VerifyException(
                f"vta.host has {len(operands)} operand(s) but its body takes {len(args)} "
                "argument(s): one per operand, inputs then outputs"
            )
        if self.packings is not None and len(self.packings.data) != len(operands):
            raise VerifyException(
                f"vta.host has {len(operands)} operand(s) but {len(self.packings.data)} "
                "packing(s)"
            )
        for index, (operand, arg) in enumerate(zip(operands, args, strict=True)):
            if not isinstance(arg.type, MemRefType):
                raise VerifyException(f"argument {index} of the vta.host body is not a memref")
            if self.packings is None and arg.type != operand.type:
                raise VerifyException(
                    f"argument {index} of the vta.host body has type {arg.type}, its operand "
                    f"{operand.type}: before vta-pack they are the same"
                )
        for op in self.entry.ops:
            if op.dialect_name() in ("vta", "vtaisa", "func"):
                raise VerifyException(
                    f"'{op.name}' inside vta.host: the body of a host step is host code on "
                    "its operands, without device commands or returns"
                )


def device_walk(op: Operation) -> Iterator[Operation]:
    """``op`` and the ops nested in it, in program order, without entering a ``vta.host``
    body (host code the device passes leave alone)."""
    yield op
    if isinstance(op, HostOp):
        return
    for region in op.regions:
        for block in region.blocks:
            for inner in block.ops:
                yield from device_walk(inner)
