"""The QDQ patterns of detector necks and classifier heads (``docs/onnx.md`` §2, §4.7–):
``AveragePool``, ``Concat``.

:class:`CnnOps` is a part of the recognizer of :mod:`.qdq`: its ``_op_<OpType>`` methods are
found by the op's type like the recognizer's own, and use its helpers (the int8 tensor a
``DequantizeLinear`` gives, the ``QuantizeLinear`` after a node, adding a layer).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import onnx

from vta_mlir.quant.layers_cnn import ConcatLayer, average_pool_layer, rescale_layer
from vta_mlir.quant.program import QTensor

from .check import OnnxImportError, window_output

if TYPE_CHECKING:
    from vta_mlir.quant.program import Layer

__all__ = ["CNN_OPS", "CnnOps"]

#: The operators of this module.
CNN_OPS = frozenset({"AveragePool", "Concat"})


def node_attrs(node: onnx.NodeProto) -> dict[str, object]:
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


class CnnOps:
    """The ops of this module, mixed into the QDQ recognizer."""

    if TYPE_CHECKING:
        mode: str
        layer_name: str
        qt: dict[str, QTensor]

        def _source(self, where: str, name: str, flattened: bool = False) -> QTensor: ...

        def _output(self, where: str, node: onnx.NodeProto,
                    shape: tuple[int, ...]) -> QTensor: ...

        def _add_layer(self, layer: Layer, dst: QTensor) -> None: ...

    def _op_AveragePool(self, where: str, node: onnx.NodeProto) -> None:
        attrs = node_attrs(node)
        x = self._source(where, node.input[0])
        if attrs.get("ceil_mode", 0) or any(d != 1 for d in attrs.get("dilations", [1, 1])) \
                or attrs.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
            raise OnnxImportError(f"{where}: ceil_mode, dilations and auto_pad are not "
                                  "supported")
        if len(x.shape) != 4:
            raise OnnxImportError(f"{where}: only 2-D pools (NCHW) are supported")
        kh, kw = attrs["kernel_shape"]  # type: ignore[misc]
        sh, sw = attrs.get("strides", [1, 1])  # type: ignore[misc]
        pads = tuple(attrs.get("pads", [0, 0, 0, 0]))  # type: ignore[arg-type]
        n, c, h, w = x.shape
        y = self._output(where, node, (n, c, *window_output(where, (h, w), (kh, kw), (sh, sw),
                                                            pads)))
        try:
            layer = average_pool_layer(
                self.layer_name, x.name, (h, w), x.scale, x.zero_point, y.scale, y.zero_point,
                y.name, (kh, kw), (sh, sw), pads,  # type: ignore[arg-type]
                bool(attrs.get("count_include_pad", 0)), self.mode)
        except ValueError as exc:
            raise OnnxImportError(f"{where}: {exc}") from None
        self._add_layer(layer, y)

    def _op_Concat(self, where: str, node: onnx.NodeProto) -> None:
        attrs = node_attrs(node)
        xs = [self._source(where, name) for name in node.input]
        axis = attrs.get("axis")
        if any(len(x.shape) != 4 for x in xs) or axis not in (1, -3):
            raise OnnxImportError(f"{where}: a Concat along the channels (axis 1) of NCHW "
                                  "tensors is supported")
        n, _, h, w = xs[0].shape
        if any((x.shape[0], *x.shape[2:]) != (n, h, w) for x in xs):
            raise OnnxImportError(f"{where}: concatenates {', '.join(str(x.shape) for x in xs)}"
                                  ", which differ in N, H or W")
        y = self._output(where, node, (n, sum(x.shape[1] for x in xs), h, w))
        parts: list[str] = []
        for k, x in enumerate(xs):
            if (x.scale, x.zero_point) == (y.scale, y.zero_point):
                parts.append(x.name)
                continue
            # ONNX requantizes each input to the output's quantization (docs/onnx.md §4.8).
            part = QTensor(f"{y.name}/part{k}", x.shape, y.scale, y.zero_point)
            self.qt[part.name] = part
            self._add_layer(rescale_layer(f"{self.layer_name}_rescale{k}", x.name, x.scale,
                                          x.zero_point, y.scale, y.zero_point, part.name), part)
            parts.append(part.name)
        self._add_layer(ConcatLayer(self.layer_name, parts, y.name), y)
