"""Reading an ONNX model and the checks that come before recognising its QDQ patterns: the file
parses, every node is of the default domain and an op the importer knows, every shape is static,
the input and output are float32, the model is quantized, its initializers and external data
are sound, it passes ``onnx.checker`` and it is within the size limits (``docs/onnx.md`` §5)."""

from __future__ import annotations

from pathlib import Path

import onnx
from google.protobuf.message import DecodeError

from .check import (
    OnnxImportError,
    check_attributes,
    check_external_data,
    check_initializers,
    check_sizes,
    check_tensor_size,
    check_with_onnx,
    node_label,
    reader_label,
)
from .dynamic import DYNAMIC_OPS, is_dynamic, unsupported_op
from .floats import FLOAT_ONLY_OPS
from .neck import CNN_OPS
from .qoperator import CODE_OPS, QOPERATOR_OPS, is_qoperator, qdq_model
from .unsigned import signed_model

__all__ = ["COMPUTE_OPS", "QDQ_OPS", "QUANTIZE_HINT", "OnnxImportError", "load_model", "node_label",
           "static_shape"]

#: The operators that become layers (or fold into one), between Q/DQ pairs.
COMPUTE_OPS = frozenset({"Conv", "Gemm", "MatMul", "Add", "Relu", "Clip", "MaxPool",
                         "GlobalAveragePool", "Flatten", "Identity", "ReduceMean", "Reshape",
                         # Computed by the host in float32 (vta_mlir/quant/host_layers.py,
                         # host_float.py).
                         "Softmax", "Sigmoid", *FLOAT_ONLY_OPS,
                         *CNN_OPS})
#: The quantization operators of the QDQ format.
QDQ_OPS = frozenset({"QuantizeLinear", "DequantizeLinear"})
#: Opsets of the default domain the importer has been checked on.
OPSETS = range(13, 22)
#: The largest model file read: protobuf messages are limited to 2 GiB.
MAX_MODEL_BYTES = 2**31 - 1

QUANTIZE_HINT = ("quantize it first with onnxruntime.quantization.quantize_static "
                  "(int8 or uint8 activations, int8 weights)")


def static_shape(value: onnx.ValueInfoProto) -> tuple[int, ...] | None:
    """The dimensions of ``value`` when they are all known numbers, else ``None``."""
    if not value.type.HasField("tensor_type") or not value.type.tensor_type.HasField("shape"):
        return None
    dims = value.type.tensor_type.shape.dim
    if any(not d.HasField("dim_value") or d.dim_value <= 0 for d in dims):
        return None
    return tuple(d.dim_value for d in dims)


def load_model(path: str | Path) -> onnx.ModelProto:
    """Read ``path`` and check it as the module docstring says; errors are
    :class:`OnnxImportError` with one line of text."""
    path = Path(path)
    try:
        if path.exists():
            if not path.is_file():
                # A folder, a device or a pipe: nothing a model is stored in (/dev/zero never
                # ends).
                raise OnnxImportError(f"cannot open '{path}': not a regular file")
            size = path.stat().st_size
            if size > MAX_MODEL_BYTES:
                raise OnnxImportError(f"'{path}' holds {size} bytes, more than the "
                                      f"{MAX_MODEL_BYTES} a protobuf ONNX model can hold "
                                      "(larger weights go to external data)")
        data = path.read_bytes()
    except OSError as exc:
        raise OnnxImportError(f"cannot open '{path}': {exc.strerror or exc}") from None
    try:
        model = onnx.load_model_from_string(data)
    except (DecodeError, ValueError, RuntimeError) as exc:
        raise OnnxImportError(f"'{path}' is not a valid ONNX model (corrupt or truncated "
                              f"file: {exc})") from None
    if not model.HasField("graph") or not model.graph.node:
        raise OnnxImportError(f"'{path}' is not a valid ONNX model (corrupt or truncated file: "
                              "no graph)")
    graph = model.graph
    default_opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")),
                         None)
    if default_opset is not None and default_opset not in OPSETS:
        raise OnnxImportError(f"'{path}': opset {default_opset} of the default domain; the "
                              f"importer supports opsets {OPSETS.start}-{OPSETS.stop - 1}")
    _check_ops(graph, qoperator=True)
    initializers = {init.name for init in graph.initializer}
    for value in graph.input:
        if value.name in initializers:
            continue
        reader = reader_label(graph, value.name)
        shape = static_shape(value)
        if shape is None:
            raise OnnxImportError(f"{reader}input '{value.name}' has a dynamic or unknown shape "
                                  "(give every dimension a number)")
        _check_float(reader, "input", value)
        check_tensor_size(reader, f"input '{value.name}'", shape)
    for value in graph.output:
        writer = next((f"{node_label(n, i)}: " for i, n in enumerate(graph.node)
                       if value.name in n.output), "")
        out_shape = static_shape(value)
        if out_shape is None:
            raise OnnxImportError(f"{writer}output '{value.name}' has a dynamic or unknown "
                                  "shape (give every dimension a number)")
        # A dynamically quantized model may also return an int32 tensor (a MatMulInteger's).
        if not (is_dynamic(graph) and value.type.tensor_type.elem_type == onnx.TensorProto.INT32):
            _check_float(writer, "output", value)
        check_tensor_size(writer, f"output '{value.name}'", out_shape)
    if not any(node.op_type in QDQ_OPS for node in graph.node) and not is_dynamic(graph):
        index, node = next((i, n) for i, n in enumerate(graph.node))
        raise OnnxImportError(f"{node_label(node, index)}: the model is not quantized (a float "
                              f"model); {QUANTIZE_HINT}")
    if model.ir_version > onnx.IR_VERSION:
        raise OnnxImportError(f"'{path}': IR version {model.ir_version}; the importer reads up "
                              f"to {onnx.IR_VERSION}")
    check_external_data(graph, model, path.parent)
    check_initializers(graph)
    check_with_onnx(model, path, full=False)
    if is_qoperator(graph):
        model = qdq_model(model)
        graph = model.graph
        _check_ops(graph, qoperator=False)
    model = signed_model(model)
    graph = model.graph
    check_attributes(graph)
    check_sizes(model)
    check_with_onnx(model, path)
    return model


def _check_ops(graph: onnx.GraphProto, qoperator: bool) -> None:
    """Every node is an op the importer reads: of the default domain (checked on each node's
    domain: torch declares com.microsoft in opset_import without using it) and of
    :data:`COMPUTE_OPS` or :data:`QDQ_OPS`, or with ``qoperator`` a QOperator node
    (:data:`~.qoperator.QOPERATOR_OPS`, of either domain) or an op it runs on codes."""
    for index, node in enumerate(graph.node):
        reference = next((a for a in node.attribute if a.ref_attr_name), None)
        if reference is not None:
            raise OnnxImportError(
                f"{node_label(node, index)}: attribute '{reference.name}' refers to "
                f"'{reference.ref_attr_name}', an attribute of a function, outside any "
                "function (give its value)")
        if qoperator and node.op_type in QOPERATOR_OPS:
            continue
        if node.domain not in ("", "ai.onnx"):
            raise OnnxImportError(
                f"{node_label(node, index)}: op of domain '{node.domain}' is not supported "
                f"(of the QOperator format the importer reads {', '.join(QOPERATOR_OPS)}; "
                "quant_format=QuantFormat.QDQ writes the other operators in the default "
                "domain)")
        if is_dynamic(graph) and node.op_type not in COMPUTE_OPS | DYNAMIC_OPS:
            raise unsupported_op(node_label(node, index), node)
        if node.op_type not in COMPUTE_OPS | QDQ_OPS | (CODE_OPS if qoperator else set()) \
                | (DYNAMIC_OPS if is_dynamic(graph) else set()):
            raise OnnxImportError(f"{node_label(node, index)}: unsupported op '{node.op_type}' "
                                  f"(supported: {', '.join(sorted(COMPUTE_OPS))} between "
                                  "QuantizeLinear/DequantizeLinear)")


def _check_float(where: str, what: str, value: onnx.ValueInfoProto) -> None:
    """The graph's input and output are float32 (the host steps quantize and dequantize)."""
    elem = value.type.tensor_type.elem_type
    if elem != onnx.TensorProto.FLOAT:
        name = onnx.TensorProto.DataType.Name(elem).lower() if elem in \
            onnx.TensorProto.DataType.values() else f"type {elem}"
        raise OnnxImportError(f"{where}{what} '{value.name}' is {name}; the importer takes a "
                              f"float32 {what}")

