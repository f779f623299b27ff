"""The documented integer semantics (``docs/onnx.md`` §4.7–) of the neck and head operators,
written independently of the compiler for :func:`tests.onnx_semantics.integer_model`: each
function takes the node's attributes, its inputs (codes with their quantization, or a
constant's array), the output quantization and the importer's layers for the node (only
their requantization constants are read), and returns the output codes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import onnx

from tests.onnx_semantics import fixed_point_requant, round_half_up_shift
from vta_mlir.frontend.onnx import choose_requant, choose_requant_channels

__all__ = ["CNN_OPS", "cnn_op"]

Codes = tuple[np.ndarray, Any, int]


def average_pool(attrs: dict[str, Any], x: Codes, sy: float, zy: int,
                 layers: Iterator[Any]) -> np.ndarray:
    """Σ over the taps inside the image of (q − zx), divided by KH·KW (``count_include_pad``)
    or by the taps inside, requantized (§3) per divisor."""
    q, sx, zx = x
    kh, kw = attrs["kernel_shape"]
    sh, sw = attrs.get("strides", [1, 1])
    pt, pl, pb, pr = attrs.get("pads", [0, 0, 0, 0])
    n, c, h, w = q.shape
    oh, ow = (h + pt + pb - kh) // sh + 1, (w + pl + pr - kw) // sw + 1
    real = np.pad(q - zx, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    inside = np.pad(np.ones((h, w), np.int64), ((pt, pb), (pl, pr)))
    acc = np.zeros((n, c, oh, ow), np.int64)
    count = np.zeros((oh, ow), np.int64)
    for i in range(kh):
        for j in range(kw):
            acc += real[:, :, i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw]
            count += inside[i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw]
    layer = next(layers)
    rq = layer.rq
    if attrs.get("count_include_pad", 0) or np.all(count == kh * kw):
        assert rq == choose_requant(sx / (sy * kh * kw)) and layer.multipliers is None
        y = fixed_point_requant(acc, rq.s1, rq.m, rq.s2, rq.clip)
    else:
        divisors = sorted(set(count.reshape(-1).tolist()))
        assert rq == choose_requant_channels([sx / (sy * d) for d in divisors])
        m = np.vectorize(dict(zip(divisors, rq.channel_m, strict=True)).get)(count)
        np.testing.assert_array_equal(layer.multipliers, m)
        t = np.clip((acc + ((1 << rq.s1) >> 1)) >> rq.s1, -rq.clip, rq.clip) * m
        y = round_half_up_shift(t, rq.s2)
    return np.clip(y + zy, -128, 127)


def rescale(x: Codes, sy: float, zy: int) -> np.ndarray:
    """§4.11: ``round((q − zx)·m / 2^shift) + zy``, ``shift`` the largest with ``sx/sy·2^shift ≤
    2^22``, ``m`` the integer nearest ``sx/sy·2^shift`` that is a 16-bit immediate or a product
    of two, rounding to nearest with ties up; clipped to int8."""
    q, sx, zx = x
    ratio, shift = sx / sy, 0
    while ratio * 2.0 ** (shift + 1) <= 1 << 22 and shift < 30:
        shift += 1
    target = ratio * 2.0 ** shift
    candidates = [round(target)] if target <= 32767 else [
        a * round(target / a) for a in range(-(-int(target) // 32767), 32768)
        if 1 <= round(target / a) <= 32767]
    m = min(candidates, key=lambda c: abs(c - target))
    return np.clip(round_half_up_shift((q - zx) * m, shift) + zy, -128, 127)


def concat(attrs: dict[str, Any], *args: Any) -> np.ndarray:
    """The inputs along the channels, each requantized to the output's parameters unless it
    has them (§4.11)."""
    *inputs, sy, zy, layers = args
    parts = []
    for q, sx, zx in inputs:
        if (sx, zx) == (sy, zy):
            parts.append(q)
        else:
            next(layers)  # the input's rescale
            parts.append(rescale((q, sx, zx), sy, zy))
    next(layers)
    return np.concatenate(parts, axis=1)


def resize(attrs: dict[str, Any], x: Codes, roi: Any, scales: Any, *rest: Any) -> np.ndarray:
    """A nearest ``Resize`` on the codes (the quantization is kept): each output index reads
    the input index of ONNX's coordinate transformation and nearest mode."""
    *sizes, sy, zy, layers = rest
    q, sx, zx = x
    assert (sx, zx) == (sy, zy)
    next(layers)
    shape = [int(v) for v in sizes[0].reshape(-1)] if sizes and sizes[0] is not None else \
        [int(np.floor(d * f)) for d, f in zip(q.shape, scales.reshape(-1), strict=True)]
    transform = attrs.get("coordinate_transformation_mode", b"half_pixel").decode()
    rounding = attrs.get("nearest_mode", b"round_prefer_floor").decode()
    out = q
    for axis in (2, 3):
        size, count = q.shape[axis], shape[axis]
        o = np.arange(count) + 0.5
        x_in = {"half_pixel": o * size / count - 0.5, "asymmetric": (o - 0.5) * size / count,
                "pytorch_half_pixel": o * size / count - 0.5}[transform]
        index = {"round_prefer_floor": np.ceil(x_in - 0.5), "floor": np.floor(x_in),
                 "round_prefer_ceil": np.floor(x_in + 0.5), "ceil": np.ceil(x_in)}[rounding]
        out = np.take(out, np.clip(index, 0, size - 1).astype(np.int64), axis=axis)
    return out


def mul(attrs: dict[str, Any], a: Any, b: Any, sy: float, zy: int,
        layers: Iterator[Any]) -> np.ndarray:
    """§4.13: ``(q − zx)·(q_k − z_k)``, the constant per tensor or per channel, requantized
    with ``M = sx·sk / sy`` (§3, its rounding constant added first)."""
    (q, sx, zx), (k, sk, zk) = (a, b) if np.ndim(a[0]) == 4 and a[0].size > b[0].size else (b, a)
    layer = next(layers)
    rq = layer.rq
    assert rq == choose_requant(sx * sk / sy)
    c = (k.astype(np.int64) - zk).reshape((1, -1, 1, 1) if k.size > 1 else ())
    y = fixed_point_requant((q - zx) * c, rq.s1, rq.m, rq.s2, rq.clip)
    return np.clip(y + zy, -128, 127)


def _hard(attrs: dict[str, Any], x: Codes, sy: float, zy: int, layers: Iterator[Any],
          swish: bool, alpha: float, beta: float) -> np.ndarray:
    """§4.14: ``H = clip(m·(v + ci) + cf, 0, D)``, ``m`` the layer's slope, ``ci`` and ``cf``
    the parts of ``β/(α·sx)``, ``D`` the value at ``h = 1``; ``v·H`` (HardSwish) or ``H``
    requantized with ``M = sx / (sy·D*)`` or ``1 / (sy·D*)``, ``D* = m / (α·sx)``."""
    q, sx, zx = x
    layer = next(layers)
    m, rate = layer.slope, alpha * sx
    whole = int(np.floor(beta / rate))
    assert 1 <= m <= 32767 and layer.offset == whole - zx
    assert layer.fraction == round(m * (beta / rate - whole)) and layer.top == round(m / rate)
    assert layer.rq == choose_requant((sx if swish else 1.0) * rate / (sy * m))
    h = np.clip(m * (q - zx + whole) + layer.fraction, 0, layer.top)
    rq = layer.rq
    y = fixed_point_requant((q - zx) * h if swish else h, rq.s1, rq.m, rq.s2, rq.clip)
    return np.clip(y + zy, -128, 127)


def hard_sigmoid(attrs: dict[str, Any], x: Codes, sy: float, zy: int,
                 layers: Iterator[Any]) -> np.ndarray:
    return _hard(attrs, x, sy, zy, layers, False, attrs.get("alpha", 0.2),
                 attrs.get("beta", 0.5))


def hard_swish(attrs: dict[str, Any], x: Codes, sy: float, zy: int,
               layers: Iterator[Any]) -> np.ndarray:
    return _hard(attrs, x, sy, zy, layers, True, 1 / 6, 0.5)


#: The operators of this module, each taking (attrs, the inputs: codes with their scale and
#: zero point, or a constant's array, sy, zy, the iterator of the importer's layers).
CNN_OPS = {"AveragePool": average_pool, "Concat": concat, "Resize": resize, "Mul": mul,
           "HardSigmoid": hard_sigmoid, "HardSwish": hard_swish}


def cnn_op(node: onnx.NodeProto, attrs: dict[str, Any], inputs: list[Any], sy: float,
           zy: int, layers: Iterator[Any]) -> np.ndarray:
    """The output codes of ``node`` (one of :data:`CNN_OPS`)."""
    return CNN_OPS[node.op_type](attrs, *inputs, sy, zy, layers)
