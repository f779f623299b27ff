"""The float edges of a sequence model: a ``B×S×K`` float input quantized for a matrix product
and a ``B×S×N`` result dequantized from one.  The ONNX route stores such int8 tensors as the
``B·S × K`` matrices of their rows (``docs/onnx.md`` §4.16), which VTA's 2-D products read as
they are; the host quantizes the float input into those rows and dequantizes the result from
them (float layers, ``vta_mlir.quant.host_float``), so the program's input and output stay
float32 of the function's shapes.  Rank-4 (N×C×H×W) and rank-2 edges keep their ``vta.quant``
host steps on int8 arguments.
"""

from __future__ import annotations

from math import prod
from typing import Protocol

from vta_mlir.quant.host_float import FloatEdge, FloatLayer
from vta_mlir.quant.program import FloatTensor, Layer, QTensor

from . import batch


class Lifter(batch.Lifter, Protocol):
    """What these functions use of the lifter."""

    tensors: dict[str, QTensor]
    layers: list[Layer]
    input: QTensor | FloatTensor | None
    output: QTensor | FloatTensor | None

    def name(self, kind: str) -> str: ...

    def add(self, layer: Layer) -> None: ...

__all__ = ["INPUT", "OUTPUT", "SEQUENCE_RANK", "float_input", "float_output"]

#: The rank of the activations stored as rows: ``B×S×K``.
SEQUENCE_RANK = 3

#: The names of the program's float input and output.
INPUT, OUTPUT = "x", "y"


def _identity(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(range(len(shape)))


def float_input(lifter: Lifter, shape: tuple[int, ...], scale: float,
                zero_point: int) -> QTensor:
    """The codes the host quantizes the ``B×S×K`` float input into, stored as rows; the
    returned tensor is their ``B×S×K`` view."""
    rows = lifter.new_tensor((prod(shape[:-1]), shape[-1]), scale, zero_point)
    lifter.input = FloatTensor(INPUT, shape)
    lifter.add(FloatLayer(lifter.name("quantize"), reads=[INPUT],
                          outputs=[FloatEdge(INPUT, rows.name, shape, shape, _identity(shape))],
                          quant={rows.name: (scale, zero_point)}))
    return batch.view(lifter, rows, shape)


def float_output(lifter: Lifter, codes: QTensor) -> None:
    """The host dequantizes ``codes`` (a view of rows) into the program's float output."""
    root = lifter.tensors[lifter.aliases.get(codes.name, codes.name)]
    shape = codes.shape
    lifter.output = FloatTensor(OUTPUT, shape)
    lifter.layers.append(FloatLayer(
        lifter.name("dequantize"), inputs=[FloatEdge(OUTPUT, root.name, shape, shape,
                                                     _identity(shape))],
        writes=[OUTPUT], quant={root.name: (root.scale, root.zero_point)}))
