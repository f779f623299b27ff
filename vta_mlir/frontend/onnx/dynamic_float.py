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


def _attr(node: onnx.NodeProto, name: str, default: object) -> object:
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def _axis(where: str, axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise OnnxImportError(f"{where}: axis {axis} is outside the input's {rank} dimensions")
    return axis % rank


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
        rank = len(y.dims)
        if op in ("Softmax", "LayerNormalization"):
            attrs["axis"] = _axis(where, int(attrs["axis"]), rank)  # type: ignore[call-overload]
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
        """The output shape of a float node and its attributes; an error naming the node for
        what the host does not compute."""
        op, x = node.op_type, shapes[0]
        if op in ("Add", "Sub", "Mul", "Div"):
            try:
                return tuple(int(d) for d in np.broadcast_shapes(*shapes)), {}
            except ValueError:
                raise OnnxImportError(f"{where}: operands of shapes {shapes[0]} and "
                                      f"{shapes[1]} do not broadcast") from None
        if op == "MatMul":
            a, b = shapes
            if len(a) < 2 or len(b) < 2 or a[-1] != b[-2]:
                raise OnnxImportError(f"{where}: a float MatMul of shapes {a} and {b}; two "
                                      "operands of rank ≥ 2 with matching inner dimensions "
                                      "are supported")
            try:
                batch = np.broadcast_shapes(a[:-2], b[:-2])
            except ValueError:
                raise OnnxImportError(f"{where}: the batch axes of shapes {a} and {b} do not "
                                      "broadcast") from None
            return (*(int(d) for d in batch), a[-2], b[-1]), {}
        if op == "Pow":
            exponent = self.float_constants.get(node.input[1])
            if exponent is None or exponent.size != 1:
                raise OnnxImportError(f"{where}: a Pow is supported with a constant scalar "
                                      "exponent")
            return x, {}
        if op in ("Softmax", "LayerNormalization"):
            attrs: dict[str, object] = {"axis": int(_attr(node, "axis", -1))}  # type: ignore[call-overload]
            if op == "LayerNormalization":
                attrs["epsilon"] = float(_attr(node, "epsilon", 1e-5))  # type: ignore[arg-type]
                axis = _axis(where, int(attrs["axis"]), len(x))  # type: ignore[call-overload]
                for operand in shapes[1:]:
                    if tuple(operand) != tuple(x[axis:])[len(x[axis:]) - len(operand):]:
                        raise OnnxImportError(f"{where}: scale or bias of shape {operand} "
                                              f"is not that of the normalized axes "
                                              f"{x[axis:]}")
            return x, attrs
        if op == "ReduceMean":
            axes = _attr(node, "axes", None)
            if axes is None and len(node.input) > 1 and node.input[1]:
                if node.input[1] not in self.inits:
                    raise OnnxImportError(f"{where}: the axes of a ReduceMean must be constant")
                axes = self.inits[node.input[1]].reshape(-1).tolist()
            axes = sorted({_axis(where, int(a), len(x)) for a in (axes or range(len(x)))})  # type: ignore[attr-defined]
            keep = int(_attr(node, "keepdims", 1))  # type: ignore[call-overload]
            shape = tuple(1 if k in axes else n for k, n in enumerate(x) if keep or k not in axes)
            if not shape:
                raise OnnxImportError(f"{where}: a ReduceMean to a scalar is not supported")
            return shape, {"axes": axes, "keepdims": keep}
        if op == "Gelu":
            approximate = _attr(node, "approximate", b"none")
            if isinstance(approximate, bytes):
                approximate = approximate.decode()
            if approximate not in ("none", "tanh"):
                raise OnnxImportError(f"{where}: Gelu approximation '{approximate}'")
            return x, {"approximate": approximate}
        if op == "Reshape":
            return self._reshape_shape(where, node, x), {}
        if op == "Transpose":
            perm = [int(p) for p in _attr(node, "perm", range(len(x) - 1, -1, -1))]  # type: ignore[call-overload]
            if sorted(perm) != list(range(len(x))):
                raise OnnxImportError(f"{where}: perm {perm} is not a permutation of "
                                      f"{len(x)} axes")
            return tuple(x[p] for p in perm), {"perm": perm}
        return x, {}

    def _reshape_shape(self, where: str, node: onnx.NodeProto,
                       x: tuple[int, ...]) -> tuple[int, ...]:
        if len(node.input) < 2 or node.input[1] not in self.inits:
            raise OnnxImportError(f"{where}: the shape of a Reshape must be constant")
        given = [int(d) for d in self.inits[node.input[1]].reshape(-1)]
        target = list(given)
        if not _attr(node, "allowzero", 0):
            target = [x[k] if d == 0 and k < len(x) else d for k, d in enumerate(target)]
        if target.count(-1) == 1:
            known = int(np.prod([d for d in target if d != -1]))
            target[target.index(-1)] = int(np.prod(x)) // max(known, 1)
        if any(d <= 0 for d in target) or int(np.prod(target)) != int(np.prod(x)):
            raise OnnxImportError(f"{where}: cannot reshape {x} into {given}")
        return tuple(target)
