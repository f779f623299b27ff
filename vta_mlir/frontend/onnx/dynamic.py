"""Dynamically quantized models (``onnxruntime.quantization.quantize_dynamic``,
``docs/onnx.md`` §4.17): ``DynamicQuantizeLinear``, the ``Cast`` of int32 results and every
float operation on the host (``dynamic_float.py``), ``MatMulInteger`` and ``ConvInteger`` on
VTA.

``quantize_dynamic`` replaces a float ``MatMul`` by ``DynamicQuantizeLinear`` (float → uint8
codes, with a scale and a zero point computed from the tensor's range at run time), a
``MatMulInteger`` of those codes by int8 constant weights (int32 results), a ``Cast`` to float
and a ``Mul`` by the product of the two scales; the graph's other operators (a bias ``Add``, a
``Relu``, a transformer's LayerNorm, Softmax and attention products) stay float.  The scales
exist only at run time, so the model cannot be a :class:`~vta_mlir.quant.program.Program` of
requantized layers: this module writes the whole
function itself, every float operation as float code that ``vta-outline-host-steps`` makes host
steps (the function carries ``vta.host_float``), every ``MatMulInteger`` as a VTA contraction
whose int32 accumulators leave the device as byte planes (``passes/pack/wide_outputs.py``).

The integer plan of ``MatMulInteger(a, w, z_a, 0)``, exact: VTA multiplies int8 operands, so
the codes are shifted, ``a − 128`` (exact), and VTA computes ``acc = Σ_k (a − 128) · w``; the
host adds ``(128 − z_a) · Σ_k w[k, n]`` in int32, which gives ``Σ_k (a − z_a) · w`` — the
int32 result of onnxruntime's ``MatMulInteger``, bit for bit (the column sums are constants).
``ConvInteger`` alike, with the sums over each output channel's kernel: its padding holds the
zero point (onnxruntime pads the codes with it, so padded taps add nothing), which the host
writes around the shifted codes, ``z − 128``, and VTA convolves without padding of its own.

The buffers and their text are ``dynamic_emit.py``'s.
"""

from __future__ import annotations

import re

import numpy as np
import onnx
from onnx import numpy_helper

from .check import OnnxImportError, node_label
from .dynamic_emit import Buffer, Function, broadcast_map, f32, operand_map
from .dynamic_float import HOST_FLOAT_OPS, FloatNodes

__all__ = ["DYNAMIC_OPS", "dynamic_text", "is_dynamic", "refuse_dynamic", "unsupported_op"]

#: The operators of a dynamically quantized graph besides those of the QDQ route.
DYNAMIC_OPS = frozenset({"DynamicQuantizeLinear", "MatMulInteger", "ConvInteger", "Cast"})
#: The other operators of such a graph: float on the host, or folded on constants.
FLOAT_OPS = HOST_FLOAT_OPS
#: The uint8 codes' range and their shift to int8.
_QMAX = 255
_SHIFT = 128


def is_dynamic(graph: onnx.GraphProto) -> bool:
    """Whether ``graph`` is dynamically quantized (has a ``DynamicQuantizeLinear``)."""
    return any(node.op_type == "DynamicQuantizeLinear" for node in graph.node)


def unsupported_op(where: str, node: onnx.NodeProto) -> OnnxImportError:
    """The error of an operator a dynamically quantized graph may not hold."""
    return OnnxImportError(f"{where}: unsupported op '{node.op_type}' in a dynamically "
                           f"quantized model (supported: "
                           f"{', '.join(sorted(DYNAMIC_OPS | FLOAT_OPS))})")


def refuse_dynamic(graph: onnx.GraphProto) -> None:
    """The QDQ route's refusal of a dynamically quantized graph, at its first
    ``DynamicQuantizeLinear``: such a graph has no integer ``Program``."""
    for index, node in enumerate(graph.node):
        if node.op_type == "DynamicQuantizeLinear":
            raise OnnxImportError(f"{node_label(node, index)}: a dynamically quantized model "
                                  "(quantize_dynamic) has no integer Program: import_text and "
                                  "vta-import-onnx write it as host code around VTA "
                                  "contractions")


def _attrs(node: onnx.NodeProto) -> dict[str, object]:
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _shape(value: onnx.ValueInfoProto) -> tuple[int, ...]:
    return tuple(d.dim_value for d in value.type.tensor_type.shape.dim)


class _Writer(FloatNodes):
    """The function of a dynamically quantized graph, node by node."""

    def __init__(self, model: onnx.ModelProto) -> None:
        self.graph = model.graph
        self.inits = {i.name: numpy_helper.to_array(i) for i in self.graph.initializer}
        self.f = Function()
        self.buffers: dict[str, Buffer] = {}
        self.zero_points: dict[str, str] = {}   # codes -> their zero point's tensor name
        self.outputs = {v.name for v in self.graph.output}
        self.readers: dict[str, list[onnx.NodeProto]] = {}
        for node in self.graph.node:
            for name in node.input:
                self.readers.setdefault(name, []).append(node)
        self._init_float_nodes()

    # -- buffers ---------------------------------------------------------------------------
    def result(self, name: str, shape: tuple[int, ...], element: str, **form: object
               ) -> Buffer:
        """The buffer of the node output ``name``: the function argument of a graph output,
        else a new allocation."""
        if name in self.outputs:
            b = self.buffers[name]
            if b.shape != shape:
                raise OnnxImportError(f"output '{name}' is declared {b.shape}, computed "
                                      f"{shape}")
            return b
        b = self.f.alloc(Buffer(self.f.ssa(name), shape, element, **form))  # type: ignore[arg-type]
        self.buffers[name] = b
        return b

    def buffer(self, where: str, name: str, element: str) -> Buffer:
        b = self.buffers.get(name)
        if b is None:
            what = "a constant" if name in self.inits else "computed by no supported node"
            raise OnnxImportError(f"{where}: input '{name}' is {what}; the host and VTA "
                                  "compute on tensors the graph computes")
        if b.element != element:
            raise OnnxImportError(f"{where}: input '{name}' holds {b.element} values, not "
                                  f"{element}")
        return b

    def read(self, b: Buffer, shape: tuple[int, ...]) -> tuple[str, str, str]:
        return b.ssa, b.type, operand_map(b, shape)

    # -- the graph -------------------------------------------------------------------------
    def run(self) -> str:
        graph = self.graph
        params: list[str] = []
        for value in [v for v in graph.input if v.name not in self.inits]:
            b = Buffer(self.f.ssa(value.name), _shape(value), "f32")
            self.buffers[value.name] = b
            params.append(f"{b.ssa}: {b.type}")
        for index, value in enumerate(graph.output):
            # Written before any read (vta.result): an int32 result exposed as an output is
            # read back by its Cast, in the host step that writes it.
            int32 = value.type.tensor_type.elem_type == onnx.TensorProto.INT32
            b = Buffer(self.f.ssa(value.name), _shape(value), "i32" if int32 else "f32")
            self.buffers[value.name] = b
            params.append(f"{b.ssa}: {b.type} {{vta.result = {index} : i64}}")
        for index, node in enumerate(graph.node):
            if node.op_type in ("MatMulInteger", "ConvInteger"):  # before its scales' Mul
                self.weight(node_label(node, index), node)
        for index, node in enumerate(graph.node):
            where = node_label(node, index)
            handler = getattr(self, f"_op_{node.op_type}", None)
            if node.domain not in ("", "ai.onnx") or (
                    handler is None and node.op_type not in HOST_FLOAT_OPS):
                raise unsupported_op(where, node)
            if handler is None:
                self.float_node(where, node)
            else:
                handler(where, node)
        name = re.sub(r"[^A-Za-z0-9_]", "_", graph.name or "model") or "model"
        return self.f.text(name, params)

    # -- quantization ----------------------------------------------------------------------
    def codes_form(self, where: str, node: onnx.NodeProto, x: Buffer) -> dict[str, object]:
        """How the codes of ``node`` are stored: a matrix for ``MatMulInteger`` s, the NCHW
        tensor padded as its ``ConvInteger`` s pad it (all alike)."""
        readers = self.readers.get(node.output[0], [])
        convs = [r for r in readers if r.op_type == "ConvInteger"]
        if not convs:
            return {"form": "matrix"}
        pads = {tuple(_attrs(c).get("pads", [0, 0, 0, 0])) for c in convs}  # type: ignore[arg-type]
        if len(convs) != len(readers) or len(pads) != 1 or len(x.shape) != 4:
            raise OnnxImportError(f"{where}: its codes are read by a ConvInteger and by other "
                                  "nodes, or by ConvIntegers padding them differently, or are "
                                  "not an NCHW tensor")
        pt, pl, pb, pr = next(iter(pads))
        n, c, h, w = x.shape
        return {"stored": (n, c, h + pt + pb, w + pl + pr), "offsets": (0, 0, pt, pl)}

    def _op_DynamicQuantizeLinear(self, where: str, node: onnx.NodeProto) -> None:
        """ONNX's formula as onnxruntime computes it in float32: the range includes 0,
        ``scale = (max − min) / 255`` (1 when the range is empty), ``zero point =
        roundeven(clip(0 − min / scale, 0, 255))``, ``q = clip(roundeven(x / scale) + zero
        point, 0, 255)``; the codes are stored shifted, ``q − 128``, for VTA."""
        x = self.buffer(where, node.input[0], "f32")
        if any(name in self.outputs for name in node.output):
            raise OnnxImportError(f"{where}: its outputs are read by the graph, not returned")
        codes = self.result(node.output[0], x.shape, "i8", **self.codes_form(where, node, x))
        scale = self.result(node.output[1], (), "f32")
        zero_point = self.result(node.output[2], (), "f32")
        self.zero_points[node.output[0]] = node.output[2]
        low = self.f.alloc(Buffer(self.f.ssa(f"{node.output[0]}_min"), (), "f32"))
        high = self.f.alloc(Buffer(self.f.ssa(f"{node.output[0]}_max"), (), "f32"))
        zero = self.f.ssa("zero")
        self.f.lines += [f"  {zero} = arith.constant 0.000000e+00 : f32",
                         f"  linalg.fill ins({zero} : f32) outs({low.ssa} : {low.type})",
                         f"  linalg.fill ins({zero} : f32) outs({high.ssa} : {high.type})"]
        for bound, fold in ((low, "minimumf"), (high, "maximumf")):
            self.f.generic([self.read(x, x.shape)], bound,
                           [f"%y = arith.{fold} %in0, %out : f32"], x.shape, reduce=True)
        self.f.generic([self.read(low, ()), self.read(high, ())], scale, [
            f"%n = arith.constant {f32(_QMAX)} : f32",
            f"%one = arith.constant {f32(1.0)} : f32",
            "%d = arith.subf %in1, %in0 : f32",
            "%s = arith.divf %d, %n : f32",
            "%same = arith.cmpf oeq, %in1, %in0 : f32",
            "%y = arith.select %same, %one, %s : f32"])
        self.f.generic([self.read(low, ()), self.read(scale, ())], zero_point, [
            f"%lo = arith.constant {f32(0.0)} : f32",
            f"%hi = arith.constant {f32(_QMAX)} : f32",
            "%t = arith.divf %in0, %in1 : f32",
            "%z = arith.subf %lo, %t : f32",
            "%a = arith.maximumf %z, %lo : f32",
            "%b = arith.minimumf %a, %hi : f32",
            "%y = math.roundeven %b : f32"])
        if codes.stored:
            # The padding of a ConvInteger: the zero point, shifted.
            whole = Buffer(codes.ssa, codes.stored, "i8")
            self.f.generic([self.read(zero_point, whole.shape)], whole, [
                f"%shift = arith.constant {f32(_SHIFT)} : f32",
                "%s = arith.subf %in0, %shift : f32",
                "%y = arith.fptosi %s : f32 to i8"])
        self.f.generic([self.read(x, x.shape), self.read(scale, x.shape),
                        self.read(zero_point, x.shape)], codes, [
            f"%lo = arith.constant {f32(0.0)} : f32",
            f"%hi = arith.constant {f32(_QMAX)} : f32",
            f"%shift = arith.constant {f32(_SHIFT)} : f32",
            "%v = arith.divf %in0, %in1 : f32",
            "%r = math.roundeven %v : f32",
            "%q = arith.addf %r, %in2 : f32",
            "%a = arith.maximumf %q, %lo : f32",
            "%b = arith.minimumf %a, %hi : f32",
            "%s = arith.subf %b, %shift : f32",
            "%y = arith.fptosi %s : f32 to i8"])
        for b in (low, high):
            self.f.lines.append(f"  memref.dealloc {b.ssa} : {b.type}")

    # -- the integer operators -------------------------------------------------------------
    def weight(self, where: str, node: onnx.NodeProto) -> np.ndarray:
        """The int8 constant weight of the ``MatMulInteger`` (K×N) or ``ConvInteger`` (OIHW)
        ``node``, with one zero point of 0."""
        w_name, rank = node.input[1], 2 if node.op_type == "MatMulInteger" else 4
        w = self.inits.get(w_name)
        if w is None:
            raise OnnxImportError(f"{where}: the weight '{w_name}' is not a constant: VTA "
                                  "multiplies the codes by int8 constant weights")
        if w.dtype != np.int8 or w.ndim != rank:
            raise OnnxImportError(f"{where}: the weight '{w_name}' is {w.dtype} of shape "
                                  f"{tuple(w.shape)}; int8 weights of rank {rank} "
                                  "(QuantType.QInt8) are supported")
        if len(node.input) > 3 and node.input[3]:
            w_zp = self.inits.get(node.input[3])
            if w_zp is None or w_zp.size != 1:
                raise OnnxImportError(f"{where}: per-column weight zero points "
                                      f"('{node.input[3]}'); one zero point of 0 for the whole "
                                      "weight (per_channel=False) is supported")
            if int(w_zp.reshape(())) != 0:
                raise OnnxImportError(f"{where}: weight zero point {int(w_zp.reshape(()))}; "
                                      "symmetric int8 weights (zero point 0) are supported")
        return w

    def codes(self, where: str, node: onnx.NodeProto) -> Buffer:
        """The codes ``node`` reads, checked to come with their own zero point."""
        a = self.buffer(where, node.input[0], "i8")
        if len(node.input) < 3 or node.input[2] != self.zero_points.get(node.input[0]):
            raise OnnxImportError(f"{where}: the zero point of '{node.input[0]}' is not the one "
                                  "its DynamicQuantizeLinear computes")
        return a

    def correct(self, node: onnx.NodeProto, acc: Buffer, sums: np.ndarray, shape: tuple[int, ...]
                ) -> None:
        """``result = acc + (128 − z) · sums`` in int32 on the host (module doc); ``sums``
        broadcast to the result's ``shape``; ``acc`` is freed after."""
        result = self.result(node.output[0], shape, "i32")
        total = self.f.constant(f"{node.input[1]}_sums", sums.astype(np.int32), "i32")
        zp = self.buffers[self.zero_points[node.input[0]]]
        sums_map = broadcast_map(sums.shape, shape)
        assert sums_map is not None
        self.f.generic([self.read(acc, shape), self.read(zp, shape),
                        (total, f"memref<{'x'.join(map(str, sums.shape))}xi32>", sums_map)],
                       result, [
                           f"%shift = arith.constant {_SHIFT} : i32",
                           "%z = arith.fptosi %in1 : f32 to i32",
                           "%d = arith.subi %shift, %z : i32",
                           "%m = arith.muli %d, %in2 : i32",
                           "%y = arith.addi %in0, %m : i32"])
        self.f.lines.append(f"  memref.dealloc {acc.ssa} : {acc.type}")

    def device(self, acc: Buffer, op: str) -> None:
        """``acc = 0`` then the contraction ``op`` into it, on VTA."""
        zero = self.f.ssa("c0_i32")
        self.f.alloc(acc)
        self.f.lines += [f"  {zero} = arith.constant 0 : i32",
                         f"  linalg.fill ins({zero} : i32) outs({acc.ssa} : {acc.type})",
                         f"  {op} outs({acc.ssa} : {acc.type})"]

    def _op_MatMulInteger(self, where: str, node: onnx.NodeProto) -> None:
        a = self.codes(where, node)
        w = self.weight(where, node)
        if a.form != "matrix" or w.shape[0] != a.shape[-1]:
            raise OnnxImportError(f"{where}: codes of shape {a.shape} times a weight of shape "
                                  f"{tuple(w.shape)}: not a matrix product")
        shape = (*a.shape[:-1], w.shape[1])
        acc = Buffer(self.f.ssa(f"{node.output[0]}_acc"), shape, "i32", "matrix")
        weight = self.f.constant(node.input[1], w, "i8")
        self.device(acc, f"linalg.matmul ins({a.ssa}, {weight} : {a.type}, "
                         f"memref<{w.shape[0]}x{w.shape[1]}xi8>)")
        self.correct(node, acc, w.astype(np.int64).sum(axis=0), shape)

    def _op_ConvInteger(self, where: str, node: onnx.NodeProto) -> None:
        a = self.codes(where, node)
        w = self.weight(where, node)
        attrs = _attrs(node)
        strides = list(attrs.get("strides", [1, 1]))  # type: ignore[call-overload]
        if attrs.get("group", 1) != 1 or list(attrs.get("dilations", [1, 1])) != [1, 1] \
                or attrs.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET") \
                or not a.stored or w.shape[1] != a.shape[1]:
            raise OnnxImportError(f"{where}: a ConvInteger of one group, dilation 1 and "
                                  "explicit pads on NCHW codes is supported")
        n, _, hp, wp = a.stored
        o, _, kh, kw = w.shape
        shape = (n, o, (hp - kh) // strides[0] + 1, (wp - kw) // strides[1] + 1)
        acc = Buffer(self.f.ssa(f"{node.output[0]}_acc"), shape, "i32")
        kernel = self.f.constant(node.input[1], w, "i8")
        stored = Buffer(a.ssa, a.stored, "i8")
        self.device(acc, "linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, "
                         f"strides = dense<[{strides[0]}, {strides[1]}]> : tensor<2xi64>}} "
                         f"ins({a.ssa}, {kernel} : {stored.type}, "
                         f"memref<{'x'.join(map(str, w.shape))}xi8>)")
        self.correct(node, acc, w.astype(np.int64).sum(axis=(1, 2, 3)).reshape(o, 1, 1), shape)

    # -- float operators (dynamic_float.py) -----------------------------------------------
    def _op_Cast(self, where: str, node: onnx.NodeProto) -> None:
        """int32 → float32 rounded to nearest (the float layers' ``Cast`` is of float values
        only: an alias)."""
        x = self.buffer(where, node.input[0], "i32")
        if _attrs(node).get("to") != onnx.TensorProto.FLOAT:
            raise OnnxImportError(f"{where}: a Cast of an int32 result to float is supported")
        y = self.result(node.output[0], x.shape, "f32")
        self.f.generic([self.read(x, x.shape)], y, ["%y = arith.sitofp %in0 : i32 to f32"])


def dynamic_text(model: onnx.ModelProto) -> str:
    """The MLIR text of the dynamically quantized ``model`` (checked by ``load.load_model``)."""
    return _Writer(model).run()
