"""uint8 quantization as int8 (``docs/onnx.md`` §2, "uint8"): ``quantize_static`` with
``activation_type=QuantType.QUInt8`` (or uint8 weights) writes codes in [0, 255] with a uint8
zero point; VTA computes on int8.

Shifting by 128 is exact: ``q − 128`` with the zero point ``zp − 128`` represents the same
reals, ``scale · (q − zp)``, and ``QuantizeLinear`` to int8 with the shifted zero point gives
``q − 128`` for every float (its clip to [−128, 127] is the uint8 clip to [0, 255], shifted).
:func:`signed_model` rewrites a model so: every uint8 zero point of an activation becomes the
int8 ``zp − 128`` (a ``QuantizeLinear`` without a zero point, whose codes are uint8 with zero
point 0, gets −128), and every uint8 constant (a weight, a quantized constant operand) its
int8 codes — centred, ``q − zp`` with zero point 0, when that fits int8 (a weight quantized
with ``WeightSymmetric``, zero point 128), else ``q − 128`` with ``zp − 128``. The float input
and output stay float; the model's float semantics are unchanged, and the recogniser sees only
int8 tensors.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

from .check import OnnxImportError, node_label

__all__ = ["signed_model"]

#: The ``QuantizeLinear``/``DequantizeLinear`` input that is the zero point.
_ZERO_POINT = 2


def _is_uint8(inits: dict[str, TensorProto], name: str) -> bool:
    return name in inits and inits[name].data_type == TensorProto.UINT8


def _fresh(taken: set[str], name: str) -> str:
    candidate, index = f"{name}_s8", 1
    while candidate in taken:
        candidate, index = f"{name}_s8_{index}", index + 1
    taken.add(candidate)
    return candidate


def _constant_codes(q: np.ndarray, zp: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """The int8 codes and zero points of the uint8 constant ``q`` (zero points ``zp``, per
    tensor or along ``axis``) that represent the same reals."""
    q16 = q.astype(np.int16)
    z16 = zp.astype(np.int16)
    if z16.size > 1:
        shape = [1] * q.ndim
        shape[axis % q.ndim] = z16.size
        centred = q16 - z16.reshape(shape)
    else:
        centred = q16 - z16.reshape(())
    if centred.min(initial=0) >= -128 and centred.max(initial=0) <= 127:
        return centred.astype(np.int8), np.zeros(zp.shape, np.int8)
    return (q16 - 128).astype(np.int8), (z16 - 128).astype(np.int8)


def _refuse_asymmetric_weight(graph: onnx.GraphProto, dequantize: onnx.NodeProto,
                              zp: np.ndarray) -> None:
    """The error for uint8 weights of a Conv, Gemm or MatMul whose codes minus their zero
    point do not fit int8 (asymmetric weights, which the integer layers do not take)."""
    for index, node in enumerate(graph.node):
        if node.op_type in ("Conv", "Gemm", "MatMul") and len(node.input) > 1 and \
                node.input[1] == dequantize.output[0]:
            shown = int(zp.reshape(-1)[0])
            raise OnnxImportError(
                f"{node_label(node, index)}: uint8 weights '{dequantize.input[0]}' with zero "
                f"point {shown} are asymmetric (their codes minus the zero point leave int8); "
                "quantize the weights as int8 (weight_type=QuantType.QInt8) or symmetric "
                "(extra_options={'WeightSymmetric': True})")


def signed_model(model: onnx.ModelProto) -> onnx.ModelProto:
    """``model`` with its uint8 quantization made int8 as the module docstring says (the model
    itself when it has none). Its initializers must be loaded and checked."""
    graph = model.graph
    inits = {init.name: init for init in graph.initializer}
    quantize_without_zp = [n for n in graph.node if n.op_type == "QuantizeLinear"
                           and (len(n.input) <= _ZERO_POINT or not n.input[_ZERO_POINT])]
    uses_uint8 = any(init.data_type == TensorProto.UINT8 for init in graph.initializer)
    if not uses_uint8 and not quantize_without_zp:
        return model
    model = onnx.ModelProto.FromString(model.SerializeToString())
    graph = model.graph
    inits = {init.name: init for init in graph.initializer}
    taken = set(inits) | {name for node in graph.node for name in node.output}
    new_inits: list[TensorProto] = []
    replaced: set[str] = set()
    # Constants first: each gets initializers of its own, whoever else reads the originals.
    for index, node in enumerate(graph.node):
        if node.op_type != "DequantizeLinear" or not _is_uint8(inits, node.input[0]):
            continue
        q = numpy_helper.to_array(inits[node.input[0]])
        has_zp = len(node.input) > _ZERO_POINT and node.input[_ZERO_POINT]
        zp = numpy_helper.to_array(inits[node.input[_ZERO_POINT]]) if has_zp and \
            node.input[_ZERO_POINT] in inits else np.zeros((), np.uint8)
        if zp.dtype != np.uint8:
            continue  # a malformed pair: the recogniser names it
        axis = next((onnx.helper.get_attribute_value(a) for a in node.attribute
                     if a.name == "axis"), 1)
        if zp.size > 1 and (q.ndim == 0 or not -q.ndim <= int(axis) < q.ndim
                            or zp.size != q.shape[int(axis)]):
            raise OnnxImportError(
                f"{node_label(node, index)}: {zp.size} zero points for '{node.input[0]}' of "
                f"shape {list(q.shape)} along axis {axis}; per-axis zero points are one per "
                "element of that axis")
        codes, zero = _constant_codes(q, zp, int(axis))
        if np.any(zero != 0):
            _refuse_asymmetric_weight(graph, node, zp)
        data_name, zp_name = _fresh(taken, node.input[0]), _fresh(taken, f"{node.input[0]}_zp")
        new_inits += [numpy_helper.from_array(codes, data_name),
                      numpy_helper.from_array(zero, zp_name)]
        while len(node.input) <= _ZERO_POINT:
            node.input.append("")
        replaced.update(name for name in (node.input[0], node.input[_ZERO_POINT]) if name)
        node.input[0], node.input[_ZERO_POINT] = data_name, zp_name
    # Activations: their zero points, shared by a QuantizeLinear and its DequantizeLinears.
    for init in graph.initializer:
        if init.data_type == TensorProto.UINT8 and any(
                n.op_type in ("QuantizeLinear", "DequantizeLinear")
                and len(n.input) > _ZERO_POINT and n.input[_ZERO_POINT] == init.name
                for n in graph.node):
            shifted = (numpy_helper.to_array(init).astype(np.int16) - 128).astype(np.int8)
            init.CopyFrom(numpy_helper.from_array(shifted, init.name))
    if quantize_without_zp:
        zp_name = _fresh(taken, "uint8_zero_point")
        new_inits.append(numpy_helper.from_array(np.array(-128, np.int8), zp_name))
        codes = {n.output[0] for n in quantize_without_zp}
        for node in graph.node:
            if node.op_type in ("QuantizeLinear", "DequantizeLinear") and (
                    node in quantize_without_zp or node.input[0] in codes) and (
                    len(node.input) <= _ZERO_POINT or not node.input[_ZERO_POINT]):
                while len(node.input) <= _ZERO_POINT:
                    node.input.append("")
                node.input[_ZERO_POINT] = zp_name
    graph.initializer.extend(new_inits)
    # Declared types of the codes follow (onnx.checker compares them with its inference).
    for value in [*graph.value_info, *graph.output]:
        tensor_type = value.type.tensor_type
        if value.type.HasField("tensor_type") and tensor_type.elem_type == TensorProto.UINT8:
            tensor_type.elem_type = TensorProto.INT8
    # The uint8 constants nothing reads any more (a graph input keeps its initializer).
    used = {name for node in graph.node for name in node.input} | {v.name for v in graph.input}
    kept = [init for init in graph.initializer if init.name in used or init.name not in replaced]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    return model
