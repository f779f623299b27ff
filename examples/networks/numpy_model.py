"""An independent numpy model of the int8 networks of ``examples/networks/``.

A network is a list of layers, each reading named int8 buffers and writing one; the input is
the buffer ``"input"``. The layer records (:class:`Conv`, :class:`MaxPool`,
:class:`GlobalAvgPool`, :class:`Dense`) hold the weights and every constant of the layer's
requantization, so the MLIR generators (``network_mlir.py``) and this model read the same
numbers; the semantics below are written here with plain numpy, without any part of
``vta_mlir``, so that a comparison with the compiler's results checks the compiler.

Integer semantics (every ``i32`` step wraps at 32 bits, as the accelerator's ALU does):

* convolution: ``acc = sum(x * w)`` over the zero-padded window (int64 products and sums,
  then wrapped to int32), ``v = (acc + bias) >> shift`` (arithmetic; the layer's
  ``epilogue`` ``"bias-shift"``) or ``v = (acc >> shift) + bias`` (``"shift-bias"``: a bias in
  output units), ``v += residual`` when the layer has one, then ``clip(v, 0, 127)`` with ReLU
  or ``clip(v, -128, 127)`` without;
* max-pool: the window maximum over the input padded with ``pad_value`` (0 or -128);
* global average pool: ``clip((sum over H and W) * multiplier >> shift, -128, 127)``;
* fully connected: ``clip((x @ w + bias) >> shift, -128, 127)`` with ``w`` given K×N, the
  input flattened to ``N × (C·H·W)`` first (``clip(((x @ w) >> shift) + bias, -128, 127)``
  with the epilogue ``"shift-bias"``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

__all__ = [
    "EPILOGUES",
    "Conv",
    "Dense",
    "GlobalAvgPool",
    "Layer",
    "MaxPool",
    "Network",
    "conv_accumulator",
    "dense_accumulator",
    "evaluate",
    "requantize",
    "run_layer",
    "wrap32",
]

INPUT = "input"
#: Where a layer with weights adds its bias: before the shift, ``(acc + bias) >> shift``, or
#: after it, ``(acc >> shift) + bias`` (a bias in output units, as many hand-written models
#: have it).
EPILOGUES = ("bias-shift", "shift-bias")


@dataclass(frozen=True, eq=False)
class Conv:
    """A 2-D convolution (NCHW data, OIHW int8 weights, square kernel) with its
    requantization ``clip(((acc + bias) >> shift) [+ residual], lo, 127)``, or
    ``clip(((acc >> shift) + bias) [+ residual], lo, 127)`` with ``epilogue="shift-bias"``."""

    name: str
    src: str
    weight: np.ndarray
    bias: np.ndarray
    stride: int
    pad: int
    shift: int
    relu: bool = True
    residual: str | None = None
    epilogue: str = EPILOGUES[0]

    @property
    def sources(self) -> tuple[str, ...]:
        return (self.src,) if self.residual is None else (self.src, self.residual)

    def out_shape(self, in_shape: tuple[int, ...]) -> tuple[int, int, int, int]:
        n, _, h, w = in_shape
        k = self.weight.shape[2]
        return (n, self.weight.shape[0], (h + 2 * self.pad - k) // self.stride + 1,
                (w + 2 * self.pad - k) // self.stride + 1)


@dataclass(frozen=True, eq=False)
class MaxPool:
    """A square max-pool window over the input padded with ``pad_value`` (0 or -128)."""

    name: str
    src: str
    kernel: int
    stride: int
    pad: int
    pad_value: int = -128

    @property
    def sources(self) -> tuple[str, ...]:
        return (self.src,)

    def out_shape(self, in_shape: tuple[int, ...]) -> tuple[int, int, int, int]:
        n, c, h, w = in_shape
        return (n, c, (h + 2 * self.pad - self.kernel) // self.stride + 1,
                (w + 2 * self.pad - self.kernel) // self.stride + 1)


@dataclass(frozen=True, eq=False)
class GlobalAvgPool:
    """The average over H and W as ``clip((sum * multiplier) >> shift, -128, 127)``, output
    ``N × C × 1 × 1``."""

    name: str
    src: str
    multiplier: int
    shift: int

    @property
    def sources(self) -> tuple[str, ...]:
        return (self.src,)

    def out_shape(self, in_shape: tuple[int, ...]) -> tuple[int, int, int, int]:
        return (in_shape[0], in_shape[1], 1, 1)


@dataclass(frozen=True, eq=False)
class Dense:
    """A fully connected layer on the flattened input, K×N int8 weights:
    ``clip((x @ w + bias) >> shift, -128, 127)``, or ``clip(((x @ w) >> shift) + bias, -128,
    127)`` with ``epilogue="shift-bias"``."""

    name: str
    src: str
    weight: np.ndarray
    bias: np.ndarray
    shift: int
    epilogue: str = EPILOGUES[0]

    @property
    def sources(self) -> tuple[str, ...]:
        return (self.src,)

    def out_shape(self, in_shape: tuple[int, ...]) -> tuple[int, int]:
        return (in_shape[0], self.weight.shape[1])


Layer = Conv | MaxPool | GlobalAvgPool | Dense


@dataclass(eq=False)
class Network:
    """Layers in execution order; each writes the buffer named after it. The last layer's
    buffer is the network's output."""

    name: str
    input_shape: tuple[int, int, int, int]
    layers: list[Layer] = field(default_factory=list)

    @property
    def output(self) -> str:
        return self.layers[-1].name

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """The shape of every buffer: the input and each layer's output."""
        shapes: dict[str, tuple[int, ...]] = {INPUT: self.input_shape}
        for layer in self.layers:
            shapes[layer.name] = layer.out_shape(shapes[layer.src])
        return shapes

    def weighted(self) -> Iterator[Conv | Dense]:
        """The layers with weights and biases, in order."""
        return (lay for lay in self.layers if isinstance(lay, Conv | Dense))


# ---------------------------------------------------------------------------------------------
# Semantics


def wrap32(a: np.ndarray) -> np.ndarray:
    """Two's-complement wrap of an integer array to int32 (what a 32-bit ALU keeps)."""
    return np.asarray(a).astype(np.int64).astype(np.uint32).view(np.int32)


def _pad(x: np.ndarray, pad: int, value: int) -> np.ndarray:
    if pad == 0:
        return x
    return np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), constant_values=value)


def _windows(x: np.ndarray, kernel: int, stride: int, out_h: int, out_w: int) -> np.ndarray:
    """``(N, C, OH, OW, K, K)``: the ``kernel × kernel`` window of every output position."""
    view = sliding_window_view(x, (kernel, kernel), axis=(2, 3))
    return view[:, :, ::stride, ::stride][:, :, :out_h, :out_w]


def conv_accumulator(layer: Conv, x: np.ndarray) -> np.ndarray:
    """The int32 accumulator of the convolution (before bias and shift)."""
    _, _, oh, ow = layer.out_shape(x.shape)
    k = layer.weight.shape[2]
    patches = _windows(_pad(x.astype(np.int64), layer.pad, 0), k, layer.stride, oh, ow)
    # im2col: (N·OH·OW) × (C·K·K) patches times (C·K·K) × O weights, int64 products and sums.
    n, c = x.shape[:2]
    cols = patches.transpose(0, 2, 3, 1, 4, 5).reshape(n * oh * ow, c * k * k)
    acc = cols @ layer.weight.astype(np.int64).reshape(layer.weight.shape[0], -1).T
    return wrap32(acc.reshape(n, oh, ow, -1).transpose(0, 3, 1, 2))


def dense_accumulator(layer: Dense, x: np.ndarray) -> np.ndarray:
    """The int32 accumulator of the fully connected layer (before bias and shift)."""
    flat = x.reshape(x.shape[0], -1).astype(np.int64)
    return wrap32(flat @ layer.weight.astype(np.int64))


def _clip8(v: np.ndarray, lo: int) -> np.ndarray:
    return np.clip(v, lo, 127).astype(np.int8)


def requantize(acc: np.ndarray, bias: np.ndarray, shift: int, epilogue: str) -> np.ndarray:
    """The int32 accumulator ``acc`` with its bias (broadcast along axis 1) and shift, in the
    order ``epilogue`` says; every addition wraps at 32 bits."""
    bias = bias.astype(np.int64).reshape(1, -1, *([1] * (acc.ndim - 2)))
    if epilogue == "bias-shift":
        return wrap32(acc.astype(np.int64) + bias) >> shift
    if epilogue == "shift-bias":
        return wrap32((acc >> shift).astype(np.int64) + bias)
    raise ValueError(f"epilogue must be one of {', '.join(EPILOGUES)}, not {epilogue!r}")


def run_layer(layer: Layer, buffers: dict[str, np.ndarray]) -> np.ndarray:
    """The int8 output of ``layer`` given the buffers it reads."""
    x = buffers[layer.src]
    if isinstance(layer, Conv):
        v = requantize(conv_accumulator(layer, x), layer.bias, layer.shift, layer.epilogue)
        if layer.residual is not None:
            v = wrap32(v.astype(np.int64) + buffers[layer.residual].astype(np.int64))
        return _clip8(v, 0 if layer.relu else -128)
    if isinstance(layer, MaxPool):
        _, _, oh, ow = layer.out_shape(x.shape)
        padded = _pad(x, layer.pad, layer.pad_value)
        return _windows(padded, layer.kernel, layer.stride, oh, ow).max(axis=(4, 5))
    if isinstance(layer, GlobalAvgPool):
        total = wrap32(x.astype(np.int64).sum(axis=(2, 3), keepdims=True))
        v = wrap32(total.astype(np.int64) * layer.multiplier) >> layer.shift
        return _clip8(v, -128)
    v = requantize(dense_accumulator(layer, x), layer.bias, layer.shift, layer.epilogue)
    return _clip8(v, -128)


def evaluate(net: Network, x: np.ndarray) -> dict[str, np.ndarray]:
    """Every buffer of ``net`` for the int8 input ``x``: ``"input"`` and one per layer."""
    if x.shape != net.input_shape or x.dtype != np.int8:
        raise ValueError(f"{net.name}: input {x.dtype}{list(x.shape)}, expected "
                         f"int8{list(net.input_shape)}")
    buffers: dict[str, np.ndarray] = {INPUT: x}
    for layer in net.layers:
        buffers[layer.name] = run_layer(layer, buffers)
    return buffers
