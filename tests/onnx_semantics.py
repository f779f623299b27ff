"""The documented integer semantics of a QDQ ONNX model (``docs/onnx.md`` §2–§4), written
independently of the compiler: :func:`integer_model` walks the ONNX graph itself and only reads
the requantization constants the importer chose. With onnxruntime's own result
(:func:`onnxruntime_output`) it is what the ONNX frontend's tests and the tests of
``vta-integerize`` (the same models through torch-mlir) compare a run with."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper

from vta_mlir.frontend.onnx import (
    Requant,
    choose_requant,
    choose_requant_channels,
    import_program,
)
from vta_mlir.frontend.onnx.qdq import AddLayer, AvgPoolLayer, ConvLayer, DenseLayer
from vta_mlir.quant.batch_product import BatchProductLayer
from vta_mlir.quant.host_float import FloatLayer
from vta_mlir.quant.host_layers import HostLayer

from .onnx_float_semantics import dequantize, float_op, quantize

#: The importer's rule for float nodes (docs/onnx.md §4.15).
FLOAT_ONLY = {"Sub", "Div", "Sqrt", "Pow", "Erf", "Tanh", "LayerNormalization", "Gelu",
              "Transpose", "Cast"}
FLOAT_WHEN_UNQUANTIZED = {"Add", "Mul", "Relu", "Softmax", "Sigmoid", "Reshape", "Identity",
                          "ReduceMean"}


def fixed_point_requant(acc: np.ndarray, s1: int, m: int | np.ndarray, s2: int,
                        clip: int) -> np.ndarray:
    """§3: clip the rounded ``acc >> s1`` to ``±clip``, multiply, round ``>> s2``."""
    t = np.clip((acc + ((1 << s1) >> 1)) >> s1, -clip, clip) * m  # both shifts round
    return t if s2 == 0 else ((t >> (s2 - 1)) + 1) >> 1


def round_half_up_shift(v: np.ndarray, s: int) -> np.ndarray:
    return v if s == 0 else ((v >> (s - 1)) + 1) >> 1


def conv_nchw(x: np.ndarray, w: np.ndarray, stride: tuple[int, int]) -> np.ndarray:
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride[0] + 1, (wd - kw) // stride[1] + 1
    out = np.zeros((n, o, oh, ow), np.int64)
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i:i + stride[0] * oh:stride[0], j:j + stride[1] * ow:stride[1]]
            out += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j])
    return out


def depthwise_nchw(x: np.ndarray, w: np.ndarray, stride: tuple[int, int]) -> np.ndarray:
    """Channel ``c`` of ``x`` convolved with ``w[c, 0]`` (a ``Conv`` with ``group`` = C)."""
    n, c, h, wd = x.shape
    _, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride[0] + 1, (wd - kw) // stride[1] + 1
    out = np.zeros((n, c, oh, ow), np.int64)
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i:i + stride[0] * oh:stride[0], j:j + stride[1] * ow:stride[1]]
            out += patch * w[None, :, 0, i, j, None, None]
    return out


def fitted(rq: Requant, multipliers: Sequence[float]) -> bool:
    """§3, "A multiplier fitted to the accumulator's range": no first shift and each
    multiplier ``M`` rounded to ``m = round(M·2^s2)``; the clip bound saturates as ever, so
    :func:`fixed_point_requant` computes it like any other."""
    ms = [round(float(v) * 2.0 ** rq.s2) for v in multipliers]
    return rq.s1 == 0 and list(rq.channel_m or (rq.m,)) == ms and \
        rq.clip * 2 ** -rq.s2 * min(ms) >= 256


def clip_code(value: float, scale: float, zero_point: int) -> int:
    """``QuantizeLinear`` of one real: the division in float32, half to even, saturated."""
    return int(np.clip(np.rint(np.float32(value) / np.float32(scale)) + zero_point, -128, 127))


def host_layer(op: str, x: tuple[np.ndarray, float, int], attrs: dict, sy: float,
               zy: int) -> np.ndarray:
    """A Softmax or Sigmoid between its DequantizeLinear and QuantizeLinear, as the host
    computes it (docs/onnx.md §4.9): f32 after every op, ``exp`` rounded once from f64, the
    softmax's sum a left fold along its axis."""
    q, sx, zx = x
    real = (q - zx).astype(np.float32) * np.float32(sx)
    if op == "Sigmoid":
        e = np.exp(-real.astype(np.float64)).astype(np.float32)
        y = np.float32(1.0) / (e + np.float32(1.0))
    else:
        axis = int(attrs.get("axis", -1)) % real.ndim
        moved = np.moveaxis(real, axis, -1)
        e = np.exp((moved - moved.max(axis=-1, keepdims=True)).astype(np.float64))
        e = e.astype(np.float32)
        total = np.zeros(e.shape[:-1] + (1,), np.float32)
        for k in range(e.shape[-1]):
            total = total + e[..., k:k + 1]
        y = np.moveaxis(e / total, -1, axis)
    return np.clip(np.rint(y / np.float32(sy)) + zy, -128, 127).astype(np.int64)


def max_pool(x: np.ndarray, k: tuple[int, int], stride: tuple[int, int]) -> np.ndarray:
    n, c, h, wd = x.shape
    oh, ow = (h - k[0]) // stride[0] + 1, (wd - k[1]) // stride[1] + 1
    out = np.full((n, c, oh, ow), -(1 << 40), np.int64)
    for i in range(k[0]):
        for j in range(k[1]):
            out = np.maximum(out, x[:, :, i:i + stride[0] * oh:stride[0],
                                    j:j + stride[1] * ow:stride[1]])
    return out


#: (codes, scale, zero point): the int8 codes of a tensor (int64 here) and what they mean.
Quantized = tuple[np.ndarray, "float | np.ndarray", int]


def _signed(values: np.ndarray) -> np.ndarray:
    """Codes as int64, uint8 ones shifted by 128 into int8 (the same reals with the zero point
    shifted alike, docs/onnx.md §2)."""
    return values.astype(np.int64) - (128 if values.dtype == np.uint8 else 0)


class _IntegerModel:
    """The walk of :func:`integer_model`: ``codes`` holds the int8 tensors (QuantizeLinear and
    QOperator outputs), ``vals`` the float tensors that are quantized reals (DequantizeLinear
    outputs, selections of them, computed results before their QuantizeLinear)."""

    def __init__(self, path: Path, q_input: np.ndarray,
                 x: np.ndarray | None = None) -> None:
        self.model = onnx.load(str(path))
        graph = self.model.graph
        self.inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
        self.input_name = next(v.name for v in graph.input if v.name not in self.inits)
        self.q_input = q_input.astype(np.int64)
        # Float layers (docs/onnx.md §4.15) are computed from the graph by float_node.
        program = import_program(path)
        layers = program.layers
        # Products whose codes only float nodes read: requantized by the host (§4.19).
        self.host_requant = set(program.host_requant)
        # Only a program with float layers has float nodes (a QOperator model's float sections
        # are selections of codes, as ever).
        self.has_floats = any(isinstance(layer, FloatLayer) for layer in layers)
        self.layers = iter(layer for layer in layers
                           if not isinstance(layer, FloatLayer | HostLayer))
        self.folded: set[str] = set()  # float bias Adds folded into their MatMul (§4.16)
        self.floats: dict[str, np.ndarray] = {}
        if x is not None:  # a float input that float nodes read
            self.floats[self.input_name] = x.astype(np.float32)
        self.readers: dict[str, list[onnx.NodeProto]] = {}
        for node in graph.node:
            for name in node.input:
                self.readers.setdefault(name, []).append(node)
        self.codes: dict[str, Quantized] = {}
        self.vals: dict[str, Quantized] = {}

    # -- operands ------------------------------------------------------------------------------
    def scale(self, name: str) -> float | np.ndarray:
        value = self.inits[name].astype(np.float64)
        return float(value.reshape(-1)[0]) if value.size == 1 else value.reshape(-1)

    def zero_point(self, name: str | None) -> int:
        if not name:
            return 0
        zp = _signed(self.inits[name]).reshape(-1)
        assert np.all(zp == zp[0]), "per-channel zero points"
        return int(zp[0])

    def quantized_zero_point(self, name: str | None) -> int:
        """A QuantizeLinear's zero point: without one its codes are uint8 with zero point 0."""
        return self.zero_point(name) if name else -128

    def operand(self, name: str, scale: str, zero_point: str | None) -> Quantized:
        """A quantized operand of a QOperator node: codes or a constant."""
        if name in self.codes:
            return self.codes[name]
        return _signed(self.inits[name]), self.scale(scale), self.zero_point(zero_point)

    def result_params(self, node: onnx.NodeProto) -> tuple[float, int]:
        """The parameters of the QuantizeLinear that quantizes ``node``'s result, through
        selections (a float section of the QOperator format)."""
        name = node.output[0]
        while True:
            (reader,) = self.readers[name]
            if reader.op_type == "QuantizeLinear":
                return (self.scale(reader.input[1]),
                        self.quantized_zero_point(_at(reader.input, 2)))
            name = reader.output[0]

    # -- layers ----------------------------------------------------------------------------------
    def contraction(self, op: str, x: Quantized, w: Quantized, bias: np.ndarray | None,
                    attrs: dict, sy: float, zy: int) -> np.ndarray:
        (xq, sx, zx), (wq, sw, zw) = x, w
        xd, wd = xq - zx, wq - zw              # (q − zx): padding holds the zero point
        if op == "Conv":
            pt, pl, pb, pr = attrs.get("pads", [0, 0, 0, 0])
            xd = np.pad(xd, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
            conv = depthwise_nchw if attrs.get("group", 1) > 1 else conv_nchw
            acc = conv(xd, wd, tuple(attrs.get("strides", [1, 1])))
        else:
            acc = xd @ (wd.T if attrs.get("transB", 0) else wd)
        channels = acc.shape[1] if op == "Conv" or acc.ndim == 2 else acc.shape[-1]
        w_scale = np.broadcast_to(np.asarray(sw, np.float64).reshape(-1), (channels,))
        if bias is not None and op == "Conv":
            acc = acc + bias.reshape((1, -1) + (1,) * (acc.ndim - 2))
        elif bias is not None:  # along the last axis of a product
            acc = acc + bias
        layer = next(self.layers)
        assert isinstance(layer, ConvLayer | DenseLayer | BatchProductLayer)
        if layer.dst in self.host_requant:
            # §4.19: QuantizeLinear of the exact product, each operation in float32.
            scale = (sx * w_scale).astype(np.float32)
            shape = (1, -1) + (1,) * (acc.ndim - 2) if op == "Conv" else (-1,)
            product = acc.astype(np.float32) * scale.reshape(shape)
            return np.clip(np.rint(product / np.float32(sy)) + zy, -128, 127).astype(np.int64)
        rq = layer.rq
        if np.all(w_scale == w_scale[0]):
            assert rq == choose_requant(sx * float(w_scale[0]) / sy) or \
                fitted(rq, [sx * float(w_scale[0]) / sy])
            m: int | np.ndarray = rq.m
        else:  # per channel: one multiplier per output channel, along axis 1
            assert rq == choose_requant_channels(sx * w_scale / sy) or \
                fitted(rq, sx * w_scale / sy)
            m = np.array(rq.channel_m, np.int64)
            if op == "Conv":  # along axis 1; a product's columns are its last axis
                m = m.reshape((-1,) + (1,) * (acc.ndim - 2))
        return np.clip(fixed_point_requant(acc, rq.s1, m, rq.s2, rq.clip) + zy, -128, 127)

    @staticmethod
    def bias(bias: np.ndarray, sx: float, sw: float | np.ndarray,
             scale: float | np.ndarray | None) -> np.ndarray:
        """An int32 bias; at another scale than ``sx·sw`` (a shared bias, §4.6) its value,
        rounded."""
        bias = bias.astype(np.int64).reshape(-1)
        if scale is None:
            return bias
        w_s = np.broadcast_to(np.asarray(sw, np.float64).reshape(-1), bias.shape)
        ratio = np.asarray(scale, np.float64) / (sx * w_s)
        if not np.allclose(ratio, 1.0, rtol=1e-6, atol=0):
            bias = np.rint(bias * ratio).astype(np.int64)
        return bias

    def average(self, x: Quantized, sy: float, zy: int) -> np.ndarray:
        xq, _, zx = x
        layer = next(self.layers)
        assert isinstance(layer, AvgPoolLayer)
        acc = (xq - zx).sum(axis=(2, 3), keepdims=True)
        rq = layer.rq
        return np.clip(fixed_point_requant(acc, rq.s1, rq.m, rq.s2, rq.clip) + zy, -128, 127)

    def add(self, a: Quantized, b: Quantized, b_is_constant: bool, sy: float,
            zy: int) -> np.ndarray:
        layer = next(self.layers)
        assert isinstance(layer, AddLayer)
        (aq, _, za), (bq, sb, zb) = a, b
        if b_is_constant or layer.b is None:
            real = sb * (bq.astype(np.float64) - zb)
            t = (aq - za) * layer.ma + np.rint(real / sy * 2.0 ** layer.shift).astype(np.int64)
        else:
            t = (aq - za) * layer.ma + (bq - zb) * layer.mb
        return np.clip(round_half_up_shift(t, layer.shift) + zy, layer.lo, 127)

    # -- the walk --------------------------------------------------------------------------------
    def qoperator(self, node: onnx.NodeProto, attrs: dict) -> np.ndarray:
        ins = list(node.input)
        op = node.op_type
        if op in ("QLinearConv", "QLinearMatMul", "QGemm"):
            x, w = self.operand(*ins[0:3]), self.operand(*ins[3:6])
            y_at, bias_at = {"QLinearConv": (6, 8), "QLinearMatMul": (6, None),
                             "QGemm": (7, 6)}[op]
            bias = None
            if bias_at is not None and _at(ins, bias_at):
                bias = self.bias(self.inits[ins[bias_at]], x[1], w[1], None)
            return self.contraction("Conv" if op == "QLinearConv" else "Gemm", x, w, bias,
                                    attrs, self.scale(ins[y_at]),
                                    self.zero_point(_at(ins, y_at + 1)))
        if op == "QLinearAdd":
            a, b = self.operand(*ins[0:3]), self.operand(*ins[3:6])
            return self.add(a, b, ins[3] in self.inits, self.scale(ins[6]),
                            self.zero_point(_at(ins, 7)))
        if op == "QLinearGlobalAveragePool":
            return self.average(self.operand(*ins[0:3]), self.scale(ins[3]),
                                self.zero_point(_at(ins, 4)))
        raise AssertionError(op)

    def float_node(self, node: onnx.NodeProto, attrs: dict) -> bool:
        """A float node (one that reads a float value, has no integer pattern, or whose result
        is not quantized) computed with the float semantics of docs/onnx.md §4.15."""
        op, ins = node.op_type, list(node.input)
        unquantized = all(r.op_type != "QuantizeLinear" for r in self.readers.get(
            node.output[0], []))
        # A global average pool quantized after its Reshape stays an integer layer.
        spatial = op == "ReduceMean" and sorted(int(a) % 4 for a in attrs.get("axes", (
            self.inits[ins[1]].reshape(-1).tolist() if len(ins) > 1 else []))) == [2, 3]
        activation = ins[0] in self.vals and not self.is_constant(ins[0])
        if not (any(i in self.floats for i in ins) or op in FLOAT_ONLY or (
                op in FLOAT_WHEN_UNQUANTIZED and unquantized and activation and not spatial)):
            return False
        values = []
        for name in ins[:1] if op in ("Reshape", "ReduceMean") else ins:
            if name in self.floats:
                values.append(self.floats[name])
            elif name in self.vals:
                q, sv, zv = self.vals[name]
                values.append(dequantize(q, sv, zv) if np.ndim(sv) == 0 else
                              ((q - zv).astype(np.float32) * np.float32(sv)))
            elif name:
                values.append(self.inits[name].astype(np.float32))
        if op == "Reshape":
            attrs = {"shape": [int(d) for d in self.inits[ins[1]].reshape(-1)]}
        self.floats[node.output[0]] = float_op(op, values, attrs)
        return True

    def node(self, node: onnx.NodeProto) -> None:
        op, ins, out = node.op_type, list(node.input), node.output[0]
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        if op == "QuantizeLinear" and ins[0] in self.floats:
            s, z = self.scale(ins[1]), self.quantized_zero_point(_at(ins, 2))
            self.codes[out] = (quantize(self.floats[ins[0]], s, z).astype(np.int64), s, z)
            return
        if out in self.folded:
            return
        if self.has_floats and op == "MatMul" and \
                all(r.op_type != "QuantizeLinear" for r in self.readers[out]):
            # Read in float: its bias Add at the accumulator's scale (docs/onnx.md §4.16),
            # quantized where the chain's QuantizeLinear is; the Reshape and Transpose after
            # it are float nodes, exact on codes.
            (add,) = self.readers[out]
            x, w = self.vals[ins[0]], self.vals[ins[1]]
            real = self.inits[add.input[1] if add.input[0] == out else add.input[0]]
            bias = np.rint(real.astype(np.float64).reshape(-1) / (x[1] * w[1])).astype(np.int64)
            sy, zy = self.result_params(add)
            self.vals[add.output[0]] = (self.contraction(op, x, w, bias, attrs, sy, zy), sy, zy)
            self.folded.add(add.output[0])
            return
        if self.has_floats and op not in ("QuantizeLinear", "DequantizeLinear") and \
                self.float_node(node, attrs):
            return
        if op == "QuantizeLinear":
            s, z = self.scale(ins[1]), self.quantized_zero_point(_at(ins, 2))
            if ins[0] == self.input_name:
                self.codes[out] = (self.q_input, s, z)
            else:
                q, sv, zv = self.vals[ins[0]]
                assert (sv, zv) == (s, z), "a requantization without a layer"
                self.codes[out] = (q, s, z)
            return
        if op == "DequantizeLinear":
            if ins[0] in self.inits:
                q = self.inits[ins[0]]
                z = self.zero_point(_at(ins, 2)) if _at(ins, 2) else \
                    (-128 if q.dtype == np.uint8 else 0)
                self.vals[out] = (_signed(q), self.scale(ins[1]), z)
            else:
                self.vals[out] = self.codes[ins[0]]
            return
        if op.startswith("QLinear") or op == "QGemm":
            y_at = {"QGemm": 7, "QLinearGlobalAveragePool": 3}.get(op, 6)
            self.codes[out] = (self.qoperator(node, attrs), self.scale(ins[y_at]),
                               self.zero_point(_at(ins, y_at + 1)))
            return
        # Ops on codes (QOperator) or on quantized reals: the same selections either way.
        store, src = (self.codes, self.codes) if ins and ins[0] in self.codes else \
            (self.vals, self.vals)
        if op == "Identity":
            if ins[0] in self.inits:
                self.inits[out] = self.inits[ins[0]]
            else:
                store[out] = src[ins[0]]
            return
        if op in ("Relu", "MaxPool", "Flatten", "Reshape"):
            q, s, z = src[ins[0]]
            if op == "Relu":
                q = np.maximum(q, z)
            elif op == "MaxPool":
                pt, pl, pb, pr = attrs.get("pads", [0, 0, 0, 0])
                xp = np.pad(q, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=-128)
                q = max_pool(xp, tuple(attrs["kernel_shape"]), tuple(attrs.get("strides", [1, 1])))
                next(self.layers)
            elif op == "Flatten":
                q = q.reshape(q.shape[0], -1)
            else:
                q = q.reshape(tuple(int(d) for d in self.inits[ins[1]].reshape(-1)))
            store[out] = (q, s, z)
            return
        sy, zy = self.result_params(node)
        if op in ("Conv", "Gemm", "MatMul"):
            x, w = self.vals[ins[0]], self.vals[ins[1]]
            bias = None
            if len(ins) > 2:
                bias = self.bias(self.vals[ins[2]][0], x[1], w[1], self.vals[ins[2]][1])
            self.vals[out] = (self.contraction(op, x, w, bias, attrs, sy, zy), sy, zy)
        elif op == "Clip":  # at the quantization of its input: a clip of the codes
            q = self.vals[ins[0]][0]
            bounds = [float(self.inits[b]) if b else None for b in (list(ins) + ["", ""])[1:3]]
            lo_q = -128 if bounds[0] is None else clip_code(bounds[0], sy, zy)
            hi_q = 127 if bounds[1] is None else clip_code(bounds[1], sy, zy)
            self.vals[out] = (np.clip(q, lo_q, hi_q), sy, zy)
        elif op in ("Softmax", "Sigmoid"):
            self.vals[out] = (host_layer(op, self.vals[ins[0]], attrs, sy, zy), sy, zy)
        elif op == "GlobalAveragePool":
            self.vals[out] = (self.average(self.vals[ins[0]], sy, zy), sy, zy)
        elif op == "Add":
            self.vals[out] = (self.add(self.vals[ins[0]], self.vals[ins[1]],
                                       self.is_constant(ins[1]), sy, zy), sy, zy)
        else:
            from tests.onnx_semantics_cnn import cnn_op  # it imports this module's helpers

            inputs = [self.vals[i] if i in self.vals else self.inits.get(i) for i in ins]
            self.vals[out] = (cnn_op(node, attrs, inputs, sy, zy, self.layers), sy, zy)

    def is_constant(self, name: str) -> bool:
        writer = next((n for n in self.model.graph.node if name in n.output), None)
        return writer is not None and writer.input[0] in self.inits

    def run(self) -> np.ndarray:
        for node in self.model.graph.node:
            self.node(node)
        name = self.model.graph.output[0].name
        if name in self.floats:
            return self.floats[name]
        if name in self.codes:
            return self.codes[name][0].astype(np.int8)
        return self.vals[name][0].astype(np.int8)


def _at(values: list[str], index: int) -> str | None:
    return values[index] if index < len(values) and values[index] else None


def integer_model(path: Path, q_input: np.ndarray, x: np.ndarray | None = None) -> np.ndarray:
    """The int8 output codes of the quantized model at ``path`` (QDQ or QOperator, int8 or
    uint8 codes: uint8 ones shifted by 128) for the int8 input ``q_input``; with float
    operations (docs/onnx.md §4.15), given the float input ``x``, the float32 output when a
    float operation writes it."""
    return _IntegerModel(path, q_input, x).run()


def quant_params(text: str, arg: str) -> tuple[float, int]:
    head = text[text.index(f"%{arg}:"):]
    attr = head[head.index("vta.quant"):]
    scale = float(attr.split("scale = ")[1].split(" ")[0])
    zp = int(attr.split("zero_point = ")[1].split(" ")[0])
    return scale, zp


def onnxruntime_output(path: Path, x: np.ndarray) -> np.ndarray:
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]




def expected_output(path: Path, x: np.ndarray) -> np.ndarray:
    """The float output the integer semantics give for the float input ``x``: ``x`` quantized
    and the output dequantized with the parameters of the model's input and output (the host
    steps of ``vta.quant``)."""
    program = import_program(path)
    si, zi = program.input.scale, program.input.zero_point
    so, zo = program.output.scale, program.output.zero_point
    q = np.clip(np.rint(x.astype(np.float32) / np.float32(si)) + zi, -128, 127).astype(np.int8)
    return (integer_model(path, q).astype(np.float32) - zo) * np.float32(so)
