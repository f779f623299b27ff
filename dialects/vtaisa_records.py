"""The exact conversion between a ``vtaisa`` instruction op (:mod:`vta_mlir.dialects.vtaisa_insns`)
and a :mod:`vta_mlir.isa` instruction record: :func:`insn_to_op` (how the host lowering and
the ``.vtab`` reader make the ops) and :func:`op_to_insn` (how the serialiser reads them)."""

from __future__ import annotations

from xdsl.ir import Operation

from vta_mlir.isa import AluInsn, FinishInsn, GemmInsn, Insn, MemInsn

from .vtaisa_insns import (
    AluInsnOp,
    FinishInsnOp,
    GemmInsnOp,
    InsnOp,
    LoadInsnOp,
    StoreInsnOp,
)

__all__ = ["insn_to_op", "op_to_insn"]

_OP_OF_RECORD: dict[type, type[InsnOp]] = {GemmInsn: GemmInsnOp, AluInsn: AluInsnOp,
                                            FinishInsn: FinishInsnOp}


def insn_to_op(insn: Insn) -> InsnOp:
    """The ``vtaisa`` op of a :mod:`vta_mlir.isa` instruction record (every field copied).

    Built with ``create`` from the record's fields, without the keyword checks of the
    constructor: a network has tens of thousands of instructions.  Raises ``TypeError`` for
    an object that is not an instruction record or a field that is not an integer, and
    ``VerifyException`` for a memory type or ALU opcode that names none."""
    cls: type[InsnOp] | None
    if isinstance(insn, MemInsn):
        cls = StoreInsnOp if insn.is_store else LoadInsnOp
    else:
        cls = next((c for t, c in _OP_OF_RECORD.items() if isinstance(insn, t)), None)
        if cls is None:
            raise TypeError(f"not a VTA instruction record: {insn!r}")
    try:
        props = {n: attr(getattr(insn, n)) for n, attr in cls.CONVERTERS}
    except (TypeError, ValueError, AttributeError) as e:
        raise TypeError(f"{type(insn).__name__}: a field is not an integer ({e})") from None
    return cls.create(properties=props)


def op_to_insn(op: Operation) -> Insn:
    """The :mod:`vta_mlir.isa` record of a ``vtaisa`` instruction op (inverse of
    :func:`insn_to_op`)."""
    if not isinstance(op, InsnOp):
        raise TypeError(f"{op.name} is not a vtaisa instruction")
    values = op.values()
    if isinstance(op, LoadInsnOp | StoreInsnOp):
        return MemInsn(is_store=int(op.IS_STORE), **values)
    if isinstance(op, GemmInsnOp):
        return GemmInsn(**values)
    if isinstance(op, AluInsnOp):
        return AluInsn(**values)
    return FinishInsn(**values)
