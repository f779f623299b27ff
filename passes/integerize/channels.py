"""Per-channel weight scales as MLIR frontends write them (torch-mlir keeps such a layer in its
QDQ form): the int8 weights dequantized by a generic on constants that reads one scale and
one zero point per output channel, a float convolution or matrix product of the dequantized
input and weights onto the float bias, then the float quantization. ``vta-integerize`` reads
the generic as a :class:`~.meaning.DequantizedWeight` and the float contraction as the
integer one scaled per channel (a :class:`~.meaning.ScaledAccumulator` whose scale is a
vector), which the quantization closes with per-channel fixed-point multipliers
(``docs/onnx.md`` §3, ``docs/pipeline.md``, "vta-integerize").
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineMap

from .meaning import (
    Accumulator,
    Const,
    DequantizedWeight,
    Filled,
    Meaning,
    Padded,
    Real,
    ScaledAccumulator,
    Unsupported,
)

__all__ = ["dequantized_weight", "float_contraction", "weight_layout", "weight_reshape"]


def _argument(value: SSAValue, op: linalg.GenericOp) -> int | None:
    """The input ``value`` is inside the body of ``op``, if it is a block argument of one."""
    if isinstance(value, BlockArgument) and value.block is op.body.block \
            and value.index < len(op.inputs):
        return value.index
    return None


def _through_extension(value: SSAValue) -> SSAValue:
    return value.owner.input if isinstance(value.owner, arith.ExtSIOp) else value


def dequantized_weight(op: linalg.GenericOp, ins: list[Meaning]) -> DequantizedWeight | None:
    """``scale[i] · (q − zero_point[i])`` of three constants, ``q`` read whole and the scales
    and zero points along one dimension ``i`` (``(d0, d1, ...) -> (dk)``), if ``op`` computes
    it: ``sitofp(extsi(q) − extsi(zero point)) · scale``."""
    term = op.body.block.last_op
    if len(ins) != 3 or not all(isinstance(m, Const) for m in ins) or \
            not isinstance(term, linalg.YieldOp) or len(term.operands) != 1:
        return None
    mul = term.operands[0].owner
    if not isinstance(mul, arith.MulfOp):
        return None
    converted = next((v for v in mul.operands if isinstance(v.owner, arith.SIToFPOp)), None)
    scale_arg = next((_argument(v, op) for v in mul.operands if v is not converted), None)
    if converted is None or scale_arg is None:
        return None
    sub = converted.owner.input.owner
    if not isinstance(sub, arith.SubiOp):
        return None
    q_arg = _argument(_through_extension(sub.lhs), op)
    zp_arg = _argument(_through_extension(sub.rhs), op)
    if q_arg is None or zp_arg is None or len({q_arg, zp_arg, scale_arg}) != 3:
        return None
    maps = [m.data for m in op.indexing_maps.data]
    q_map, scale_map, zp_map = maps[q_arg], maps[scale_arg], maps[zp_arg]
    rank = q_map.num_dims
    if q_map != AffineMap.identity(rank) or scale_map != zp_map or \
            len(scale_map.results) != 1:
        return None
    axis = next((d for d in range(rank) if str(scale_map.results[0]) == f"d{d}"), None)
    q, scale, zp = (m.array for m in (ins[q_arg], ins[scale_arg], ins[zp_arg])
                    if isinstance(m, Const))
    if axis is None or q.dtype != np.int8 or scale.ndim != 1 or \
            scale.shape != (q.shape[axis],) or zp.shape != scale.shape:
        return None
    return DequantizedWeight(q, scale.astype(np.float64), zp.astype(np.int64), axis)


def weight_layout(op: linalg.TransposeOp | linalg.BroadcastOp, weight: DequantizedWeight,
                  shape: tuple[int, ...]) -> DequantizedWeight:
    """The weight after a ``linalg.transpose`` of its reals (a broadcast is not a layout of
    weights)."""
    if not isinstance(op, linalg.TransposeOp):
        raise Unsupported(op, "broadcasts per-channel weights")
    permutation = tuple(op.permutation.get_values())
    q = np.ascontiguousarray(np.transpose(weight.q, permutation))
    assert q.shape == shape
    return DequantizedWeight(q, weight.scale, weight.zero_point, permutation.index(weight.axis))


def weight_reshape(op: Operation, weight: DequantizedWeight,
                   shape: tuple[int, ...]) -> DequantizedWeight:
    """The weight after a ``memref.collapse_shape`` / ``expand_shape`` of its reals (as
    torch-mlir collapses a depthwise kernel ``C × 1 × KH × KW`` to ``C × KH × KW``), where its
    scales stay along one dimension: a dimension of the new shape with the channels' size and
    as many elements before it."""
    old = weight.q.shape
    before = int(np.prod(old[:weight.axis]))
    axis = next((d for d in range(len(shape)) if shape[d] == old[weight.axis]
                 and int(np.prod(shape[:d])) == before), None)
    if axis is None:
        raise Unsupported(op, "reshapes per-channel weights across their channels")
    return DequantizedWeight(weight.q.reshape(shape), weight.scale, weight.zero_point, axis)


def float_contraction(op: Operation, src: Meaning, weight: DequantizedWeight, init: Meaning,
                      channel_axis: int, stride: tuple[int, int] | None,
                      depthwise: bool = False) -> ScaledAccumulator:
    """A float convolution (``stride``; ``depthwise``: one channel of the data per output
    channel, the weight ``C × KH × KW``) or matrix product (``stride`` None) of dequantized
    codes and per-channel weights whose output channels are ``channel_axis`` of the weight,
    onto ``init`` (0, or a bias broadcast along the output channels): the integer
    contraction of the codes, scaled per channel."""
    pads = (0, 0, 0, 0)
    if isinstance(src, Padded):
        if src.value != 0 or not isinstance(src.source, Real):
            raise Unsupported(op, "the dequantized data of a float convolution is padded with "
                                  "0 (the zero point of its codes)")
        pads, src = src.pads, src.source
    if not isinstance(src, Real):
        raise Unsupported(op, "a float contraction reads dequantized int8 codes")
    if weight.axis != channel_axis or np.any(weight.zero_point != 0):
        raise Unsupported(op, "per-channel weights are symmetric (zero point 0), with their "
                              "scales along the output channels")
    channels = weight.q.shape[channel_axis]
    bias: np.ndarray | None = None
    if isinstance(init, Const) and init.array.ndim >= 2:
        array = init.array.astype(np.float64)
        vector = array[tuple(slice(None) if d == 1 else 0 for d in range(array.ndim))]
        if vector.size != channels or not np.array_equal(
                array, np.broadcast_to(vector.reshape((1, -1) + (1,) * (array.ndim - 2)),
                                       array.shape)):
            raise Unsupported(op, "a float contraction starts from a bias broadcast along "
                                  "its output channels")
        bias = vector
    elif not (isinstance(init, Filled) and init.value == 0):
        raise Unsupported(op, "a float contraction starts from 0 or a bias broadcast along "
                              "its output channels")
    # A depthwise kernel as ONNX writes it, C × 1 × KH × KW.
    q = np.ascontiguousarray(weight.q[:, None]) if depthwise else weight.q
    acc = Accumulator(op, src.tensor, q, np.zeros(channels, np.int64), stride, pads, depthwise)
    return ScaledAccumulator(acc, src.tensor.scale * weight.scale, bias)
