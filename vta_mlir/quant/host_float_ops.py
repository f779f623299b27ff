"""The float ``linalg`` code of each operation of a float layer (:mod:`.host_float`,
``docs/onnx.md`` §4.15): element-wise operations with numpy broadcasting, reductions,
``LayerNormalization``, ``Gelu``, ``Softmax`` and the reshapes, on float32 memrefs.

Every arithmetic op rounds to float32 once (the reference evaluator's semantics,
``docs/reference.md``); a reduction is a left fold along its iteration space. A composite ONNX
operation is written as the sequence of such ops its definition gives.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

import numpy as np

from vta_mlir.frontend.mlir_text import memref_type
from vta_mlir.ir.locations import mlir_string

if TYPE_CHECKING:
    from .host_float import FloatOp

__all__ = ["OP_EMITTERS", "Emit", "FloatCode", "Symbols", "generic", "identity_map",
           "quantize_lines", "reshape_index"]

#: (SSA value, memref type, map results, element type) of a linalg.generic operand.
Operand = tuple[str, str, Sequence[str], str]
#: The code of one operation: written into the layer's code, into a buffer of its own (or the
#: one given).
Emit = Callable[["FloatCode", "FloatOp", "str | None"], None]


def quantize_lines(value: str, scale: float, zero_point: int, lo: int = -128,
                   hi: int = 127) -> list[str]:
    """The body lines of ``QuantizeLinear`` on the f32 ``value``: ``roundeven(value / scale) +
    zero_point`` clipped to ``[lo, hi]``, every operation in f32, into ``%q_clip`` (an f32
    holding the code). ``%q_sy`` and ``%q_zy`` hold the scale and the zero point (for a
    dequantize after it); the names do not collide with a generic's block arguments."""
    return [f"%q_sy = arith.constant {float(np.float32(scale))!r} : f32",
            f"%q_zy = arith.constant {float(zero_point)!r} : f32",
            f"%q_lo = arith.constant {float(lo)!r} : f32",
            f"%q_hi = arith.constant {float(hi)!r} : f32",
            f"%q_div = arith.divf {value}, %q_sy : f32",
            "%q_near = math.roundeven %q_div : f32",
            "%q_code = arith.addf %q_near, %q_zy : f32",
            "%q_above = arith.maximumf %q_code, %q_lo : f32",
            "%q_clip = arith.minimumf %q_above, %q_hi : f32"]


def identity_map(rank: int) -> list[str]:
    return [f"d{i}" for i in range(rank)]


def reshape_index(shape: Sequence[int], source: Sequence[int]) -> list[str]:
    """The index in ``source`` (expressions of ``d0``, ... over ``shape``) of the element at
    the same C-order position: a reshape."""
    terms = [f"d{k}" if math.prod(shape[k + 1:]) == 1 else f"d{k} * {math.prod(shape[k + 1:])}"
             for k, size in enumerate(shape) if size != 1]
    flat = " + ".join(terms) or "0"
    flat = f"({flat})" if len(terms) > 1 else flat
    results = []
    for j, size in enumerate(source):
        stride = math.prod(source[j + 1:])
        expr = flat if stride == 1 else f"{flat} floordiv {stride}"
        if size == 1:
            expr = "0"
        elif j:
            expr = f"({expr}) mod {size}" if stride != 1 else f"{expr} mod {size}"
        results.append(expr)
    return results


def generic(ins: Sequence[Operand], out: Operand, body: list[str], iterators: Sequence[str],
            name: str) -> list[str]:
    """A ``linalg.generic`` over ``len(iterators)`` dimensions; its block arguments are ``%a``,
    ``%b``, ... in operand order (the output's last)."""
    dims = ", ".join(f"d{i}" for i in range(len(iterators)))
    operands = [*ins, out]
    maps = ", ".join(f"affine_map<({dims}) -> ({', '.join(m)})>" for _, _, m, _ in operands)
    its = ", ".join(f'"{it}"' for it in iterators)
    args = ", ".join(f"%{chr(ord('a') + i)}: {e}" for i, (_, _, _, e) in enumerate(operands))
    reads = (f"ins({', '.join(v for v, _, _, _ in ins)} : "
             f"{', '.join(t for _, t, _, _ in ins)}) ") if ins else ""
    return [f"  linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}}",
            f"      {reads}outs({out[0]} : {out[1]}) {{",
            f"  ^bb0({args}):",
            *[f"    {line}" for line in body],
            f"  }} loc({mlir_string(name)})"]


class Symbols(Protocol):
    """Where float code puts its constants: the module's globals, the function's lines
    fetching them, and unique names (the program emitter's, or a dynamically quantized
    model's function)."""

    globals: list[str]
    fetch: list[str]

    def unique(self, hint: str) -> str: ...


def _f32(value: float) -> str:
    """A float32 constant's MLIR literal (the value rounded to float32)."""
    return repr(float(np.float32(value)))


class FloatCode:
    """The code of one float layer being written: the buffer of each float value by its ONNX
    name (``values``, ``types``), the buffers it allocated (``owned``) and its lines."""

    def __init__(self, em: Symbols, prefix: str, name: str, values: dict[str, str],
                 types: dict[str, str], constants: dict[str, np.ndarray]) -> None:
        self.em, self.prefix, self.name = em, prefix, name
        self.values, self.types, self.constants = values, types, constants
        self.shapes: dict[str, tuple[int, ...]] = {}
        self.lines: list[str] = []
        self.owned: list[tuple[str, str]] = []

    def alloc(self, value: str, shape: Sequence[int],
              target: str | None = None) -> tuple[str, str]:
        """The buffer of ``value`` (``target`` when given, else a new one)."""
        type_ = memref_type(shape, "f32")
        buf = target or f"{self.prefix}_{len(self.owned)}"
        if target is None:
            self.lines.append(f"  {buf} = memref.alloc() : {type_}")
            self.owned.append((buf, type_))
        self.values[value], self.types[value] = buf, type_
        self.shapes[value] = tuple(shape)
        return buf, type_

    def scratch(self, shape: Sequence[int], fill: float | None = None) -> tuple[str, str]:
        """A buffer of its own (filled with ``fill``)."""
        type_ = memref_type(shape, "f32")
        buf = f"{self.prefix}_{len(self.owned)}"
        self.lines.append(f"  {buf} = memref.alloc() : {type_}")
        self.owned.append((buf, type_))
        if fill is not None:
            self.lines += [f"  {buf}_init = arith.constant {_f32(fill)} : f32",
                           f"  linalg.fill ins({buf}_init : f32) outs({buf} : {type_})"]
        return buf, type_

    def shape(self, value: str) -> tuple[int, ...]:
        if value in self.constants:
            return tuple(self.constants[value].shape)
        if value not in self.shapes:
            # A value of an earlier layer or a float edge: its shape is its buffer's.
            dims = self.types[value][len("memref<"):-1].split("x")[:-1]
            self.shapes[value] = tuple(int(d) for d in dims)
        return self.shapes[value]

    def scalar(self, value: str) -> float | None:
        """The value of a constant of one element, else None."""
        const = self.constants.get(value)
        return None if const is None or const.size != 1 else float(const.reshape(-1)[0])

    def operand(self, value: str, out_shape: Sequence[int]) -> Operand:
        """``value`` read with numpy broadcasting into an iteration over ``out_shape``."""
        if value in self.constants and value not in self.values:
            array = np.ascontiguousarray(self.constants[value], np.float32)
            symbol = self.em.unique(f"{self.name}_{value}")
            type_ = memref_type(array.shape, "f32")
            little = array.astype(array.dtype.newbyteorder("<"))
            self.em.globals.append(f'memref.global "private" constant @{symbol} : {type_} = '
                                   f'dense<"0x{little.tobytes().hex().upper()}">')
            self.em.fetch.append(f"  %{symbol} = memref.get_global @{symbol} : {type_}")
            self.values[value], self.types[value] = f"%{symbol}", type_
            self.shapes[value] = tuple(array.shape)
        shape = self.shape(value)
        offset = len(out_shape) - len(shape)
        results = ["0" if n == 1 and out_shape[offset + k] != 1 else f"d{offset + k}"
                   for k, n in enumerate(shape)]
        return self.values[value], self.types[value], results, "f32"

    def elementwise(self, op: FloatOp, target: str | None,
                    body: Callable[[list[str]], list[str]]) -> None:
        """``op.output`` from its inputs element by element: ``body`` gets the element of each
        input (a block argument, or a constant scalar's literal) and returns the lines
        computing ``%y``."""
        ins: list[Operand] = []
        elements: list[str] = []
        consts: list[str] = []
        for value in op.inputs:
            scalar = self.scalar(value)
            if scalar is not None:
                elements.append(f"%k{len(consts)}")
                consts.append(f"%k{len(consts)} = arith.constant {_f32(scalar)} : f32")
            else:
                ins.append(self.operand(value, op.shape))
                elements.append(f"%{chr(ord('a') + len(ins) - 1)}")
        buf, type_ = self.alloc(op.output, op.shape, target)
        rank = len(op.shape)
        self.lines += generic(ins, (buf, type_, identity_map(rank), "f32"),
                              [*consts, *body(elements), "linalg.yield %y : f32"],
                              ["parallel"] * rank, self.name)

    def reduce_sum(self, src: str, src_t: str, shape: Sequence[int], axes: Sequence[int],
                   keep: bool, square: bool = False) -> tuple[str, str, tuple[int, ...]]:
        """A new buffer of ``Σ src`` (of ``src²`` with ``square``) over ``axes``, a left fold
        in index order; kept as dimensions of 1 with ``keep``."""
        out_shape = tuple(1 if k in axes else n for k, n in enumerate(shape)
                          if keep or k not in axes)
        buf, type_ = self.scratch(out_shape, 0.0)
        results = [("0" if k in axes else f"d{k}") for k in range(len(shape))
                   if keep or k not in axes]
        body = (["%p = arith.mulf %a, %a : f32", "%y = arith.addf %b, %p : f32"] if square
                else ["%y = arith.addf %b, %a : f32"])
        iters = ["reduction" if k in axes else "parallel" for k in range(len(shape))]
        self.lines += generic([(src, src_t, identity_map(len(shape)), "f32")],
                              (buf, type_, results, "f32"), [*body, "linalg.yield %y : f32"],
                              iters, self.name)
        return buf, type_, out_shape

    def in_place(self, buf: str, type_: str, shape: Sequence[int], body: list[str]) -> None:
        """``buf`` rewritten element by element (``%a`` its element, result ``%y``)."""
        rank = len(shape)
        self.lines += generic([], (buf, type_, identity_map(rank), "f32"),
                              [*body, "linalg.yield %y : f32"], ["parallel"] * rank, self.name)


def _binary(opname: str) -> Emit:
    def emit(code: FloatCode, op: FloatOp, target: str | None) -> None:
        code.elementwise(op, target, lambda e: [f"%y = arith.{opname} {e[0]}, {e[1]} : f32"])
    return emit


def _unary(lines: Callable[[str], list[str]]) -> Emit:
    def emit(code: FloatCode, op: FloatOp, target: str | None) -> None:
        code.elementwise(_data(op), target, lambda e: lines(e[0]))
    return emit


def _data(op: FloatOp) -> FloatOp:
    """``op`` reading only its first input (the data of Pow, Gelu, ...)."""
    return replace(op, inputs=op.inputs[:1])


def _pow(code: FloatCode, op: FloatOp, target: str | None) -> None:
    exponent = code.scalar(op.inputs[1])
    assert exponent is not None  # checked by the importer
    code.elementwise(_data(op), target, lambda e: [
        f"%k = arith.constant {_f32(exponent)} : f32", f"%y = math.powf {e[0]}, %k : f32"])


def _gelu(code: FloatCode, op: FloatOp, target: str | None) -> None:
    if op.attrs.get("approximate", "none") == "tanh":
        # 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
        body = [f"%c = arith.constant {_f32(math.sqrt(2 / math.pi))} : f32",
                f"%k = arith.constant {_f32(0.044715)} : f32",
                "%x2 = arith.mulf %a, %a : f32", "%x3 = arith.mulf %x2, %a : f32",
                "%t = arith.mulf %x3, %k : f32", "%u = arith.addf %a, %t : f32",
                "%v = arith.mulf %u, %c : f32", "%e = math.tanh %v : f32"]
    else:
        # 0.5·x·(1 + erf(x·(1/√2)))
        body = [f"%c = arith.constant {_f32(math.sqrt(0.5))} : f32",
                "%v = arith.mulf %a, %c : f32", "%e = math.erf %v : f32"]
    body += ["%one = arith.constant 1.0 : f32", "%half = arith.constant 0.5 : f32",
             "%p = arith.addf %e, %one : f32", "%h = arith.mulf %a, %half : f32",
             "%y = arith.mulf %h, %p : f32"]
    code.elementwise(_data(op), target, lambda e: body)


def _alias(code: FloatCode, op: FloatOp, target: str | None) -> None:
    """Identity and Cast to float: the same buffer (a copy into ``target`` when given)."""
    if target is None:
        src = op.inputs[0]
        code.operand(src, op.shape)
        code.values[op.output], code.types[op.output] = code.values[src], code.types[src]
        code.shapes[op.output] = code.shape(src)
        return
    _copy(code, op, target, identity_map(len(op.shape)))


def _copy(code: FloatCode, op: FloatOp, target: str | None, results: list[str]) -> None:
    src, src_t, _, _ = code.operand(op.inputs[0], code.shape(op.inputs[0]))
    buf, type_ = code.alloc(op.output, op.shape, target)
    rank = len(op.shape)
    code.lines += generic([(src, src_t, results, "f32")], (buf, type_, identity_map(rank), "f32"),
                          ["linalg.yield %a : f32"], ["parallel"] * rank, code.name)


def _reshape(code: FloatCode, op: FloatOp, target: str | None) -> None:
    _copy(code, op, target, reshape_index(op.shape, code.shape(op.inputs[0])))


def _transpose(code: FloatCode, op: FloatOp, target: str | None) -> None:
    perm = [int(p) for p in op.attrs["perm"]]  # type: ignore[union-attr]
    inverse = [0] * len(perm)
    for i, axis in enumerate(perm):
        inverse[axis] = i
    _copy(code, op, target, [f"d{inverse[k]}" for k in range(len(perm))])


def _reduce_mean(code: FloatCode, op: FloatOp, target: str | None) -> None:
    src = op.inputs[0]
    shape = code.shape(src)
    src_v, src_t, _, _ = code.operand(src, shape)
    axes = [int(a) for a in op.attrs["axes"]]  # type: ignore[union-attr]
    total, total_t, out_shape = code.reduce_sum(src_v, src_t, shape, axes,
                                                bool(op.attrs.get("keepdims", 1)))
    count = math.prod(shape[a] for a in axes)
    buf, type_ = code.alloc(op.output, out_shape, target)
    rank = len(out_shape)
    code.lines += generic([(total, total_t, identity_map(rank), "f32")],
                          (buf, type_, identity_map(rank), "f32"),
                          [f"%n = arith.constant {_f32(count)} : f32",
                           "%y = arith.divf %a, %n : f32", "linalg.yield %y : f32"],
                          ["parallel"] * rank, code.name)


def _softmax(code: FloatCode, op: FloatOp, target: str | None) -> None:
    """e = exp(x − max(x)), y = e / Σ e along the axis (``docs/onnx.md`` §4.9)."""
    shape = op.shape
    axis = int(op.attrs["axis"])  # type: ignore[arg-type]
    src, src_t, _, _ = code.operand(op.inputs[0], shape)
    rank = len(shape)
    reduced = [1 if k == axis else n for k, n in enumerate(shape)]
    red_map = ["0" if k == axis else f"d{k}" for k in range(rank)]
    iters = ["reduction" if k == axis else "parallel" for k in range(rank)]
    top, top_t = code.scratch(reduced, -3.4028234663852886e38)
    code.lines += generic([(src, src_t, identity_map(rank), "f32")],
                          (top, top_t, red_map, "f32"),
                          ["%y = arith.maximumf %a, %b : f32", "linalg.yield %y : f32"],
                          iters, code.name)
    buf, type_ = code.alloc(op.output, shape, target)
    code.lines += generic([(src, src_t, identity_map(rank), "f32"), (top, top_t, red_map, "f32")],
                          (buf, type_, identity_map(rank), "f32"),
                          ["%s = arith.subf %a, %b : f32", "%y = math.exp %s : f32",
                           "linalg.yield %y : f32"], ["parallel"] * rank, code.name)
    total, total_t, _ = code.reduce_sum(buf, type_, shape, [axis], True)
    code.lines += generic([(total, total_t, red_map, "f32")], (buf, type_, identity_map(rank),
                                                                 "f32"),
                          ["%y = arith.divf %b, %a : f32", "linalg.yield %y : f32"],
                          ["parallel"] * rank, code.name)


def _layer_norm(code: FloatCode, op: FloatOp, target: str | None) -> None:
    """mean = Σx / n, d = x − mean, r = sqrt(Σd² / n + ε), y = d / r · scale + bias over the
    axes from ``axis`` on."""
    shape = op.shape
    rank = len(shape)
    axis = int(op.attrs.get("axis", -1)) % rank  # type: ignore[call-overload]
    axes = list(range(axis, rank))
    count = _f32(math.prod(shape[axis:]))
    src, src_t, _, _ = code.operand(op.inputs[0], shape)
    mean, mean_t, red_shape = code.reduce_sum(src, src_t, shape, axes, True)
    code.in_place(mean, mean_t, red_shape, [f"%n = arith.constant {count} : f32",
                                            "%y = arith.divf %a, %n : f32"])
    red_map = ["0" if k in axes else f"d{k}" for k in range(rank)]
    diff, diff_t = code.scratch(shape)
    code.lines += generic([(src, src_t, identity_map(rank), "f32"),
                           (mean, mean_t, red_map, "f32")],
                          (diff, diff_t, identity_map(rank), "f32"),
                          ["%y = arith.subf %a, %b : f32", "linalg.yield %y : f32"],
                          ["parallel"] * rank, code.name)
    var, var_t, _ = code.reduce_sum(diff, diff_t, shape, axes, True, square=True)
    epsilon = float(op.attrs.get("epsilon", 1e-5))  # type: ignore[arg-type]
    code.in_place(var, var_t, red_shape, [f"%n = arith.constant {count} : f32",
                                          f"%e = arith.constant {_f32(epsilon)} : f32",
                                          "%v = arith.divf %a, %n : f32",
                                          "%w = arith.addf %v, %e : f32",
                                          "%y = math.sqrt %w : f32"])
    ins: list[Operand] = [(diff, diff_t, identity_map(rank), "f32"),
                          (var, var_t, red_map, "f32")]
    body = ["%q = arith.divf %a, %b : f32"]
    last = "%q"
    for value, result, opname in zip(op.inputs[1:3], ("%s", "%t"), ("mulf", "addf"),
                                     strict=False):
        if value:
            ins.append(code.operand(value, shape))
            body.append(f"{result} = arith.{opname} {last}, %{chr(ord('a') + len(ins) - 1)} "
                        ": f32")
            last = result
    buf, type_ = code.alloc(op.output, shape, target)
    code.lines += generic(ins, (buf, type_, identity_map(rank), "f32"),
                          [*body, f"linalg.yield {last} : f32"], ["parallel"] * rank, code.name)


def _matmul(code: FloatCode, op: FloatOp, target: str | None) -> None:
    """y[..., m, n] = Σ_k a[..., m, k] · b[..., k, n] of two operands of rank ≥ 2, their batch
    axes broadcast as numpy's; ``y`` starts at 0 and each product is added in the order of
    ``k``, every product and sum rounded to float32 (a left fold, as every reduction here)."""
    shape = op.shape
    rank = len(shape)
    k_dim = f"d{rank}"
    ins: list[Operand] = []
    for value, tail in zip(op.inputs, ([f"d{rank - 2}", k_dim], [k_dim, f"d{rank - 1}"]),
                           strict=True):
        src, src_t, _, _ = code.operand(value, shape)
        src_shape = code.shape(value)
        offset = rank - len(src_shape)
        batch = ["0" if n == 1 and shape[offset + j] != 1 else f"d{offset + j}"
                 for j, n in enumerate(src_shape[:-2])]
        ins.append((src, src_t, [*batch, *tail], "f32"))
    buf, type_ = code.alloc(op.output, shape, target)
    code.lines += [f"  {buf}_init = arith.constant 0.0 : f32",
                   f"  linalg.fill ins({buf}_init : f32) outs({buf} : {type_})"]
    code.lines += generic(ins, (buf, type_, identity_map(rank), "f32"),
                          ["%p = arith.mulf %a, %b : f32", "%y = arith.addf %c, %p : f32",
                           "linalg.yield %y : f32"],
                          [*["parallel"] * rank, "reduction"], code.name)


#: The emission of each ONNX operation of a float layer.
OP_EMITTERS: dict[str, Emit] = {
    "Add": _binary("addf"), "Sub": _binary("subf"), "Mul": _binary("mulf"),
    "Div": _binary("divf"),
    "Sqrt": _unary(lambda a: [f"%y = math.sqrt {a} : f32"]),
    "Erf": _unary(lambda a: [f"%y = math.erf {a} : f32"]),
    "Tanh": _unary(lambda a: [f"%y = math.tanh {a} : f32"]),
    "Relu": _unary(lambda a: ["%z = arith.constant 0.0 : f32",
                              f"%y = arith.maximumf {a}, %z : f32"]),
    "Pow": _pow, "Gelu": _gelu, "Softmax": _softmax, "ReduceMean": _reduce_mean,
    "LayerNormalization": _layer_norm, "Reshape": _reshape, "Transpose": _transpose,
    "Identity": _alias, "Cast": _alias, "MatMul": _matmul,
}
