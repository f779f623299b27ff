"""QDQ models written directly with ``onnx.helper`` (no quantizer): the smallest inputs of the
importer's checks, each a valid model but for the one defect a test puts in."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class QDQ:
    """A chain of QDQ operators from the float input ``x``: every activation is quantized with
    ``scale`` and ``zero_point``, every weight symmetric int8 at ``weight_scale``."""

    def __init__(self, x_shape: tuple[int, ...], scale: float = 0.05, zero_point: int = 0,
                 weight_scale: float = 0.01) -> None:
        self.x_shape = x_shape
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = [
            numpy_helper.from_array(np.array(scale, np.float32), "s"),
            numpy_helper.from_array(np.array(zero_point, np.int8), "z"),
            numpy_helper.from_array(np.array(weight_scale, np.float32), "ws"),
            numpy_helper.from_array(np.array(scale * weight_scale, np.float32), "bs"),
            numpy_helper.from_array(np.array(0, np.int32), "bz")]
        self.nodes += [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["x_q"], name="x_q"),
                       helper.make_node("DequantizeLinear", ["x_q", "s", "z"], ["x_dq"],
                                        name="x_dq")]
        self.last = "x_dq"

    def weight(self, name: str, shape: tuple[int, ...]) -> str:
        """A constant int8 weight of ``shape`` (dequantized by the node ``{name}_dq``)."""
        values = np.random.default_rng(0).integers(-100, 100, shape).astype(np.int8)
        self.inits.append(numpy_helper.from_array(values, f"{name}_q"))
        self.nodes.append(helper.make_node("DequantizeLinear", [f"{name}_q", "ws"],
                                           [f"{name}_dq"], name=f"{name}_dq"))
        return f"{name}_dq"

    def bias(self, name: str, length: int) -> str:
        self.inits.append(numpy_helper.from_array(np.arange(length, dtype=np.int32), f"{name}_q"))
        self.nodes.append(helper.make_node("DequantizeLinear", [f"{name}_q", "bs", "bz"],
                                           [f"{name}_dq"], name=f"{name}_dq"))
        return f"{name}_dq"

    def op(self, op_type: str, inputs: list[str], name: str, **attrs: object) -> str:
        """``op_type`` on ``inputs`` (``None`` for the last activation), quantized."""
        self.nodes += [
            helper.make_node(op_type, inputs, [name], name=name, **attrs),
            helper.make_node("QuantizeLinear", [name, "s", "z"], [f"{name}_oq"],
                             name=f"{name}_oq"),
            helper.make_node("DequantizeLinear", [f"{name}_oq", "s", "z"], [f"{name}_odq"],
                             name=f"{name}_odq")]
        self.last = f"{name}_odq"
        return self.last

    def conv(self, name: str, out_channels: int, kernel: int = 3, **attrs: object) -> str:
        w = self.weight(f"{name}_w", (out_channels, self.x_shape[1], kernel, kernel))
        return self.op("Conv", [self.last, w], name, **attrs)

    def model(self, y_shape: tuple[int, ...], opset: int = 17) -> onnx.ModelProto:
        """The graph, the last activation as its output ``y``."""
        nodes = list(self.nodes)
        nodes[-1] = helper.make_node("DequantizeLinear", list(nodes[-1].input), ["y"],
                                     name=nodes[-1].name)
        graph = helper.make_graph(nodes, "qdq", [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, self.x_shape)], [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)], self.inits)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])

    def save(self, path: Path, y_shape: tuple[int, ...]) -> Path:
        onnx.save(self.model(y_shape), path)
        return path


def conv_model(x_shape: tuple[int, ...] = (1, 3, 8, 8), out_channels: int = 4,
               **attrs: object) -> QDQ:
    """One 3×3 convolution named ``conv`` (weight initializer ``conv_w_q``)."""
    qdq = QDQ(x_shape)
    qdq.conv("conv", out_channels, **attrs)
    return qdq


def initializer(model: onnx.ModelProto, name: str) -> onnx.TensorProto:
    return next(i for i in model.graph.initializer if i.name == name)
