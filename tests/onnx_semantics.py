"""The documented integer semantics of a QDQ ONNX model (``docs/onnx.md`` §2–§4), written
independently of the compiler: :func:`integer_model` walks the ONNX graph itself and only reads
the requantization constants the importer chose. With onnxruntime's own result
(:func:`onnxruntime_output`) it is what the ONNX frontend's tests and the tests of
``vta-integerize`` (the same models through torch-mlir) compare a run with."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper

from vta_mlir.frontend.onnx import choose_requant, choose_requant_channels, import_program
from vta_mlir.frontend.onnx.qdq import AddLayer, AvgPoolLayer, ConvLayer, DenseLayer


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


def max_pool(x: np.ndarray, k: tuple[int, int], stride: tuple[int, int]) -> np.ndarray:
    n, c, h, wd = x.shape
    oh, ow = (h - k[0]) // stride[0] + 1, (wd - k[1]) // stride[1] + 1
    out = np.full((n, c, oh, ow), -(1 << 40), np.int64)
    for i in range(k[0]):
        for j in range(k[1]):
            out = np.maximum(out, x[:, :, i:i + stride[0] * oh:stride[0],
                                    j:j + stride[1] * ow:stride[1]])
    return out


def integer_model(path: Path, q_input: np.ndarray) -> np.ndarray:
    """The int8 output codes of the QDQ model at ``path`` for the int8 input ``q_input``."""
    model = onnx.load(str(path))
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    layers = iter(import_program(path).layers)
    # float name -> (codes, scale, zero point) for activations, (q, scale, zp) for constants
    vals: dict[str, tuple[np.ndarray, float, int]] = {}
    pending: dict[str, tuple[str, np.ndarray]] = {}  # Relu output -> (input, codes)
    quant = {n.input[0]: n for n in model.graph.node if n.op_type == "QuantizeLinear"}

    def qp(node: onnx.NodeProto) -> tuple[float, int]:
        return float(inits[node.input[1]]), int(inits[node.input[2]])

    codes: dict[str, np.ndarray] = {}
    for node in model.graph.node:
        op, ins = node.op_type, list(node.input)
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        if op == "QuantizeLinear":
            if ins[0] == "x":
                codes[node.output[0]] = q_input.astype(np.int64)
            continue
        if op == "DequantizeLinear":
            scale = inits[ins[1]]
            s = float(scale.reshape(-1)[0]) if scale.size == 1 else scale
            z = int(inits[ins[2]].reshape(-1)[0]) if len(ins) > 2 else 0
            src = inits[ins[0]] if ins[0] in inits else codes[ins[0]]
            vals[node.output[0]] = (src.astype(np.int64), s, z)
            continue
        if op == "Identity":  # another name for a constant or a tensor
            if ins[0] in vals:
                vals[node.output[0]] = vals[ins[0]]
            continue
        out_q = quant[node.output[0]]
        sy, zy = qp(out_q)
        lo = -128
        if op == "Relu":
            x, _, zx = vals[ins[0]]
            codes[out_q.output[0]] = np.maximum(x, zy)
            continue
        if op in ("Conv", "Gemm", "MatMul"):
            (x, sx, zx), (w, sw, _) = vals[ins[0]], vals[ins[1]]
            bias = vals[ins[2]][0] if len(ins) > 2 else np.zeros((), np.int64)
            if len(ins) > 2:  # a bias at another scale than sx·sw: its value, rounded
                w_s = np.broadcast_to(np.asarray(sw, np.float64).reshape(-1), bias.shape)
                ratio = np.asarray(vals[ins[2]][1], np.float64) / (sx * w_s)
                if not np.allclose(ratio, 1.0, rtol=1e-6, atol=0):
                    bias = np.rint(bias * ratio).astype(np.int64)
            xd = x - zx                       # (q − zx): padding holds the zero point
            if op == "Conv":
                pt, pl, pb, pr = attrs.get("pads", [0, 0, 0, 0])
                xd = np.pad(xd, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
                acc = conv_nchw(xd, w, tuple(attrs.get("strides", [1, 1]))) + \
                    bias.reshape(1, -1, 1, 1)
            else:
                wm = w.T if attrs.get("transB", 0) else w
                acc = xd @ wm + bias
            layer = next(layers)
            assert isinstance(layer, ConvLayer | DenseLayer)
            rq = layer.rq
            w_scale = np.broadcast_to(np.asarray(sw, np.float64).reshape(-1), (acc.shape[1],))
            if np.all(w_scale == w_scale[0]):
                assert rq == choose_requant(sx * float(w_scale[0]) / sy)
                m: int | np.ndarray = rq.m
            else:  # per channel: one multiplier per output channel, along axis 1
                assert rq == choose_requant_channels(sx * w_scale / sy)
                m = np.array(rq.channel_m, np.int64).reshape((-1,) + (1,) * (acc.ndim - 2))
            y = fixed_point_requant(acc, rq.s1, m, rq.s2, rq.clip) + zy
            codes[out_q.output[0]] = np.clip(y, lo, 127)
        elif op == "MaxPool":
            x, _, _ = vals[ins[0]]
            pt, pl, pb, pr = attrs.get("pads", [0, 0, 0, 0])
            xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=-128)
            codes[out_q.output[0]] = max_pool(xp, tuple(attrs["kernel_shape"]),
                                               tuple(attrs.get("strides", [1, 1])))
            next(layers)
        elif op == "GlobalAveragePool":
            x, sx, zx = vals[ins[0]]
            layer = next(layers)
            assert isinstance(layer, AvgPoolLayer)
            acc = (x - zx).sum(axis=(2, 3), keepdims=True)
            rq = layer.rq
            y = fixed_point_requant(acc, rq.s1, rq.m, rq.s2, rq.clip) + zy
            codes[out_q.output[0]] = np.clip(y, -128, 127)
        elif op == "Flatten":
            x, _, _ = vals[ins[0]]
            codes[out_q.output[0]] = x.reshape(x.shape[0], -1)
        elif op == "Add":
            layer = next(layers)
            assert isinstance(layer, AddLayer)
            a, sa, za = vals[ins[0]]
            b, sb, zb = vals[ins[1]]
            if ins[1] in inits or layer.b is None:
                real = sb * (b.astype(np.float64) - zb)
                t = (a - za) * layer.ma + np.rint(real / sy * 2.0 ** layer.shift).astype(np.int64)
            else:
                t = (a - za) * layer.ma + (b - zb) * layer.mb
            codes[out_q.output[0]] = np.clip(round_half_up_shift(t, layer.shift) + zy, -128, 127)
        else:
            from tests.onnx_semantics_cnn import cnn_op  # it imports this module's helpers

            inputs = [vals[i] if i in vals else inits.get(i) for i in ins]
            codes[out_q.output[0]] = cnn_op(node, attrs, inputs, sy, zy, layers)
    del pending
    out = next(n for n in model.graph.node if n.output[0] == model.graph.output[0].name)
    return codes[out.input[0]].astype(np.int8)


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
