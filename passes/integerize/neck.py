"""Copies into views, and the layers of necks and heads that a quantize closes, for
``vta-integerize`` (``lift.py`` calls these).

A ``memref.copy`` into a ``memref.subview`` is read two ways: into a buffer filled with one
value, the padding of :class:`~.meaning.Padded`; into a fresh allocation, a slice of a
``tensor.concat`` (``vta-bufferize`` copies each input into its slice), held as
:class:`Concatenated`.  A concatenation of reals along the channels, quantized, is the ONNX
frontend's ``Concat`` (``docs/onnx.md`` §4.11): each part at another quantization than the
output's is rescaled to it first, then the parts are concatenated.

:func:`close` makes the layer of a quantize of the meanings of the neighbouring modules: a
nearest-resize gather (``gather.py``), a concatenation, a float function the host computes
(``host.py``) and an element-wise chain of hard activations or a ``Mul`` by a constant
(``hard.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from xdsl.dialects import memref
from xdsl.ir import Operation, SSAValue

from vta_mlir.quant.layers_cnn import ConcatLayer, rescale_layer
from vta_mlir.quant.program import Layer, QTensor

from .gather import Gathered, resize_layer
from .hard import Chain, chain_layer
from .host import HostFloat, host_layer
from .meaning import Codes, Filled, Meaning, Padded, Real, Unsupported
from .values import shape as _shape

__all__ = ["Concatenated", "close", "copy"]


class Lifter(Protocol):
    """What these functions use of the lifter."""

    held: dict[SSAValue, Meaning]
    error_bounds: list[float]

    def meaning(self, op: Operation, value: SSAValue) -> Meaning: ...

    def name(self, kind: str) -> str: ...

    def new_tensor(self, shape: tuple[int, ...], scale: float, zero_point: int) -> QTensor: ...

    def add(self, layer: Layer) -> None: ...


@dataclass(frozen=True)
class Concatenated:
    """Reals of tensors copied into a buffer of ``shape`` along its channels: ``parts`` the
    first channel of each and the tensor, in the order of the copies."""

    op: Operation
    shape: tuple[int, ...]
    parts: tuple[tuple[int, QTensor], ...] = ()


def copy(lifter: Lifter, op: memref.CopyOp) -> None:
    """A copy: of a whole buffer, into the interior of a filled one, or into a slice of a
    concatenation (module doc)."""
    view = op.destination.owner
    src = lifter.meaning(op, op.source)
    if not isinstance(view, memref.SubviewOp):
        lifter.held[op.destination] = src
        return
    whole = view.source
    held = lifter.held.get(whole)
    shape = _shape(whole)
    offsets = list(view.static_offsets.get_values())
    sizes = list(view.static_sizes.get_values())
    if any(s != 1 for s in view.static_strides.get_values()) or len(shape) != 4:
        raise Unsupported(op, "a copy into a view is read as padding or a concatenation of "
                              "NCHW data: unit strides")
    if held is None or isinstance(held, Concatenated):
        if not isinstance(src, Real) or offsets[0] or offsets[2:] != [0, 0] or \
                sizes[0] != shape[0] or sizes[2:] != list(shape[2:]):
            raise Unsupported(op, "a copy into a slice of a new buffer is read as a "
                                  "concatenation of dequantized codes along the channels")
        parts = held.parts if isinstance(held, Concatenated) else ()
        lifter.held[whole] = Concatenated(op, shape, (*parts, (offsets[1], src.tensor)))
        return
    if not isinstance(held, Filled) or not isinstance(src, Codes | Real):
        raise Unsupported(op, "a copy into a view is read as padding: a filled buffer, "
                              "int8 codes or their reals copied in")
    if offsets[:2] != [0, 0] or sizes[:2] != list(shape[:2]):
        raise Unsupported(op, "padding is read on the spatial dimensions of NCHW data")
    top, left = offsets[2], offsets[3]
    pads = (top, left, shape[2] - top - sizes[2], shape[3] - left - sizes[3])
    lifter.held[whole] = Padded(src, pads, held.value)


def _concat_layer(lifter: Lifter, op: Operation, src: Concatenated, y: QTensor) -> ConcatLayer:
    """The concatenation a quantize closes, each part rescaled to ``y`` where it differs."""
    first = 0
    names: list[str] = []
    name = lifter.name("concat")
    for k, (offset, x) in enumerate(src.parts):
        if offset != first:
            raise Unsupported(src.op, f"the slices of a concatenation are channels {first}.. "
                                      f"in order; this one starts at channel {offset}")
        first += x.shape[1]
        if (x.scale, x.zero_point) == (y.scale, y.zero_point):
            names.append(x.name)
            continue
        # As the ONNX frontend's Concat: the part requantized to the output's quantization.
        part = lifter.new_tensor(x.shape, y.scale, y.zero_point)
        layer = rescale_layer(f"{name}_rescale{k}", x.name, x.scale, x.zero_point, y.scale,
                              y.zero_point, part.name)
        multiplier = 1
        for factor in layer.factors:
            multiplier *= factor
        lifter.error_bounds.append(255 * abs(multiplier / 2.0 ** layer.shift
                                             - x.scale / y.scale))
        lifter.add(layer)
        names.append(part.name)
    if first != src.shape[1]:
        raise Unsupported(op, f"the concatenation fills channels 0..{first - 1} of "
                              f"{src.shape[1]}")
    return ConcatLayer(name, names, y.name)


def close(lifter: Lifter, op: Operation, src: Meaning, y: QTensor) -> Layer | None:
    """The layer a quantize of ``src`` into ``y`` closes, for the meanings of the module
    doc; None for the others."""
    if isinstance(src, Gathered):
        return resize_layer(lifter, op, src, y)
    if isinstance(src, Concatenated):
        return _concat_layer(lifter, op, src, y)
    if isinstance(src, HostFloat):
        return host_layer(lifter, op, src, y)
    if isinstance(src, Chain):
        return chain_layer(lifter, op, src, y)
    return None
