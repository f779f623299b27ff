"""The MLIR text of a dynamically quantized model (``dynamic.py``): its buffers, the indexing
maps that read them, and the function under construction.

Each ONNX tensor is one buffer (:class:`Buffer`): a float32 tensor of its ONNX shape (the host
computes on it), a one-element float32 buffer for a scale or a zero point, the int8 codes of a
``DynamicQuantizeLinear`` and the int32 accumulators VTA computes.  A ``MatMulInteger``'s codes
and accumulators are matrices (``form = "matrix"``: the rows all axes but the last, as VTA's
contractions take them); every other buffer keeps its ONNX shape.  Every ``linalg.generic``
iterates over its output's shape (the output read through the identity, so the loop sizes are
known), or over the input of a reduction; :func:`operand_map` reads any buffer of the same
logical shape from there, and :func:`broadcast_map` a constant by numpy's broadcasting.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vta_mlir.frontend.mlir_text import memref_type

__all__ = ["Buffer", "Function", "broadcast_map", "f32", "operand_map"]

#: The longest name of a value in the region of a float operation's generic
#: (``vta_mlir.quant.host_float_ops``: ``%a``, ``%y``, ``%half``, ...).
_REGION_NAME_LENGTH = 4


@dataclass(frozen=True)
class Buffer:
    """A buffer: ``ssa`` its value, ``shape`` its ONNX shape (``()`` for a scale or a zero
    point), ``element`` ``f32``, ``i8`` or ``i32``, ``form`` ``whole`` (the ONNX shape) or
    ``matrix``; ``stored`` the shape it is allocated with when it is larger (codes padded for
    a convolution, ``offsets`` where the tensor starts in it)."""

    ssa: str
    shape: tuple[int, ...]
    element: str
    form: str = "whole"
    stored: tuple[int, ...] = ()
    offsets: tuple[int, ...] = ()

    @property
    def dims(self) -> tuple[int, ...]:
        """The shape of the memref."""
        if not self.shape:
            return (1,)
        if self.form == "matrix":
            return int(np.prod(self.shape[:-1], dtype=np.int64)), self.shape[-1]
        return self.stored or self.shape

    @property
    def type(self) -> str:
        return memref_type(self.dims, self.element)


def _dims(n: int) -> list[str]:
    return [f"d{k}" for k in range(n)]


def _map(n: int, results: Sequence[str]) -> str:
    return f"affine_map<({', '.join(_dims(n))}) -> ({', '.join(results)})>"


def operand_map(b: Buffer, shape: tuple[int, ...]) -> str:
    """The indexing map reading (or writing) ``b`` from the iteration space of ``shape``, the
    logical shape ``b`` holds (or ``()``: one element)."""
    n = max(len(shape), 1)
    if not b.shape:
        return _map(n, ["0"] if shape else ["d0"])
    dims = _dims(n)
    if b.form == "matrix" and n > 2:
        terms = []
        for k in range(n - 1):
            inner = int(np.prod(shape[k + 1:n - 1], dtype=np.int64))
            terms.append(f"d{k} * {inner}" if inner > 1 else f"d{k}")
        return _map(n, [" + ".join(terms), dims[-1]])
    if b.form == "matrix" and n == 1:
        return _map(n, ["0", "d0"])
    if b.offsets:
        return _map(n, [f"d{k} + {o}" if o else f"d{k}" for k, o in enumerate(b.offsets)])
    return _map(n, dims)


def broadcast_map(const_shape: tuple[int, ...], shape: tuple[int, ...]) -> str | None:
    """The map reading a constant of ``const_shape`` broadcast to ``shape`` (numpy's rules),
    None when it does not broadcast."""
    n, k = len(shape), len(const_shape)
    if k > n:
        return None
    results = []
    for j, size in enumerate(const_shape):
        axis = n - k + j
        if size == shape[axis]:
            results.append(f"d{axis}")
        elif size == 1:
            results.append("0")
        else:
            return None
    return _map(max(n, 1), results or ["0"])


def f32(value: float) -> str:
    """An ``f32`` literal of exactly ``value`` (as float32)."""
    bits = int(np.array(value, dtype=np.float32).view(np.uint32))
    return f"0x{bits:08X}"


class Function:
    """The text of the function under construction: globals, allocations (at the start: a host
    step reading a buffer comes where its first op was, which may be before the buffer's
    first writer), then the ops."""

    def __init__(self) -> None:
        self.globals: list[str] = []
        self.allocs: list[str] = []
        self.lines: list[str] = []
        self.names: set[str] = set()

    def ssa(self, hint: str) -> str:
        """A new value name from ``hint`` (a generic's region shares the function's names:
        its own start with ``_``, those of the float code of ``host_float_ops`` are at most
        four characters long, these start with a letter and are longer)."""
        stem = re.sub(r"[^A-Za-z0-9_]", "_", hint) or "t"
        if not stem[0].isalpha():
            stem = f"t{stem}"
        if len(stem) <= _REGION_NAME_LENGTH:
            stem = f"{stem}_value"
        name, n = stem, 1
        while name in self.names:
            name, n = f"{stem}_{n}", n + 1
        self.names.add(name)
        return f"%{name}"

    def alloc(self, b: Buffer) -> Buffer:
        self.allocs.append(f"  {b.ssa} = memref.alloc() : {b.type}")
        return b

    def constant(self, hint: str, values: np.ndarray, element: str) -> str:
        """A ``memref.global`` constant of ``values``, read in the function; its value."""
        sym = self.ssa(f"{hint}_const")[1:]
        data = np.ascontiguousarray(values).tobytes().hex().upper()
        t = memref_type(values.shape or (1,), element)
        self.globals.append(f'memref.global "private" constant @{sym} : {t} = dense<"0x{data}">')
        value = self.ssa(hint)
        self.lines.append(f"  {value} = memref.get_global @{sym} : {t}")
        return value

    def generic(self, ins: Sequence[tuple[str, str, str]], out: Buffer, body: Sequence[str],
                shape: tuple[int, ...] | None = None, reduce: bool = False) -> None:
        """A ``linalg.generic`` writing ``out`` over the iteration space ``shape`` (``out``'s
        by default; a reduction's input's with ``reduce``); operands ``(value, type, map)``,
        block arguments ``%in0``, ..., ``%out``; ``body`` computes ``%y``."""
        space = out.shape if shape is None else shape
        n = max(len(space), 1)
        out_map = _map(n, ["0"]) if reduce else operand_map(out, space)
        maps = ", ".join([*(m for _, _, m in ins), out_map])
        kind = '"reduction"' if reduce else '"parallel"'
        args = ", ".join(f"%in{k}: {t[t.rindex('x') + 1:-1]}" for k, (_, t, _) in enumerate(ins))
        ins_text = (f" ins({', '.join(v for v, _, _ in ins)} : "
                    f"{', '.join(t for _, t, _ in ins)})") if ins else ""
        region = [f"^bb0({args}{', ' if ins else ''}%out: {out.element}):", *body,
                  f"linalg.yield %y : {out.element}"]
        self.lines += [
            f"  linalg.generic {{indexing_maps = [{maps}], iterator_types = "
            f"[{', '.join([kind] * n)}]}}{ins_text} outs({out.ssa} : {out.type}) {{",
            *(f"  {'' if k == 0 else '  '}{line.replace('%', '%_')}"
              for k, line in enumerate(region)),
            "  }"]

    def text(self, name: str, params: Sequence[str]) -> str:
        return "\n".join([
            *self.globals,
            f"func.func @{name}({', '.join(params)}) attributes {{vta.host_float}} {{",
            *self.allocs, *self.lines, "  return", "}", ""])
