"""Sum pools of ``vta-integerize`` (``lift.py`` calls these): a ``pooling_nchw_sum`` over
dequantized reals, maybe padded with the real 0, then a ``divf`` and a quantize, read as the
ONNX frontend's average pool (``docs/onnx.md`` §4.3 and §4.10).

torch-mlir writes an ``AveragePool`` as the sum pool, then a ``divf`` by the window size
(``count_include_pad=1``, or no padding) or by the count of the window's taps inside the
image, which it computes in the divide's body from ``linalg.index`` (``count_include_pad=0``).
That count is read exactly (:func:`bodies.index_formula`) and must be the taps inside the
image for every output position; any other divisor is an error at the op. A window covering
the whole image, unpadded, into 1×1 is the global average pool of :class:`Sum`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

import numpy as np
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue

from vta_mlir.ir.upstream_fixes.linalg_pooling import PoolingNchwSumOp
from vta_mlir.quant.layers_cnn import AveragePoolLayer, average_pool_layer, taps_inside
from vta_mlir.quant.program import QTensor
from vta_mlir.quant.requant import error_bound

from . import bodies
from .meaning import Filled, Meaning, Padded, PooledMax, Real, Sum, Unsupported, WindowSum
from .values import shape as _shape

__all__ = ["average_pool", "divide", "max_pool", "sum_pool"]


class Lifter(Protocol):
    """What these functions use of the lifter."""

    held: dict[SSAValue, Meaning]

    def meaning(self, op: Operation, value: SSAValue) -> Meaning: ...

    def name(self, kind: str) -> str: ...


def sum_pool(lifter: Lifter, op: PoolingNchwSumOp) -> None:
    """A sum pool: :class:`Sum` over the whole image, else :class:`WindowSum`."""
    src = lifter.meaning(op, op.inputs[0])
    init = lifter.meaning(op, op.outputs[0])
    pads = (0, 0, 0, 0)
    if isinstance(src, Padded):
        if src.value != 0 or not isinstance(src.source, Real):
            raise Unsupported(op, "the sum pool's reals are padded with 0 (the zero point)")
        pads, src = src.pads, src.source
    if not isinstance(src, Real) or not isinstance(init, Filled) or init.value != 0:
        raise Unsupported(op, "the sum pool reads dequantized codes into a buffer filled "
                              "with 0")
    kernel, out = _shape(op.inputs[1]), _shape(op.outputs[0])
    if tuple(op.dilations.get_values()) != (1, 1) or len(kernel) != 2:
        raise Unsupported(op, "dilated pooling is not supported")
    if pads == (0, 0, 0, 0) and kernel == src.tensor.shape[2:] and out[2:] == (1, 1):
        lifter.held[op.outputs[0]] = Sum(op, src.tensor)
        return
    stride = tuple(op.strides.get_values())
    lifter.held[op.outputs[0]] = WindowSum(op, src.tensor, (kernel[0], kernel[1]),
                                           (stride[0], stride[1]), pads)


def divide(lifter: Lifter, op: linalg.GenericOp, src: Meaning) -> bool:
    """A ``divf`` of a pool's sums by a constant, or of a :class:`WindowSum` by a count the
    body computes from the output position; whether ``op`` was one."""
    if not isinstance(src, Sum | WindowSum):
        return False
    out = op.outputs[0]
    if (constant := bodies.divide_by(op)) is not None:
        lifter.held[out] = replace(src, divisor=src.divisor * constant)
        return True
    divisor = bodies.divide_by_position(op)
    if divisor is None or not isinstance(src, WindowSum):
        return False
    shape = _shape(out)
    counts = bodies.index_formula(op, divisor, shape)
    if counts is None:
        raise Unsupported(op, "divides the sums of a pool by other than a constant or a count "
                              "computed from linalg.index")
    counts = np.broadcast_to(counts, shape)
    if np.any(counts != counts[:1, :1]):
        raise Unsupported(op, "divides the sums of a pool by a count that varies along N or C")
    lifter.held[out] = replace(src, divisor=src.divisor * counts[0, 0].astype(np.float64))
    return True


def average_pool(lifter: Lifter, op: Operation, src: WindowSum, y: QTensor,
                 error_bounds: list[float]) -> AveragePoolLayer:
    """The average pool a quantize of ``src`` into ``y`` is; the bound of its requantization
    error joins ``error_bounds``."""
    x = src.x
    size = (x.shape[2], x.shape[3])
    window = src.kernel[0] * src.kernel[1]
    counts = taps_inside(size, src.kernel, src.stride, src.pads)
    divisor = np.broadcast_to(np.asarray(src.divisor, np.float64), counts.shape)
    if np.all(divisor == window):
        count_include_pad = True
    elif np.array_equal(divisor, counts):
        count_include_pad = False
    else:
        raise Unsupported(op, "the sums of a pool are divided by other than the window size "
                              "or the count of its taps inside the image")
    try:
        layer = average_pool_layer(lifter.name("avgpool"), x.name, size, x.scale, x.zero_point,
                                   y.scale, y.zero_point, y.name, src.kernel, src.stride,
                                   src.pads, count_include_pad)
    except ValueError as exc:
        raise Unsupported(op, str(exc)) from None
    divisors = [window] if layer.multipliers is None else sorted(
        {int(d) for d in counts.reshape(-1)})
    multipliers = [x.scale / (y.scale * d) for d in divisors]
    error_bounds.append(error_bound(multipliers if len(multipliers) > 1 else multipliers[0],
                                    layer.rq))
    return layer


def max_pool(lifter: Lifter, op: linalg.PoolingNchwMaxOp) -> None:
    """A max-pool of dequantized codes (maybe padded with −∞) into a buffer filled with −∞."""
    src = lifter.meaning(op, op.inputs[0])
    out = op.outputs[0]
    init = lifter.meaning(op, out)
    pads = (0, 0, 0, 0)
    if isinstance(src, Padded):
        if src.value != -np.inf:
            raise Unsupported(op, "the max-pool's reals are padded with −∞")
        pads, src = src.pads, src.source
    if not isinstance(src, Real) or not isinstance(init, Filled) or init.value != -np.inf:
        raise Unsupported(op, "the max-pool reads dequantized codes into a buffer filled "
                              "with −∞")
    kernel = _shape(op.inputs[1])
    strides = tuple(op.strides.get_values())
    if tuple(op.dilations.get_values()) != (1, 1) or len(kernel) != 2:
        raise Unsupported(op, "dilated pooling is not supported")
    lifter.held[out] = PooledMax(op, src.tensor, (kernel[0], kernel[1]),
                                 (strides[0], strides[1]), pads)
