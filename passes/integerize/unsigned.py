"""uint8 codes as MLIR frontends write them (torch-mlir for a model quantized with
``QuantType.QUInt8``): a quantization converted by ``fptoui`` into ``[0, 255]``, held in
``i8``; ``x + (−128)`` on ``i8`` making them the signed codes a quantized convolution or
matrix product reads; ``maxui`` against the zero point (a ReLU); ``uitofp`` or ``extui`` in
their dequantization. ``vta-integerize`` reads such a buffer as the codes of a tensor whose
zero point is the uint8 one minus 128 (:class:`~.meaning.Codes` with ``unsigned``), which
represents the same reals (``docs/onnx.md`` §2, "uint8").
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import BlockArgument, SSAValue

__all__ = ["SHIFT", "signed_shift", "unsigned_max"]

#: uint8 codes minus this are the int8 codes of the same reals.
SHIFT = 128


def _one_input_result(op: linalg.GenericOp, kind: type) -> tuple[SSAValue, int] | None:
    """For a one-input generic yielding ``kind(input, constant)``: the input's block argument
    and the constant."""
    term = op.body.block.last_op
    if len(op.inputs) != 1 or not isinstance(term, linalg.YieldOp) or len(term.operands) != 1:
        return None
    inner = term.operands[0].owner
    if not isinstance(inner, kind):
        return None
    arg = next((v for v in inner.operands if isinstance(v, BlockArgument)
                and v.block is op.body.block and v.index == 0), None)
    other = next((v for v in inner.operands if v is not arg), None)
    if arg is None or other is None or not isinstance(other.owner, arith.ConstantOp) or \
            not isinstance(other.owner.value, IntegerAttr):
        return None
    return arg, int(other.owner.value.value.data)


def signed_shift(op: linalg.GenericOp) -> bool:
    """Whether ``op`` computes ``x + (−128)`` on ``i8``: uint8 codes to int8 ones."""
    found = _one_input_result(op, arith.AddiOp)
    return found is not None and found[1] in (-SHIFT, SHIFT) and \
        getattr(found[0].type, "width", None) is not None and found[0].type.width.data == 8


def unsigned_max(op: linalg.GenericOp) -> int | None:
    """The bound ``b`` (read unsigned) of a one-input generic computing ``maxui(x, b)`` on
    ``i8``: a ReLU on uint8 codes."""
    found = _one_input_result(op, arith.MaxUIOp)
    return None if found is None else found[1] & 0xFF
