"""The float semantics of the host's float layers (``docs/onnx.md`` §4.15), written
independently of the compiler with numpy: every operation rounded once to float32, the
transcendental functions computed in float64 and rounded once, every reduction a left fold in
index order. :func:`float_op` computes one ONNX operation; :func:`quantize` and
:func:`dequantize` are QuantizeLinear and DequantizeLinear."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

F32 = np.float32

#: A float result of the host against onnxruntime's float kernels (docs/onnx.md §4.15):
#: |Δ| ≤ FLOAT_TOLERANCE · (1 + |y|).
FLOAT_TOLERANCE = 2.0 ** -14


def quantize(x: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
    return np.clip(np.rint(x.astype(F32) / F32(scale)) + zero_point, -128, 127).astype(np.int8)


def dequantize(q: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
    return (q.astype(np.int32) - zero_point).astype(F32) * F32(scale)


def _once(function: object, x: np.ndarray) -> np.ndarray:
    """``function`` in float64, rounded once to float32."""
    return np.vectorize(function, otypes=[np.float64])(x.astype(np.float64)).astype(F32)


def fold_sum(x: np.ndarray, axes: Sequence[int]) -> np.ndarray:
    """Σ over ``axes`` (kept as dimensions of 1), a left fold in index order in float32."""
    rest = [k for k in range(x.ndim) if k not in axes]
    moved = np.transpose(x, [*rest, *axes])
    flat = moved.reshape(*moved.shape[:len(rest)], -1)
    total = np.zeros(flat.shape[:-1], F32)
    for k in range(flat.shape[-1]):
        total = total + flat[..., k]
    keep = [1 if k in axes else n for k, n in enumerate(x.shape)]
    return total.reshape(keep)


def layer_norm(x: np.ndarray, scale: np.ndarray, bias: np.ndarray | None, axis: int,
               epsilon: float) -> np.ndarray:
    axes = list(range(axis % x.ndim, x.ndim))
    n = F32(math.prod(x.shape[a] for a in axes))
    mean = fold_sum(x, axes) / n
    d = x - mean
    var = fold_sum(d * d, axes) / n
    r = np.sqrt(var + F32(epsilon))
    y = d / r * scale
    return y + bias if bias is not None else y


def gelu(x: np.ndarray, approximate: str = "none") -> np.ndarray:
    half, one = F32(0.5), F32(1.0)
    if approximate == "tanh":
        u = x + x * x * x * F32(0.044715)
        e = _once(math.tanh, u * F32(math.sqrt(2 / math.pi)))
    else:
        e = _once(math.erf, x * F32(math.sqrt(0.5)))
    return x * half * (e + one)


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = _once(math.exp, x - x.max(axis=axis, keepdims=True))
    return e / fold_sum(e, [axis % x.ndim])


def float_op(op: str, inputs: list[np.ndarray], attrs: dict) -> np.ndarray:
    """One ONNX operation on float32 arrays."""
    x = inputs[0]
    binary = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}
    if op in binary:
        return binary[op](x, inputs[1]).astype(F32)
    if op == "Pow":
        return (x.astype(np.float64) ** float(inputs[1])).astype(F32)
    if op == "Sqrt":
        return np.sqrt(x)
    if op == "Erf":
        return _once(math.erf, x)
    if op == "Tanh":
        return _once(math.tanh, x)
    if op == "Relu":
        return np.maximum(x, F32(0))
    if op == "Softmax":
        return softmax(x, attrs.get("axis", -1))
    if op == "ReduceMean":
        axes = [a % x.ndim for a in attrs["axes"]]
        mean = fold_sum(x, axes) / F32(math.prod(x.shape[a] for a in axes))
        return mean if attrs.get("keepdims", 1) else mean.squeeze(tuple(axes))
    if op == "LayerNormalization":
        return layer_norm(x, inputs[1], inputs[2] if len(inputs) > 2 else None,
                          attrs.get("axis", -1), attrs.get("epsilon", 1e-5))
    if op == "Gelu":
        return gelu(x, attrs.get("approximate", "none"))
    if op in ("Identity", "Cast"):
        return x
    if op == "Reshape":
        return x.reshape(attrs["shape"])
    if op == "Transpose":
        return np.transpose(x, attrs["perm"])
    raise ValueError(op)
