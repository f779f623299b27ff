"""The checks that keep a malformed or oversized ONNX model from reaching numpy or the
recogniser: initializer data against its declared dims, external data kept inside the model's
folder, the size limits (``docs/onnx.md`` §5), ``onnx.checker``, node attributes, quantization
parameters and the shapes of convolutions and pools. Each failure is one
:class:`OnnxImportError` line naming the node or the tensor.

The sizes are checked on declared and inferred shapes only, before any array is built.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto
from onnx.external_data_helper import load_external_data_for_model

from vta_mlir.errors import VTAError

__all__ = ["MAX_TENSOR_ELEMENTS", "MAX_TOTAL_ELEMENTS", "OnnxImportError", "check_attributes",
           "check_external_data", "check_initializers", "check_scale", "check_sizes",
           "check_tensor_size", "check_with_onnx", "node_label", "reader_label",
           "window_output"]

#: The most elements of any one tensor (an activation, a weight, a bias): 16 Mi, an int8
#: activation of 16 MiB (ResNet-18 at 224×224 has at most 0.8 Mi per activation and 2.4 Mi per
#: weight). A convolution with padding and an asymmetric input zero point holds an int32 bias
#: per output element, 64 MiB at this limit.
MAX_TENSOR_ELEMENTS = 1 << 24
#: The most elements of all constants and int8 activations (each ``QuantizeLinear``'s output)
#: together: 64 Mi (at 224×224, ResNet-18: about 15 Mi, ResNet-50: about 52 Mi, its float
#: weights and their int8 codes both initializers of the QDQ model).
MAX_TOTAL_ELEMENTS = 1 << 26

#: The smallest scale accepted: the smallest normal float32; a smaller (subnormal) scale loses
#: precision and its reciprocal overflows float32.
MIN_SCALE = float(np.finfo(np.float32).tiny)


class OnnxImportError(VTAError):
    """A model the importer cannot translate: the message names the node and its op."""


def node_label(node: onnx.NodeProto, index: int) -> str:
    """``node 'conv1' (Conv)``, with the node's position when it has no name."""
    name = node.name or f"#{index}"
    return f"node '{name}' ({node.op_type})"


def reader_label(graph: onnx.GraphProto, name: str) -> str:
    """``node 'conv1' (Conv): `` for the first node reading ``name``, else ``""``."""
    return next((f"{node_label(n, i)}: " for i, n in enumerate(graph.node) if name in n.input),
                "")


def _count(dims: Sequence[int]) -> int:
    return math.prod(int(d) for d in dims)


def check_tensor_size(where: str, what: str, dims: Sequence[int]) -> None:
    """``dims`` are all at least 1 and hold at most :data:`MAX_TENSOR_ELEMENTS` elements."""
    shape = "×".join(str(d) for d in dims)
    if any(d < 1 for d in dims):
        raise OnnxImportError(f"{where}{what} has shape {shape}: an empty tensor")
    if _count(dims) > MAX_TENSOR_ELEMENTS:
        raise OnnxImportError(f"{where}{what} has {_count(dims)} elements ({shape}); the "
                              f"importer takes at most {MAX_TENSOR_ELEMENTS} per tensor")


# -- initializers ---------------------------------------------------------------------------
#: The element types an initializer may have, with the field that holds them when there is no
#: raw data (onnx.proto: the small integer types and float16 go in int32_data).
_FIELDS = {TensorProto.FLOAT: "float_data", TensorProto.DOUBLE: "double_data",
           TensorProto.INT8: "int32_data", TensorProto.UINT8: "int32_data",
           TensorProto.INT16: "int32_data", TensorProto.UINT16: "int32_data",
           TensorProto.INT32: "int32_data", TensorProto.FLOAT16: "int32_data",
           TensorProto.INT64: "int64_data"}


def _type_name(data_type: int) -> str:
    try:
        return TensorProto.DataType.Name(data_type).lower()
    except ValueError:
        return f"type {data_type}"


def _itemsize(where: str, init: TensorProto) -> int:
    if init.data_type not in _FIELDS:
        raise OnnxImportError(f"{where}initializer '{init.name}' has element type "
                              f"{_type_name(init.data_type)}, which the importer does not read")
    return int(onnx.helper.tensor_dtype_to_np_dtype(init.data_type).itemsize)


def _check_dims(where: str, init: TensorProto) -> int:
    if any(d < 0 for d in init.dims):
        raise OnnxImportError(f"{where}initializer '{init.name}' has negative dims "
                              f"{list(init.dims)}")
    count = _count(init.dims)
    if count > MAX_TENSOR_ELEMENTS:
        raise OnnxImportError(f"{where}initializer '{init.name}' has {count} elements "
                              f"({list(init.dims)}); the importer takes at most "
                              f"{MAX_TENSOR_ELEMENTS} per tensor")
    return count


def check_initializers(graph: onnx.GraphProto) -> None:
    """Every initializer's data holds exactly the elements its dims declare (numpy would fail
    to reshape it), of a type the importer reads, within the size limit."""
    for init in graph.initializer:
        where = reader_label(graph, init.name)
        count = _check_dims(where, init)
        itemsize = _itemsize(where, init)
        if init.data_location == TensorProto.EXTERNAL:
            raise OnnxImportError(f"{where}initializer '{init.name}': its external data was "
                                  "not loaded")
        if init.HasField("raw_data"):
            have, need = len(init.raw_data), count * itemsize
            unit = "bytes"
        else:
            have, need = len(getattr(init, _FIELDS[init.data_type])), count
            unit = "values"
        if have != need:
            raise OnnxImportError(f"{where}initializer '{init.name}' holds {have} {unit} of "
                                  f"data; its dims {list(init.dims)} need {need}")


def check_external_data(graph: onnx.GraphProto, model: onnx.ModelProto, folder: Path) -> None:
    """Check the external data of every initializer, then load it: each ``location`` is a
    regular file inside ``folder`` (the model's), holding the bytes the dims declare at its
    offset. No file is opened before every location has been checked."""
    base = folder.resolve()
    external = [init for init in graph.initializer
                if init.data_location == TensorProto.EXTERNAL]
    for init in external:
        where = reader_label(graph, init.name)
        count = _check_dims(where, init)
        itemsize = _itemsize(where, init)
        info = {entry.key: entry.value for entry in init.external_data}
        location = info.get("location", "")
        shown = location.replace("\0", "\\0")
        what = f"{where}initializer '{init.name}': external data '{shown}'"
        try:
            target = (base / location).resolve() if location else base
            exists = target.is_file()
        except (OSError, ValueError, RuntimeError) as exc:
            # A NUL byte, a symbolic link loop, a name too long for the file system.
            raise OnnxImportError(f"{what} cannot be opened ({_one_line(exc)})") from None
        if not location or os.path.isabs(location) or not target.is_relative_to(base) or \
                target == base:
            raise OnnxImportError(f"{what} is not a file inside the model's folder")
        if not exists:
            raise OnnxImportError(f"{what} does not exist")
        try:
            offset = int(info.get("offset", "0"))
            length = int(info.get("length", str(count * itemsize)))
        except ValueError:
            raise OnnxImportError(f"{what} has a malformed offset or length") from None
        if offset < 0 or length != count * itemsize:
            raise OnnxImportError(f"{what}: offset {offset} and length {length}; its dims "
                                  f"{list(init.dims)} need {count * itemsize} bytes")
        if offset + length > target.stat().st_size:
            raise OnnxImportError(f"{what} holds {target.stat().st_size} bytes, fewer than "
                                  f"offset {offset} + length {length}")
    if external:
        try:
            load_external_data_for_model(model, str(base))
        except (OSError, ValueError, onnx.checker.ValidationError) as exc:
            raise OnnxImportError(f"cannot read the external data: {_one_line(exc)}") from None


# -- the whole graph ------------------------------------------------------------------------
def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def check_with_onnx(model: onnx.ModelProto, path: Path, full: bool = True) -> None:
    """``onnx.checker`` with (``full``) strict shape and type inference: an op's input types,
    attributes and the declared shapes agree with ONNX's definitions (what onnxruntime checks
    when it loads the model).  Without ``full``, the graph's structure only: each node's
    inputs and outputs as its op's schema counts them, every input defined before it is read,
    no reference attribute outside a function — what the importer's own rewrites of the
    graph (QOperator, uint8) rely on before the full check can run on their result."""
    try:
        onnx.checker.check_model(model, full_check=full)
    except UnicodeDecodeError:
        # onnx's report quotes a name that is not UTF-8 (a corrupt file)
        raise OnnxImportError(f"'{path}' is not a valid ONNX model (corrupt file: a name that "
                              "is not UTF-8)") from None
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as exc:
        text = _one_line(exc)
        spec = re.search(r"^(.*?)\s*==> Context: Bad node spec for node\. Name: (.*) OpType: "
                         r"(\w+)$", text)
        if spec:
            # The structure check's form: the node's name and op after the message.
            raise OnnxImportError(f"node '{spec.group(2)}' ({spec.group(3)}): "
                                  f"{spec.group(1)}") from None
        node = re.search(r"op_type:(\w+), node name: ([^)]*)\)", text)
        detail = re.sub(r"^(\[\w+\] )?(Inference error\(s\): )?", "", text)
        detail = re.sub(r"\(op_type:[^)]*\): (\[\w+\] )?", "", detail)
        if node:
            raise OnnxImportError(f"node '{node.group(2)}' ({node.group(1)}): {detail}") \
                from None
        op = re.search(r"op_type:(\w+)", text)
        prefix = f"a {op.group(1)} node: " if op else ""
        raise OnnxImportError(f"'{path}' is not a valid ONNX model: {prefix}{detail}") from None


def check_sizes(model: onnx.ModelProto) -> None:
    """The shapes ONNX's inference gives every tensor, before anything is folded: none empty
    (named by the node writing it, in graph order), :data:`MAX_TENSOR_ELEMENTS` per tensor,
    :data:`MAX_TOTAL_ELEMENTS` for the constants and the int8 activations together. The
    inference is lenient here: ``check_with_onnx`` reports what it cannot infer."""
    graph = model.graph
    try:
        inferred = onnx.shape_inference.infer_shapes(model).graph
    except (onnx.shape_inference.InferenceError, UnicodeDecodeError) as exc:
        raise OnnxImportError(f"shape inference failed: {_one_line(exc)}") from None
    shapes: dict[str, tuple[int, ...]] = {}
    for value in [*inferred.input, *inferred.value_info, *inferred.output]:
        tensor_type = value.type.tensor_type
        if value.type.HasField("tensor_type") and tensor_type.HasField("shape") and all(
                d.HasField("dim_value") for d in tensor_type.shape.dim):
            shapes[value.name] = tuple(d.dim_value for d in tensor_type.shape.dim)
    total = sum(_count(init.dims) for init in graph.initializer)
    for index, node in enumerate(graph.node):
        for name in node.output:
            if name in shapes:
                check_tensor_size(f"{node_label(node, index)}: ", f"output '{name}'",
                                  shapes[name])
                if node.op_type == "QuantizeLinear":
                    total += _count(shapes[name])
    if total > MAX_TOTAL_ELEMENTS:
        raise OnnxImportError(f"the model's constants and int8 activations hold {total} "
                              f"elements; the importer takes at most {MAX_TOTAL_ELEMENTS}")


# -- nodes ----------------------------------------------------------------------------------
_WINDOW_OPS = ("Conv", "MaxPool", "AveragePool")


def check_attributes(graph: onnx.GraphProto) -> None:
    """The strides, pads, kernel shapes and dilations of every convolution and pool: positive
    (non-negative pads), two of each (four pads) for 2-D windows; a pool's pads smaller than
    its kernel; a convolution's ``kernel_shape`` that of its constant weight."""
    dims = {init.name: list(init.dims) for init in graph.initializer}
    for node in graph.node:
        if node.op_type == "DequantizeLinear" and node.input and node.input[0] in dims:
            dims[node.output[0]] = dims[node.input[0]]
    for index, node in enumerate(graph.node):
        if node.op_type not in _WINDOW_OPS:
            continue
        where = node_label(node, index)
        attrs = {a.name: a for a in node.attribute}
        for name, count, least in (("strides", 2, 1), ("kernel_shape", 2, 1),
                                   ("dilations", 2, 1), ("pads", 4, 0)):
            if name not in attrs:
                continue
            values = list(attrs[name].ints)
            if len(values) != count or any(v < least for v in values):
                need = "non-negative" if least == 0 else "positive"
                raise OnnxImportError(f"{where}: {name} {values}; {count} {need} values are "
                                      "supported (2-D windows)")
        kernel = list(attrs["kernel_shape"].ints) if "kernel_shape" in attrs else None
        pads = list(attrs["pads"].ints) if "pads" in attrs else [0, 0, 0, 0]
        if node.op_type in ("MaxPool", "AveragePool"):
            if kernel is None:
                raise OnnxImportError(f"{where}: no kernel_shape")
            if any(p >= kernel[i % 2] for i, p in enumerate(pads)):
                raise OnnxImportError(f"{where}: pads {pads} not smaller than the kernel "
                                      f"{kernel[0]}×{kernel[1]}")
        weight = dims.get(node.input[1]) if len(node.input) > 1 else None
        if node.op_type == "Conv" and kernel is not None and weight is not None and \
                weight[2:] != kernel:
            raise OnnxImportError(f"{where}: kernel_shape {kernel}, but the weight is "
                                  f"{'×'.join(str(d) for d in weight)}")


def window_output(where: str, size: tuple[int, int], kernel: tuple[int, int],
                  strides: Sequence[int], pads: Sequence[int]) -> tuple[int, int]:
    """The output (H, W) of a 2-D window of ``kernel`` over an input of ``size`` (``pads`` top,
    left, bottom, right); an error when the window does not fit in the padded input (an empty
    output)."""
    (h, w), (kh, kw), (sh, sw), (pt, pl, pb, pr) = size, kernel, strides, pads
    if h + pt + pb < kh or w + pl + pr < kw:
        raise OnnxImportError(f"{where}: a {kh}×{kw} window does not fit the padded input "
                              f"{h + pt + pb}×{w + pl + pr} (an empty output)")
    return (h + pt + pb - kh) // sh + 1, (w + pl + pr - kw) // sw + 1


def check_scale(where: str, name: str, scale: np.ndarray) -> None:
    """A scale is float32, finite and at least :data:`MIN_SCALE` (checked before anything is
    divided by it)."""
    if scale.dtype != np.float32:
        raise OnnxImportError(f"{where}: scale '{name}' is {scale.dtype}; scales are float32")
    values = scale.astype(np.float64).reshape(-1)
    bad = values[~(np.isfinite(values) & (values >= MIN_SCALE))]
    if values.size == 0 or bad.size:
        shown = f"{float(bad[0])!r}" if bad.size else "empty"
        raise OnnxImportError(f"{where}: scale '{name}' is {shown}; a scale is a finite "
                              f"float32 of at least {MIN_SCALE:.4g}")
