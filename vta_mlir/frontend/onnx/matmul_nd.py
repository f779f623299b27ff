"""Matrix products of rank ≥ 3 activations and their bias (``docs/onnx.md`` §4.16).

A ``MatMul`` of a ``B×S×K`` activation by a constant ``K×N`` weight is one product of the
``B·S × K`` matrix of its rows: its int8 tensors are stored as those matrices (nothing moves),
and the recognizer records the ONNX shape of each as a view (``FloatOps.views``), which the
float layers reading or writing such a tensor follow.

A ``MatMul`` whose result onnxruntime's quantizer leaves in float when it quantizes only the
products (``op_types_to_quantize=["MatMul"]``): ``MatMul → Add(constant vector) → QuantizeLinear``,
or with the heads split out of the last axis in between
(``Reshape [B, S, H] → [B, S, h, D]``, ``Transpose (0, 2, 1, 3)`` → ``[B, h, S, D]``), is one
integer layer: the bias rounded to the accumulator's scale, and the heads a view of the
``B·S × H`` matrix the layer writes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import onnx

from .check import OnnxImportError
from .neck import node_attrs

if TYPE_CHECKING:
    from .floats import View

__all__ = ["FloatResult", "MatMulChains"]

#: What follows a MatMul read in float: its bias (reals), the node whose output is quantized,
#: the ONNX shape of that output as a view of the product's rows, and the nodes it consumes.
FloatResult = tuple[np.ndarray, onnx.NodeProto, "View", list[onnx.NodeProto]]


class MatMulChains:
    """The chains after a MatMul whose result is not quantized, mixed into the recognizer."""

    if TYPE_CHECKING:
        inits: dict[str, np.ndarray]
        consts: dict[str, Any]
        quant_of: dict[str, tuple[int, onnx.NodeProto]]
        consumers: dict[str, list[onnx.NodeProto]]

    def _only_reader(self, name: str, op: str) -> onnx.NodeProto | None:
        readers = self.consumers.get(name, [])
        return readers[0] if len(readers) == 1 and readers[0].op_type == op else None

    def _real_constant(self, name: str) -> np.ndarray | None:
        const = self.consts.get(name)
        if const is not None and const.scale.size == 1:
            return ((const.q.astype(np.float32) - np.float32(const.zero_point.reshape(-1)[0]))
                    * np.float32(const.scale.reshape(-1)[0]))
        value = self.inits.get(name)
        return value if value is not None and value.dtype == np.float32 else None

    def float_result(self, where: str, node: onnx.NodeProto,
                     rows: tuple[int, ...], n: int) -> FloatResult:
        """The chain after ``node`` (a MatMul of an activation whose leading dimensions are
        ``rows``, ``n`` outputs) when its result is read in float; an error otherwise."""
        refusal = (f"{where}: its result '{node.output[0]}' is read in float; a MatMul's float "
                   "result is supported as MatMul → Add of a constant vector → (Reshape into "
                   "heads → Transpose (0, 2, 1, 3)) → QuantizeLinear, not yet otherwise")
        add = self._only_reader(node.output[0], "Add")
        if add is None:
            raise OnnxImportError(refusal)
        other = add.input[1] if add.input[0] == node.output[0] else add.input[0]
        bias = self._real_constant(other)
        if bias is None or bias.size != n or bias.shape[-1:] != (n,) or \
                any(d != 1 for d in bias.shape[:-1]):
            raise OnnxImportError(f"{where}: {refusal.split(': ', 1)[1]} (the Add's operand "
                                  f"'{other}' is not a constant vector of {n})")
        shape = (*rows, n)
        identity = tuple(range(len(shape)))
        last, used = add, [add]
        reshape = self._only_reader(add.output[0], "Reshape")
        if reshape is not None:
            target = self.inits.get(reshape.input[1]) if len(reshape.input) > 1 else None
            transpose = self._only_reader(reshape.output[0], "Transpose")
            dims = [] if target is None else [int(d) for d in target.reshape(-1)]
            if len(rows) != 2 or transpose is None or len(dims) != 4 or \
                    [int(p) for p in node_attrs(transpose).get("perm", [])] != [0, 2, 1, 3]:
                raise OnnxImportError(refusal)
            batch, seq = rows
            dims = [d if d > 0 else (shape[k] if d == 0 else -1) for k, d in enumerate(dims)]
            if dims[:2] != [batch, seq] or (-1 in dims[2:] and dims[2:].count(-1) > 1):
                raise OnnxImportError(refusal)
            heads, depth = dims[2], dims[3]
            heads = n // depth if heads == -1 else heads
            depth = n // heads if depth == -1 else depth
            if heads * depth != n:
                raise OnnxImportError(refusal)
            split = (batch, seq, heads, depth)
            last, used = transpose, [add, reshape, transpose]
            view: View = ((batch, heads, seq, depth), split, (0, 2, 1, 3))
        else:
            view = (shape, shape, identity)
        if last.output[0] not in self.quant_of:
            raise OnnxImportError(refusal)
        return bias.reshape(n), last, view, used
