"""The float nodes of a dynamically quantized model (``dynamic.py``, ``docs/onnx.md`` §4.17):
every operation ``quantize_dynamic`` leaves float — the bias and residual ``Add``, the scales'
``Mul``, ``Div``, ``Erf``, ``Softmax``, ``LayerNormalization``, the heads' ``Reshape`` and
``Transpose``, and the ``MatMul`` of two float activations (attention's) — computed by the host
in float32 with the code of the QDQ route's float layers (:mod:`vta_mlir.quant.host_float_ops`,
§4.15): one implementation of each operation, with the reference evaluator's semantics.

Each node writes the buffer :meth:`~.dynamic._Writer.result` gives its output (allocated at the
start of the function, or the graph's output); the scratch buffers of an operation (a
reduction's partial sums) are allocated there too and freed after the node.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np
import onnx

from vta_mlir.quant.host_float import FloatOp
from vta_mlir.quant.host_float_ops import OP_EMITTERS, FloatCode

from .check import OnnxImportError
from .floats import float_node_shape

if TYPE_CHECKING:
    from .dynamic_emit import Buffer, Function

__all__ = ["HOST_FLOAT_OPS", "FloatNodes", "FunctionSymbols"]

#: The float operations of a dynamically quantized graph, computed by the host.
HOST_FLOAT_OPS = frozenset({"Add", "Sub", "Mul", "Div", "Relu", "Sqrt", "Pow", "Erf", "Tanh",
                            "Softmax", "ReduceMean", "LayerNormalization", "Gelu", "Reshape",
                            "Transpose", "Identity", "MatMul"})


class FunctionSymbols:
    """The constants of float code in a dynamically quantized model's function: its globals,
    its names (so no value of the function is named as a generic's block argument)."""

    def __init__(self, f: Function) -> None:
        self.f = f
        self.globals = f.globals
        self.fetch: list[str] = []

    def unique(self, hint: str) -> str:
        return self.f.ssa(hint)[1:]


class FloatNodes:
    """The float nodes, mixed into the writer of ``dynamic.py``."""

    if TYPE_CHECKING:
        f: Function
        inits: dict[str, np.ndarray]
        buffers: dict[str, Buffer]

        def buffer(self, where: str, name: str, element: str) -> Buffer: ...

        def result(self, name: str, shape: tuple[int, ...], element: str,
                   **form: object) -> Buffer: ...

    def _init_float_nodes(self) -> None:
        self.symbols = FunctionSymbols(self.f)
        self.float_values: dict[str, str] = {}      # ONNX name -> its buffer
        self.float_types: dict[str, str] = {}
        self.float_constants: dict[str, np.ndarray] = {}

    def float_node(self, where: str, node: onnx.NodeProto) -> None:
        """The float operation ``node`` on the host (a ``Reshape`` of a constant is folded)."""
        op = node.op_type
        data = [n for n in node.input if n]
        if op in ("Reshape", "ReduceMean"):
            data = list(node.input[:1])
        if op == "Reshape" and data[0] in self.inits:
            self._fold_reshape(where, node)
            return
        shapes: list[tuple[int, ...]] = []
        for name in data:
            value = self.inits.get(name)
            if value is not None:
                if value.dtype != np.float32:
                    raise OnnxImportError(f"{where}: constant '{name}' is {value.dtype}; "
                                          "the host computes on float32")
                self.float_constants[name] = value
                shapes.append(tuple(value.shape))
                continue
            b = self.buffer(where, name, "f32")
            self.float_values[name], self.float_types[name] = b.ssa, b.type
            shapes.append(b.shape)
        if all(name in self.inits for name in data):
            raise OnnxImportError(f"{where}: every operand is a constant")
        shape, attrs = self._float_shape(where, node, shapes)
        y = self.result(node.output[0], shape, "f32")
        inputs = tuple(node.input) if op == "LayerNormalization" else tuple(data)
        code = FloatCode(self.symbols, self.f.ssa(f"{node.output[0]}_tmp"), node.name or op,
                         self.float_values, self.float_types, self.float_constants)
        OP_EMITTERS[op](code, FloatOp(op, inputs, node.output[0], y.dims, attrs), y.ssa)
        self.f.lines += self.symbols.fetch
        self.symbols.fetch.clear()
        in_region = False
        for line in code.lines:
            if line.lstrip().startswith("^bb0("):
                in_region = True
            elif in_region and line.lstrip().startswith("} loc("):
                in_region = False
            if in_region:
                # A region's values start with ``_``, the function's with a letter (a graph
                # output named ``y`` is ``%y``, as is the value a region yields).
                line = line.replace("%", "%_")
            else:
                defined = re.match(r"\s*%([A-Za-z0-9_]+) = ", line)
                if defined:
                    self.f.names.add(defined.group(1))
            (self.f.allocs if " = memref.alloc() : " in line else self.f.lines).append(line)
        for buf, type_ in code.owned:
            self.f.names.add(buf[1:])
            self.f.lines.append(f"  memref.dealloc {buf} : {type_}")

    def _fold_reshape(self, where: str, node: onnx.NodeProto) -> None:
        """A reshape of a constant (a bias reshaped to broadcast over NCHW), folded."""
        if node.input[1] not in self.inits:
            raise OnnxImportError(f"{where}: the shape of a Reshape must be constant")
        value, shape = self.inits[node.input[0]], self.inits[node.input[1]]
        self.inits[node.output[0]] = value.reshape([int(d) for d in shape])

    def _float_shape(self, where: str, node: onnx.NodeProto, shapes: list[tuple[int, ...]]
                     ) -> tuple[tuple[int, ...], dict[str, object]]:
        """The output shape of a float node and its attributes (the QDQ float layers' rules,
        ``floats.float_node_shape``)."""
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        return float_node_shape(where, node.op_type, node, shapes, attrs, self.inits,
                                self.float_constants)
