"""The requantization of a convolution or Gemm with the multiplication first (``docs/onnx.md``
§3, "The emitted operations").

Without a first shift (``s1 = 0``) the requantization of ``v = acc + bias`` is
``r = ((v·m + K) >> s2)`` clipped to ``[lo, hi]``, with ``K = 2^(s2 − 1) + zy·2^s2`` (the
rounding constant and the output zero point; ``K = zy`` when ``s2 = 0``). Distributing the
multiplication, ``v·m + K = acc·m + (bias·m + K)``: one multiplication of the accumulator, the
add of one constant vector in place of the bias, one shift and the clip — five ALU operations
where the clip before the multiplication, the bias and the split rounding take eight cycles.

The two forms give the same codes wherever ``acc·m + bias·m + K`` stays within int32 (the
ALU's multiplication and addition wrap modulo 2^32, so only the sum has to fit): within the
window of the clip before the multiplication the values are equal, and beyond it both
saturate, since ``r`` grows with ``v``. :func:`product_first_bias` checks that bound on the
accumulator's range, which the weights and the range of the input codes determine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from vta_mlir.frontend.mlir_text import memref_type

from .emit_cnn import last_value
from .program import AddLayer, ConvLayer, DenseLayer, Program
from .requant import Requant

if TYPE_CHECKING:
    from .emit import Emitter

Operand = tuple[str, str, str, str]

__all__ = ["accumulator_bounds", "code_range", "product_first_bias", "product_first_steps",
           "written_codes"]

_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1


def accumulator_bounds(weight: np.ndarray, x_lo: int, x_hi: int) -> tuple[np.ndarray,
                                                                           np.ndarray]:
    """The smallest and largest accumulator of each output channel (``weight``'s first axis)
    when every input code lies in ``[x_lo, x_hi]`` or is a zero of the padding."""
    rows = weight.reshape(weight.shape[0], -1)
    low, high = min(x_lo, 0), max(x_hi, 0)
    # low <= 0 <= high: a positive weight is smallest at low, a negative one at high.
    positive = np.maximum(rows, 0).sum(axis=1, dtype=np.int64)
    negative = rows.sum(axis=1, dtype=np.int64) - positive
    return positive * low + negative * high, positive * high + negative * low


def product_first_bias(rq: Requant, bias: np.ndarray, zero_point: int, acc_lo: np.ndarray,
                       acc_hi: np.ndarray) -> np.ndarray | None:
    """The int32 vector ``bias·m + K`` that replaces the bias when the multiplication goes
    first (``m`` per channel or the one of all), or ``None`` when the requantization shifts
    before multiplying or some accumulator in ``[acc_lo, acc_hi]`` could leave int32."""
    if rq.s1 or bias.ndim != 1:
        return None
    multipliers: Sequence[int] = rq.channel_m or (rq.m,)
    m = np.array(multipliers, np.int64)
    k = ((1 << rq.s2) >> 1) + (zero_point << rq.s2)
    folded = bias.astype(np.int64) * m + k
    lowest = (acc_lo * m + folded).min()
    highest = (acc_hi * m + folded).max()
    if lowest < _INT32_MIN or highest > _INT32_MAX:
        return None
    return folded.astype(np.int32)


def product_first_steps(em: Emitter, layer: ConvLayer | DenseLayer, weight: np.ndarray,
                        steps: list[str], operands: list[Operand]) -> bool:
    """Append to ``steps`` (an epilogue's body) the requantization with the multiplication
    first — ``acc·m``, the add of the folded bias ``bias·m + K``, ``>> s2`` — when it gives the
    same codes as :meth:`Emitter.requant_steps` (``weight`` has the output channels first; the
    epilogue's output clip follows). Returns whether it did."""
    acc_lo, acc_hi = accumulator_bounds(weight, *code_range(em.program, layer.src))
    folded = product_first_bias(layer.rq, layer.bias, layer.zero_point, acc_lo, acc_hi)
    if folded is None:
        return False
    rq = layer.rq
    if rq.channel_m:
        vector = np.array(rq.channel_m, np.int32)
        operands.append((em.constant(f"{layer.name}_m", vector),
                         memref_type(vector.shape, "i32"), "d1", "%mc: i32"))
        steps.append("%v0 = arith.muli %a, %mc : i32")
    elif rq.m != 1:
        em.step(steps, "muli", rq.m)
    operands.append((em.constant(f"{layer.name}_b", folded),
                     memref_type(folded.shape, "i32"), "d1", "%b: i32"))
    value = last_value(steps)
    steps.append(f"%v{sum(1 for line in steps if line.startswith('%v'))} = arith.addi "
                 f"{value}, %b : i32")
    if rq.s2:
        em.step(steps, "shrsi", rq.s2)
    return True


def code_range(program: Program, tensor: str) -> tuple[int, int]:
    """The codes ``tensor`` can hold: the output clip of the layer writing it, else all
    of int8."""
    real = program.aliases.get(tensor, tensor)
    return written_codes(next((layer for layer in program.layers if layer.dst == real), None))


def written_codes(layer: object) -> tuple[int, int]:
    """The codes ``layer`` (``None``: the program's input) writes: its output clip when it has
    one, else all of int8."""
    if isinstance(layer, ConvLayer | DenseLayer | AddLayer):
        return layer.lo, layer.hi
    return -128, 127
