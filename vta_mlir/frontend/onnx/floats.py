"""Float subgraphs of a QDQ model (``docs/onnx.md`` §4.15): the ONNX operations between
``DequantizeLinear`` outputs (or the graph's float input) and ``QuantizeLinear`` inputs (or
the graph's float output), computed by the host in float32
(:class:`~vta_mlir.quant.host_float.FloatLayer`).

:class:`FloatOps` is a part of the recognizer of :mod:`.qdq`, as :class:`.views.ViewOps` is. A
node is a float node when it reads a float value (the output of a float node, or the graph's
input), when it is an operation with no integer pattern (``Sub``, ``Div``, ``Erf``,
``LayerNormalization``, ...) or when its result is not quantized. Float nodes join the open
float layer; the layer closes (takes its place in the program) when an integer layer reads a
tensor it quantizes, so every layer reads only what earlier ones wrote. A float value a later
float layer reads is computed again there from the same int8 tensors, float input and
constants (host steps hand each other int8 buffers; the operations are deterministic).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import onnx

from vta_mlir.quant.host_float import FLOAT_OPS, FloatEdge, FloatLayer, FloatOp
from vta_mlir.quant.program import FloatTensor, QTensor

from .attention import batched_shape
from .check import OnnxImportError
from .neck import node_attrs

if TYPE_CHECKING:
    from vta_mlir.quant.program import Layer

__all__ = ["FLOAT_ONLY_OPS", "FloatOps", "View", "float_node_shape"]

#: Operations the importer has no integer pattern for: always computed in float.
FLOAT_ONLY_OPS = frozenset({"Sub", "Div", "Sqrt", "Pow", "Erf", "Tanh", "LayerNormalization",
                            "Gelu", "Transpose", "Cast"})
#: Operations with an integer pattern that are float when their result is not quantized.
_FLOAT_WHEN_UNQUANTIZED = frozenset({"Add", "Mul", "Relu", "Softmax", "Sigmoid", "Reshape",
                                     "Identity", "ReduceMean"})

#: How an int8 tensor stored in another shape is read as its ONNX shape: (shape, split, perm)
#: of :class:`~vta_mlir.quant.host_float.FloatEdge`.
View = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]


class FloatOps:
    """The float nodes, mixed into the QDQ recognizer."""

    if TYPE_CHECKING:
        layer_name: str
        qt: dict[str, QTensor]
        inits: dict[str, np.ndarray]
        consts: dict[str, Any]
        act: dict[str, QTensor]
        means: dict[str, QTensor]
        quant_of: dict[str, tuple[int, onnx.NodeProto]]
        layers: list[Layer]
        producer: dict[str, Layer]

        def _qparams(self, where: str, node: onnx.NodeProto) -> tuple[float, int]: ...

        def read_by_activation_product(self, name: str) -> bool: ...

    def _init_floats(self) -> None:
        self.floats: dict[str, tuple[int, ...]] = {}       # float value -> its shape
        self.float_owner: dict[str, FloatLayer] = {}       # float value -> layer computing it
        self.open_layer: FloatLayer | None = None
        self.views: dict[str, View] = {}                   # int8 tensor -> its ONNX shape
        self.float_layers: list[FloatLayer] = []

    def logical_shape(self, tensor: QTensor) -> tuple[int, ...]:
        """The ONNX shape of an int8 tensor (its stored shape unless it is a view)."""
        view = self.views.get(tensor.name)
        return view[0] if view is not None else tensor.shape

    def _is_float(self, node: onnx.NodeProto) -> bool:
        if any(name in self.floats for name in node.input):
            return True
        if node.op_type in FLOAT_ONLY_OPS:
            return True
        if node.op_type == "Identity" and node.input[0] not in self.act:
            return False
        reads_view = any(name in self.act and self.act[name].name in self.views
                         for name in node.input)
        if reads_view and node.op_type not in ("MatMul", "Gemm", "Add", "Relu", "Clip"):
            return True
        if reads_view and node.op_type == "Add" and len({
                (self.act[name].shape, self.views.get(self.act[name].name))
                for name in node.input if name in self.act}) > 1:
            return True  # two tensors stored differently: added element by element on the host
        if node.op_type == "Reshape" and not self._integer_reshape(node):
            return True
        if node.op_type not in _FLOAT_WHEN_UNQUANTIZED or node.output[0] in self.quant_of:
            return False
        # A spatial mean quantized after a Reshape (views.py) stays a global average pool.
        if node.op_type == "ReduceMean" and self._spatial_mean(node):
            return False
        return node.op_type != "Reshape" or node.input[0] not in self.means

    def _integer_reshape(self, node: onnx.NodeProto) -> bool:
        """Whether a Reshape is one of the views of int8 tensors of ``views.py`` (between
        N×C×1×1 and N×C, N×C×H×W into N×(C·H·W), or after a spatial mean)."""
        if node.input[0] in self.means:
            return True
        x = self.act.get(node.input[0])
        if x is None or x.name in self.views or len(node.input) < 2 or \
                node.input[1] not in self.inits:
            return False
        shape = tuple(int(d) for d in self.inits[node.input[1]].reshape(-1))
        n, c = x.shape[0], int(np.prod(x.shape[1:]))
        return (len(x.shape) == 4 and shape in ((n, c), (n, -1))) or \
            (shape in ((n, c), (n, c, 1, 1)) and all(d == 1 for d in x.shape[2:]))

    def _spatial_mean(self, node: onnx.NodeProto) -> bool:
        x = self.act.get(node.input[0])
        axes = node_attrs(node).get("axes")
        if axes is None and len(node.input) > 1 and node.input[1] in self.inits:
            axes = self.inits[node.input[1]].reshape(-1).tolist()
        return x is not None and len(x.shape) == 4 and axes is not None and \
            sorted(int(a) % 4 for a in axes) == [2, 3] and \
            node_attrs(node).get("keepdims", 1) == 1

    def _float_input(self, name: str, shape: tuple[int, ...]) -> FloatTensor | None:
        """The graph's input as a float value, when a float node reads it or a matrix product
        reads it as the rows of a rank ≥ 3 tensor (stored so by the host's quantization);
        ``None`` when only its QuantizeLinear reads it (a ``vta.quant`` host step)."""
        readers = self.consumers.get(name, [])
        if all(node.op_type == "QuantizeLinear" for node in readers) and not (
                len(shape) >= 3 and any(self._read_as_rows(node.output[0]) for node in readers)):
            return None
        self.floats[name] = shape
        return FloatTensor(name, shape)

    def _read_as_rows(self, name: str) -> bool:
        """Whether a matrix product reads the int8 tensor ``name`` (through a
        DequantizeLinear)."""
        return any(reader.op_type in ("MatMul", "Gemm")
                   for dq in self.consumers.get(name, []) if dq.op_type == "DequantizeLinear"
                   for reader in self.consumers.get(dq.output[0], []))

    # -- the open layer -----------------------------------------------------------------------
    def _layer(self, reads: list[str]) -> FloatLayer:
        """The open float layer, for a node reading ``reads``: a new one when the open layer
        quantizes a tensor the node reads dequantized (it is written after the layer's
        operations)."""
        layer = self.open_layer
        if layer is not None and any(
                name in self.act and self.act[name].name == edge.tensor
                for name in reads for edge in layer.outputs):
            self.close_float_layer()
        if self.open_layer is None:
            self.open_layer = FloatLayer(f"{self.layer_name}")
        return self.open_layer

    def close_float_layer(self) -> None:
        """Put the open float layer in the program (before the integer layer about to read
        what it quantizes)."""
        if self.open_layer is not None:
            for edge in self.open_layer.outputs:
                self.producer[edge.tensor] = self.open_layer  # type: ignore[assignment]
            self.layers.append(self.open_layer)  # type: ignore[arg-type]
            self.float_layers.append(self.open_layer)
            self.open_layer = None

    def before_reading(self, tensor: QTensor) -> None:
        """An integer layer reads ``tensor``: the open float layer closes if it writes it."""
        layer = self.open_layer
        if layer is not None and any(edge.tensor == tensor.name for edge in layer.outputs):
            self.close_float_layer()

    def _float_operand(self, where: str, layer: FloatLayer, name: str) -> tuple[int, ...]:
        """Make the value ``name`` available to ``layer``; returns its shape."""
        if name in self.floats:
            owner = self.float_owner.get(name)
            if owner is None:
                if name not in layer.reads:  # the graph's float input
                    layer.reads.append(name)
            elif owner is not layer and not _computes(layer, name):
                self._recompute(where, layer, owner, name)
            return self.floats[name]
        tensor = self.act.get(name)
        if tensor is not None:
            shape, split, perm = self.views.get(tensor.name, (tensor.shape, tensor.shape,
                                                              tuple(range(len(tensor.shape)))))
            if all(edge.value != name for edge in layer.inputs):
                layer.inputs.append(FloatEdge(name, tensor.name, shape, split, perm))
                layer.quant[tensor.name] = (tensor.scale, tensor.zero_point)
            return shape
        const = self.consts.get(name)
        if const is not None:
            # DequantizeLinear of a constant, as onnxruntime computes it: (q − zp)·scale in
            # float32, the scale and zero point broadcast along its axis.
            shape = [1] * const.q.ndim
            if const.scale.size > 1:
                shape[const.axis % const.q.ndim] = const.scale.size
            real = ((const.q.astype(np.float32) - const.zero_point.reshape(shape).astype(
                np.float32)) * const.scale.reshape(shape).astype(np.float32))
            layer.constants[name] = real.astype(np.float32)
            return tuple(real.shape)
        value = self.inits.get(name)
        if value is not None and value.dtype == np.float32:
            layer.constants[name] = value
            return tuple(value.shape)
        raise OnnxImportError(f"{where}: input '{name}' is neither a float value, a "
                              "dequantized int8 tensor nor a float constant")

    def _recompute(self, where: str, layer: FloatLayer, owner: FloatLayer, name: str) -> None:
        """The value ``name`` of the earlier float layer ``owner``, computed again in ``layer``
        from the same int8 tensors, float input and constants: a host step hands results over
        in int8 buffers only, and the operations are deterministic, so the value is the same."""
        op = next(op for op in owner.ops if op.output == name)
        for value in op.inputs:
            if not value or _computes(layer, value) or value in layer.constants:
                continue
            if value in owner.constants:
                layer.constants[value] = owner.constants[value]
            elif value in self.floats:
                self._float_operand(where, layer, value)
            else:  # a dequantized int8 tensor of the owner
                edge = next(edge for edge in owner.inputs if edge.value == value)
                layer.inputs.append(edge)
                layer.quant[edge.tensor] = owner.quant[edge.tensor]
        layer.ops.append(op)

    # -- nodes ----------------------------------------------------------------------------------
    def _float_node(self, where: str, node: onnx.NodeProto) -> None:
        op = node.op_type
        if op not in FLOAT_OPS:
            raise OnnxImportError(f"{where}: a {op} in float is not supported (float "
                                  f"operations: {', '.join(sorted(FLOAT_OPS))})")
        layer = self._layer(list(node.input))
        attrs = node_attrs(node)
        data = [n for n in node.input if n]
        if op in ("Reshape", "ReduceMean") and len(node.input) > 1:
            data = node.input[:1]
        shapes = [self._float_operand(where, layer, name) for name in data]
        if all(name in layer.constants for name in data):
            raise OnnxImportError(f"{where}: a {op} of constants only is not supported")
        shape, attrs = float_node_shape(where, op, node, shapes, attrs, self.inits,
                                        layer.constants)
        for extra in node.output[1:]:
            if extra and self.consumers.get(extra):
                raise OnnxImportError(f"{where}: its output '{extra}' is read; only the first "
                                      f"output of a {op} is supported")
        layer.ops.append(FloatOp(op, tuple(data) if op != "LayerNormalization" else tuple(
            node.input), node.output[0], shape, attrs))
        self.floats[node.output[0]] = shape
        self.float_owner[node.output[0]] = layer

    def _float_quantize(self, where: str, node: onnx.NodeProto, stored: bool) -> None:
        """A ``QuantizeLinear`` of a float value; the int8 tensor is stored as the matrix of
        its rows (``stored``) when a matrix product reads it."""
        layer = self._layer([])
        shape = self._float_operand(where, layer, node.input[0])
        scale, zp = self._qparams(where, node)
        rows = (int(np.prod(shape[:-1])), shape[-1]) if stored and len(shape) >= 3 else shape
        if len(shape) >= 2 and self.read_by_activation_product(node.output[0]):
            rows = batched_shape(shape)  # the operand of a batched product (attention.py)
        tensor = QTensor(node.output[0], rows, scale, zp)
        self.qt[tensor.name] = tensor
        if rows != shape:
            self.views[tensor.name] = (shape, shape, tuple(range(len(shape))))
        layer.outputs.append(FloatEdge(node.input[0], tensor.name, shape, shape,
                                       tuple(range(len(shape)))))
        layer.quant[tensor.name] = (scale, zp)

    def _float_output(self, where: str, tensor: QTensor, name: str) -> None:
        """The graph's output, the dequantized int8 ``tensor`` stored in another shape: a float
        layer dequantizes it into the float output."""
        layer = self._layer([name])
        self._float_operand(where, layer, name)
        layer.writes.append(name)
        self.close_float_layer()


def _computes(layer: FloatLayer, value: str) -> bool:
    """Whether ``layer`` already has ``value`` (an operation's result or a dequantized
    input)."""
    return any(op.output == value for op in layer.ops) or \
        any(edge.value == value for edge in layer.inputs)


def _axis(where: str, axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise OnnxImportError(f"{where}: axis {axis} is outside the input's {rank} dimensions")
    return axis % rank


def float_node_shape(where: str, op: str, node: onnx.NodeProto,
                     shapes: list[tuple[int, ...]], attrs: dict[str, Any],
                     inits: dict[str, np.ndarray], constants: dict[str, np.ndarray]
                     ) -> tuple[tuple[int, ...], dict[str, Any]]:
    """The output shape of a float node (operands of ``shapes``) and its attributes,
    normalised; an error naming the node for what the host does not compute.  ``constants``
    are the float constants a ``Pow`` exponent may be; a float ``MatMul`` is the dynamic
    route's (a QDQ graph's products are integer layers)."""
    x = shapes[0]
    if op in ("Add", "Sub", "Mul", "Div"):
        try:
            return tuple(int(d) for d in np.broadcast_shapes(*shapes)), {}
        except ValueError:
            raise OnnxImportError(f"{where}: operands of shapes {shapes[0]} and {shapes[1]} do "
                                  "not broadcast") from None
    if op == "MatMul":
        a, b = shapes
        if len(a) < 2 or len(b) < 2 or a[-1] != b[-2]:
            raise OnnxImportError(f"{where}: a float MatMul of shapes {a} and {b}; two operands "
                                  "of rank ≥ 2 with matching inner dimensions are supported")
        try:
            batch = np.broadcast_shapes(a[:-2], b[:-2])
        except ValueError:
            raise OnnxImportError(f"{where}: the batch axes of shapes {a} and {b} do not "
                                  "broadcast") from None
        return (*(int(d) for d in batch), a[-2], b[-1]), {}
    if op == "Pow":
        exponent = constants.get(node.input[1])
        if exponent is None or exponent.size != 1:
            raise OnnxImportError(f"{where}: a Pow is supported with a constant scalar "
                                  "exponent")
        return x, {}
    if op == "Softmax":
        return x, {"axis": _axis(where, int(attrs.get("axis", -1)), len(x))}
    if op == "ReduceMean":
        axes = attrs.get("axes")
        if axes is None and len(node.input) > 1 and node.input[1]:
            if node.input[1] not in inits:
                raise OnnxImportError(f"{where}: the axes of a ReduceMean must be constant")
            axes = inits[node.input[1]].reshape(-1).tolist()
        axes = sorted({_axis(where, int(a), len(x)) for a in (axes or range(len(x)))})
        keep = int(attrs.get("keepdims", 1))
        shape = tuple(1 if k in axes else n for k, n in enumerate(x) if keep or k not in axes)
        if not shape:
            raise OnnxImportError(f"{where}: a ReduceMean to a scalar is not supported "
                                  "(keepdims=1 keeps its dimensions)")
        return shape, {"axes": axes, "keepdims": keep}
    if op == "LayerNormalization":
        axis = _axis(where, int(attrs.get("axis", -1)), len(x))
        for operand in shapes[1:]:
            if len(operand) > len(x) - axis or \
                    tuple(operand) != tuple(x[len(x) - len(operand):]) and \
                    np.broadcast_shapes(operand, x[axis:]) != tuple(x[axis:]):
                raise OnnxImportError(f"{where}: scale or bias of shape {operand} does not "
                                      f"broadcast to the normalized axes {x[axis:]}")
        return x, {"axis": axis, "epsilon": float(attrs.get("epsilon", 1e-5))}
    if op == "Gelu":
        approximate = attrs.get("approximate", b"none")
        approximate = approximate.decode() if isinstance(approximate, bytes) else approximate
        if approximate not in ("none", "tanh"):
            raise OnnxImportError(f"{where}: Gelu approximation '{approximate}'")
        return x, {"approximate": approximate}
    if op == "Reshape":
        if len(node.input) < 2 or node.input[1] not in inits:
            raise OnnxImportError(f"{where}: the shape of a Reshape must be constant (a "
                                  "dynamic shape)")
        target = [int(d) for d in inits[node.input[1]].reshape(-1)]
        if not attrs.get("allowzero", 0):
            target = [x[k] if d == 0 and k < len(x) else d for k, d in enumerate(target)]
        if target.count(-1) == 1:
            known = int(np.prod([d for d in target if d != -1]))
            target[target.index(-1)] = int(np.prod(x)) // max(known, 1)
        if any(d <= 0 for d in target) or int(np.prod(target)) != int(np.prod(x)):
            raise OnnxImportError(f"{where}: cannot reshape {x} into "
                                  f"{[int(d) for d in inits[node.input[1]].reshape(-1)]}")
        return tuple(target), {}
    if op == "Transpose":
        perm = [int(p) for p in attrs.get("perm", range(len(x) - 1, -1, -1))]
        if sorted(perm) != list(range(len(x))):
            raise OnnxImportError(f"{where}: perm {perm} is not a permutation of {len(x)} axes")
        return tuple(x[p] for p in perm), {"perm": perm}
    if op == "Cast" and int(attrs.get("to", 0)) != onnx.TensorProto.FLOAT:
        raise OnnxImportError(f"{where}: a Cast in float is supported to float32 only")
    return x, {}
