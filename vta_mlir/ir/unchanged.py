"""Which ops a pass left as the module verified them.

A pass that verifies the module it leaves (``SELF_VERIFYING`` in ``passes/pipeline.py``)
need not run the verifier of an op it did not touch: the module was verified before it.
:class:`Untouched` records, before the pass rewrites anything, what an op's own verifier can
read of it (its parent block and whether it ends it, its operands, result types, properties
and attributes), and afterwards tells the ops whose record still holds and none of whose
enclosing ops is new.  An op moved into a new op, such as a micro-op into a new kernel, is
verified again: a kernel's micro-ops read their kernel.  Pass it to
:func:`vta_mlir.ir.diagnostics.verify_op` as ``vouched``: everything else is verified, and
every op's dominance.
"""

from __future__ import annotations

from xdsl.ir import Operation

__all__ = ["Untouched"]

_State = tuple[object, ...]


def _state(op: Operation) -> _State:
    # Attributes and types are immutable; tuples compare their items by identity first.
    return (op.parent, op.next_op is None, tuple(op.operands),
            tuple(r.type for r in op.results), tuple(op.properties.items()),
            tuple(op.attributes.items()))


class Untouched:
    """The ops of ``root`` as they are now; called with an op later, whether it is one of
    them and unchanged, in an unchanged place."""

    def __init__(self, root: Operation) -> None:
        self._before = {op: _state(op) for op in root.walk()}

    def __call__(self, op: Operation) -> bool:
        state = self._before.get(op)
        if state is None or state != _state(op):
            return False
        parent = op.parent_op()
        while parent is not None:
            if parent not in self._before:
                return False
            parent = parent.parent_op()
        return True
