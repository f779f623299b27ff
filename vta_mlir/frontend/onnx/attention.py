"""Products of two activations in a QDQ model (``docs/onnx.md`` §4.18): attention's
``scores = Q·K`` (``[.., h, S, D] × [.., h, D, S]``) and ``context = P·V``
(``[.., h, S, S] × [.., h, S, D]``), each a ``MatMul`` between two ``DequantizeLinear`` s of
int8 activations and a ``QuantizeLinear`` — a
:class:`~vta_mlir.quant.batch_product.BatchProductLayer` on VTA.

Each operand is stored as the ``B×M×K`` (or ``B×K×N``) tensor the batched product reads: its
batch dimensions collapsed, its last two the product's (a key tensor ``[1, h, D, S]`` is
exactly the per-head K×N operand). The float layer writing an operand (the heads' bias,
``Reshape`` and ``Transpose``, or the ``Softmax``) quantizes into that shape; the importer
records the ONNX shape as a view (``FloatOps.views``), which is C-order the same elements. The
product's output is stored ``B×M×N`` alike, and the float layers reading it follow its view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import onnx

from vta_mlir.quant.batch_product import batch_product_layer

from .check import OnnxImportError, node_label

if TYPE_CHECKING:
    from vta_mlir.quant.program import Layer, QTensor
    from vta_mlir.quant.requant import Requant

    from .floats import View

__all__ = ["ActivationProducts", "refuse_extra_inputs"]


def batched_shape(shape: tuple[int, ...]) -> tuple[int, int, int]:
    """The ``B×M×K`` tensor a batched product reads for an operand of ONNX shape ``shape``
    (``[.., M, K]``; the batch dimensions collapsed, 1 without any)."""
    return (int(np.prod(shape[:-2], dtype=np.int64)), shape[-2], shape[-1])


def refuse_extra_inputs(graph: onnx.GraphProto, inputs: list[onnx.ValueInfoProto]) -> None:
    """A second graph input (an attention mask added to the scores, say): one error naming
    the node that reads it."""
    for value in inputs[1:]:
        for index, node in enumerate(graph.node):
            if value.name in node.input:
                raise OnnxImportError(
                    f"{node_label(node, index)}: reads '{value.name}', a second graph input; "
                    f"{'an attention mask added to the scores' if node.op_type == 'Add' else 'it'}"
                    " is not supported (the importer takes one graph input)")


class ActivationProducts:
    """The MatMuls of two activations, mixed into the QDQ recognizer."""

    if TYPE_CHECKING:
        graph: onnx.GraphProto
        inits: dict[str, np.ndarray]
        act: dict[str, QTensor]
        views: dict[str, View]
        consumers: dict[str, list[onnx.NodeProto]]
        layer_name: str
        accumulator_scales: dict[str, np.ndarray]

        def _source(self, where: str, name: str, flattened: bool = False) -> QTensor: ...

        def _output(self, where: str, node: onnx.NodeProto,
                    shape: tuple[int, ...]) -> QTensor: ...

        def _add_layer(self, layer: Layer, dst: QTensor) -> None: ...

        def _requant(self, where: str, multiplier: float) -> Requant: ...

        def logical_shape(self, tensor: QTensor) -> tuple[int, ...]: ...

    def _activation_dq(self, name: str) -> bool:
        """Whether ``name`` is the output of a DequantizeLinear of a computed tensor."""
        if not hasattr(self, "writer_of"):
            self.writer_of = {out: node for node in self.graph.node for out in node.output}
        node = self.writer_of.get(name)
        return node is not None and node.op_type == "DequantizeLinear" and \
            node.input[0] not in self.inits

    def read_by_activation_product(self, name: str) -> bool:
        """Whether a MatMul of two activations reads the int8 tensor ``name`` (through a
        DequantizeLinear): it is then stored as the product's ``B×M×K`` operand."""
        return any(reader.op_type == "MatMul" and len(reader.input) == 2 and
                   all(self._activation_dq(operand) for operand in reader.input)
                   for dq in self.consumers.get(name, []) if dq.op_type == "DequantizeLinear"
                   for reader in self.consumers.get(dq.output[0], []))

    def activation_product(self, where: str, node: onnx.NodeProto) -> None:
        """``node``, a MatMul of two dequantized int8 activations, as a batched product."""
        a = self._source(where, node.input[0])
        b = self._source(where, node.input[1])
        a_shape, b_shape = self.logical_shape(a), self.logical_shape(b)
        if len(a_shape) < 2 or len(b_shape) < 2 or a_shape[-1] != b_shape[-2]:
            raise OnnxImportError(f"{where}: operands {a_shape} and {b_shape} are not a "
                                  "matrix product")
        try:
            batch = tuple(int(d) for d in np.broadcast_shapes(a_shape[:-2], b_shape[:-2]))
        except ValueError:
            raise OnnxImportError(f"{where}: the batch dimensions of {a_shape} and {b_shape} "
                                  "do not broadcast") from None
        count = int(np.prod(batch, dtype=np.int64))
        for operand, shape in ((a, a_shape), (b, b_shape)):
            if int(np.prod(shape[:-2], dtype=np.int64)) != count:
                raise OnnxImportError(f"{where}: operand '{operand.name}' of shape {shape} is "
                                      f"broadcast over the batch {batch}; a product of two "
                                      "activations reads every batch of both")
            if operand.shape != batched_shape(shape):
                raise OnnxImportError(f"{where}: operand '{operand.name}' is stored as "
                                      f"{operand.shape}, not as the batches of matrices "
                                      f"{batched_shape(shape)} a product of two activations "
                                      "reads (an operand a float layer quantizes is)")
        m, n = a_shape[-2], b_shape[-1]
        y = self._output(where, node, (count, m, n))
        logical = (*batch, m, n)
        if logical != y.shape:
            self.views[y.name] = (logical, logical, tuple(range(len(logical))))
        rq = self._requant(where, a.scale * b.scale / y.scale)
        try:
            layer = batch_product_layer(self.layer_name, a, b, y, rq)
        except ValueError as exc:
            raise OnnxImportError(f"{where}: {exc}") from None
        self._add_layer(layer, y)  # type: ignore[arg-type]
        self.accumulator_scales[y.name] = np.array([a.scale * b.scale])
