"""The packed layout of every buffer ``vta-pack``'s regions use, and the buffers read in two.

Each use of a function argument, a constant or an intermediate buffer (their stand-ins,
``passes/pack/constants.py`` and ``passes/pack/intermediates.py``) asks for a packing: the
layout of its role (the data of a convolution, a matrix in the accumulator's layout, a bias,
...).  The first use fixes the buffer's packing; a later use in another layout is one of

* **the same bytes with fewer axes, read or written element for element** (a tensor's layout
  read by an element-wise layer as a matrix, ``same_element_order``): one buffer, with the
  packing of the most axes; the element-wise uses read or write it through a
  ``memref.collapse_shape`` (``_Emitter.shaped``);
* **another element order, of data the host packs** (an argument no layer writes, or a
  constant): one more buffer in that layout, a *copy*.  While planning, the copy is one more
  block argument standing in for it (like the stand-ins of constants); ``vta-pack`` then makes
  a copy of an argument a new argument at the end of the signature, whose ``vta.arg`` names
  the argument it copies (``copy_of``, its index) — the host packs the caller's one array into
  both buffers (``vta_mlir.abi.ArgSpec.copy_of``) — and packs a constant into a second packed
  global;
* **another element order, of data a layer writes** (an intermediate buffer, or an argument a
  layer writes): diagnosed.  The device holds such a buffer in the layout of the layer writing
  it, and VTA has no operation that would copy it into another layout.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from xdsl.ir import BlockArgument, Operation

from vta_mlir.passes.pack.expr import error_with_note, label
from vta_mlir.passes.pack.intermediates import collapse_reassociation, same_element_order
from vta_mlir.passes.pack.normal_form import ROLE_NAMES, Packing, Role

__all__ = ["Layouts"]

#: The roles whose steps read or write a buffer through a collapsed view of it when the buffer
#: has more axes (``Init`` and ``Store``: ``_Emitter.shaped``).
_VIEWED_ROLES = (Role.MATRIX, Role.TENSOR)


def _shared(known: tuple[Packing, Role], new: tuple[Packing, Role]) -> Packing | None:
    """The packing of one buffer serving both uses, when one is the same bytes as the other
    with fewer axes and reads or writes it element for element; None otherwise."""
    (a, a_role), (b, b_role) = known, new
    if not same_element_order(a, b):
        return None
    a_shape, b_shape = a.memref_type().get_shape(), b.memref_type().get_shape()
    if len(a_shape) > len(b_shape) and b_role in _VIEWED_ROLES \
            and collapse_reassociation(a_shape, b_shape) is not None:
        return a
    if len(b_shape) > len(a_shape) and a_role in _VIEWED_ROLES \
            and collapse_reassociation(b_shape, a_shape) is not None:
        return b
    return None


@dataclass
class Layouts:
    """The packing of every buffer the regions of one function use (module doc)."""

    #: The stand-ins of intermediate buffers, and the arguments some layer writes.
    intermediates: Collection[BlockArgument] = ()
    written: Collection[BlockArgument] = ()
    #: Each buffer's packing, the role and the op of the use that chose it.
    packings: dict[BlockArgument, tuple[Packing, Role, Operation]] = field(
        default_factory=dict[BlockArgument, tuple[Packing, Role, Operation]])
    #: The stand-in of each copy, and the argument (or constant stand-in) it copies.
    copies: dict[BlockArgument, BlockArgument] = field(
        default_factory=dict[BlockArgument, BlockArgument])

    def use(self, arg: BlockArgument, role: Role, op: Operation,
            packing: Packing) -> BlockArgument:
        """``op`` reads or writes ``arg`` in ``role`` with ``packing``: the block argument it
        uses, ``arg`` or a copy of it in that layout."""
        known = self.packings.get(arg)
        if known is None:
            self.packings[arg] = (packing, role, op)
            return arg
        if known[0].same_layout(packing):
            return arg
        shared = _shared((known[0], known[1]), (packing, role))
        if shared is not None:
            # The same bytes viewed with other axes: the buffer gets the shape with the most
            # axes, and the others read it through a memref.collapse_shape.
            if shared is packing:
                self.packings[arg] = (packing, role, op)
            return arg
        if arg in self.intermediates or arg in self.written:
            what = "an intermediate buffer" if arg in self.intermediates else \
                "an argument a layer writes"
            error_with_note(op, f"uses {label(arg)} as {ROLE_NAMES[role]}, which is packed "
                                f"differently from {ROLE_NAMES[known[1]]}: {label(arg)} is "
                                f"{what}, which the device holds in one packed layout (VTA "
                                "has no copy from one layout into another)", known[2],
                            "first used here")
        for copy, source in self.copies.items():
            if source is arg and self.packings[copy][0].same_layout(packing):
                return copy
        # Data the host packs (an argument no layer writes, a constant): packed once more,
        # into a buffer of its own.
        block = arg.block
        copy = block.insert_arg(arg.type, len(block.args))
        copy.name_hint = arg.name_hint
        self.copies[copy] = arg
        self.packings[copy] = (packing, role, op)
        return copy
