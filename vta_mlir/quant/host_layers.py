"""Layers the host computes in float32 (``docs/onnx.md`` §4.9): ``Softmax`` and ``Sigmoid``
between their ``DequantizeLinear`` and ``QuantizeLinear``.

VTA computes on integers, so such a layer is emitted as float code — dequantize, the operation,
quantize — which ``vta-outline-host-steps`` makes a host step.  Its semantics are those of the
reference evaluator on that code (``docs/reference.md``): every op rounds to f32, and each
reduction is a left fold along the axis::

    x = f32(q_x − z_x) · s_x                        (DequantizeLinear; q_x − z_x is exact)
    softmax: e = exp(x − max(x)), y = e / Σ e       (along the layer's axis)
    sigmoid: y = 1 / (1 + exp(−x))
    q_y = clip(roundeven(y / s_y) + z_y, −128, 127)  (QuantizeLinear)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from vta_mlir.frontend.mlir_text import memref_type
from vta_mlir.ir.locations import mlir_string

from .host_float_ops import quantize_lines
from .program import QTensor

__all__ = ["HOST_KINDS", "HostLayer", "host_layer_lines"]

#: The operations a host layer computes.
HOST_KINDS = ("softmax", "sigmoid")


@dataclass
class HostLayer:
    """``dst = quantize(kind(dequantize(src)))`` in float32 on the host; ``axis`` (softmax)
    is non-negative."""

    name: str
    src: str
    kind: str
    axis: int
    dst: str


def _maps(rank: int, reduced: int | None = None) -> tuple[str, str]:
    dims = ", ".join(f"d{i}" for i in range(rank))
    full = f"affine_map<({dims}) -> ({dims})>"
    if reduced is None:
        return full, full
    kept = ", ".join("0" if i == reduced else f"d{i}" for i in range(rank))
    return full, f"affine_map<({dims}) -> ({kept})>"


def _generic(ins: Sequence[tuple[str, str, str]], out: tuple[str, str, str], body: list[str],
             iterators: Sequence[str], name: str) -> list[str]:
    """A ``linalg.generic`` of ``(value, type, map)`` operands and a body (its block args
    ``%a``, ``%b``, ... in operand order)."""
    operands = [*ins, out]
    maps = ", ".join(m for _, _, m in operands)
    its = ", ".join(f'"{it}"' for it in iterators)
    # The element type is the last part of the memref type: memref<1x10xf32> → f32.
    args = ", ".join(f"%{chr(ord('a') + i)}: {t[t.rindex('x') + 1:-1]}"
                     for i, (_, t, _) in enumerate(operands))
    in_values = ", ".join(v for v, _, _ in ins)
    in_types = ", ".join(t for _, t, _ in ins)
    reads = f"ins({in_values} : {in_types}) " if ins else ""
    return [f"  linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}}",
            f"      {reads}outs({out[0]} : {out[1]}) {{",
            f"  ^bb0({args}):",
            *[f"    {line}" for line in body],
            f"  }} loc({mlir_string(name)})"]


def host_layer_lines(layer: HostLayer, src: str, x: QTensor, out: str, y: QTensor,
                     prefix: str) -> list[str]:
    """The float code of ``layer``: from the int8 buffer ``src`` (quantized as ``x``) into the
    int8 buffer ``out`` (quantized as ``y``); its buffers are named after ``prefix``."""
    shape = x.shape
    rank = len(shape)
    full, _ = _maps(rank)
    i8_t, f32_t = memref_type(shape, "i8"), memref_type(shape, "f32")
    par = ["parallel"] * rank
    real = f"{prefix}_x"
    lines = [f"  {real} = memref.alloc() : {f32_t}"]
    lines += _generic([(src, i8_t, full)], (real, f32_t, full), [
        f"%zx = arith.constant {x.zero_point} : i32",
        f"%sx = arith.constant {x.scale!r} : f32",
        "%w = arith.extsi %a : i8 to i32",
        "%d = arith.subi %w, %zx : i32",
        "%f = arith.sitofp %d : i32 to f32",
        "%r = arith.mulf %f, %sx : f32",
        "linalg.yield %r : f32"], par, layer.name)
    if layer.kind == "softmax":
        reduced_shape = [1 if i == layer.axis else n for i, n in enumerate(shape)]
        red_t = memref_type(reduced_shape, "f32")
        _, red_map = _maps(rank, layer.axis)
        iters = ["reduction" if i == layer.axis else "parallel" for i in range(rank)]
        top, total = f"{prefix}_max", f"{prefix}_sum"
        lines += [f"  {top} = memref.alloc() : {red_t}",
                  # The lowest finite f32: below every real a layer dequantizes.
                  f"  {prefix}_ninf = arith.constant -3.40282347e+38 : f32",
                  f"  linalg.fill ins({prefix}_ninf : f32) outs({top} : {red_t})"]
        lines += _generic([(real, f32_t, full)], (top, red_t, red_map),
                          ["%m = arith.maximumf %a, %b : f32", "linalg.yield %m : f32"],
                          iters, layer.name)
        lines += _generic([(top, red_t, red_map)], (real, f32_t, full),
                          ["%s = arith.subf %b, %a : f32", "%e = math.exp %s : f32",
                           "linalg.yield %e : f32"], par, layer.name)
        lines += [f"  {total} = memref.alloc() : {red_t}",
                  f"  {prefix}_zero = arith.constant 0.0 : f32",
                  f"  linalg.fill ins({prefix}_zero : f32) outs({total} : {red_t})"]
        lines += _generic([(real, f32_t, full)], (total, red_t, red_map),
                          ["%s = arith.addf %b, %a : f32", "linalg.yield %s : f32"],
                          iters, layer.name)
        lines += _generic([(total, red_t, red_map)], (real, f32_t, full),
                          ["%q = arith.divf %b, %a : f32", "linalg.yield %q : f32"],
                          par, layer.name)
        lines += [f"  memref.dealloc {top} : {red_t}", f"  memref.dealloc {total} : {red_t}"]
    else:
        lines += _generic([], (real, f32_t, full), [
            "%one = arith.constant 1.0 : f32",
            "%n = arith.negf %a : f32",
            "%e = math.exp %n : f32",
            "%p = arith.addf %e, %one : f32",
            "%s = arith.divf %one, %p : f32",
            "linalg.yield %s : f32"], par, layer.name)
    lines += _generic([(real, f32_t, full)], (out, i8_t, full), [
        *quantize_lines("%a", y.scale, y.zero_point),
        "%q = arith.fptosi %q_clip : f32 to i8",
        "linalg.yield %q : i8"], par, layer.name)
    lines.append(f"  memref.dealloc {real} : {f32_t}")
    return lines
