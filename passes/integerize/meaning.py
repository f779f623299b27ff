"""What a buffer holds while ``vta-integerize`` reads a function (``docs/onnx.md`` §3–§4): the
cases of :data:`Meaning` (int8 codes, their reals, accumulators, constants, ...), the arrays of
the ``memref.global`` constants, and :class:`Unsupported`, the error at an op the reading does
not take.  The reading itself is :mod:`.lift`'s."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    Float32Type,
    Float64Type,
    IntegerType,
    ModuleOp,
)
from xdsl.ir import Attribute, BlockArgument, Operation

from vta_mlir.ir.dense import dense_int_array, dense_resource_array
from vta_mlir.ir.upstream_fixes.resources import module_resources
from vta_mlir.quant.program import QTensor

__all__ = [
    "Accumulator",
    "ActivationProduct",
    "Added",
    "Codes",
    "Const",
    "DequantizedWeight",
    "Filled",
    "FloatInput",
    "Meaning",
    "Padded",
    "PooledMax",
    "Real",
    "ScaledAccumulator",
    "Sum",
    "Unsupported",
    "channel_bias",
    "global_array",
]


class Unsupported(Exception):
    """The function holds something this reading does not take: ``op`` and why."""

    def __init__(self, op: Operation, message: str) -> None:
        super().__init__(message)
        self.op = op


# ---------------------------------------------------------------------------------------------
# What a buffer holds


@dataclass(frozen=True)
class Codes:
    """The int8 codes of ``tensor``; with ``unsigned`` its uint8 codes, ``q + 128`` (the
    tensor's zero point is the uint8 one minus 128, ``docs/onnx.md`` §2)."""

    tensor: QTensor
    unsigned: bool = False


@dataclass(frozen=True)
class Real:
    """The dequantized reals of ``tensor``'s codes: ``scale · (q − zero_point)``."""

    tensor: QTensor


@dataclass(frozen=True)
class Const:
    """A constant array; ``source`` the codes, scale and zero point it was dequantized from,
    when it is an int8 constant dequantized per tensor (a ``Mul`` by a constant)."""

    array: np.ndarray
    source: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None


@dataclass(frozen=True)
class Filled:
    """A buffer filled with one value."""

    value: float


@dataclass(frozen=True)
class Padded:
    """``source`` (codes or reals) inside a border of ``value``; ``pads`` top, left, bottom,
    right."""

    source: Codes | Real
    pads: tuple[int, int, int, int]
    value: float


@dataclass(frozen=True)
class Accumulator:
    """The int32 accumulator of a convolution (``stride``, ``pads``) or a matrix product on
    ``x``'s codes with the zero point subtracted, plus ``bias`` (per output channel)."""

    op: Operation
    x: QTensor
    weight: np.ndarray
    bias: np.ndarray
    stride: tuple[int, int] | None = None
    pads: tuple[int, int, int, int] = (0, 0, 0, 0)
    #: A depthwise convolution (``passes/integerize/depthwise.py``), ``weight`` C × 1 × KH × KW.
    depthwise: bool = False


@dataclass(frozen=True)
class ActivationProduct:
    """The int32 accumulator ``acc[b] = a[b]·c[b]`` of two int8 activations stored as the
    batches ``B×M×K`` and ``B×K×N`` (zero points 0), ``B×M×N`` (``batch.py``)."""

    op: Operation
    a: QTensor
    b: QTensor

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.a.shape[0], self.a.shape[1], self.b.shape[2])


@dataclass(frozen=True)
class ScaledAccumulator:
    """``scale · acc + bias``: an accumulator as reals; ``bias`` reals per output channel;
    ``scale`` one per output channel with per-channel weight scales. ``exact`` when the
    program computes it as ``float32(acc) · float32(scale)``, one rounding (then the host can
    requantize the product exactly as the program does, ``docs/onnx.md`` §4.19)."""

    acc: Accumulator | ActivationProduct
    scale: float | np.ndarray
    bias: np.ndarray | None = None
    exact: bool = False


@dataclass(frozen=True)
class DequantizedWeight:
    """The reals of an int8 constant with scales and zero points along ``axis``:
    ``scale[i] · (q − zero_point[i])`` (per-channel weights)."""

    q: np.ndarray
    scale: np.ndarray
    zero_point: np.ndarray
    axis: int


@dataclass(frozen=True)
class PooledMax:
    """The max-pool of ``x``'s reals (padded with −∞)."""

    op: Operation
    x: QTensor
    kernel: tuple[int, int]
    stride: tuple[int, int]
    pads: tuple[int, int, int, int]


@dataclass(frozen=True)
class Sum:
    """The sum of ``x``'s reals over the whole image, divided by ``divisor``."""

    op: Operation
    x: QTensor
    divisor: float = 1.0


@dataclass(frozen=True)
class WindowSum:
    """The sums of ``x``'s reals over each window (``kernel``, ``stride``, the image padded by
    ``pads`` with the real 0), divided by ``divisor``: one value, or an OH × OW array."""

    op: Operation
    x: QTensor
    kernel: tuple[int, int]
    stride: tuple[int, int]
    pads: tuple[int, int, int, int]
    divisor: float | np.ndarray = 1.0


@dataclass(frozen=True)
class Added:
    """``a``'s reals plus ``b``'s."""

    op: Operation
    a: QTensor
    b: QTensor


@dataclass(frozen=True)
class FloatInput:
    """The function's float argument."""

    arg: BlockArgument


#: What a value of the float program is, as this module defines it. The form modules add
#: meanings of their own (``depthwise.Nhwc`` and ``Clipped``, ``gather.Gathered``,
#: ``hard.Chain``, ``host.HostFloat``, ...), which import this module and so are not listed.
Meaning = (Codes | Real | Const | Filled | Padded | Accumulator | ActivationProduct
           | ScaledAccumulator | PooledMax | Sum | WindowSum | Added | FloatInput
           | DequantizedWeight)


def global_array(module: ModuleOp, op: memref.GetGlobalOp) -> np.ndarray:
    """The array a ``memref.global`` constant holds (dense or a dense resource)."""
    name = op.name_.root_reference.data
    found = next((g for g in module.walk() if isinstance(g, memref.GlobalOp)
                  and g.sym_name.data == name), None)
    if found is None:
        raise Unsupported(op, f"global @{name} is not defined")
    t = found.type
    shape = tuple(t.get_shape())
    init: Attribute = found.initial_value
    element = t.element_type
    if isinstance(init, DenseResourceAttr):
        try:
            return np.asarray(dense_resource_array(init, module_resources(module)))
        except ValueError as exc:
            raise Unsupported(op, str(exc)) from None
    if isinstance(init, DenseIntOrFPElementsAttr):
        if isinstance(element, IntegerType):
            array = dense_int_array(init, shape)
            if array is not None:
                return array
        if isinstance(element, Float32Type | Float64Type):
            dtype = np.float32 if isinstance(element, Float32Type) else np.float64
            flat = np.frombuffer(init.data.data, dtype=dtype)
            if flat.size == 1:
                flat = np.full(int(np.prod(shape)), flat[0], dtype)
            return flat.reshape(shape)
    raise Unsupported(op, f"global @{name} holds no dense constant")


def channel_bias(op: Operation, init: Meaning, channels: int, axis: int) -> np.ndarray:
    """The per-channel bias an accumulator starts from (a fill with 0, or a bias broadcast
    along ``axis``, its channels)."""
    if isinstance(init, Filled) and init.value == 0:
        return np.zeros(channels, np.int64)
    if isinstance(init, Const):
        array = init.array.astype(np.int64)
        vector = array[tuple(slice(None) if d == axis else 0 for d in range(array.ndim))]
        others = tuple(d for d in range(array.ndim) if d != axis)
        if vector.size == channels and np.array_equal(
                array, np.broadcast_to(np.expand_dims(vector, others), array.shape)):
            return vector
    raise Unsupported(op, "an accumulator starts from 0 or a bias broadcast along its "
                          "channels")
