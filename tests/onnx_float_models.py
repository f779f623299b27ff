"""Float ONNX models with float subgraphs between their matrix products, built with
``onnx.helper`` and quantized by onnxruntime's ``quantize_static`` (QDQ): the test models of
``tests/test_onnx_float_*.py`` (``docs/onnx.md`` §4.15–§4.16)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import (
    CalibrationDataReader,
    QuantFormat,
    QuantType,
    quantize_static,
)


class Graph:
    """A float graph being written: nodes, float32 initializers, the input ``x``."""

    def __init__(self, x_shape: tuple[int, ...], seed: int = 0) -> None:
        self.x_shape = x_shape
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def const(self, values: np.ndarray, name: str | None = None) -> str:
        name = name or f"c{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.asarray(values), name))
        return name

    def op(self, op_type: str, inputs: Sequence[str], name: str | None = None,
           **attrs: object) -> str:
        self.count += 1
        name = name or f"{op_type.lower()}{self.count}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [name], name=name, **attrs))
        return name

    def matmul(self, x: str, k: int, n: int, name: str, bias: bool = True) -> str:
        w = self.const((self.rng.standard_normal((k, n)) / math.sqrt(k)).astype(np.float32),
                       f"{name}_w")
        y = self.op("MatMul", [x, w], name)
        if bias:
            b = self.const((0.1 * self.rng.standard_normal(n)).astype(np.float32), f"{name}_b")
            y = self.op("Add", [y, b], f"{name}_bias")
        return y

    def layer_norm(self, x: str, n: int, name: str, decomposed: bool = False) -> str:
        scale = self.const((1 + 0.1 * self.rng.standard_normal(n)).astype(np.float32))
        bias = self.const((0.1 * self.rng.standard_normal(n)).astype(np.float32))
        if not decomposed:
            return self.op("LayerNormalization", [x, scale, bias], name, axis=-1,
                           epsilon=1e-5)
        mean = self.op("ReduceMean", [x], f"{name}_mean", axes=[-1])
        d = self.op("Sub", [x, mean], f"{name}_d")
        sq = self.op("Pow", [d, self.const(np.array(2.0, np.float32))], f"{name}_sq")
        var = self.op("ReduceMean", [sq], f"{name}_var", axes=[-1])
        eps = self.op("Add", [var, self.const(np.array(1e-5, np.float32))], f"{name}_eps")
        std = self.op("Sqrt", [eps], f"{name}_std")
        norm = self.op("Div", [d, std], f"{name}_norm")
        return self.op("Add", [self.op("Mul", [norm, scale], f"{name}_mul"), bias], name)

    def gelu_erf(self, x: str, name: str) -> str:
        """x·0.5·(1 + erf(x/√2)), as torch.onnx writes nn.GELU()."""
        s = self.op("Div", [x, self.const(np.array(math.sqrt(2), np.float32))], f"{name}_div")
        e = self.op("Erf", [s], f"{name}_erf")
        p = self.op("Add", [e, self.const(np.array(1.0, np.float32))], f"{name}_add")
        m = self.op("Mul", [x, p], f"{name}_mul")
        return self.op("Mul", [m, self.const(np.array(0.5, np.float32))], name)

    def model(self, y: str, y_shape: tuple[int, ...], opset: int = 17) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes, "floats",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, self.x_shape)],
            [helper.make_tensor_value_info(y, TensorProto.FLOAT, y_shape)], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8
        onnx.checker.check_model(model, full_check=True)
        return model


class _Reader(CalibrationDataReader):
    def __init__(self, inputs: list[np.ndarray]) -> None:
        self.data = iter([{"x": x} for x in inputs])

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self.data, None)


def inputs(shape: tuple[int, ...], count: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(count)]


def quantize(tmp: Path, model: onnx.ModelProto, name: str, op_types: Sequence[str],
             symmetric: bool = True, exclude: Sequence[str] = ()) -> Path:
    """``model`` quantized by ``quantize_static`` (QDQ, int8), ``op_types`` only."""
    shape = tuple(d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim)
    src, dst = tmp / f"{name}.onnx", tmp / f"{name}.q.onnx"
    onnx.save(model, src)
    quantize_static(str(src), str(dst), _Reader(inputs(shape, 8, 7)),
                    quant_format=QuantFormat.QDQ, activation_type=QuantType.QInt8,
                    weight_type=QuantType.QInt8, op_types_to_quantize=list(op_types),
                    nodes_to_exclude=list(exclude),
                    extra_options={"ActivationSymmetric": symmetric})
    return dst


Builder = Callable[[], tuple[onnx.ModelProto, tuple[int, ...]]]


def encoder_block(decomposed: bool = False) -> tuple[onnx.ModelProto, tuple[int, ...]]:
    """1×16×32: MatMul → bias → LayerNorm → MatMul → GELU → MatMul → residual Add →
    LayerNorm (the feed-forward half of a BERT layer)."""
    g = Graph((1, 16, 32))
    h = g.matmul("x", 32, 32, "proj")
    ln1 = g.layer_norm(h, 32, "ln1", decomposed)
    up = g.gelu_erf(g.matmul(ln1, 32, 64, "up"), "gelu")
    down = g.matmul(up, 64, 32, "down")
    res = g.op("Add", [down, ln1], "residual")
    return g.model(g.layer_norm(res, 32, "ln2", decomposed), (1, 16, 32)), (1, 16, 32)


def head_split(float_bias: bool = True) -> tuple[onnx.ModelProto, tuple[int, ...]]:
    """1×8×16: MatMul → bias Add → Reshape [1, 8, 2, 8] → Transpose (0, 2, 1, 3) → Softmax (the
    heads of an attention layer's projection, read in float)."""
    g = Graph((1, 8, 16), seed=1)
    y = g.matmul("x", 16, 16, "query")
    y = g.op("Reshape", [y, g.const(np.array([1, 8, 2, 8], np.int64))], "split")
    y = g.op("Transpose", [y], "heads", perm=[0, 2, 1, 3])
    return g.model(g.op("Softmax", [y], "probs", axis=-1), (1, 2, 8, 8)), (1, 2, 8, 8)


def rows_matmul() -> tuple[onnx.ModelProto, tuple[int, ...]]:
    """2×4×16 by 16×8 with a bias: one product of the 8×16 rows."""
    g = Graph((2, 4, 16), seed=2)
    return g.model(g.matmul("x", 16, 8, "dense"), (2, 4, 8)), (2, 4, 8)


def kept_value() -> tuple[onnx.ModelProto, tuple[int, ...]]:
    """1×8×16: LayerNorm of the float input, a MatMul of it, the LayerNorm's float output
    added back (a float value two host layers share, around a device layer)."""
    g = Graph((1, 8, 16), seed=3)
    ln = g.layer_norm("x", 16, "ln")
    y = g.matmul(ln, 16, 16, "dense", bias=False)
    return g.model(g.op("Add", [y, ln], "residual"), (1, 8, 16)), (1, 8, 16)


def heads_product() -> tuple[onnx.ModelProto, tuple[int, ...]]:
    """The heads of :func:`head_split` multiplied by a constant 8×8 weight."""
    g = Graph((1, 8, 16), seed=1)
    y = g.matmul("x", 16, 16, "query")
    y = g.op("Reshape", [y, g.const(np.array([1, 8, 2, 8], np.int64))], "split")
    y = g.op("Transpose", [y], "heads", perm=[0, 2, 1, 3])
    return g.model(g.matmul(y, 8, 8, "per_head", bias=False), (1, 2, 8, 8)), (1, 2, 8, 8)
