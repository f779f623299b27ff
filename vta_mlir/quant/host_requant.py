"""Matrix products whose quantized result only float code reads, requantized by the host
(``docs/onnx.md`` §4.19).

A ``QuantizeLinear`` after a product rounds ``acc · s_a · s_w / s_y`` to an int8 code. VTA
multiplies in 32 bits, so its fixed-point multiplier has as many bits as the accumulator's
range leaves (a 16-bit immediate per tensor, §3): a relative error of up to ``2^-15``, which
turns a code to its neighbour on a fraction of a percent of the outputs. Where every reader
of that code is a float layer (:mod:`.host_float`) — onnxruntime's quantizer writes each
product of a transformer so (``MatMul → QuantizeLinear → DequantizeLinear → Add``, ``Softmax``,
``LayerNormalization``, ...) — the requantization is the host's first step anyway. Such a
product leaves VTA as its int32 accumulators (no epilogue), and the float layer reading it
quantizes them exactly as ``QuantizeLinear`` does the product it dequantizes:

    ``y = float32(acc + bias) · float32(s_a · s_w)``, ``q = clip(roundeven(y / s_y) + z_y, lo, hi)``

each operation rounded once to float32, then dequantizes ``q`` as every int8 input is
(``(q − z_y) · s_y``). ``bias`` is the product's exact int32 bias (the input zero point's term
and a quantized bias input; no rounding constant), ``s_w`` per column for per-channel weights,
``[lo, hi]`` the layer's clip (a folded ``Relu``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from vta_mlir.frontend.mlir_text import memref_type

from .batch_product import BatchProductLayer
from .host_float_ops import generic, identity_map, quantize_lines

if TYPE_CHECKING:
    from .emit import Emitter
    from .host_float import FloatEdge
    from .host_float_ops import FloatCode, Symbols
    from .program import Program

__all__ = ["HostRequant", "emit_host_requant_edge", "host_requantized", "product_result"]


@dataclass(frozen=True)
class HostRequant:
    """How the host turns a product's int32 accumulators into its int8 codes (module
    docstring): the accumulator's scale ``s_a · s_w`` (one value, or one per column), the exact
    bias per column (``()`` when zero), the output zero point and clip."""

    scale: tuple[float, ...]
    bias: tuple[int, ...]
    zero_point: int
    lo: int
    hi: int


def host_requantized(program: Program, accumulator_scales: dict[str, np.ndarray]) -> None:
    """Record in ``program.host_requant`` every dense or batched product (its output in
    ``accumulator_scales``: the scale of its accumulator per column) whose output only float
    layers read: not the program's output, not viewed by a Flatten, read at least once."""
    from .fuse import layer_sources
    from .host_float import FloatLayer
    from .program import DenseLayer

    readers: dict[str, list[object]] = {}
    for layer in program.layers:
        for src in layer_sources(layer):
            readers.setdefault(program.aliases.get(src, src), []).append(layer)
    viewed = set(program.aliases.values()) | set(program.aliases)
    for layer in program.layers:
        if not isinstance(layer, DenseLayer | BatchProductLayer) or \
                layer.dst not in accumulator_scales:
            continue
        reading = readers.get(layer.dst, [])
        if layer.dst == program.output.name or layer.dst in viewed or not reading or \
                not all(isinstance(r, FloatLayer) for r in reading):
            continue
        scale = np.asarray(accumulator_scales[layer.dst], np.float64).reshape(-1)
        if np.all(scale == scale[0]):
            scale = scale[:1]
        bias = np.asarray(layer.bias, np.int64).reshape(-1) - layer.rq.rounding
        program.host_requant[layer.dst] = HostRequant(
            tuple(float(s) for s in scale), tuple(int(b) for b in bias) if np.any(bias) else (),
            layer.zero_point, layer.lo, layer.hi)


def product_result(em: Emitter, dst: str, out: str) -> str | None:
    """The accumulator a product writes: its output buffer itself when the host requantizes
    it (zeroed here), else None (the product allocates its own and requantizes)."""
    if dst not in em.program.host_requant:
        return None
    acc_t = memref_type(em.shape(dst), "i32")
    em.lines.append(f"  linalg.fill ins(%c0_i32 : i32) outs({out} : {acc_t})")
    return acc_t


def emit_host_requant_edge(code: FloatCode, edge: FloatEdge, buffer: str,
                           stored: tuple[int, ...], hr: HostRequant, scale: float,
                           name: str) -> None:
    """The float value of ``edge`` from the int32 accumulators in ``buffer``: quantized as
    ``QuantizeLinear`` does (module docstring) and dequantized at ``scale``."""
    from .host_float import view_index

    rank = len(edge.shape)
    index = view_index(edge, stored)
    ins = [(buffer, memref_type(stored, "i32"), index, "i32")]
    body: list[str] = []
    value = "%a"
    column = [index[-1]]
    if hr.bias:
        bias = _global(code.em, f"{name}_{edge.tensor}_bias", np.asarray(hr.bias, np.int32),
                       "i32")
        ins.append((bias, memref_type((len(hr.bias),), "i32"), column, "i32"))
        body.append(f"%acc = arith.addi %a, %{chr(ord('a') + len(ins) - 1)} : i32")
        value = "%acc"
    body.append(f"%fl = arith.sitofp {value} : i32 to f32")
    if len(hr.scale) == 1:
        body.append(f"%sxw = arith.constant {float(np.float32(hr.scale[0]))!r} : f32")
        factor = "%sxw"
    else:
        scales = _global(code.em, f"{name}_{edge.tensor}_scale",
                         np.asarray(hr.scale, np.float32), "f32")
        ins.append((scales, memref_type((len(hr.scale),), "f32"), column, "f32"))
        factor = f"%{chr(ord('a') + len(ins) - 1)}"
    buf, buf_t = code.alloc(edge.value, edge.shape)
    body += [f"%prod = arith.mulf %fl, {factor} : f32",
             *quantize_lines("%prod", scale, hr.zero_point, hr.lo, hr.hi),
             "%diff = arith.subf %q_clip, %q_zy : f32",
             "%real = arith.mulf %diff, %q_sy : f32",
             "linalg.yield %real : f32"]
    code.lines += generic(ins, (buf, buf_t, identity_map(rank), "f32"), body,
                          ["parallel"] * rank, name)


def _global(symbols: Symbols, hint: str, values: np.ndarray, element: str) -> str:
    """A constant vector of the module (``memref.global``), fetched at the function's start."""
    symbol = symbols.unique(hint)
    type_ = memref_type(values.shape, element)
    little = values.astype(values.dtype.newbyteorder("<"))
    symbols.globals.append(f'memref.global "private" constant @{symbol} : {type_} = '
                           f'dense<"0x{little.tobytes().hex().upper()}">')
    symbols.fetch.append(f"  %{symbol} = memref.get_global @{symbol} : {type_}")
    return f"%{symbol}"
