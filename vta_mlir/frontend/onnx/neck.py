"""The QDQ patterns of detector necks and classifier heads (``docs/onnx.md`` §2, §4.10–§4.14):
``AveragePool``, ``Concat``, ``Resize``, ``Mul`` by a constant, ``HardSigmoid``, ``HardSwish``.

:class:`CnnOps` is a part of the recognizer of :mod:`.qdq`: its ``_op_<OpType>`` methods are
found by the op's type like the recognizer's own, and use its helpers (the int8 tensor a
``DequantizeLinear`` gives, the ``QuantizeLinear`` after a node, adding a layer).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import onnx

from vta_mlir.quant.activations import hard_layer, mul_const_layer
from vta_mlir.quant.layers_cnn import (
    ConcatLayer,
    ResizeLayer,
    average_pool_layer,
    rescale_layer,
)
from vta_mlir.quant.program import QTensor

from .check import OnnxImportError, window_output

if TYPE_CHECKING:
    from vta_mlir.quant.program import Layer

__all__ = ["CNN_OPS", "CnnOps"]

#: The operators of this module.
CNN_OPS = frozenset({"AveragePool", "Concat", "Resize", "Mul", "HardSigmoid", "HardSwish"})


def nearest_sources(out_size: int, in_size: int, scale: float, transform: str,
                    rounding: str) -> np.ndarray:
    """The input index ONNX's nearest ``Resize`` reads for each output index (the operator's
    coordinate transformation, then the nearest mode, clamped to the input)."""
    o = np.arange(out_size, dtype=np.float64)
    if transform in ("half_pixel", "half_pixel_symmetric"):
        x = (o + 0.5) / scale - 0.5
        if transform == "half_pixel_symmetric":
            x += in_size / 2 * (1 - out_size / (scale * in_size))
    elif transform == "pytorch_half_pixel":
        x = (o + 0.5) / scale - 0.5 if out_size > 1 else np.zeros_like(o)
    elif transform == "asymmetric":
        x = o / scale
    elif transform == "tf_half_pixel_for_nn":
        x = (o + 0.5) / scale
    elif transform == "align_corners":
        x = o * (in_size - 1) / (out_size - 1) if out_size > 1 else np.zeros_like(o)
    else:
        raise ValueError(transform)
    index = {"round_prefer_floor": np.ceil(x - 0.5), "round_prefer_ceil": np.floor(x + 0.5),
             "floor": np.floor(x), "ceil": np.ceil(x)}[rounding]
    return np.clip(index, 0, in_size - 1).astype(np.int64)


def node_attrs(node: onnx.NodeProto) -> dict[str, object]:
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


class CnnOps:
    """The ops of this module, mixed into the QDQ recognizer."""

    if TYPE_CHECKING:
        mode: str
        layer_name: str
        qt: dict[str, QTensor]
        inits: dict[str, np.ndarray]
        consts: dict[str, Any]
        act: dict[str, QTensor]

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
        if len(xs) == 1:
            # A Concat of one tensor is a copy, requantized as ONNX does.
            x = xs[0]
            self._add_layer(rescale_layer(self.layer_name, x.name, x.scale, x.zero_point,
                                          y.scale, y.zero_point, y.name), y)
            return
        parts: list[str] = []
        for k, x in enumerate(xs):
            if (x.scale, x.zero_point) == (y.scale, y.zero_point):
                parts.append(x.name)
                continue
            # ONNX requantizes each input to the output's quantization (docs/onnx.md §4.11).
            part = QTensor(f"{y.name}/part{k}", x.shape, y.scale, y.zero_point)
            self.qt[part.name] = part
            self._add_layer(rescale_layer(f"{self.layer_name}_rescale{k}", x.name, x.scale,
                                          x.zero_point, y.scale, y.zero_point, part.name), part)
            parts.append(part.name)
        self._add_layer(ConcatLayer(self.layer_name, parts, y.name), y)

    def _op_Resize(self, where: str, node: onnx.NodeProto) -> None:
        attrs = {k: v.decode() if isinstance(v, bytes) else v
                 for k, v in node_attrs(node).items()}
        x = self._source(where, node.input[0])
        transform = str(attrs.get("coordinate_transformation_mode", "half_pixel"))
        rounding = str(attrs.get("nearest_mode", "round_prefer_floor"))
        if attrs.get("mode", "nearest") != "nearest" or attrs.get("antialias", 0) \
                or "axes" in attrs or len(x.shape) != 4 \
                or attrs.get("keep_aspect_ratio_policy", "stretch") != "stretch":
            raise OnnxImportError(f"{where}: a Resize of mode nearest of an NCHW tensor (no "
                                  "antialias, axes or aspect ratio policy) is supported")
        n, c, h, w = x.shape
        given = [self.inits.get(name) for name in node.input[2:4]]
        scales = given[0] if given[0] is not None and given[0].size else None
        sizes = given[1] if len(given) > 1 and given[1] is not None else None
        if scales is not None:
            shape = tuple(int(np.floor(d * float(f))) for d, f in zip(x.shape, scales.reshape(-1),
                                                                     strict=False))
        elif sizes is not None:
            shape = tuple(int(v) for v in sizes.reshape(-1))
        else:
            raise OnnxImportError(f"{where}: the scales or sizes of a Resize are constants")
        if len(shape) != 4 or shape[:2] != (n, c) or shape[2] % h or shape[3] % w:
            raise OnnxImportError(f"{where}: resizes {x.shape} to {shape}: VTA upsamples H and "
                                  "W by integer factors")
        factors = (shape[2] // h, shape[3] // w)
        try:
            nearest = all(np.array_equal(nearest_sources(out, size, float(out) / size, transform,
                                                         rounding), np.arange(out) // (out // size))
                          for out, size in ((shape[2], h), (shape[3], w)))
        except (ValueError, KeyError):
            nearest = False
        if not nearest:
            raise OnnxImportError(f"{where}: coordinate_transformation_mode '{transform}' with "
                                  f"nearest_mode '{rounding}' does not read input element "
                                  f"(h // {factors[0]}, w // {factors[1]}) for output (h, w): "
                                  "VTA repeats each element (half_pixel with a rounding "
                                  "nearest mode, or asymmetric with floor)")
        y = self._output(where, node, shape)
        if (y.scale, y.zero_point) != (x.scale, x.zero_point):
            raise OnnxImportError(f"{where}: a Resize must keep its input's quantization")
        self._add_layer(ResizeLayer(self.layer_name, x.name, factors, y.name), y)

    def _op_Mul(self, where: str, node: onnx.NodeProto) -> None:
        a, b = node.input[0], node.input[1]
        if a in self.consts and b in self.act:
            a, b = b, a
        const = self.consts.get(b)
        if const is None or a not in self.act:
            raise OnnxImportError(f"{where}: a Mul of a tensor and a quantized constant is "
                                  "supported (not of two tensors)")
        x = self._source(where, a)
        values = np.asarray(const.q)
        channels = x.shape[1] if len(x.shape) == 4 else 0
        per_channel = values.size == channels and values.size > 1 and \
            values.shape in ((channels,), (channels, 1, 1), (1, channels, 1, 1))
        if len(x.shape) != 4 or np.asarray(const.scale).size != 1 or \
                np.asarray(const.zero_point).size != 1 or not (values.size == 1 or per_channel):
            raise OnnxImportError(f"{where}: a Mul of an NCHW tensor by a constant scalar or "
                                  "per-channel vector (one scale and zero point) is supported")
        factor = values.reshape(-1).astype(np.int64) - int(np.asarray(const.zero_point).reshape(()))
        y = self._output(where, node, x.shape)
        try:
            layer = mul_const_layer(self.layer_name, x.name, x.scale, x.zero_point, factor,
                                    float(np.asarray(const.scale).reshape(())), y.scale,
                                    y.zero_point, y.name)
        except ValueError as exc:
            raise OnnxImportError(f"{where}: {exc}") from None
        self._add_layer(layer, y)

    def _op_HardSigmoid(self, where: str, node: onnx.NodeProto) -> None:
        attrs = node_attrs(node)
        self._hard(where, node, False, float(attrs.get("alpha", 0.2)),  # type: ignore[arg-type]
                   float(attrs.get("beta", 0.5)))  # type: ignore[arg-type]

    def _op_HardSwish(self, where: str, node: onnx.NodeProto) -> None:
        self._hard(where, node, True, 1.0 / 6.0, 0.5)

    def _hard(self, where: str, node: onnx.NodeProto, swish: bool, alpha: float,
              beta: float) -> None:
        """``HardSigmoid`` or ``HardSwish``, which the quantizer leaves in float between a
        DequantizeLinear and a QuantizeLinear (docs/onnx.md §4.11)."""
        x = self._source(where, node.input[0])
        if len(x.shape) != 4:
            raise OnnxImportError(f"{where}: only NCHW tensors are supported")
        y = self._output(where, node, x.shape)
        try:
            layer = hard_layer(self.layer_name, x.name, swish, alpha, beta, x.scale,
                               x.zero_point, y.scale, y.zero_point, y.name)
        except ValueError as exc:
            raise OnnxImportError(f"{where}: {exc}") from None
        self._add_layer(layer, y)
