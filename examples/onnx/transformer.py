"""A BERT-style encoder built with ``onnx.helper``, and its two int8 forms as onnxruntime's
quantizer writes them: static QDQ on the matrix products (``quantize_static``) and dynamic
quantization (``quantize_dynamic``: ``DynamicQuantizeLinear`` and ``MatMulInteger``).

Each layer is post-norm self-attention and a GELU feed-forward block, as BERT has them::

    q, k, v = x·Wq + bq, x·Wk + bk, x·Wv + bv           (1×S×H each)
    heads:   q → 1×h×S×D, k → 1×h×D×S, v → 1×h×S×D     (Reshape, Transpose; D = H / h)
    a = softmax(q·k / √D) · v                            (1×h×S×D)
    x = LayerNorm(x + merge(a)·Wo + bo)                  (merge: Transpose, Reshape to 1×S×H)
    x = LayerNorm(x + GELU(x·W1 + b1)·W2 + b2)           (GELU with Erf, as torch exports it)

The weights are normal with BERT's initialisation (standard deviation 0.02), the LayerNorm
scales and shifts near 1 and 0; the calibration and test inputs are normal (the encoder sees
LayerNorm'd embeddings).

    python examples/onnx/transformer.py out.onnx [--dynamic] [--layers 2] [--seq 64]
        [--hidden 128] [--heads 2] [--ffn 512]

writes the static (or dynamic) int8 encoder; the float model is kept beside it as ``*.f.onnx``.
"""

from __future__ import annotations

import argparse
import logging
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

#: The standard deviation of BERT's weight initialisation.
WEIGHT_STD = 0.02


@dataclass(frozen=True)
class EncoderShape:
    """The dimensions of the encoder: ``layers`` of sequence ``seq``, width ``hidden``,
    ``heads`` attention heads and a feed-forward width ``ffn``."""

    layers: int = 2
    seq: int = 64
    hidden: int = 128
    heads: int = 2
    ffn: int = 512

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads

    def __post_init__(self) -> None:
        if min(self.layers, self.seq, self.hidden, self.heads, self.ffn) < 1 or \
                self.hidden % self.heads:
            raise ValueError(f"no encoder of {self}: every dimension is positive and the "
                             "heads divide the width")


class _Graph:
    """Nodes and initializers under construction, with unique names."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []

    def const(self, name: str, value: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def normal(self, name: str, shape: tuple[int, ...], std: float, mean: float = 0.0) -> str:
        value = mean + std * self.rng.standard_normal(shape)
        return self.const(name, value.astype(np.float32))

    def node(self, op: str, inputs: list[str], name: str, **attrs: object) -> str:
        self.nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def linear(self, x: str, name: str, k: int, n: int) -> str:
        w = self.normal(f"{name}.weight", (k, n), WEIGHT_STD)
        b = self.normal(f"{name}.bias", (n,), WEIGHT_STD)
        return self.node("Add", [self.node("MatMul", [x, w], f"{name}.matmul"), b], f"{name}.add")

    def layer_norm(self, x: str, name: str, width: int) -> str:
        scale = self.normal(f"{name}.scale", (width,), 0.1, mean=1.0)
        shift = self.normal(f"{name}.shift", (width,), 0.1)
        return self.node("LayerNormalization", [x, scale, shift], name, axis=-1, epsilon=1e-5)


def _layer(g: _Graph, x: str, i: int, s: EncoderShape) -> str:
    p = f"layer{i}"
    split = g.const(f"{p}.split_shape", np.array([1, s.seq, s.heads, s.head_dim], np.int64))
    merged = g.const(f"{p}.merged_shape", np.array([1, s.seq, s.hidden], np.int64))

    def heads(t: str, name: str, perm: list[int]) -> str:
        return g.node("Transpose", [g.node("Reshape", [t, split], f"{name}.split")],
                      f"{name}.heads", perm=perm)

    q = heads(g.linear(x, f"{p}.query", s.hidden, s.hidden), f"{p}.query", [0, 2, 1, 3])
    k = heads(g.linear(x, f"{p}.key", s.hidden, s.hidden), f"{p}.key", [0, 2, 3, 1])
    v = heads(g.linear(x, f"{p}.value", s.hidden, s.hidden), f"{p}.value", [0, 2, 1, 3])
    root = g.const(f"{p}.sqrt_d", np.array(math.sqrt(s.head_dim), np.float32))
    scores = g.node("Div", [g.node("MatMul", [q, k], f"{p}.scores"), root], f"{p}.scaled")
    probs = g.node("Softmax", [scores], f"{p}.softmax", axis=-1)
    context = g.node("MatMul", [probs, v], f"{p}.context")
    merged_heads = g.node("Reshape", [g.node("Transpose", [context], f"{p}.context.t",
                                             perm=[0, 2, 1, 3]), merged], f"{p}.merged")
    attention = g.linear(merged_heads, f"{p}.output", s.hidden, s.hidden)
    x = g.layer_norm(g.node("Add", [x, attention], f"{p}.residual1"), f"{p}.norm1", s.hidden)
    up = g.linear(x, f"{p}.ffn_up", s.hidden, s.ffn)
    half = g.const(f"{p}.half", np.array(0.5, np.float32))
    one = g.const(f"{p}.one", np.array(1.0, np.float32))
    sqrt2 = g.const(f"{p}.sqrt2", np.array(math.sqrt(2.0), np.float32))
    erf = g.node("Erf", [g.node("Div", [up, sqrt2], f"{p}.gelu.div")], f"{p}.gelu.erf")
    gelu = g.node("Mul", [g.node("Mul", [up, g.node("Add", [erf, one], f"{p}.gelu.add")],
                                 f"{p}.gelu.mul"), half], f"{p}.gelu")
    down = g.linear(gelu, f"{p}.ffn_down", s.ffn, s.hidden)
    return g.layer_norm(g.node("Add", [x, down], f"{p}.residual2"), f"{p}.norm2", s.hidden)


def bert_encoder(rng: np.random.Generator, shape: EncoderShape = EncoderShape(),
                 opset: int = 17) -> onnx.ModelProto:
    """The float encoder: input ``x`` and output ``y``, both 1×S×H float32."""
    g = _Graph(rng)
    x = "x"
    for i in range(shape.layers):
        x = _layer(g, x, i, shape)
    g.nodes.append(helper.make_node("Identity", [x], ["y"], name="output"))
    io = (1, shape.seq, shape.hidden)
    graph = helper.make_graph(g.nodes, "bert_encoder",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, io)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, io)],
                              g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(model, full_check=True)
    return model


def encoder_inputs(rng: np.random.Generator, shape: EncoderShape,
                   count: int) -> list[np.ndarray]:
    """``count`` inputs of the encoder: normal values, as LayerNorm'd embeddings are."""
    return [rng.standard_normal((1, shape.seq, shape.hidden)).astype(np.float32)
            for _ in range(count)]


class _Calibration:
    """The calibration inputs of ``quantize_static`` (a ``CalibrationDataReader``)."""

    def __init__(self, inputs: list[np.ndarray]) -> None:
        self.batches = iter([{"x": x} for x in inputs])

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self.batches, None)


def quantize_static_matmuls(model: onnx.ModelProto, path: Path,
                            calibration: list[np.ndarray], *, per_channel: bool = False,
                            symmetric: bool = True) -> Path:
    """Write ``model`` with int8 QDQ around its matrix products (``quantize_static``,
    ``op_types_to_quantize=["MatMul"]``) at ``path``; the float model is kept beside it."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static

    logging.getLogger().setLevel(logging.ERROR)  # the quantizer's pre-processing advice
    float_path = path.with_suffix(".f.onnx")
    onnx.save(model, float_path)
    quantize_static(str(float_path), str(path), _Calibration(calibration),
                    quant_format=QuantFormat.QDQ, op_types_to_quantize=["MatMul"],
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8,
                    per_channel=per_channel,
                    extra_options={"ActivationSymmetric": symmetric})
    return path


def quantize_dynamic_matmuls(model: onnx.ModelProto, path: Path) -> Path:
    """Write ``model`` dynamically quantized (``quantize_dynamic``: uint8 activations
    quantized at run time by ``DynamicQuantizeLinear``, int8 weights, ``MatMulInteger``) at
    ``path``; the float model is kept beside it."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    logging.getLogger().setLevel(logging.ERROR)
    float_path = path.with_suffix(".f.onnx")
    onnx.save(model, float_path)
    quantize_dynamic(str(float_path), str(path), weight_type=QuantType.QInt8,
                     op_types_to_quantize=["MatMul"])
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", type=Path)
    parser.add_argument("--dynamic", action="store_true",
                        help="dynamic quantization instead of static QDQ")
    defaults = EncoderShape()
    for field in ("layers", "seq", "hidden", "heads", "ffn"):
        parser.add_argument(f"--{field}", type=int, default=getattr(defaults, field))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    shape = EncoderShape(args.layers, args.seq, args.hidden, args.heads, args.ffn)
    rng = np.random.default_rng(args.seed)
    model = bert_encoder(rng, shape)
    if args.dynamic:
        quantize_dynamic_matmuls(model, args.output)
    else:
        quantize_static_matmuls(model, args.output, encoder_inputs(rng, shape, 8))


if __name__ == "__main__":
    main()
