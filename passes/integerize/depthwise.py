"""Depthwise convolutions and float clips (ReLU6) in ``vta-integerize``'s reading
(``passes/integerize/lift.py``), as torch-mlir writes an ONNX depthwise ``Conv`` (``group`` =
channels) and ``Clip``:

* the depthwise convolution on NHWC data: the padded NCHW codes transposed to NHWC
  (``linalg.transpose``, permutation ``[0, 2, 3, 1]``), the ``C × KH × KW`` kernel transposed
  to ``KH × KW × C``, ``linalg.depthwise_conv_2d_nhwc_hwc_q`` (zero points) onto the bias
  broadcast over N, H and W, and its accumulator transposed back to NCHW (``[0, 3, 1, 2]``);
  ``linalg.depthwise_conv_2d_nchw_chw`` on the codes themselves reads alike.  Either is the
  accumulator of a depthwise layer (``vta_mlir.quant.depthwise``), the kernel ``C × 1 × KH ×
  KW``;
* a clip of reals, ``select(x < lo, lo, x)`` then ``select(v > hi, hi, v)`` (or
  ``minimumf(maximumf(x, lo), hi)``) with constant bounds, quantized again at the reals'
  quantization: the clip of the codes ``[Q(lo), Q(hi)]`` (``docs/onnx.md`` §4.8), folded into
  the layer writing them, as a ReLU.

Each function takes the lifter (:class:`Lifter`: what the reading knows) and raises
:class:`~.meaning.Unsupported` at the op for anything else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue

from vta_mlir.ir.upstream_fixes.linalg_depthwise_conv import (
    DepthwiseConv2DNchwChwOp,
    DepthwiseConv2DNhwcHwcOp,
    DepthwiseConv2DNhwcHwcQOp,
)
from vta_mlir.quant.program import AddLayer, ConvLayer, DenseLayer, Layer, QTensor

from . import bodies
from . import channels as per_channel
from .meaning import (
    Accumulator,
    Codes,
    Const,
    DequantizedWeight,
    Meaning,
    Padded,
    Real,
    Unsupported,
    channel_bias,
)

__all__ = ["DEPTHWISE_OPS", "Clipped", "Lifter", "Nhwc", "clip", "conv", "fold_clip",
           "transpose"]

#: The depthwise convolutions the reading takes.
DEPTHWISE_OPS = (DepthwiseConv2DNchwChwOp, DepthwiseConv2DNhwcHwcOp, DepthwiseConv2DNhwcHwcQOp)

#: NCHW → NHWC and back.
TO_NHWC, TO_NCHW = (0, 2, 3, 1), (0, 3, 1, 2)


@dataclass(frozen=True)
class Nhwc:
    """``source`` (NCHW codes, padded codes or an accumulator) transposed to NHWC."""

    source: Codes | Padded | Accumulator


@dataclass(frozen=True)
class Clipped:
    """``tensor``'s reals clipped to ``[lo, hi]`` by the generic ``clip``."""

    tensor: QTensor
    lo: float
    hi: float
    clip: linalg.GenericOp


def _readers(buffer: SSAValue) -> list[Operation]:
    """The ops reading ``buffer`` (not only writing it)."""
    return [use.operation for use in buffer.uses
            if not isinstance(use.operation, linalg.GenericOp)
            or buffer not in use.operation.outputs or buffer in use.operation.inputs]


def _only_clipped(clip: linalg.GenericOp) -> bool:
    """Whether the reals ``clip`` reads, and the codes they are the dequantization of, are
    read by nothing else: folding the clip into the layer writing the codes changes them for
    every reader."""
    reals = clip.inputs[0]
    if _readers(reals) != [clip]:
        return False
    writers = [use.operation for use in reals.uses if use.operation is not clip]
    dequantize = writers[0] if len(writers) == 1 else None
    if not isinstance(dequantize, linalg.GenericOp) or len(dequantize.inputs) != 1:
        return False
    return _readers(dequantize.inputs[0]) == [dequantize]


class Lifter(Protocol):
    """What these functions use of the lifter."""

    held: dict[SSAValue, Meaning]
    producer: dict[str, Layer]

    def meaning(self, op: Operation, value: SSAValue) -> Meaning: ...

    def const_int(self, op: Operation, value: SSAValue) -> int: ...


def transpose(lifter: Lifter, op: linalg.TransposeOp, src: Meaning) -> None:
    """A transpose of the data of a depthwise convolution into NHWC, or of its accumulator
    back to NCHW."""
    perm = tuple(op.permutation.get_values())
    if perm == TO_NHWC and isinstance(src, Codes | Padded):
        lifter.held[op.operands[1]] = Nhwc(src)
    elif perm == TO_NCHW and isinstance(src, Nhwc) and isinstance(src.source, Accumulator):
        lifter.held[op.operands[1]] = src.source
    else:
        raise Unsupported(op, "transposes something other than a constant, the NCHW codes of a "
                              "depthwise convolution into NHWC or its accumulator back")


def conv(lifter: Lifter, op: Operation) -> None:
    """A depthwise convolution (module doc): its output buffer holds the accumulator (NHWC
    for the NHWC forms)."""
    assert isinstance(op, DEPTHWISE_OPS)
    nhwc = not isinstance(op, DepthwiseConv2DNchwChwOp)
    zx, zw = 0, 0
    if isinstance(op, DepthwiseConv2DNhwcHwcQOp):
        zx, zw = lifter.const_int(op, op.operands[2]), lifter.const_int(op, op.operands[3])
    out = op.outputs[0]
    w = lifter.meaning(op, op.inputs[1])
    if isinstance(w, DequantizedWeight) and not nhwc:
        # Per-channel weights: torch-mlir keeps the layer in float (passes/integerize/channels.py).
        if tuple(op.dilations.get_values()) != (1, 1):
            raise Unsupported(op, "dilated convolutions are not supported")
        strides = tuple(op.strides.get_values())
        lifter.held[out] = per_channel.float_contraction(
            op, lifter.meaning(op, op.inputs[0]), w, lifter.meaning(op, out), 0,
            (strides[0], strides[1]), depthwise=True)
        return
    if not isinstance(w, Const) or w.array.dtype != np.int8 or w.array.ndim != 3 or zw != 0:
        raise Unsupported(op, "depthwise convolution weights are an int8 constant with zero "
                              "point 0")
    # The kernel as ONNX writes it, C × 1 × KH × KW.
    kernel = np.transpose(w.array, (2, 0, 1)) if nhwc else w.array
    weight = np.ascontiguousarray(kernel[:, None])
    if tuple(op.dilations.get_values()) != (1, 1):
        raise Unsupported(op, "dilated convolutions are not supported")
    strides = tuple(op.strides.get_values())
    src = lifter.meaning(op, op.inputs[0])
    if nhwc:
        if not isinstance(src, Nhwc):
            raise Unsupported(op, "the depthwise convolution reads NCHW codes transposed to "
                                  "NHWC")
        src = src.source
    pads = (0, 0, 0, 0)
    if isinstance(src, Padded):
        if src.value != zx:
            raise Unsupported(op, f"the convolution's data is padded with {src.value:g}, not "
                                  f"its zero point {zx}")
        pads, src = src.pads, src.source
    if not isinstance(src, Codes) or src.tensor.zero_point != zx:
        raise Unsupported(op, "the convolution reads int8 codes with their zero point")
    channels = weight.shape[0]
    bias = channel_bias(op, lifter.meaning(op, out), channels, 3 if nhwc else 1)
    acc = Accumulator(op, src.tensor, weight, bias, (strides[0], strides[1]), pads, True)
    lifter.held[out] = Nhwc(acc) if nhwc else acc


def _bounds(op: linalg.GenericOp, lifter: Lifter) -> tuple[float, float] | None:
    """``(lo, hi)`` of a generic clipping its input 0 between two constant scalars (module
    doc), or None."""
    block = op.body.block
    term = block.last_op
    if not isinstance(term, linalg.YieldOp) or len(term.operands) != 1:
        return None

    def constant(value: SSAValue) -> float | None:
        if value in block.args[1:len(op.inputs)]:
            held = lifter.held.get(op.inputs[block.args.index(value)])
            return float(held.array.reshape(())) if isinstance(held, Const) and \
                held.array.size == 1 else None
        found = bodies.scalar(value)
        return None if found is None else float(found.value)

    def side(value: SSAValue, kinds: tuple[str, ...],
             minmax: type[Operation]) -> tuple[SSAValue, float] | None:
        owner = value.owner
        if isinstance(owner, minmax):
            inner, bound = owner.operands
            found = constant(bound)
            return None if found is None else (inner, found)
        if not isinstance(owner, arith.SelectOp) or \
                not isinstance(cmp := owner.cond.owner, arith.CmpfOp):
            return None
        inner, bound = cmp.lhs, cmp.rhs
        if cmp.predicate.value.data not in kinds or owner.lhs is not bound \
                or owner.rhs is not inner:
            return None
        found = constant(bound)
        return None if found is None else (inner, found)

    # The predicates of arith.cmpf: 2 ogt, 4 olt, 9 ugt, 11 ult.
    upper = side(term.operands[0], (2, 9), arith.MinimumfOp)
    lower = side(upper[0], (4, 11), arith.MaximumfOp) if upper is not None else None
    if lower is None or upper is None or lower[0] is not block.args[0]:
        return None
    return lower[1], upper[1]


def clip(lifter: Lifter, op: linalg.GenericOp, ins: list[Meaning]) -> bool:
    """A clip of reals between constants (module doc): held as :class:`Clipped`."""
    bounds = _bounds(op, lifter) if ins and isinstance(ins[0], Real) else None
    if bounds is None:
        return False
    assert isinstance(ins[0], Real)
    lifter.held[op.outputs[0]] = Clipped(ins[0].tensor, *bounds, op)
    return True


def _code(value: float, tensor: QTensor) -> int:
    """The code of the real ``value``, as the quantization computes it (float32 division,
    half to even), saturated."""
    code = np.rint(np.float32(value) / np.float32(tensor.scale)) + tensor.zero_point
    return int(np.clip(code, -128, 127))


def fold_clip(lifter: Lifter, op: linalg.GenericOp, src: Clipped, scale: float,
              zero_point: int) -> None:
    """Clipped reals quantized at their own quantization: the clip of the codes
    ``[Q(lo), Q(hi)]`` folded into the layer writing them."""
    tensor = src.tensor
    layer = lifter.producer.get(tensor.name)
    if (scale, zero_point) != (tensor.scale, tensor.zero_point) or \
            not isinstance(layer, DenseLayer | ConvLayer | AddLayer) or \
            not _only_clipped(src.clip):
        raise Unsupported(op, "a clip is supported right after a convolution, matrix product "
                              "or add, quantized as its input, as the only reader of its "
                              "output")
    layer.lo = max(layer.lo, _code(src.lo, tensor))
    layer.hi = min(layer.hi, _code(src.hi, tensor))
    lifter.held[op.outputs[0]] = Codes(tensor)

