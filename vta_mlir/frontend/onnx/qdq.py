"""Recognising the QDQ patterns of ``onnxruntime.quantization.quantize_static`` and turning each
operator between its ``DequantizeLinear`` inputs and its ``QuantizeLinear`` output into an
integer layer (``docs/onnx.md`` §2–§4).

The result is a :class:`Program`: the int8 input and output tensors with their scales and zero
points (the host steps of ``vta.quant``), the int8 tensors in between, and the layers in graph
order, each with its constants already folded (zero points into biases, scales into
:class:`~vta_mlir.quant.requant.Requant` multipliers).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import onnx
from onnx import numpy_helper

from vta_mlir.quant.depthwise import depthwise_conv_layer
from vta_mlir.quant.host_requant import host_requantized
from vta_mlir.quant.product_first import written_codes
from vta_mlir.quant.product_first_choice import fitted_requant
from vta_mlir.quant.program import (
    AddLayer,
    AvgPoolLayer,
    ConvLayer,
    DenseLayer,
    FloatTensor,
    Layer,
    MaxPoolLayer,
    Program,
    QTensor,
    add_layer,
    add_multipliers,
    conv_layer,
    dense_layer,
    int32,
)
from vta_mlir.quant.requant import Requant, choose_requant, choose_requant_channels

from .attention import ActivationProducts, refuse_extra_inputs
from .check import check_scale, check_tensor_size, reader_label, window_output
from .depthwise import clip_codes, is_depthwise
from .dynamic import refuse_dynamic
from .floats import FloatOps
from .load import QUANTIZE_HINT, OnnxImportError, node_label, static_shape
from .matmul_nd import MatMulChains
from .neck import CnnOps
from .views import ViewOps

__all__ = ["AddLayer", "AvgPoolLayer", "ConvLayer", "DenseLayer", "Layer", "MaxPoolLayer",
           "Program", "QTensor", "recognize"]


@dataclass(frozen=True)
class _Const:
    """A quantized constant: ``real = scale · (q − zero_point)``, ``scale`` per tensor or per
    channel along ``axis``."""

    q: np.ndarray
    scale: np.ndarray
    zero_point: np.ndarray
    axis: int




def _attrs(node: onnx.NodeProto) -> dict[str, object]:
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


class _Recognizer(CnnOps, ViewOps, FloatOps, MatMulChains, ActivationProducts):
    def __init__(self, model: onnx.ModelProto, requant_mode: str) -> None:
        self.graph = model.graph
        self.mode = requant_mode
        self.inits = {i.name: _array(self.graph, i) for i in self.graph.initializer}
        self.consts: dict[str, _Const] = {}     # float name -> dequantized constant
        self.act: dict[str, QTensor] = {}       # float name (a DQ output) -> int8 tensor
        self.qt: dict[str, QTensor] = {}        # int8 name -> tensor
        self.quant_of: dict[str, tuple[int, onnx.NodeProto]] = {}  # float name -> its Q node
        self.producer: dict[str, Layer] = {}    # int8 name -> layer writing it
        self.readers: dict[str, int] = {}       # int8 name -> number of DQ readers
        self.layers: list[Layer] = []
        self.aliases: dict[str, str] = {}       # int8 name of a Flatten -> its source
        self.flattened: set[str] = set()        # Flattens of N×C×H×W with H·W > 1
        self.means: dict[str, QTensor] = {}     # float name of a spatial mean -> its source
        self.layer_name = ""                    # the name of the node being translated
        self.consumers: dict[str, list[onnx.NodeProto]] = {}  # float name -> nodes reading it
        self.consumed: set[int] = set()         # ids of nodes a layer already covers
        # The scale of each product's accumulator per column, by output (host_requant.py).
        self.accumulator_scales: dict[str, np.ndarray] = {}
        self._init_floats()

    # -- helpers ---------------------------------------------------------------------------
    def _scalar(self, where: str, name: str) -> np.ndarray:
        if name not in self.inits:
            raise OnnxImportError(f"{where}: scale or zero point '{name}' is not a constant")
        return self.inits[name]

    def _qparams(self, where: str, node: onnx.NodeProto) -> tuple[float, int]:
        scale = self._scalar(where, node.input[1])
        zp = (self._scalar(where, node.input[2]) if len(node.input) > 2 and node.input[2]
              else np.zeros((), np.int8))
        if scale.size != 1 or zp.size != 1:
            raise OnnxImportError(f"{where}: per-channel activation quantization is not "
                                  "supported")
        check_scale(where, node.input[1], scale)
        if zp.dtype != np.int8:
            raise OnnxImportError(f"{where}: zero point of type {zp.dtype}; the importer "
                                  "supports int8 activations (QuantType.QInt8)")
        return float(scale.reshape(())), int(zp.reshape(()))

    def _weight(self, where: str, name: str) -> _Const:
        const = self.consts.get(name)
        if const is None and name in self.act:
            raise OnnxImportError(f"{where}: operand '{name}' is an activation; a product of "
                                  "two activations is supported as a MatMul of two "
                                  "dequantized int8 tensors (docs/onnx.md §4.18)")
        if const is None:
            raise OnnxImportError(f"{where}: operand '{name}' is not a quantized constant "
                                  f"(a float weight: {QUANTIZE_HINT})")
        return const

    def _source(self, where: str, name: str, flattened: bool = False) -> QTensor:
        tensor = self.act.get(name)
        if tensor is None:
            raise OnnxImportError(f"{where}: input '{name}' is not a dequantized int8 tensor "
                                  f"(a float operation: {QUANTIZE_HINT})")
        self.before_reading(tensor)
        if tensor.name in self.flattened and not flattened:
            raise OnnxImportError(f"{where}: reads '{name}', the Flatten of an N×C×H×W tensor "
                                  "with H·W > 1, which only a Gemm or MatMul reads (its "
                                  "weights are permuted to the packed layout, docs/onnx.md "
                                  "§4.4)")
        return tensor

    def _output(self, where: str, node: onnx.NodeProto, shape: tuple[int, ...]) -> QTensor:
        """The int8 tensor the ``QuantizeLinear`` after ``node`` writes."""
        quant = self.quant_of.get(node.output[0])
        if quant is None:
            raise OnnxImportError(f"{where}: its output '{node.output[0]}' is not quantized "
                                  f"by a QuantizeLinear ({QUANTIZE_HINT})")
        scale, zp = self._qparams(node_label(quant[1], quant[0]), quant[1])
        check_tensor_size(f"{where}: ", f"output '{node.output[0]}'", shape)
        tensor = QTensor(quant[1].output[0], shape, scale, zp)
        self.qt[tensor.name] = tensor
        return tensor

    def _codes(self, x: QTensor) -> tuple[int, int]:
        """The codes ``x`` can hold (the output clip of the layer writing it)."""
        return written_codes(self.producer.get(self.aliases.get(x.name, x.name)))

    def _add_layer(self, layer: Layer, dst: QTensor) -> None:
        self.layers.append(layer)
        self.producer[dst.name] = layer

    # -- the walk --------------------------------------------------------------------------
    def run(self) -> Program:
        refuse_dynamic(self.graph)  # written as a whole by dynamic.py
        nodes = list(enumerate(self.graph.node))
        graph_inputs = [v for v in self.graph.input if v.name not in self.inits]
        refuse_extra_inputs(self.graph, graph_inputs)
        if len(graph_inputs) != 1 or len(self.graph.output) != 1:
            raise OnnxImportError(f"the graph has {len(graph_inputs)} inputs and "
                                  f"{len(self.graph.output)} outputs; the importer supports one "
                                  "of each")
        in_value, out_value = graph_inputs[0], self.graph.output[0]
        for _, node in nodes:
            for name in node.input:
                self.consumers.setdefault(name, []).append(node)
        float_input = self._float_input(in_value.name, static_shape(in_value) or ())
        for index, node in nodes:
            if node.op_type == "QuantizeLinear":
                self.quant_of[node.input[0]] = (index, node)
            elif node.op_type == "DequantizeLinear":
                # Counted over the whole graph first: a ReLU folds into the layer before it
                # only when no other node, earlier or later in the list, reads that layer.
                self.readers[node.input[0]] = self.readers.get(node.input[0], 0) + 1
        input_q: QTensor | None = None
        for index, node in nodes:
            where = node_label(node, index)
            self.layer_name = node.name or f"{node.op_type.lower()}{index}"
            if id(node) in self.consumed:
                continue
            if node.op_type == "QuantizeLinear":
                if node.input[0] in self.floats:
                    self._float_quantize(where, node, self._read_as_rows(node.output[0]))
                elif node.input[0] == in_value.name:
                    scale, zp = self._qparams(where, node)
                    if input_q is not None:
                        # Quantized again (another branch): the same codes, or two inputs.
                        if (scale, zp) != (input_q.scale, input_q.zero_point):
                            raise OnnxImportError(
                                f"{where}: quantizes the input '{in_value.name}' a second "
                                "time, with other parameters (the importer takes one int8 "
                                "input)")
                        self.qt[node.output[0]] = input_q
                        continue
                    input_q = QTensor(node.output[0], static_shape(in_value) or (), scale, zp)
                    self.qt[input_q.name] = input_q
                continue
            if node.op_type == "DequantizeLinear":
                self._dequantize(where, node)
                continue
            if self._is_float(node):
                self._float_node(where, node)
                continue
            getattr(self, f"_op_{node.op_type}")(where, node)
        if float_input is not None:
            input_q = float_input
        if out_value.name in self.floats:
            self.float_owner[out_value.name].writes.append(out_value.name)
            self.close_float_layer()
            return self._program(input_q, FloatTensor(out_value.name,
                                                      self.floats[out_value.name]))
        self.close_float_layer()
        if input_q is None:
            raise OnnxImportError(f"the float input '{in_value.name}' has no QuantizeLinear "
                                  f"({QUANTIZE_HINT})")
        output_q = self.act.get(out_value.name)
        if output_q is None:
            writer = next((node_label(n, i) for i, n in nodes if out_value.name in n.output),
                          f"output '{out_value.name}'")
            raise OnnxImportError(f"{writer}: the graph's output is neither a DequantizeLinear "
                                  "of an int8 tensor nor the result of a float operation")
        # The output keeps its own shape (N×C after a Flatten); the emission writes the
        # tensor it is a view of through that view.
        output_q = self.qt[output_q.name]
        if output_q.name in self.views:
            # Stored in another shape (the rows of a matrix product): dequantized by the host.
            self._float_output(f"output '{out_value.name}'", output_q, out_value.name)
            return self._program(input_q, FloatTensor(out_value.name,
                                                      self.logical_shape(output_q)))
        if output_q.name in self.flattened:
            raise OnnxImportError(f"output '{out_value.name}' is the Flatten of an N×C×H×W "
                                  "tensor with H·W > 1, which only a Gemm or MatMul reads")
        if self.aliases.get(output_q.name, output_q.name) not in self.producer:
            raise OnnxImportError(f"output '{out_value.name}' is computed by no layer")
        return self._program(input_q, output_q)

    def _program(self, input_q: QTensor | FloatTensor,
                 output: QTensor | FloatTensor) -> Program:
        """The program, its products read only by float layers requantized by the host."""
        program = Program(self.graph.name or "model", input_q, output, self.qt, self.layers,
                          self.aliases, self.views)
        host_requantized(program, self.accumulator_scales)
        return program

    def _dequantize(self, where: str, node: onnx.NodeProto) -> None:
        src = node.input[0]
        if src in self.inits:
            scale = self._scalar(where, node.input[1])
            zp = (self._scalar(where, node.input[2]) if len(node.input) > 2 and node.input[2]
                  else np.zeros_like(scale, dtype=np.int8))
            axis = int(_attrs(node).get("axis", 1))
            check_scale(where, node.input[1], scale)
            self.consts[node.output[0]] = _Const(self.inits[src], scale.astype(np.float64),
                                                 zp.astype(np.int64), axis)
            return
        tensor = self.qt.get(src)
        if tensor is None:
            raise OnnxImportError(f"{where}: dequantizes '{src}', which no QuantizeLinear of "
                                  "the importer's patterns writes")
        scale, zp = self._qparams(where, node)
        if scale != tensor.scale or zp != tensor.zero_point:
            raise OnnxImportError(f"{where}: dequantizes '{src}' with other parameters than "
                                  "it was quantized with")
        self.act[node.output[0]] = tensor

    # -- ops -------------------------------------------------------------------------------
    def _check_weight(self, where: str, w: _Const, channel_axis: int) -> np.ndarray:
        """The weight scale of each output channel (``channel_axis`` of the weight)."""
        if w.q.dtype != np.int8:
            raise OnnxImportError(f"{where}: weights of type {w.q.dtype}; int8 weights "
                                  "(QuantType.QInt8) are supported")
        if np.any(w.zero_point != 0):
            raise OnnxImportError(f"{where}: asymmetric weights (zero point ≠ 0) are not "
                                  "supported")
        channels = w.q.shape[channel_axis]
        if w.scale.size == 1:
            return np.full(channels, float(w.scale.reshape(-1)[0]))
        if w.scale.size != channels or w.axis % w.q.ndim != channel_axis:
            raise OnnxImportError(f"{where}: weight scales along axis {w.axis}; per-channel "
                                  f"scales are supported along the output channels (axis "
                                  f"{channel_axis})")
        return w.scale.reshape(channels)

    def _bias(self, where: str, name: str | None, x: QTensor, w_scale: np.ndarray) -> np.ndarray:
        """The int32 bias at the accumulator's scale ``x_scale · w_scale`` (zeros if none)."""
        channels = w_scale.size
        if not name:
            return np.zeros(channels, np.int64)
        b = self._weight(where, name)
        if b.q.dtype != np.int32 or np.any(b.zero_point != 0):
            raise OnnxImportError(f"{where}: bias '{name}' is not int32 with zero point 0")
        if b.q.size != channels or b.scale.size not in (1, channels):
            raise OnnxImportError(f"{where}: bias '{name}' is not {channels} values")
        expected = x.scale * w_scale
        scale = np.broadcast_to(b.scale.reshape(-1), (channels,))
        q = b.q.reshape(channels).astype(np.int64)
        if np.allclose(scale, expected, rtol=1e-6, atol=0):
            return q
        # A bias shared by several layers (torch.onnx deduplicates equal constants) is quantized
        # at the first one's scale: its real value, rounded to the accumulator's scale (exact
        # for zero biases; otherwise within half an accumulator unit).
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            rescaled = np.rint(q * (scale / expected))
        if not np.all(np.abs(rescaled) < 2**62):  # the folded bias is checked for int32 after
            raise OnnxImportError(f"{where}: bias '{name}' at the accumulator's scale "
                                  "x_scale·w_scale does not fit int32")
        return rescaled.astype(np.int64)

    def _requant_acc(self, where: str, x: QTensor, w_scale: np.ndarray, y: QTensor) -> Requant:
        """The requantization of an accumulator at ``x_scale · w_scale`` (per channel when the
        weight scales differ) to ``y``."""
        multipliers = x.scale * w_scale / y.scale
        if np.all(w_scale == w_scale[0]):
            return self._requant(where, float(multipliers[0]))
        if self.mode != "fixed":
            raise OnnxImportError(f"{where}: per-channel weight scales need the fixed-point "
                                  "requantization (not --requant=pow2)")
        try:
            return choose_requant_channels(multipliers.tolist())
        except ValueError as exc:
            raise OnnxImportError(f"{where}: {exc}") from None

    def _requant(self, where: str, multiplier: float) -> Requant:
        try:
            return choose_requant(multiplier, self.mode)
        except ValueError as exc:
            raise OnnxImportError(f"{where}: {exc}") from None

    def _op_Gemm(self, where: str, node: onnx.NodeProto) -> None:
        attrs = _attrs(node)
        if attrs.get("transA", 0) or attrs.get("alpha", 1.0) != 1.0 or \
                attrs.get("beta", 1.0) != 1.0:
            raise OnnxImportError(f"{where}: transA, alpha and beta other than 0, 1, 1 are not "
                                  "supported")
        self._dense(where, node, bool(attrs.get("transB", 0)))

    def _op_MatMul(self, where: str, node: onnx.NodeProto) -> None:
        if node.input[0] in self.act and node.input[1] in self.act:
            self.activation_product(where, node)  # attention.py
            return
        self._dense(where, node, False)

    def _dense(self, where: str, node: onnx.NodeProto, trans_b: bool) -> None:
        x = self._source(where, node.input[0], flattened=True)
        w = self._weight(where, node.input[1])
        if w.q.ndim != 2:
            raise OnnxImportError(f"{where}: a weight of shape {list(w.q.shape)}; a "
                                  f"{node.op_type}'s constant operand is a K×N matrix (reshape "
                                  "a vector to K×1)")
        w_scale = self._check_weight(where, w, 0 if trans_b else 1)
        weight = w.q.T if trans_b else w.q
        view = self.views.get(x.name)
        if view is not None and (view[1] != view[0] or list(view[2]) != sorted(view[2])):
            raise OnnxImportError(f"{where}: reads '{node.input[0]}', heads split out of a "
                                  "product's rows (a view of its matrix); a MatMul of them is "
                                  "not supported")
        if len(x.shape) != 2 or weight.ndim != 2 or weight.shape[0] != x.shape[1]:
            raise OnnxImportError(f"{where}: operands {self.logical_shape(x)} and "
                                  f"{tuple(weight.shape)} are not a matrix product of a 2-D "
                                  "tensor, or of the rows of a larger one, by a matrix")
        bias = self._bias(where, node.input[2] if len(node.input) > 2 else None, x, w_scale)
        rows = self.logical_shape(x)[:-1]
        writer, view = node, None
        if node.output[0] not in self.quant_of and node.op_type == "MatMul":
            # The bias of a float Add after the product, at the accumulator's scale: within
            # half an accumulator unit of its real value (docs/onnx.md §4.16).
            real, writer, view, used = self.float_result(where, node, rows, weight.shape[1])
            self.consumed.update(id(n) for n in used)
            bias = bias + np.rint(real.astype(np.float64) / (x.scale * w_scale)).astype(
                np.int64)
        y = self._output(where, writer, (x.shape[0], weight.shape[1]))
        if view is not None and view[0] != y.shape:
            self.views[y.name] = view
        elif len(rows) > 1:
            self.views[y.name] = ((*rows, weight.shape[1]),) * 2 + (tuple(range(len(rows) + 1)),)
        rq = self._requant_acc(where, x, w_scale, y)
        layer = _built(where, dense_layer, self.layer_name, x, weight, bias, y, rq)
        rq = fitted_requant(layer, weight.T, self._codes(x), x.scale * w_scale / y.scale,
                            self.mode) or rq
        self._add_layer(_built(where, dense_layer, self.layer_name, x, weight, bias, y, rq), y)
        self.accumulator_scales[y.name] = x.scale * w_scale

    def _op_Conv(self, where: str, node: onnx.NodeProto) -> None:
        attrs = _attrs(node)
        x = self._source(where, node.input[0])
        w = self._weight(where, node.input[1])
        w_scale = self._check_weight(where, w, 0)
        if len(x.shape) != 4 or w.q.ndim != 4:
            raise OnnxImportError(f"{where}: only 2-D convolutions (NCHW) are supported")
        if any(d != 1 for d in attrs.get("dilations", [1, 1])):
            raise OnnxImportError(f"{where}: dilated convolutions are not supported")
        depthwise = is_depthwise(where, int(attrs.get("group", 1)), x.shape[1], w.q.shape)
        if attrs.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
            raise OnnxImportError(f"{where}: auto_pad is not supported (give pads)")
        o, c, kh, kw = w.q.shape
        sh, sw = attrs.get("strides", [1, 1])
        pt, pl, pb, pr = attrs.get("pads", [0, 0, 0, 0])
        n, xc, h, wd = x.shape
        if (xc if depthwise else c) != xc or \
                list(attrs.get("kernel_shape", [kh, kw])) != [kh, kw]:
            raise OnnxImportError(f"{where}: weight of shape {tuple(w.q.shape)} (kernel_shape "
                                  f"{list(attrs.get('kernel_shape', [kh, kw]))}) for an input "
                                  f"of {xc} channels")
        oh, ow = window_output(where, (h, wd), (kh, kw), (sh, sw), (pt, pl, pb, pr))
        bias = self._bias(where, node.input[2] if len(node.input) > 2 else None, x, w_scale)
        y = self._output(where, node, (n, o, oh, ow))
        rq = self._requant_acc(where, x, w_scale, y)
        build = depthwise_conv_layer if depthwise else conv_layer
        layer = _built(where, build, self.layer_name, x, w.q, bias, (sh, sw), (pt, pl, pb, pr),
                       y, rq)
        rq = fitted_requant(layer, w.q, self._codes(x), x.scale * w_scale / y.scale,
                            self.mode) or rq
        self._add_layer(_built(where, build, self.layer_name, x, w.q, bias, (sh, sw),
                               (pt, pl, pb, pr), y, rq), y)

    def _op_Relu(self, where: str, node: onnx.NodeProto) -> None:
        self._fold_clip(where, node, None)

    def _op_Clip(self, where: str, node: onnx.NodeProto) -> None:
        # ReLU6 and other clips of the reals: a clip of the codes (depthwise.clip_codes).
        self._fold_clip(where, node, clip_codes(where, node, self.inits,
                                                self._source(where, node.input[0])))

    def _fold_clip(self, where: str, node: onnx.NodeProto,
                   codes: tuple[int, int] | None) -> None:
        x = self._source(where, node.input[0])
        y = self._output(where, node, x.shape)
        layer = self.producer.get(x.name)
        # ReLU on codes is max(q, zero_point) at an unchanged scale: fold it into the clip of
        # the layer writing its input when nothing else reads that tensor.
        if (y.scale != x.scale or y.zero_point != x.zero_point or self.readers[x.name] != 1
                or not isinstance(layer, DenseLayer | ConvLayer | AddLayer)):
            raise OnnxImportError(f"{where}: a {node.op_type} is supported right after a Conv, "
                                  "Gemm, MatMul or Add with the same quantization parameters")
        lo, hi = (y.zero_point, 127) if codes is None else codes
        layer.lo, layer.hi = max(layer.lo, lo), min(layer.hi, hi)
        layer.dst = y.name
        del self.producer[x.name]
        self.producer[y.name] = layer

    def _op_Add(self, where: str, node: onnx.NodeProto) -> None:
        a = self._source(where, node.input[0])
        b_name = node.input[1]
        if b_name in self.consts and node.input[0] in self.act:
            self._add_const(where, node, a, self.consts[b_name])
            return
        if node.input[0] in self.consts:
            raise OnnxImportError(f"{where}: put the constant operand of Add second")
        b = self._source(where, b_name)
        if a.shape != b.shape:
            raise OnnxImportError(f"{where}: Add of shapes {a.shape} and {b.shape} "
                                  "(broadcasting two tensors is not supported)")
        if self.logical_shape(a) != self.logical_shape(b):
            raise OnnxImportError(f"{where}: Add of shapes {self.logical_shape(a)} and "
                                  f"{self.logical_shape(b)} (broadcasting two tensors is not "
                                  "supported)")
        y = self._output(where, node, a.shape)
        if a.name in self.views:
            self.views[y.name] = self.views[a.name]
        self._add_layer(add_layer(self.layer_name, a, b, y), y)

    def _add_const(self, where: str, node: onnx.NodeProto, a: QTensor, b: _Const) -> None:
        n = a.shape[-1]
        logical = self.logical_shape(a)
        if len(a.shape) < 2 or b.q.size != n or b.q.shape[-1:] != (n,) or \
                b.scale.size != 1 or logical[-1] != n:
            raise OnnxImportError(f"{where}: Add of a constant is supported for a vector "
                                  "along the last axis")
        y = self._output(where, node, a.shape)
        if a.name in self.views:
            self.views[y.name] = self.views[a.name]
        sb = float(b.scale.reshape(-1)[0])
        ma, _, shift = add_multipliers(a.scale / y.scale, sb / y.scale)
        # The constant is exact in float: rescale it once, at compile time.
        real = sb * (b.q.reshape(-1).astype(np.float64) - float(b.zero_point.reshape(-1)[0]))
        const = np.rint(real / y.scale * 2.0 ** shift).astype(np.int64)
        self._add_layer(AddLayer(self.layer_name, a.name, None, a.zero_point, 0, ma, 0,
                                 _int32(where, const), shift, y.zero_point, -128, 127, y.name), y)


def _array(graph: onnx.GraphProto, init: onnx.TensorProto) -> np.ndarray:
    """The value of a checked initializer (``check.check_initializers``); an error naming it
    should numpy still refuse it."""
    try:
        return numpy_helper.to_array(init)
    except (ValueError, TypeError) as exc:
        raise OnnxImportError(f"{reader_label(graph, init.name)}initializer '{init.name}' "
                              f"cannot be read: {exc}") from None


def _built(where: str, build: Callable[..., Layer], *args: object) -> Layer:
    """``build(*args)``, its ValueError (a folded bias beyond int32) as an import error."""
    try:
        return build(*args)
    except ValueError as exc:
        raise OnnxImportError(f"{where}: {exc}") from None


def _int32(where: str, values: np.ndarray) -> np.ndarray:
    try:
        return int32(values)
    except ValueError as exc:
        raise OnnxImportError(f"{where}: {exc}") from None


def recognize(model: onnx.ModelProto, requant_mode: str = "fixed") -> Program:
    """The integer :class:`Program` of a checked QDQ ``model`` (``load.load_model``)."""
    return _Recognizer(model, requant_mode).run()
