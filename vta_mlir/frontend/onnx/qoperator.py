"""The QOperator format as QDQ (``docs/onnx.md`` §2, "QOperator"): ``quantize_static`` with
``quant_format=QuantFormat.QOperator`` writes each quantized operator as one node on int8 codes
(``QLinearConv``, ``QGemm``, ``QLinearAdd``, ...), with float sections between a
``DequantizeLinear`` and a ``QuantizeLinear`` where it leaves an operator in float.

:func:`qdq_model` rewrites such a graph into the QDQ form the recogniser reads, with the
integer semantics unchanged: each QOperator node becomes its float operator between the
``DequantizeLinear`` of its operands and the ``QuantizeLinear`` of its result
(:data:`QOPERATOR_OPS`; a bias is dequantized at ``x_scale · w_scale``, the scale these ops
define it at). An operator that moves codes without computing on them (``MaxPool``,
``Flatten``, ``Reshape``, ...: :data:`CODE_OPS`) is read between a dequantize and a quantize
with its input's parameters, which is exact. In a float section, every float result that no
``QuantizeLinear`` reads directly gets a quantize/dequantize pair with the parameters that
leave the section's result unchanged: a ReLU, a max-pool or a reshape (:data:`SELECTIONS`)
those of its input (on codes they are ``max(q, zero point)`` and selections), any other
operator those of the ``QuantizeLinear`` the section ends in, through selections only.

A node keeps its name (``#<position>`` when it has none), so errors name the user's node; an
operator whose QDQ form the recogniser does not take (``Concat``, ``Mul``, ``AveragePool``)
gets the error of that form.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import onnx
from onnx import helper, numpy_helper

from .check import OnnxImportError, node_label

__all__ = ["CODE_OPS", "QOPERATOR_OPS", "SELECTIONS", "is_qoperator", "qdq_model"]


@dataclass(frozen=True)
class QOp:
    """A QOperator node's layout: the float operator it computes, the positions of its
    quantized operands ``(codes, scale, zero point)``, of its result's scale and zero point,
    and of an int32 bias at ``scale(operand 0) · scale(operand 1)`` (``None``: none)."""

    float_op: str
    operands: tuple[tuple[int, int, int], ...]
    result: tuple[int, int] | None
    bias: int | None = None
    #: The ``DequantizeLinear`` axis of operand 1's per-channel scales, by ``transB``.
    weight_axis: tuple[int, int] = (1, 1)
    #: Operands after the fixed ones, in triples (``QLinearConcat``), from this position.
    variadic_from: int | None = None


_UNARY = ((0, 1, 2),)
_BINARY = ((0, 1, 2), (3, 4, 5))

#: The QOperator nodes read, by op type (default or ``com.microsoft`` domain).
QOPERATOR_OPS: dict[str, QOp] = {
    "QLinearConv": QOp("Conv", _BINARY, (6, 7), bias=8, weight_axis=(0, 0)),
    "QLinearMatMul": QOp("MatMul", _BINARY, (6, 7)),
    "QGemm": QOp("Gemm", _BINARY, (7, 8), bias=6, weight_axis=(1, 0)),
    "QLinearAdd": QOp("Add", _BINARY, (6, 7)),
    "QLinearMul": QOp("Mul", _BINARY, (6, 7)),
    "QLinearGlobalAveragePool": QOp("GlobalAveragePool", _UNARY, (3, 4)),
    "QLinearAveragePool": QOp("AveragePool", _UNARY, (3, 4)),
    "QLinearLeakyRelu": QOp("LeakyRelu", _UNARY, (3, 4)),
    "QLinearSigmoid": QOp("Sigmoid", _UNARY, (3, 4)),
    "QLinearConcat": QOp("Concat", (), (0, 1), variadic_from=2),
}

#: Operators of the default domain onnxruntime runs on int8 codes (they move codes without
#: computing on them): read on the dequantized codes, quantized again alike.
CODE_OPS = frozenset({"MaxPool", "Flatten", "Reshape", "Identity", "Transpose", "Squeeze",
                      "Unsqueeze"})
#: Float operators whose quantized result, with their input's parameters, is the operator on
#: the codes: ``max(q, zero point)`` for a ReLU, selections and reshapes for the others.
SELECTIONS = CODE_OPS | {"Relu"}

_QDQ = ("QuantizeLinear", "DequantizeLinear")
_DEFAULT = ("", "ai.onnx")


def is_qoperator(graph: onnx.GraphProto) -> bool:
    """Whether ``graph`` has a QOperator node."""
    return any(node.op_type in QOPERATOR_OPS for node in graph.node)


class _Rewriter:
    def __init__(self, model: onnx.ModelProto) -> None:
        self.model = model
        self.graph = model.graph
        self.inits = {i.name: i for i in self.graph.initializer}
        self.taken = set(self.inits) | {v.name for v in self.graph.input} | {
            name for node in self.graph.node for name in (*node.input, *node.output)}
        self.nodes: list[onnx.NodeProto] = []
        self.new_inits: list[onnx.TensorProto] = []
        #: int8 code tensor -> its (scale, zero point) names
        self.codes: dict[str, tuple[str, str]] = {}
        #: float tensor -> the (scale, zero point) of the codes it is the reals of, through
        #: selections only
        self.reals: dict[str, tuple[str, str]] = {}
        self.dequantized: dict[str, str] = {}

    def fresh(self, base: str) -> str:
        name, index = base, 1
        while name in self.taken:
            name, index = f"{base}_{index}", index + 1
        self.taken.add(name)
        return name

    def value(self, where: str, name: str) -> np.ndarray:
        init = self.inits.get(name)
        if init is None:
            raise OnnxImportError(f"{where}: scale '{name}' is not a constant")
        return numpy_helper.to_array(init)

    # -- emitted nodes -----------------------------------------------------------------------
    def dequantize(self, label: str, codes: str, scale: str, zero_point: str,
                   axis: int | None = None) -> str:
        key = codes if axis is None else f"{codes}@{axis}"
        if key in self.dequantized:
            return self.dequantized[key]
        out = self.fresh(f"{codes}_dequantized")
        attrs = {} if axis is None else {"axis": axis}
        inputs = [codes, scale] + ([zero_point] if zero_point else [])
        self.nodes.append(helper.make_node("DequantizeLinear", inputs, [out],
                                           name=self.fresh(f"{label}/dequantize"), **attrs))
        self.dequantized[key] = out
        if codes in self.codes:
            self.reals[out] = self.codes[codes]
        return out

    def quantize(self, label: str, real: str, params: tuple[str, str], out: str) -> None:
        scale, zero_point = params
        inputs = [real, scale] + ([zero_point] if zero_point else [])
        self.nodes.append(helper.make_node("QuantizeLinear", inputs, [out],
                                           name=self.fresh(f"{label}/quantize")))
        self.codes[out] = params

    # -- nodes -------------------------------------------------------------------------------
    def qoperator(self, index: int, node: onnx.NodeProto) -> None:
        spec = QOPERATOR_OPS[node.op_type]
        where = node_label(node, index)
        label = node.name or f"#{index}"
        args = list(node.input)
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        triples = list(spec.operands)
        if spec.variadic_from is not None:
            triples += [(i, i + 1, i + 2) for i in range(spec.variadic_from, len(args), 3)]
        if max((max(t) for t in triples), default=0) >= len(args):
            raise OnnxImportError(f"{where}: {len(args)} inputs; the op takes its operands "
                                  "as (codes, scale, zero point) triples")
        trans_b = int(attrs.get("transB", 0))
        floats: list[str] = []
        for position, (q, s, z) in enumerate(triples):
            codes, scale, zero_point = args[q], args[s], args[z] if z < len(args) else ""
            axis = spec.weight_axis[trans_b] if position == 1 and len(
                self.value(where, scale).reshape(-1)) > 1 else None
            if codes not in self.codes and codes not in self.inits:
                raise OnnxImportError(f"{where}: input '{codes}' is not int8 codes of a "
                                      "QuantizeLinear, a quantized operator or a constant")
            floats.append(self.dequantize(label, codes, scale, zero_point, axis))
        if spec.bias is not None and spec.bias < len(args) and args[spec.bias]:
            floats.append(self.bias(where, label, args, spec, trans_b))
        float_attrs = {k: v for k, v in attrs.items() if k != "channels_last"}
        if attrs.get("channels_last", 0):
            raise OnnxImportError(f"{where}: channels_last=1 is not supported (NCHW data)")
        result = node.output[0]
        has_result_q = spec.result is not None and spec.result[0] < len(args) and \
            args[spec.result[0]]
        real = self.fresh(f"{result}_float") if has_result_q else result
        self.nodes.append(helper.make_node(spec.float_op, floats, [real], name=label,
                                           **float_attrs))
        if has_result_q:
            assert spec.result is not None
            scale, zp = spec.result
            self.quantize(label, real, (args[scale], args[zp] if zp < len(args) else ""),
                          result)

    def bias(self, where: str, label: str, args: Sequence[str], spec: QOp, trans_b: int) -> str:
        """The dequantized int32 bias, at the product of the two operands' scales."""
        assert spec.bias is not None
        x_scale = self.value(where, args[spec.operands[0][1]]).astype(np.float32)
        w_scale = self.value(where, args[spec.operands[1][1]]).astype(np.float32)
        if x_scale.size != 1:
            raise OnnxImportError(f"{where}: the input's scale '{args[spec.operands[0][1]]}' "
                                  f"has {x_scale.size} values; an activation has one scale")
        scale = x_scale.reshape(()) * w_scale
        scale_name = self.fresh(f"{args[spec.bias]}_scale")
        zero_name = self.fresh(f"{args[spec.bias]}_zero_point")
        self.new_inits += [numpy_helper.from_array(scale.astype(np.float32), scale_name),
                           numpy_helper.from_array(np.zeros(scale.shape, np.int32), zero_name)]
        axis = 0 if scale.size > 1 else None
        return self.dequantize(label, args[spec.bias], scale_name, zero_name, axis)

    def code_op(self, index: int, node: onnx.NodeProto) -> None:
        """A default-domain op on codes: dequantize, the op, quantize alike."""
        label = node.name or f"#{index}"
        params = self.codes[node.input[0]]
        real = self.dequantize(label, node.input[0], *params)
        out = self.fresh(f"{node.output[0]}_float")
        copy = onnx.NodeProto()
        copy.CopyFrom(node)
        copy.name = label
        copy.input[0] = real
        del copy.output[:]
        copy.output.extend([out, *node.output[1:]])
        self.nodes.append(copy)
        self.quantize(label, out, params, node.output[0])

    def run(self) -> onnx.ModelProto:
        for index, node in enumerate(self.graph.node):
            if node.op_type in QOPERATOR_OPS:
                self.qoperator(index, node)
            elif node.domain in _DEFAULT and node.op_type in CODE_OPS and node.input and \
                    node.input[0] in self.codes:
                self.code_op(index, node)
            else:
                copy = onnx.NodeProto()
                copy.CopyFrom(node)
                copy.name = node.name or f"#{index}"
                self.nodes.append(copy)
                if node.op_type == "QuantizeLinear":
                    self.codes[node.output[0]] = (node.input[1], node.input[2]
                                                  if len(node.input) > 2 else "")
                elif node.op_type == "DequantizeLinear" and node.input[0] in self.codes:
                    self.reals[node.output[0]] = self.codes[node.input[0]]
                elif node.op_type in SELECTIONS and node.input and node.input[0] in self.reals:
                    self.reals[node.output[0]] = self.reals[node.input[0]]
        self.close_float_sections()
        model = onnx.ModelProto()
        model.CopyFrom(self.model)
        del model.graph.node[:]
        model.graph.node.extend(self.nodes)
        model.graph.initializer.extend(self.new_inits)
        return model

    # -- float sections ----------------------------------------------------------------------
    def close_float_sections(self) -> None:
        """Quantize every float result that is not the input of a ``QuantizeLinear`` only
        (module docstring)."""
        outputs = {v.name for v in self.graph.output}
        inserted: list[tuple[int, list[onnx.NodeProto]]] = []
        for position, node in enumerate(self.nodes):
            if node.op_type in _QDQ or node.domain not in _DEFAULT or not node.output:
                continue
            result = node.output[0]
            readers = [n for n in self.nodes if result in n.input]
            if result not in outputs and readers and all(
                    n.op_type == "QuantizeLinear" for n in readers):
                continue
            if result in self.codes:
                continue
            params = (self.reals.get(node.input[0]) if node.op_type in SELECTIONS and
                      node.input else self.downstream(result))
            if params is None:
                continue  # left as it is: the recogniser names what it cannot read
            real = self.fresh(f"{result}_float")
            codes = self.fresh(f"{result}_quantized")
            node.output[0] = real
            scale, zp = params
            pair = [helper.make_node("QuantizeLinear", [real, scale, *([zp] if zp else [])],
                                     [codes], name=self.fresh(f"{node.name}/quantize")),
                    helper.make_node("DequantizeLinear", [codes, scale, *([zp] if zp else [])],
                                     [result], name=self.fresh(f"{node.name}/dequantize"))]
            self.reals[result] = params
            inserted.append((position, pair))
        for position, pair in reversed(inserted):
            self.nodes[position + 1:position + 1] = pair

    def downstream(self, result: str) -> tuple[str, str] | None:
        """The parameters of the ``QuantizeLinear`` that ``result`` reaches through
        selections read by nobody else."""
        current = result
        while True:
            readers = [n for n in self.nodes if current in n.input]
            if len(readers) != 1:
                return None
            reader = readers[0]
            if reader.op_type == "QuantizeLinear":
                return (reader.input[1], reader.input[2] if len(reader.input) > 2 else "")
            if reader.op_type not in SELECTIONS or reader.input[0] != current:
                return None
            current = reader.output[0]


def qdq_model(model: onnx.ModelProto) -> onnx.ModelProto:
    """``model`` in the QDQ form (module docstring); its initializers must be loaded."""
    return _Rewriter(model).run()
