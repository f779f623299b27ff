"""The ONNX patterns of depthwise layers (``docs/onnx.md`` §2, §4.7, §4.8): a ``Conv`` with
``group`` = channels and one output channel per input channel, and the ``Clip`` of a ReLU6 (a
clip of the codes at an unchanged quantization, folded into the layer before it, as a
``Relu``).  The recognizer (``vta_mlir.frontend.onnx.qdq``) calls these checks; they raise
:class:`~.load.OnnxImportError` naming the node."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx

from vta_mlir.quant.program import QTensor

from .load import OnnxImportError

__all__ = ["clip_codes", "is_depthwise"]


def is_depthwise(where: str, group: int, channels: int, weight_shape: Sequence[int]) -> bool:
    """Whether a ``Conv`` of ``group`` groups on ``channels`` input channels with a weight of
    ``weight_shape`` (``O × C/group × KH × KW``) is depthwise (False: a dense one, ``group``
    1); any other grouping is an error."""
    if group == 1:
        return False
    out = weight_shape[0]
    if group != channels:
        raise OnnxImportError(f"{where}: a convolution of {group} groups on {channels} input "
                              "channels; grouped convolutions are supported with group 1 "
                              "(dense) or group = channels (depthwise)")
    if weight_shape[1] != 1 or out != channels:
        raise OnnxImportError(f"{where}: a depthwise convolution of {channels} input channels "
                              f"into {out} outputs (channel multiplier {out / channels:g}); "
                              "depthwise convolutions are supported with one output channel "
                              "per input channel")
    return True


def _quantize(value: float, tensor: QTensor) -> int:
    """The code of the real ``value`` in ``tensor``'s quantization, as ``QuantizeLinear``
    computes it: the division in float32, rounded half to even, saturated to int8."""
    with np.errstate(over="ignore"):  # a bound beyond float32 saturates, as in onnxruntime
        code = np.rint(np.float32(value) / np.float32(tensor.scale)) + tensor.zero_point
    return int(np.clip(code, -128, 127))


def clip_codes(where: str, node: onnx.NodeProto, inits: dict[str, np.ndarray],
               x: QTensor) -> tuple[int, int]:
    """The code bounds ``(lo, hi)`` of a ``Clip`` of ``x``'s reals quantized as ``x``:
    ``Q(clip(DQ(q), a, b)) = clip(q, Q(a), Q(b))``, since ``Q(DQ(q)) = q`` and ``Q`` is
    monotone.  Its bounds are constant inputs (opset ≥ 11) or attributes (before)."""
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    bounds: list[float] = [float(attrs.get("min", -np.inf)), float(attrs.get("max", np.inf))]
    for k, name in enumerate(node.input[1:3]):
        if not name:
            continue
        if name not in inits or inits[name].size != 1:
            raise OnnxImportError(f"{where}: Clip bound '{name}' is not a constant scalar")
        bounds[k] = float(inits[name].reshape(()))
    if any(np.isnan(b) for b in bounds):
        raise OnnxImportError(f"{where}: a Clip bound is NaN")
    lo = -128 if bounds[0] == -np.inf else _quantize(bounds[0], x)
    hi = 127 if bounds[1] == np.inf else _quantize(bounds[1], x)
    return lo, hi
