"""Batched products of two int8 activations (``docs/onnx.md`` §4.18): attention's
``Q·Kᵀ`` and ``P·V``, ``acc[b] = a[b]·c[b]`` for every batch ``b`` of ``B×M×K`` and ``B×K×N``
int8 tensors, requantized per tensor like a dense layer (§3) and clipped.

Both operands are computed, so their zero points cannot be folded into a constant bias as a
weight's sums are (``Σ_k (qa − za)·(qc − zc)`` needs the operands' row and column sums, which
change with every input): the layer takes operands whose zero points are 0, which
``quantize_static`` writes with symmetric activations. The accumulator then is exactly
``Σ_k qa·qc``, and its bias holds only the requantization's rounding constant.

The emission is ``linalg.batch_matmul`` on the two int8 buffers and one element-wise
epilogue (``docs/pipeline.md`` Stage 1 "Batched products": a host loop over the batch of 2-D
products on VTA, the right operand read as each batch's K×N weight).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from vta_mlir.frontend.mlir_text import memref_type
from vta_mlir.ir.locations import mlir_string

from .requant import IMM_MAX, Requant

if TYPE_CHECKING:
    from .emit import Emitter
    from .program import QTensor

__all__ = ["BatchProductLayer", "batch_product_layer", "emit_batch_product"]


@dataclass
class BatchProductLayer:
    """``acc[b] = a[b]·c[b] + bias`` (``a`` B×M×K, ``c`` B×K×N, int8 codes with zero point 0),
    requantized by ``rq`` to the output zero point and clipped to ``[lo, hi]``; ``bias`` is
    the requantization's rounding constant."""

    name: str
    a: str
    b: str
    bias: int
    rq: Requant
    zero_point: int
    lo: int
    hi: int
    dst: str

    @property
    def srcs(self) -> list[str]:
        return [self.a, self.b]


def batch_product_layer(name: str, a: QTensor, b: QTensor, y: QTensor,
                        rq: Requant) -> BatchProductLayer:
    """``y = requant(a·b)`` batch by batch; ``ValueError`` when an operand's zero point is
    not 0 (its sums would depend on the input)."""
    for operand in (a, b):
        if operand.zero_point:
            raise ValueError(f"operand '{operand.name}' has zero point {operand.zero_point}; "
                             "a product of two activations needs zero points of 0 on both "
                             "(symmetric activations: ActivationSymmetric)")
    return BatchProductLayer(name, a.name, b.name, rq.rounding, rq, y.zero_point, -128, 127,
                             y.name)


def batch_product_macs(layer: BatchProductLayer, shapes: dict[str, tuple[int, ...]]) -> int:
    """The multiply-accumulates of ``layer``: ``B·M·K·N``."""
    batch, m, k = shapes[layer.a]
    return batch * m * k * shapes[layer.dst][2]


def emit_batch_product(em: Emitter, layer: BatchProductLayer, prefix: str, out: str) -> None:
    """``linalg.batch_matmul`` of the two int8 buffers into an i32 accumulator, then the
    epilogue: the rounding constant (an immediate, or a vector along the columns beyond an
    immediate's range), the requantization of ``docs/onnx.md`` §3 and the clip."""
    a_shape, b_shape = em.shape(layer.a), em.shape(layer.b)
    shape = em.program.tensors[layer.dst].shape
    from .host_requant import product_result

    host_t = product_result(em, layer.dst, out)
    acc_t = host_t or em.accumulator(prefix, shape)
    em.lines.append(
        f"  linalg.batch_matmul ins({em.buffer(layer.a)}, {em.buffer(layer.b)} : "
        f"{memref_type(a_shape, 'i8')}, {memref_type(b_shape, 'i8')})"
        f" outs({out if host_t else prefix + '_acc'} : {acc_t}) loc({mlir_string(layer.name)})")
    if host_t:  # the host requantizes the accumulators (docs/onnx.md §4.19)
        return
    steps: list[str] = []
    operands: list[tuple[str, str, str, str]] = []
    if -IMM_MAX <= layer.bias <= IMM_MAX:
        if layer.bias:  # one value for every element: an immediate
            em.step(steps, "addi", layer.bias, "%a")
    else:
        n = shape[2]
        bias = em.constant(f"{layer.name}_b", np.full(n, layer.bias, np.int32))
        steps.append("%v0 = arith.addi %a, %b : i32")
        operands.append((bias, memref_type((n,), "i32"), "d2", "%b: i32"))
    in_range = em.requant_steps(steps, layer.rq, layer.zero_point, layer.lo, layer.hi,
                                operands, layer.name, layer.dst, channel_dim=2)
    em.epilogue(prefix, shape, out, steps, operands, layer.lo, layer.hi, in_range)
    em.lines.append(f"  memref.dealloc {prefix}_acc : {acc_t}")
