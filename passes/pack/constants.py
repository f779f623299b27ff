"""Constant operands of ``vta-pack``: ``memref.global`` constants read by ``memref.get_global``.

Weights and biases may be constants of the module instead of function arguments::

    memref.global "private" constant @w : memref<48x64xi8> = dense<"0x...">
    func.func @dense(%x: memref<32x64xi8>, %y: memref<32x48xi8>) {
      %w = memref.get_global @w : memref<48x64xi8>
      ...

A constant can stand wherever an input argument can (contraction weights and activations,
convolution kernels, biases, residuals), and is packed the way the host would pack that
argument (``vta_mlir.abi.ArgSpec``), but at compile time: :func:`stand_in_constants` gives the
function one *stand-in* block argument per global it reads, so the recognizer and the planner
treat it exactly as an argument, and :class:`ConstantPool` then turns each stand-in into a
``memref.get_global`` of a new constant global holding the packed image (``@w_packed``), which
``vta-lower-to-isa`` places in a constant DRAM segment of the binary.  The stand-ins are removed
again, so the signature lists only the real arguments.  A global no function reads any more
after packing is erased when it is private.

What cannot be packed is reported at the ``memref.get_global`` (or the op writing it): an unknown
symbol, a global that is not ``constant`` or has no initial value, a type other than the
global's, and a constant used as an output.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolOpInterface

from vta_mlir.abi import ArgSpec
from vta_mlir.errors import BinaryFormatError
from vta_mlir.ir.dense import dense_int_array
from vta_mlir.ir.diagnostics import report_error
from vta_mlir.ir.locations import copy_location
from vta_mlir.passes.pack.depthwise import block_diagonal
from vta_mlir.passes.pack.normal_form import Packing
from vta_mlir.passes.pack.plane_range import ConstantValues

__all__ = ["ConstantPool", "StandIn", "stand_in_constants", "stand_in_values"]

#: The suffix of a packed constant's symbol (``@w`` → ``@w_packed``).
PACKED_SUFFIX = "_packed"


@dataclass(eq=False)
class StandIn:
    """The block argument standing for the global ``glob`` while ``vta-pack`` plans, and the
    first ``memref.get_global`` reading it (where messages point)."""

    arg: BlockArgument
    glob: memref.GlobalOp
    read: memref.GetGlobalOp

    @property
    def symbol(self) -> str:
        return self.glob.sym_name.data

    def values(self) -> np.ndarray | None:
        """The global's integer values, in its shape; None when they cannot be read (the
        error comes when the constant is packed)."""
        value, t = self.glob.initial_value, self.glob.type
        if not isinstance(value, DenseIntOrFPElementsAttr) or not isinstance(t, MemRefType):
            return None
        try:
            return dense_int_array(value, t.get_shape())
        except ValueError:
            return None


def stand_in_values(stand_ins: dict[BlockArgument, StandIn]) -> ConstantValues:
    """The values of the constants ``stand_ins`` stand for, by stand-in argument."""

    def values(arg: BlockArgument) -> np.ndarray | None:
        stand_in = stand_ins.get(arg)
        return None if stand_in is None else stand_in.values()

    return values


def _written(op: Operation) -> Sequence[SSAValue]:
    """The buffers ``op`` writes, as far as ``vta-pack``'s input goes."""
    if isinstance(op, memref.CopyOp):
        return (op.destination,)
    if isinstance(op, memref.StoreOp):
        return (op.memref,)
    if isinstance(op, linalg.BroadcastOp):
        return (op.init,)
    # Every other structured op (linalg.transpose included) writes its outputs.
    outputs = getattr(op, "outputs", None)
    return tuple(outputs) if outputs is not None else ()


def _global(read: memref.GetGlobalOp, symbols: dict[str, memref.GlobalOp]) -> memref.GlobalOp:
    """The constant global ``read`` reads, after checking it can be packed."""
    sym = read.name_.root_reference.data
    glob = symbols.get(sym)
    if glob is None or read.name_.nested_references.data:
        report_error(read, f"reads the global @{sym}, which the module does not define")
    if read.memref.type != glob.type:
        report_error(read, f"reads @{sym} as {read.memref.type}, but the global is {glob.type}")
    if glob.constant is None:
        report_error(
            read,
            f"reads @{sym}, which is not constant: vta-pack packs constant "
            "globals (memref.global ... constant) into the binary; pass a "
            "tensor the program changes as a function argument",
        )
    if not isinstance(glob.initial_value, DenseIntOrFPElementsAttr):
        report_error(
            read,
            f"reads @{sym}, a constant without a value (uninitialized): "
            "vta-pack packs the dense<...> value of a constant into the binary",
        )
    return glob


def stand_in_constants(
    f: func.FuncOp, symbols: dict[str, memref.GlobalOp]
) -> dict[BlockArgument, StandIn]:
    """Replace every ``memref.get_global`` in the body of ``f`` by a block argument standing
    for its global (one per global), appended after the real arguments (module doc)."""
    block = f.body.block
    stand_ins: dict[str, StandIn] = {}
    for op in list(block.ops):
        for value in _written(op):
            owner = value.owner
            if isinstance(owner, memref.GetGlobalOp):
                report_error(
                    op,
                    f"writes the constant @{owner.name_.root_reference.data}: "
                    "constants are packed into the binary once and read only; "
                    "write the result into a function argument",
                )
    for read in [op for op in block.ops if isinstance(op, memref.GetGlobalOp)]:
        glob = _global(read, symbols)
        stand_in = stand_ins.get(glob.sym_name.data)
        if stand_in is None:
            arg = block.insert_arg(read.memref.type, len(block.args))
            arg.name_hint = read.memref.name_hint or glob.sym_name.data
            stand_in = stand_ins[glob.sym_name.data] = StandIn(arg, glob, read)
        read.memref.replace_all_uses_with(stand_in.arg)
        Rewriter.erase_op(read)
    return {s.arg: s for s in stand_ins.values()}


@dataclass
class ConstantPool:
    """The packed constants of one module: one global per constant and packing, shared by the
    functions that pack a constant the same way."""

    module: ModuleOp
    symbols: dict[str, memref.GlobalOp] = field(init=False)
    packed: dict[tuple[str, Packing], memref.GlobalOp] = field(default_factory=dict)
    #: The globals read by a packed function before it was packed.
    replaced: set[str] = field(default_factory=set[str])

    def __post_init__(self) -> None:
        self.symbols = {
            op.sym_name.data: op for op in self.module.walk() if isinstance(op, memref.GlobalOp)
        }

    def _taken(self) -> set[str]:
        taken: set[str] = set()
        for op in self.module.walk():
            if op.has_trait(SymbolOpInterface):
                name = op.properties.get("sym_name") or op.attributes.get("sym_name")
                if isinstance(name, StringAttr):
                    taken.add(name.data)
        return taken

    def packed_global(self, stand_in: StandIn, packing: Packing) -> memref.GlobalOp:
        """The constant global holding the image of ``stand_in``'s global packed by
        ``packing``, created next to it the first time."""
        key = (stand_in.symbol, packing)
        if key in self.packed:
            return self.packed[key]
        glob, read = stand_in.glob, stand_in.read
        t = glob.type
        assert isinstance(t, MemRefType) and isinstance(
            glob.initial_value, DenseIntOrFPElementsAttr
        )
        try:
            values = dense_int_array(glob.initial_value, t.get_shape())
        except ValueError as e:
            report_error(read, f"reads @{stand_in.symbol}, whose value {e} of {t}")
        assert values is not None  # the recognizer accepted i8 / i32 elements only
        if packing.diagonal:
            # A depthwise kernel: its block-diagonal expansion is what gets packed.
            values = block_diagonal(values, packing.padded_shape[1], packing.diagonal)
        try:
            spec = ArgSpec(
                stand_in.symbol,
                "in",
                packing.dtype,
                tuple(values.shape) if packing.diagonal else packing.shape,
                packing.padded_shape,
                packing.split_shape,
                packing.perm,
                repeat=packing.repeat,
                window=packing.window,
            )
            image = spec.pack(values.astype(packing.dtype))
        except BinaryFormatError as e:
            report_error(read, f"cannot pack @{stand_in.symbol}: {e}")
        packed_type = packing.memref_type()
        element = packed_type.element_type
        taken = self._taken()
        name, n = f"{stand_in.symbol}{PACKED_SUFFIX}", 1
        while name in taken:
            name, n = f"{stand_in.symbol}{PACKED_SUFFIX}_{n}", n + 1
        new = memref.GlobalOp.get(
            StringAttr(name),
            packed_type,
            DenseIntOrFPElementsAttr(
                TensorType(element, packed_type.get_shape()), BytesAttr(image)
            ),
            constant=UnitAttr(),
        )
        copy_location(glob, [new])
        Rewriter.insert_op(new, InsertPoint.after(glob))
        self.packed[key] = new
        return new

    def read_packed(self, stand_in: StandIn, packing: Packing, before: Operation) -> SSAValue:
        """A ``memref.get_global`` of the packed constant, inserted before ``before``."""
        glob = self.packed_global(stand_in, packing)
        self.replaced.add(stand_in.symbol)
        read = memref.GetGlobalOp(glob.sym_name.data, glob.type)
        read.memref.name_hint = stand_in.arg.name_hint
        copy_location(stand_in.read, [read])
        Rewriter.insert_op(read, InsertPoint.before(before))
        return read.memref

    def erase_unused(self) -> None:
        """Erase the private globals packed functions read and nothing reads any more."""
        still_read = {
            op.name_.root_reference.data
            for op in self.module.walk()
            if isinstance(op, memref.GetGlobalOp)
        }
        for sym in self.replaced - still_read:
            glob = self.symbols[sym]
            if glob.sym_visibility.data == "private":
                Rewriter.erase_op(glob)
