"""Dynamically quantized models (``onnxruntime.quantization.quantize_dynamic``,
``docs/onnx.md`` §4.15): ``DynamicQuantizeLinear`` and ``Mul`` / ``Add`` / ``Relu`` / ``Cast``
on the host, ``MatMulInteger`` on VTA.

``quantize_dynamic`` replaces a float ``MatMul`` by ``DynamicQuantizeLinear`` (float → uint8
codes, with a scale and a zero point computed from the tensor's range at run time), a
``MatMulInteger`` of those codes by int8 constant weights (int32 results), a ``Cast`` to float
and a ``Mul`` by the product of the two scales; the graph's other operators (a bias ``Add``, a
``Relu``) stay float.  The scales exist only at run time, so the model cannot be a
:class:`~vta_mlir.quant.program.Program` of requantized layers: this module writes the whole
function itself, every float operation as float code that ``vta-outline-host-steps`` makes host
steps (the function carries ``vta.host_float``), every ``MatMulInteger`` as a VTA contraction
whose int32 accumulators leave the device as byte planes (``passes/pack/wide_outputs.py``).

The integer plan of ``MatMulInteger(a, w, z_a, 0)``, exact: VTA multiplies int8 operands, so
the codes are shifted, ``a − 128`` (exact), and VTA computes ``acc = Σ_k (a − 128) · w``; the
host adds ``(128 − z_a) · Σ_k w[k, n]`` in int32, which gives ``Σ_k (a − z_a) · w`` — the
int32 result of onnxruntime's ``MatMulInteger``, bit for bit (the column sums are constants).

Tensors of any rank are computed as matrices: the rows are all axes but the last.  Each ONNX
tensor is one buffer: float32 (host), the int8 codes of a ``DynamicQuantizeLinear`` (written
by the host, read by VTA), an int32 result (written by VTA, read by the host), or a one-element
float32 buffer for a scale or a zero point (written by a host step, read by later ones).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import onnx
from onnx import numpy_helper

from vta_mlir.frontend.mlir_text import memref_type

from .check import OnnxImportError, node_label

__all__ = ["DYNAMIC_HINT", "DYNAMIC_OPS", "dynamic_text", "is_dynamic"]

#: The operators of a dynamically quantized graph besides those of the QDQ route.
DYNAMIC_OPS = frozenset({"DynamicQuantizeLinear", "MatMulInteger", "Cast"})
#: Why the QDQ route does not read these operators.
DYNAMIC_HINT = ("an operator of dynamic quantization (quantize_dynamic), read only in a graph "
                "whose MatMulIntegers read DynamicQuantizeLinear codes (import_text, "
                "vta-import-onnx), which has no integer Program")
#: The float operators the host computes in such a graph.
FLOAT_OPS = frozenset({"Mul", "Add", "Relu", "Cast"})
#: The uint8 codes' range and their shift to int8.
_QMAX = 255
_SHIFT = 128


def is_dynamic(graph: onnx.GraphProto) -> bool:
    """Whether ``graph`` is dynamically quantized (has a ``DynamicQuantizeLinear``)."""
    return any(node.op_type == "DynamicQuantizeLinear" for node in graph.node)


@dataclass(frozen=True)
class _Tensor:
    """A buffer: ``ssa`` its value, ``shape`` the ONNX shape (``()`` for a scale or zero
    point), ``element`` ``f32``, ``i8`` (codes) or ``i32``; ``arg``: a function argument, of
    the ONNX shape (an internal buffer is the rows × columns matrix)."""

    ssa: str
    shape: tuple[int, ...]
    element: str
    arg: bool = False

    @property
    def matrix(self) -> tuple[int, int]:
        if not self.shape:
            return 1, 1
        return int(np.prod(self.shape[:-1], dtype=np.int64)), self.shape[-1]

    @property
    def type(self) -> str:
        if not self.shape:
            return memref_type((1,), self.element)
        return memref_type(self.shape if self.arg else self.matrix, self.element)

    def map(self) -> str:
        """The indexing map reading or writing this buffer from the ``(r, c)`` iteration
        space of the matrix: a scalar is element 0, an argument's leading axes split ``r``."""
        if not self.shape:
            return "affine_map<(r, c) -> (0)>"
        if not self.arg or len(self.shape) == 2:
            return "affine_map<(r, c) -> (r, c)>"
        if len(self.shape) == 1:
            return "affine_map<(r, c) -> (c)>"
        lead = self.shape[:-1]
        parts = []
        for k, n in enumerate(lead):
            inner = int(np.prod(lead[k + 1:], dtype=np.int64))
            expr = f"r floordiv {inner}" if inner > 1 else "r"
            parts.append(expr if k == 0 else f"({expr}) mod {n}")
        return f"affine_map<(r, c) -> ({', '.join(parts)}, c)>"


def _f32(value: float) -> str:
    """An ``f32`` literal of exactly ``value`` (as float32)."""
    bits = int(np.array(value, dtype=np.float32).view(np.uint32))
    return f"0x{bits:08X}"


class _Writer:
    """The function's text, node by node."""

    def __init__(self, model: onnx.ModelProto) -> None:
        self.graph = model.graph
        self.inits = {i.name: numpy_helper.to_array(i) for i in self.graph.initializer}
        self.tensors: dict[str, _Tensor] = {}
        self.zero_points: dict[str, str] = {}   # codes -> their zero point's tensor name
        self.lines: list[str] = []
        #: The allocations, at the start of the function: a host step reading a buffer
        #: comes where its first op was, which may be before the buffer's first writer.
        self.allocs: list[str] = []
        self.globals: list[str] = []
        self.names: set[str] = set()
        self.outputs = {v.name for v in self.graph.output}

    # -- names and buffers -----------------------------------------------------------------
    def ssa(self, hint: str) -> str:
        # A generic's region shares the function's names: its own start with "_" (generic).
        stem = re.sub(r"[^A-Za-z0-9_]", "_", hint) or "t"
        if not stem[0].isalpha():
            stem = f"t{stem}"
        name, n = stem, 1
        while name in self.names:
            name, n = f"{stem}_{n}", n + 1
        self.names.add(name)
        return f"%{name}"

    def result(self, name: str, shape: tuple[int, ...], element: str) -> _Tensor:
        """The buffer of the node output ``name``: the function argument of a graph output,
        else a new allocation."""
        if name in self.outputs:
            return self.tensors[name]
        t = _Tensor(self.ssa(name), shape, element)
        self.allocs.append(f"  {t.ssa} = memref.alloc() : {t.type}")
        self.tensors[name] = t
        return t

    def tensor(self, where: str, name: str, element: str | None = None) -> _Tensor:
        t = self.tensors.get(name)
        if t is None:
            what = "a constant" if name in self.inits else "computed by no supported node"
            raise OnnxImportError(f"{where}: input '{name}' is {what}; the host and VTA "
                                  "compute on tensors the graph computes")
        if element is not None and t.element != element:
            raise OnnxImportError(f"{where}: input '{name}' holds {t.element} values, not "
                                  f"{element}")
        return t

    def global_(self, hint: str, values: np.ndarray, element: str) -> str:
        """A ``memref.global`` constant of ``values``, read in the function; its value."""
        sym = self.ssa(f"{hint}_const")[1:]
        data = np.ascontiguousarray(values).tobytes().hex().upper()
        self.globals.append(f'memref.global "private" constant @{sym} : '
                            f'{memref_type(values.shape, element)} = dense<"0x{data}">')
        value = self.ssa(hint)
        self.lines.append(f"  {value} = memref.get_global @{sym} : "
                          f"{memref_type(values.shape, element)}")
        return value

    def generic(self, ins: Sequence[tuple[str, str, str]], out: _Tensor,
                body: Sequence[str], *, reduce: bool = False) -> None:
        """A ``linalg.generic`` over the ``(r, c)`` space of ``out`` (of the reduced input
        with ``reduce``); operands ``(value, type, map)``, block arguments ``%in0``, ...,
        ``%out``; ``body`` ends with the value yielded, ``%y``."""
        operands = [*ins, (out.ssa, out.type, out.map())]
        maps = ", ".join(m for _, _, m in operands)
        its = '"parallel", "parallel"'
        if reduce:
            # A fold of the whole input into one value, over the input's own axes.
            (value, t, _), = ins
            rank = t.count("x")
            dims = ", ".join(f"d{k}" for k in range(rank))
            maps = f"affine_map<({dims}) -> ({dims})>, affine_map<({dims}) -> (0)>"
            its = ", ".join(['"reduction"'] * rank)
        elif not out.shape:
            # Scalars: a one-element iteration space.
            maps = ", ".join(["affine_map<(d) -> (d)>"] * len(operands))
            its = '"parallel"'
        args = ", ".join(f"%in{k}: {_element(t)}" for k, (_, t, _) in enumerate(ins))
        ins_text = ""
        if ins:
            ins_text = (f" ins({', '.join(v for v, _, _ in ins)} : "
                        f"{', '.join(t for _, t, _ in ins)})")
        region = [f"^bb0({args}{', ' if ins else ''}%out: {out.element}):", *body,
                  f"linalg.yield %y : {out.element}"]
        self.lines += [
            f"  linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}}"
            f"{ins_text} outs({out.ssa} : {out.type}) {{",
            *(f"  {'' if k == 0 else '  '}{line.replace('%', '%_')}"
              for k, line in enumerate(region)),
            "  }"]

    # -- operands of the float operators ---------------------------------------------------
    def operand(self, where: str, name: str, like: _Tensor, k: int,
                ins: list[tuple[str, str, str]]) -> str:
        """The block value of input ``name`` of an element-wise float op whose result is
        shaped like ``like``: a buffer (appended to ``ins``), or a constant: a scalar inline,
        a vector along the last axis as a global."""
        if name in self.inits:
            value = self.inits[name].astype(np.float32)
            if value.size == 1:
                return f"%c{k}"
            cols = like.matrix[1]
            if value.ndim == 0 or value.shape[-1] != cols or value.size != cols:
                raise OnnxImportError(f"{where}: constant '{name}' of shape "
                                      f"{tuple(value.shape)}: a scalar or a vector along the "
                                      f"last axis ({cols}) is supported")
            glob = self.global_(name, value.reshape(cols), "f32")
            ins.append((glob, memref_type((cols,), "f32"), "affine_map<(r, c) -> (c)>"))
            return f"%in{len(ins) - 1}"
        t = self.tensor(where, name, "f32")
        if t.shape and t.shape != like.shape:
            raise OnnxImportError(f"{where}: operands of shapes {t.shape} and {like.shape}; "
                                  "broadcasting two tensors is not supported")
        ins.append((t.ssa, t.type, t.map()))
        return f"%in{len(ins) - 1}"

    def constants(self, names: Sequence[str]) -> list[str]:
        """The ``arith.constant`` lines of the scalar constants among ``names`` (``%c<k>``)."""
        lines = []
        for k, name in enumerate(names):
            if name in self.inits and self.inits[name].size == 1:
                value = float(self.inits[name].astype(np.float32).reshape(()))
                lines.append(f"%c{k} = arith.constant {_f32(value)} : f32")
        return lines

    # -- the graph -------------------------------------------------------------------------
    def run(self) -> str:
        graph = self.graph
        params: list[str] = []
        for value in [v for v in graph.input if v.name not in self.inits]:
            shape = tuple(d.dim_value for d in value.type.tensor_type.shape.dim)
            t = _Tensor(self.ssa(value.name), shape, "f32", arg=True)
            self.tensors[value.name] = t
            params.append(f"{t.ssa}: {t.type}")
        for value in graph.output:
            shape = tuple(d.dim_value for d in value.type.tensor_type.shape.dim)
            element = "i32" if value.type.tensor_type.elem_type == onnx.TensorProto.INT32 \
                else "f32"
            t = _Tensor(self.ssa(value.name), shape, element, arg=True)
            self.tensors[value.name] = t
            params.append(f"{t.ssa}: {t.type}")
        for index, node in enumerate(graph.node):
            if node.op_type == "MatMulInteger":  # before the Mul of its scales reads them
                self.weight(node_label(node, index), node, None)
        for index, node in enumerate(graph.node):
            where = node_label(node, index)
            handler = getattr(self, f"_op_{node.op_type}", None)
            if node.domain not in ("", "ai.onnx") or handler is None:
                raise OnnxImportError(
                    f"{where}: unsupported op '{node.op_type}' in a dynamically quantized "
                    f"model (supported: {', '.join(sorted(DYNAMIC_OPS | FLOAT_OPS))})")
            handler(where, node)
        name = re.sub(r"[^A-Za-z0-9_]", "_", graph.name or "model") or "model"
        return "\n".join([
            *self.globals,
            f"func.func @{name}({', '.join(params)}) attributes {{vta.host_float}} {{",
            *self.allocs,
            *self.lines,
            "  return",
            "}",
            ""])

    # -- operators -------------------------------------------------------------------------
    def _op_DynamicQuantizeLinear(self, where: str, node: onnx.NodeProto) -> None:
        """ONNX's formula as onnxruntime computes it in float32: the range includes 0,
        ``scale = (max − min) / 255`` (1 when the range is empty), ``zero point =
        roundeven(clip(0 − min / scale, 0, 255))``, ``q = clip(roundeven(x / scale) + zero
        point, 0, 255)``; the codes are stored shifted, ``q − 128``, for VTA."""
        x = self.tensor(where, node.input[0], "f32")
        if any(name in self.outputs for name in node.output):
            raise OnnxImportError(f"{where}: its outputs are read by the graph, not returned")
        codes = self.result(node.output[0], x.shape, "i8")
        scale = self.result(node.output[1], (), "f32")
        zero_point = self.result(node.output[2], (), "f32")
        self.zero_points[node.output[0]] = node.output[2]
        low, high = self.ssa(f"{node.output[0]}_min"), self.ssa(f"{node.output[0]}_max")
        one = memref_type((1,), "f32")
        zero = self.ssa("zero")
        self.allocs += [f"  {low} = memref.alloc() : {one}", f"  {high} = memref.alloc() : {one}"]
        self.lines += [f"  {zero} = arith.constant 0.000000e+00 : f32",
                       f"  linalg.fill ins({zero} : f32) outs({low} : {one})",
                       f"  linalg.fill ins({zero} : f32) outs({high} : {one})"]
        for bound, fold in ((low, "minimumf"), (high, "maximumf")):
            self.generic([(x.ssa, x.type, x.map())], _Tensor(bound, (), "f32"),
                         [f"%y = arith.{fold} %in0, %out : f32"], reduce=True)
        pair = [(low, one, "affine_map<(r, c) -> (0)>"), (high, one, "affine_map<(r, c) -> (0)>")]
        self.generic(pair, scale, [
            f"%n = arith.constant {_f32(_QMAX)} : f32",
            f"%one = arith.constant {_f32(1.0)} : f32",
            "%d = arith.subf %in1, %in0 : f32",
            "%s = arith.divf %d, %n : f32",
            "%same = arith.cmpf oeq, %in1, %in0 : f32",
            "%y = arith.select %same, %one, %s : f32"])
        self.generic([pair[0], (scale.ssa, scale.type, scale.map())], zero_point, [
            f"%lo = arith.constant {_f32(0.0)} : f32",
            f"%hi = arith.constant {_f32(_QMAX)} : f32",
            "%t = arith.divf %in0, %in1 : f32",
            "%z = arith.subf %lo, %t : f32",
            "%a = arith.maximumf %z, %lo : f32",
            "%b = arith.minimumf %a, %hi : f32",
            "%y = math.roundeven %b : f32"])
        self.generic([(x.ssa, x.type, x.map()), (scale.ssa, scale.type, scale.map()),
                      (zero_point.ssa, zero_point.type, zero_point.map())], codes, [
            f"%lo = arith.constant {_f32(0.0)} : f32",
            f"%hi = arith.constant {_f32(_QMAX)} : f32",
            f"%shift = arith.constant {_f32(_SHIFT)} : f32",
            "%v = arith.divf %in0, %in1 : f32",
            "%r = math.roundeven %v : f32",
            "%q = arith.addf %r, %in2 : f32",
            "%a = arith.maximumf %q, %lo : f32",
            "%b = arith.minimumf %a, %hi : f32",
            "%s = arith.subf %b, %shift : f32",
            "%y = arith.fptosi %s : f32 to i8"])
        self.lines += [f"  memref.dealloc {low} : {one}", f"  memref.dealloc {high} : {one}"]

    def weight(self, where: str, node: onnx.NodeProto, k: int | None) -> np.ndarray:
        """The int8 constant K×N weight of the ``MatMulInteger`` ``node``, with one zero
        point of 0 (``k``: the codes' columns, when known)."""
        w_name = node.input[1]
        w = self.inits.get(w_name)
        if w is None:
            raise OnnxImportError(f"{where}: the weight '{w_name}' is not a constant: VTA "
                                  "multiplies the codes by int8 constant weights")
        if w.dtype != np.int8 or w.ndim != 2 or (k is not None and w.shape[0] != k):
            raise OnnxImportError(f"{where}: the weight '{w_name}' is {w.dtype} of shape "
                                  f"{tuple(w.shape)}; a K×N int8 matrix "
                                  "(QuantType.QInt8) is supported")
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

    def _op_MatMulInteger(self, where: str, node: onnx.NodeProto) -> None:
        a = self.tensor(where, node.input[0], "i8")
        zero_point = self.zero_points.get(node.input[0])
        if len(node.input) < 3 or node.input[2] != zero_point:
            raise OnnxImportError(f"{where}: the zero point of '{node.input[0]}' is not the one "
                                  "its DynamicQuantizeLinear computes")
        w_name = node.input[1]
        w = self.weight(where, node, a.shape[-1])
        rows, _ = a.matrix
        cols = w.shape[1]
        out_shape = (*a.shape[:-1], cols)
        result = self.result(node.output[0], out_shape, "i32")
        acc = _Tensor(self.ssa(f"{node.output[0]}_acc"), out_shape, "i32")
        weight = self.global_(w_name, w, "i8")
        sums = self.global_(f"{w_name}_colsum",
                            w.astype(np.int64).sum(axis=0).astype(np.int32), "i32")
        zero = self.ssa("c0_i32")
        self.allocs.append(f"  {acc.ssa} = memref.alloc() : {acc.type}")
        self.lines += [f"  {zero} = arith.constant 0 : i32",
                       f"  linalg.fill ins({zero} : i32) outs({acc.ssa} : {acc.type})",
                       f"  linalg.matmul ins({a.ssa}, {weight} : {a.type}, "
                       f"{memref_type(w.shape, 'i8')}) outs({acc.ssa} : {acc.type})"]
        zp = self.tensors[zero_point]
        self.generic([(acc.ssa, acc.type, acc.map()), (zp.ssa, zp.type, zp.map()),
                      (sums, memref_type((cols,), "i32"), "affine_map<(r, c) -> (c)>")],
                     result, [
                         f"%shift = arith.constant {_SHIFT} : i32",
                         "%z = arith.fptosi %in1 : f32 to i32",
                         "%d = arith.subi %shift, %z : i32",
                         "%m = arith.muli %d, %in2 : i32",
                         "%y = arith.addi %in0, %m : i32"])
        self.lines.append(f"  memref.dealloc {acc.ssa} : {acc.type}")
        del rows

    def _op_Cast(self, where: str, node: onnx.NodeProto) -> None:
        to = next((onnx.helper.get_attribute_value(a) for a in node.attribute
                   if a.name == "to"), None)
        x = self.tensor(where, node.input[0], "i32")
        if to != onnx.TensorProto.FLOAT:
            raise OnnxImportError(f"{where}: a Cast of an int32 result to float is supported")
        y = self.result(node.output[0], x.shape, "f32")
        self.generic([(x.ssa, x.type, x.map())], y, ["%y = arith.sitofp %in0 : i32 to f32"])

    def _binary(self, where: str, node: onnx.NodeProto, op: str) -> None:
        a_name, b_name = node.input[0], node.input[1]
        known = [n for n in (a_name, b_name) if n not in self.inits]
        if not known:
            raise OnnxImportError(f"{where}: both operands are constants")
        shapes = [self.tensor(where, n, "f32").shape for n in known]
        like_shape = max(shapes, key=len)
        like = _Tensor("", like_shape, "f32")
        ins: list[tuple[str, str, str]] = []
        lhs = self.operand(where, a_name, like, 0, ins)
        rhs = self.operand(where, b_name, like, 1, ins)
        y = self.result(node.output[0], like_shape, "f32")
        self.generic(ins, y, [*self.constants([a_name, b_name]),
                              f"%y = arith.{op} {lhs}, {rhs} : f32"])

    def _op_Mul(self, where: str, node: onnx.NodeProto) -> None:
        self._binary(where, node, "mulf")

    def _op_Add(self, where: str, node: onnx.NodeProto) -> None:
        self._binary(where, node, "addf")

    def _op_Relu(self, where: str, node: onnx.NodeProto) -> None:
        x = self.tensor(where, node.input[0], "f32")
        y = self.result(node.output[0], x.shape, "f32")
        self.generic([(x.ssa, x.type, x.map())], y, [
            f"%zero = arith.constant {_f32(0.0)} : f32",
            "%y = arith.maximumf %in0, %zero : f32"])


def _element(t: str) -> str:
    """The element type of a memref type's text: ``memref<4x8xf32>`` → ``f32``."""
    return t[t.rindex("x") + 1:-1]


def dynamic_text(model: onnx.ModelProto) -> str:
    """The MLIR text of the dynamically quantized ``model`` (checked by ``load.load_model``)."""
    return _Writer(model).run()
