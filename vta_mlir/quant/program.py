"""The integer program of a quantized network: int8 tensors with their scales and zero points,
and layers whose constants are already folded (zero points into biases, scales into
:class:`~vta_mlir.quant.requant.Requant` multipliers). Frontends build it (the ONNX importer,
``vta-integerize`` from float requantization chains); :func:`~vta_mlir.quant.emit.emit_program`
writes it as the whole-network input IR. The integer semantics are ``docs/onnx.md`` §3–§4.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .activations import HardLayer, MulConstLayer
from .batch_product import BatchProductLayer
from .layers_cnn import AveragePoolLayer, ConcatLayer, RescaleLayer, ResizeLayer
from .requant import IMM_MAX, Requant

if TYPE_CHECKING:
    from .host_requant import HostRequant

__all__ = ["AddLayer", "AvgPoolLayer", "ConvLayer", "DenseLayer", "FloatTensor", "Layer",
           "MaxPoolLayer", "Program", "QTensor", "ADD_MULTIPLIER_MAX", "add_layer",
           "add_multipliers", "conv_layer", "immediate_factors", "immediate_product",
           "conv_zero_point_bias", "dense_layer", "global_avgpool_layer", "int32"]


@dataclass(frozen=True)
class QTensor:
    """An int8 tensor of the program: ``real = scale · (q − zero_point)``."""

    name: str
    shape: tuple[int, ...]
    scale: float
    zero_point: int


@dataclass(frozen=True)
class FloatTensor:
    """A float32 tensor at an edge of the program, which the host reads or writes as it is
    (float operations at the edge, :mod:`vta_mlir.quant.host_float`)."""

    name: str
    shape: tuple[int, ...]


@dataclass
class DenseLayer:
    """``acc = x·w + bias`` (``w`` K×N), requantized and clipped to ``[lo, hi]``; ``bias``
    holds the input zero point's term and the requantization's rounding constant."""

    name: str
    src: str
    weight: np.ndarray
    bias: np.ndarray
    rq: Requant
    zero_point: int
    lo: int
    hi: int
    dst: str


@dataclass
class ConvLayer:
    """``acc = conv(x zero-padded, w) + bias`` (``bias`` per channel, or per output element
    ``(O, OH, OW)`` when padding meets a non-zero input zero point; with the input zero point's
    term and the requantization's rounding constant), requantized and clipped."""

    name: str
    src: str
    weight: np.ndarray
    bias: np.ndarray
    stride: tuple[int, int]
    pads: tuple[int, int, int, int]
    rq: Requant
    zero_point: int
    lo: int
    hi: int
    dst: str


@dataclass
class MaxPoolLayer:
    """Max-pool on the int8 codes, padding with −128 (ONNX pads with −∞)."""

    name: str
    src: str
    kernel: tuple[int, int]
    stride: tuple[int, int]
    pads: tuple[int, int, int, int]
    dst: str


@dataclass
class AvgPoolLayer:
    """Global average pool: ``acc = Σ_hw q + bias`` (``bias = −H·W·zx`` plus the
    requantization's rounding constant), requantized."""

    name: str
    src: str
    bias: int
    rq: Requant
    zero_point: int
    dst: str


@dataclass
class AddLayer:
    """``round((a − za)·ma + (b − zb)·mb + c) / 2^shift) + zy`` (to nearest, ties up) clipped to
    ``[lo, hi]``. ``b`` is a tensor, or ``None`` when the second operand is a constant: ``c``
    then holds it rescaled, a per-column vector (otherwise ``c`` is 0)."""

    name: str
    a: str
    b: str | None
    za: int
    zb: int
    ma: int
    mb: int
    const: np.ndarray
    shift: int
    zero_point: int
    lo: int
    hi: int
    dst: str


Layer = (DenseLayer | ConvLayer | MaxPoolLayer | AvgPoolLayer | AddLayer | AveragePoolLayer
         | ConcatLayer | RescaleLayer | ResizeLayer | HardLayer | MulConstLayer
         | BatchProductLayer)


@dataclass
class Program:
    """The integer program of a QDQ model."""

    name: str
    #: The int8 input (a ``vta.quant`` host step quantizes the caller's floats), or a float
    #: input that float layers read.
    input: QTensor | FloatTensor
    output: QTensor | FloatTensor
    tensors: dict[str, QTensor] = field(default_factory=dict)
    layers: list[Layer] = field(default_factory=list)
    #: The output of each Flatten -> the tensor it is a view of.
    aliases: dict[str, str] = field(default_factory=dict)
    #: The ONNX shape of each int8 tensor stored in another shape (the rows of a product of a
    #: rank ≥ 3 activation, heads split out of them): (shape, split, perm), the stored tensor's
    #: C-order elements being those of the ONNX tensor reshaped to ``split`` and transposed by
    #: ``perm`` (docs/onnx.md §4.16).
    views: dict[str, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = field(
        default_factory=dict)
    #: The products whose int32 result the host requantizes (only float layers read their
    #: codes; docs/onnx.md §4.19), by output tensor: that tensor holds the accumulators.
    host_requant: dict[str, HostRequant] = field(default_factory=dict)

    def element(self, tensor: str) -> str:
        """The element type of ``tensor``'s buffer: ``i32`` for a product's accumulators the
        host requantizes, else ``i8``."""
        return "i32" if tensor in self.host_requant else "i8"


#: The largest rescale multiplier of an Add: ``|(a − za)·ma + (b − zb)·mb| ≤ 2·255·2^21 < 2^30``
#: never wraps in int32.
ADD_MULTIPLIER_MAX = 1 << 21


def immediate_product(target: float) -> int:
    """The integer nearest ``target`` (at most :data:`ADD_MULTIPLIER_MAX`) that is one ALU
    immediate or the product of two (:func:`immediate_factors`): the rescale of an Add is then
    one or two multiplications by immediates, with 21 bits where one would give 15."""
    if target <= IMM_MAX:
        return round(target)
    first = np.arange(math.ceil(target / IMM_MAX), IMM_MAX + 1, dtype=np.int64)
    second = np.clip(np.rint(target / first), 1, IMM_MAX).astype(np.int64)
    products = first * second
    return int(products[np.argmin(np.abs(products - target))])


def immediate_factors(m: int) -> tuple[int, ...]:
    """``m`` (from :func:`immediate_product`) as one immediate, or two whose product it is."""
    if m <= IMM_MAX:
        return (m,)
    first = np.arange(math.ceil(m / IMM_MAX), IMM_MAX + 1, dtype=np.int64)
    divides = first[m % first == 0]
    if not divides.size:
        raise ValueError(f"{m} is not a product of two 16-bit immediates")
    return (int(divides[0]), m // int(divides[0]))


def add_multipliers(ra: float, rb: float) -> tuple[int, int, int]:
    """``ma ≈ ra·2^shift``, ``mb ≈ rb·2^shift``, each a product of at most two immediates, the
    larger as large as :data:`ADD_MULTIPLIER_MAX` allows."""
    top = max(ra, rb)
    shift = 0
    while top * 2.0 ** (shift + 1) <= ADD_MULTIPLIER_MAX and shift < 30:
        shift += 1
    return (immediate_product(ra * 2.0 ** shift), immediate_product(rb * 2.0 ** shift), shift)


def conv_zero_point_bias(bias: np.ndarray, weight: np.ndarray, zero_point: int,
                         size: tuple[int, int], stride: tuple[int, int],
                         pads: tuple[int, int, int, int]) -> np.ndarray:
    """The bias of a convolution on int8 codes with the input zero point folded in
    (``docs/onnx.md`` §4.1): ``bias − zx·Σ w`` per output channel, or, where padding meets a
    non-zero ``zx`` (the real input is padded with 0, i.e. the codes with ``zx``, but the
    compiler pads the codes with 0), ``bias[o] − zx·Σ_{taps inside the input} w[o]`` per output
    element ``(O, OH, OW)``. ``size`` is the input's (H, W), ``pads`` (top, left, bottom,
    right)."""
    o, c, kh, kw = weight.shape
    h, wd = size
    sh, sw = stride
    pt, pl, pb, pr = pads
    wsum = weight.astype(np.int64)
    bias = np.asarray(bias, np.int64)
    if zero_point == 0 or not any(pads):
        return bias - zero_point * wsum.sum(axis=(1, 2, 3))
    oh, ow = (h + pt + pb - kh) // sh + 1, (wd + pl + pr - kw) // sw + 1
    # Tap (i, j) of output (a, b) reads input row a·sh − pt + i and column b·sw − pl + j; it
    # reads data when both are inside. The sum over those taps is rows · Σ_c w · columnsᵀ,
    # which needs no array larger than the result (O, OH, OW).
    rows = _inside(np.arange(oh)[:, None] * sh - pt + np.arange(kh)[None, :], h)
    cols = _inside(np.arange(ow)[:, None] * sw - pl + np.arange(kw)[None, :], wd)
    valid = rows[None] @ wsum.sum(axis=1) @ cols.T[None]
    return bias[:, None, None] - zero_point * valid


def _inside(index: np.ndarray, size: int) -> np.ndarray:
    """1 where ``index`` is in ``[0, size)``, else 0 (int64)."""
    return ((index >= 0) & (index < size)).astype(np.int64)


# ---------------------------------------------------------------------------------------------
# Layers from their operands: the zero points and the requantization's rounding constant folded
# into the biases (docs/onnx.md §4). Each raises ValueError when a folded constant does not fit
# int32.


def int32(values: np.ndarray) -> np.ndarray:
    """``values`` as int32; ``ValueError`` when one does not fit."""
    info = np.iinfo(np.int32)
    values = np.asarray(values)
    if values.size and (values.min() < info.min or values.max() > info.max):
        raise ValueError("a folded bias does not fit int32")
    return values.astype(np.int32)


def dense_layer(name: str, x: QTensor, weight: np.ndarray, bias: np.ndarray, y: QTensor,
                rq: Requant) -> DenseLayer:
    """``y = requant(x·weight + bias)`` on codes: ``weight`` K×N int8, ``bias`` the N int32
    values at the accumulator's scale (the input zero point not yet folded)."""
    # The input zero point, exactly: Σ (qx − zx)·w = Σ qx·w − zx·Σ_k w.
    folded = np.asarray(bias, np.int64) - x.zero_point * weight.astype(np.int64).sum(axis=0)
    return DenseLayer(name, x.name, np.ascontiguousarray(weight), int32(folded + rq.rounding),
                      rq, y.zero_point, -128, 127, y.name)


def conv_layer(name: str, x: QTensor, weight: np.ndarray, bias: np.ndarray,
               stride: tuple[int, int], pads: tuple[int, int, int, int], y: QTensor,
               rq: Requant) -> ConvLayer:
    """``y = requant(conv(x padded with its zero point, weight) + bias)`` on codes (NCHW,
    ``weight`` OIHW int8, ``bias`` per output channel, ``pads`` top, left, bottom, right)."""
    folded = conv_zero_point_bias(bias, weight, x.zero_point, (x.shape[2], x.shape[3]), stride,
                                  pads)
    return ConvLayer(name, x.name, weight, int32(folded + rq.rounding), stride, pads, rq,
                     y.zero_point, -128, 127, y.name)


def global_avgpool_layer(name: str, x: QTensor, y: QTensor, rq: Requant) -> AvgPoolLayer:
    """The global average pool of ``x`` (NCHW) into ``y`` (N×C×1×1); ``rq`` requantizes the
    sum, ``M = sx / (sy·H·W)``."""
    count = x.shape[2] * x.shape[3]
    return AvgPoolLayer(name, x.name, -count * x.zero_point + rq.rounding, rq, y.zero_point,
                        y.name)


def add_layer(name: str, a: QTensor, b: QTensor, y: QTensor) -> AddLayer:
    """``y = a + b`` of two tensors of one shape, each rescaled to ``y``'s scale."""
    ma, mb, shift = add_multipliers(a.scale / y.scale, b.scale / y.scale)
    return AddLayer(name, a.name, b.name, a.zero_point, b.zero_point, ma, mb,
                    np.zeros(1, np.int32), shift, y.zero_point, -128, 127, y.name)
