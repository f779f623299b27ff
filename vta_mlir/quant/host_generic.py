"""A float ``linalg.generic`` as an operation of a float layer (:mod:`.host_float`): the float
code of a network written in linalg (torch-mlir's output, read by ``vta-integerize``) kept op
for op, so that the host computes exactly what the network's own ops compute
(``docs/onnx.md`` §8).

A :class:`~.host_float.FloatOp` of kind :data:`GENERIC` holds the generic's indexing maps (one
list of result expressions per input, then the output's), its iterator types and its body as
text whose block arguments are ``%a``, ``%b``, ... in operand order (the output's last), as
:func:`~.host_float_ops.generic` writes them; ``init`` is the value a reduction's output
starts from (a ``linalg.fill``), or None when the body does not read the output.  Its
semantics are the reference evaluator's (``docs/reference.md``): every op rounded once to
float32, a reduction folded in the order of its iteration space.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .host_float_ops import FloatCode, generic

if TYPE_CHECKING:
    from .host_float import FloatOp

__all__ = ["GENERIC", "emit_generic", "f32_literal"]

#: The kind of a float layer's operation that is a ``linalg.generic`` kept as it is.
GENERIC = "linalg.generic"


def f32_literal(value: float) -> str:
    """The MLIR literal of ``value`` rounded to float32: its decimal form, or the hexadecimal
    bits of an infinity or a NaN (which have no decimal form)."""
    single = np.float32(value)
    if math.isfinite(float(single)):
        return repr(float(single))
    return f"0x{int(single.view(np.uint32)):08X}"


def emit_generic(code: FloatCode, op: FloatOp, target: str | None) -> None:
    """The generic of ``op`` on the buffers of its inputs, into a buffer of its own (or
    ``target``), filled with ``init`` first when the body reads it."""
    maps = op.attrs["maps"]
    ins = []
    for value, results in zip(op.inputs, maps[:-1], strict=True):  # type: ignore[call-overload]
        buffer, type_, _, _ = code.operand(value, code.shape(value))
        ins.append((buffer, type_, list(results), "f32"))
    buf, type_ = code.alloc(op.output, op.shape, target)
    init = op.attrs.get("init")
    if init is not None:
        code.lines += [f"  {buf}_init = arith.constant {f32_literal(float(init))} : f32",  # type: ignore[arg-type]
                       f"  linalg.fill ins({buf}_init : f32) outs({buf} : {type_})"]
    code.lines += generic(ins, (buf, type_, list(maps[-1]), "f32"),  # type: ignore[index]
                          list(op.attrs["body"]), list(op.attrs["iterators"]),  # type: ignore[call-overload]
                          code.name)
