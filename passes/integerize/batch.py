"""Batched matrix products (``linalg.quantized_batch_matmul``, ``linalg.batch_matmul``) as
torch-mlir writes a ``MatMul`` of a rank-3 activation: the product of int8 codes ``B×M×K``
with a constant int8 weight broadcast to ``B×K×N`` (every batch the same ``K×N`` matrix) is
the matrix product of the activation's rows, a dense layer on the ``B·M × K`` matrix the codes
are stored as (``docs/onnx.md`` §4, as the ONNX route stores such an activation: nothing
moves). Its output is stored as the ``B·M × N`` matrix and read as ``B×M×N`` through a view.

A product of two activations (attention's ``Q·Kᵀ`` and ``P·V``, each operand the heads'
codes collapsed to ``B×M×K`` and ``B×K×N``) is :class:`ActivationProduct`, the batched product
of ``docs/onnx.md`` §4.18: both operands' zero points 0, the accumulator from 0.  Its
operands are stored as the batches the product reads (codes a float layer writes are stored
so, ``floats.py``), its output as its ``B×M×N`` accumulator shape.
"""

from __future__ import annotations

from math import prod
from typing import Protocol

import numpy as np
from xdsl.ir import Operation, SSAValue

from vta_mlir.ir.upstream_fixes.linalg_batch_matmul import (
    BatchMatmulOp,
    QuantizedBatchMatmulOp,
    batch_matmul_default_indexing_maps,
)
from vta_mlir.quant.program import QTensor

from .meaning import (
    Accumulator,
    ActivationProduct,
    Codes,
    Const,
    Filled,
    Meaning,
    ScaledAccumulator,
    Unsupported,
    channel_bias,
)


class Lifter(Protocol):
    """What these functions use of the lifter."""

    held: dict[SSAValue, Meaning]
    aliases: dict[str, str]
    tensors: dict[str, QTensor]

    def meaning(self, op: Operation, value: SSAValue) -> Meaning: ...

    def const_int(self, op: Operation, value: SSAValue) -> int: ...

    def new_tensor(self, shape: tuple[int, ...], scale: float, zero_point: int) -> QTensor: ...

    def store(self, op: Operation, tensor: QTensor, shape: tuple[int, ...]) -> None: ...

__all__ = ["BATCH_OPS", "Lifter", "matmul", "stored_shape", "view"]

#: The batched products this module reads.
BATCH_OPS = QuantizedBatchMatmulOp | BatchMatmulOp


def matmul(lifter: Lifter, op: Operation) -> None:
    """The accumulator of ``op``: a dense layer on the rows of its codes, or the batched
    product of two activations' codes."""
    if isinstance(op, QuantizedBatchMatmulOp):
        zx = lifter.const_int(op, op.operands[2])
        zw = lifter.const_int(op, op.operands[3])
        out = op.operands[4]
    else:
        if op.indexing_maps != batch_matmul_default_indexing_maps():
            raise Unsupported(op, "a batched product with transposed operands is not read")
        zx, zw, out = 0, 0, op.operands[2]
    src = lifter.meaning(op, op.operands[0])
    w = lifter.meaning(op, op.operands[1])
    if isinstance(w, Codes):
        _activation_product(lifter, op, src, w, zx, zw, out)
        return
    if not isinstance(w, Const):
        raise Unsupported(op, "the right operand of a batched product is an int8 constant or "
                              "the codes of an activation")
    weight = w.array
    if weight.dtype != np.int8 or zw != 0 or weight.ndim != 3 or \
            any(not np.array_equal(weight[b], weight[0]) for b in range(1, weight.shape[0])):
        raise Unsupported(op, "the batched product's weights are an int8 constant with zero "
                              "point 0, the same matrix for every batch")
    if not isinstance(src, Codes) or src.unsigned or src.tensor.zero_point != zx:
        raise Unsupported(op, "the batched product reads int8 codes with their zero point")
    x = src.tensor
    rows = lifter.new_tensor((prod(x.shape[:-1]), x.shape[-1]), x.scale, x.zero_point)
    lifter.store(op, x, rows.shape)
    lifter.aliases[rows.name] = lifter.aliases.get(x.name, x.name)
    bias = channel_bias(op, lifter.meaning(op, out), weight.shape[2], 2)
    lifter.held[out] = Accumulator(op, rows, np.ascontiguousarray(weight[0]), bias)


def _activation_product(lifter: Lifter, op: Operation, src: Meaning, w: Codes, zx: int,
                        zw: int, out: SSAValue) -> None:
    """The accumulator of a product of two activations' codes (module doc)."""
    if not isinstance(src, Codes) or src.unsigned or w.unsigned or (zx, zw) != (0, 0) or \
            src.tensor.zero_point or w.tensor.zero_point:
        raise Unsupported(op, "a product of two activations reads int8 codes with zero points "
                              "of 0 (symmetric activations)")
    a, b = src.tensor, w.tensor
    if len(a.shape) != 3 or len(b.shape) != 3 or a.shape[0] != b.shape[0] or \
            a.shape[2] != b.shape[1]:
        raise Unsupported(op, f"operands {a.shape} and {b.shape} are not batches of matrix "
                              "products")
    init = lifter.meaning(op, out)
    if not isinstance(init, Filled) or init.value != 0:
        raise Unsupported(op, "a product of two activations starts from 0")
    stored = []
    for operand in (a, b):
        lifter.store(op, operand, operand.shape)
        root = lifter.tensors[lifter.aliases.get(operand.name, operand.name)]
        if root.shape != operand.shape:
            raise Unsupported(op, f"an operand of a product of two activations is stored as "
                                  f"{root.shape}, not as the batches {operand.shape} it reads")
        stored.append(root)
    lifter.held[out] = ActivationProduct(op, stored[0], stored[1])


def stored_shape(src: Meaning, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape the output of the layer closed on ``src`` is stored in: the rows of a
    batched product's ``shape``, the accumulator's of a product of two activations, else
    ``shape``."""
    if isinstance(src, ScaledAccumulator) and isinstance(src.acc, ActivationProduct):
        return src.acc.shape
    if isinstance(src, ScaledAccumulator) and isinstance(src.acc.op, BATCH_OPS):
        return (prod(shape[:-1]), shape[-1])
    return shape


def view(lifter: Lifter, tensor: QTensor, shape: tuple[int, ...]) -> QTensor:
    """``tensor`` read in ``shape`` (a view of the same elements), or itself."""
    if tensor.shape == shape:
        return tensor
    seen = lifter.new_tensor(shape, tensor.scale, tensor.zero_point)
    lifter.aliases[seen.name] = lifter.aliases.get(tensor.name, tensor.name)
    return seen
