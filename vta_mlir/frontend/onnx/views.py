"""The QDQ patterns that pool, reshape or only rename a tensor, and the float functions the
host computes (``docs/onnx.md`` §2, §4.2–§4.4, §4.6, §4.9): ``MaxPool``,
``GlobalAveragePool``, ``ReduceMean`` over H and W, ``Reshape``, ``Flatten``, ``Identity``,
``Softmax`` and ``Sigmoid``.

:class:`ViewOps` is a part of the recognizer of :mod:`.qdq`, as :class:`.neck.CnnOps` is: its
``_op_<OpType>`` methods are found by the op's type like the recognizer's own, and use its
helpers (the int8 tensor a ``DequantizeLinear`` gives, the ``QuantizeLinear`` after a node,
adding a layer, choosing a requantization).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import onnx

from vta_mlir.quant.host_layers import HostLayer
from vta_mlir.quant.program import MaxPoolLayer, QTensor, global_avgpool_layer

from .check import OnnxImportError, window_output
from .neck import node_attrs

if TYPE_CHECKING:
    from vta_mlir.quant.program import Layer
    from vta_mlir.quant.requant import Requant

__all__ = ["ViewOps"]


class ViewOps:
    """The ops of this module, mixed into the QDQ recognizer."""

    if TYPE_CHECKING:
        layer_name: str
        qt: dict[str, QTensor]
        inits: dict[str, np.ndarray]
        consts: dict[str, Any]
        act: dict[str, QTensor]
        quant_of: dict[str, tuple[int, onnx.NodeProto]]
        aliases: dict[str, str]
        flattened: set[str]
        means: dict[str, QTensor]

        def _scalar(self, where: str, name: str) -> np.ndarray: ...

        def _source(self, where: str, name: str, flattened: bool = False) -> QTensor: ...

        def _output(self, where: str, node: onnx.NodeProto,
                    shape: tuple[int, ...]) -> QTensor: ...

        def _add_layer(self, layer: Layer, dst: QTensor) -> None: ...

        def _requant(self, where: str, multiplier: float) -> Requant: ...

    def _op_MaxPool(self, where: str, node: onnx.NodeProto) -> None:
        attrs = node_attrs(node)
        x = self._source(where, node.input[0])
        if len(node.output) > 1 or attrs.get("ceil_mode", 0) or \
                any(d != 1 for d in attrs.get("dilations", [1, 1])) or \
                attrs.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
            raise OnnxImportError(f"{where}: ceil_mode, dilations, auto_pad and Indices are "
                                  "not supported")
        kh, kw = attrs["kernel_shape"]
        sh, sw = attrs.get("strides", [1, 1])
        pt, pl, pb, pr = attrs.get("pads", [0, 0, 0, 0])
        if len(x.shape) != 4:
            raise OnnxImportError(f"{where}: only 2-D pools (NCHW) are supported")
        n, c, h, wd = x.shape
        shape = (n, c, *window_output(where, (h, wd), (kh, kw), (sh, sw), (pt, pl, pb, pr)))
        y = self._output(where, node, shape)
        if y.scale != x.scale or y.zero_point != x.zero_point:
            raise OnnxImportError(f"{where}: a MaxPool must keep its input's quantization")
        self._add_layer(MaxPoolLayer(self.layer_name, x.name, (kh, kw), (sh, sw),
                                     (pt, pl, pb, pr), y.name), y)

    def _op_Softmax(self, where: str, node: onnx.NodeProto) -> None:
        x = self._source(where, node.input[0])
        axis = int(node_attrs(node).get("axis", -1))
        if not -len(x.shape) <= axis < len(x.shape):
            raise OnnxImportError(f"{where}: axis {axis} is outside the input's "
                                  f"{len(x.shape)} dimensions")
        self._host(where, node, "softmax", axis % len(x.shape))

    def _op_Sigmoid(self, where: str, node: onnx.NodeProto) -> None:
        self._host(where, node, "sigmoid", 0)

    def _host(self, where: str, node: onnx.NodeProto, kind: str, axis: int) -> None:
        """A float operation between its DequantizeLinear and QuantizeLinear: a layer the host
        computes in float32 (``vta_mlir/quant/host_layers.py``)."""
        x = self._source(where, node.input[0])
        y = self._output(where, node, x.shape)
        self._add_layer(HostLayer(self.layer_name, x.name, kind, axis, y.name), y)  # type: ignore[arg-type]

    def _op_GlobalAveragePool(self, where: str, node: onnx.NodeProto) -> None:
        x = self._source(where, node.input[0])
        if len(x.shape) != 4:
            raise OnnxImportError(f"{where}: only 2-D pools (NCHW) are supported")
        n, c, _, _ = x.shape
        self._global_mean(where, x, self._output(where, node, (n, c, 1, 1)))

    def _global_mean(self, where: str, x: QTensor, y: QTensor) -> None:
        """The global average pool of ``x`` quantized as ``y`` (N×C×1×1, or N×C read through
        a view of an N×C×1×1 tensor, as a Flatten after the pool)."""
        n, c, h, wd = x.shape
        dst = y
        if y.shape != (n, c, 1, 1):
            dst = QTensor(f"{y.name}/nchw", (n, c, 1, 1), y.scale, y.zero_point)
            self.qt[dst.name] = dst
            self.aliases[y.name] = dst.name
        rq = self._requant(where, x.scale / (y.scale * h * wd))
        self._add_layer(global_avgpool_layer(self.layer_name, x, dst, rq), dst)

    def _op_ReduceMean(self, where: str, node: onnx.NodeProto) -> None:
        # torch.onnx's dynamo exporter writes nn.AdaptiveAvgPool2d(1) as a ReduceMean over the
        # spatial axes (given as an input from opset 18), which quantize_static leaves in float
        # when a Reshape follows: the mean is then quantized after the Reshape.
        x = self._source(where, node.input[0])
        attrs = node_attrs(node)
        axes = attrs.get("axes")
        if axes is None and len(node.input) > 1 and node.input[1]:
            axes = self._scalar(where, node.input[1]).reshape(-1).tolist()
        if len(x.shape) != 4 or axes is None or \
                sorted(int(a) % 4 for a in axes) != [2, 3] or attrs.get("keepdims", 1) != 1:
            raise OnnxImportError(f"{where}: a ReduceMean is supported over the spatial axes "
                                  "of NCHW data, with keepdims=1 (a global average pool)")
        n, c, _, _ = x.shape
        if node.output[0] in self.quant_of:
            self._global_mean(where, x, self._output(where, node, (n, c, 1, 1)))
        else:
            self.means[node.output[0]] = x

    def _op_Reshape(self, where: str, node: onnx.NodeProto) -> None:
        shape = tuple(int(d) for d in self._scalar(where, node.input[1]).reshape(-1))
        mean = self.means.get(node.input[0])
        x = mean if mean is not None else self._source(where, node.input[0])
        n, c = x.shape[0], int(np.prod(x.shape[1:]))
        if mean is not None:
            n, c = x.shape[0], x.shape[1]
        spatial = mean is None and len(x.shape) == 4 and shape in ((n, c), (n, -1))
        if not spatial and (shape not in ((n, c), (n, c, 1, 1)) or (mean is None and any(
                d != 1 for d in x.shape[2:]))):
            raise OnnxImportError(f"{where}: a Reshape between N×C×1×1 and N×C, or of N×C×H×W "
                                  f"into N×(C·H·W), is supported (not {tuple(x.shape)} to "
                                  f"{shape})")
        y = self._output(where, node, (n, c) if spatial else shape)
        if mean is not None:
            self._global_mean(where, x, y)
            return
        self._view(where, "Reshape", x, y)

    def _op_Flatten(self, where: str, node: onnx.NodeProto) -> None:
        x = self._source(where, node.input[0])
        if node_attrs(node).get("axis", 1) != 1 or len(x.shape) not in (2, 4):
            raise OnnxImportError(f"{where}: Flatten(axis=1) of an N×C×H×W tensor is supported")
        y = self._output(where, node, (x.shape[0], int(np.prod(x.shape[1:]))))
        self._view(where, "Flatten", x, y)

    def _view(self, where: str, op: str, x: QTensor, y: QTensor) -> None:
        """``y``, the N×(C·H·W) Flatten or Reshape of ``x``, as a view of its buffer; with
        H·W > 1 only a dense layer reads it (docs/onnx.md §4.4)."""
        if y.scale != x.scale or y.zero_point != x.zero_point:
            raise OnnxImportError(f"{where}: a {op} must keep its input's quantization")
        self.aliases[y.name] = self.aliases.get(x.name, x.name)
        if len(x.shape) == 4 and x.shape[2] * x.shape[3] > 1:
            self.flattened.add(y.name)

    def _op_Identity(self, where: str, node: onnx.NodeProto) -> None:
        # torch.onnx writes an Identity for each further use of a deduplicated constant (the
        # zero biases of batch norms folded at initialisation, say): another name, same value.
        src, dst = node.input[0], node.output[0]
        if src in self.consts:
            self.consts[dst] = self.consts[src]
        elif src in self.inits:
            self.inits[dst] = self.inits[src]
        elif src in self.act:
            self.act[dst] = self.act[src]
        else:
            raise OnnxImportError(f"{where}: copies '{src}', which is neither a constant nor a "
                                  "dequantized int8 tensor")
