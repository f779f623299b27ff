"""Float subgraphs the host computes (``docs/onnx.md`` §4.15): a run of float ONNX operations
between ``DequantizeLinear`` outputs (or the program's float input) and ``QuantizeLinear``
inputs (or the program's float output), in float32.

A :class:`FloatLayer` holds the operations as ONNX names them (:class:`FloatOp`), the int8
tensors it dequantizes, the int8 tensors it quantizes, the program's float input it reads and
float output it writes. It is emitted as float ``linalg`` code (:mod:`.host_float_ops`), which
``vta-outline-host-steps`` makes host steps; its semantics are those of the reference evaluator
on that code (``docs/reference.md``): every operation is rounded once to float32, every
reduction is a left fold in the order of its iteration space.

An int8 tensor the layer reads or writes may be stored in another shape than the one ONNX
gives it (:class:`FloatEdge`): an activation of a matrix product on rank ≥ 3 is stored as the
matrix of its rows (``B·S × K``), and the heads of such a product split out of its last axis
(``[1, S, H] → [1, S, h, D] → [1, h, S, D]``) are a view of the ``S × H`` matrix. The layer
reads and writes each element through the map from the ONNX index to the stored one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from vta_mlir.frontend.mlir_text import memref_type

from .host_float_ops import OP_EMITTERS, Emit, FloatCode, generic, identity_map, quantize_lines
from .host_generic import GENERIC, emit_generic
from .host_requant import emit_host_requant_edge
from .program import FloatTensor, Program, QTensor

if TYPE_CHECKING:
    from .emit import Emitter

__all__ = ["FLOAT_OPS", "FloatBuffers", "FloatEdge", "FloatLayer", "FloatOp", "FloatTensor",
           "allocate_float_outputs", "emit_float_layer", "float_parameter", "view_index"]

#: The ONNX operations a float layer of a QDQ model computes: a ``MatMul`` of two float
#: values is computed by the host in dynamically quantized models only (a QDQ model's matrix
#: products are integer layers).
FLOAT_OPS = frozenset(OP_EMITTERS) - {"MatMul"}

#: The emission of every kind of operation a float layer holds: the ONNX operations, and the
#: float generics of a network written in linalg (``vta-integerize``, :mod:`.host_generic`).
_EMITTERS: dict[str, Emit] = {**OP_EMITTERS, GENERIC: emit_generic}


@dataclass(frozen=True)
class FloatOp:
    """One ONNX operation on float values: ``op`` of ``inputs`` (float value names, ``""``
    for an absent optional input) into ``output`` of ``shape``, with its attributes."""

    op: str
    inputs: tuple[str, ...]
    output: str
    shape: tuple[int, ...]
    attrs: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class FloatEdge:
    """The float value ``value`` of ``shape`` and the int8 tensor ``tensor`` it is quantized
    as: element ``i`` of the value is element ``view_index(i)`` of the stored tensor, whose
    C-order elements are those of the value reshaped to ``split`` then transposed by ``perm``
    (``split`` = ``shape`` and ``perm`` the identity for a tensor stored in another shape of
    the same order)."""

    value: str
    tensor: str
    shape: tuple[int, ...]
    split: tuple[int, ...]
    perm: tuple[int, ...]


@dataclass
class FloatLayer:
    """``ops`` in order on the dequantized ``inputs`` and the float values ``reads`` (the
    program's float input); ``outputs`` quantized into int8 tensors, ``writes`` the program's
    float output when the layer computes it. ``constants`` are float32 arrays (initializers and
    dequantized constants)."""

    name: str
    inputs: list[FloatEdge] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    ops: list[FloatOp] = field(default_factory=list)
    outputs: list[FloatEdge] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    constants: dict[str, np.ndarray] = field(default_factory=dict)
    #: The zero point and scale of each int8 tensor the layer dequantizes or quantizes.
    quant: dict[str, tuple[float, int]] = field(default_factory=dict)

    @property
    def srcs(self) -> list[str]:
        """The int8 tensors the layer reads."""
        return list(dict.fromkeys(edge.tensor for edge in self.inputs))

    @property
    def dst(self) -> str:
        """The first int8 tensor the layer writes ("" when it writes none)."""
        return self.outputs[0].tensor if self.outputs else ""


def view_index(edge: FloatEdge, stored: Sequence[int]) -> list[str]:
    """The affine expressions (of ``d0``, ``d1``, ... over ``edge.shape``) of the stored
    tensor's index: the C-order position in ``edge.split`` (after undoing ``edge.perm``),
    unravelled in ``stored``."""
    if list(edge.split) == list(stored) and list(edge.perm) == list(range(len(stored))):
        return [f"d{i}" for i in range(len(stored))]
    split_of = [0] * len(edge.split)
    for i, axis in enumerate(edge.perm):
        split_of[axis] = i
    grouped = _grouped(edge.split, stored, split_of)
    if grouped is not None:
        return grouped
    terms = []
    for k, size in enumerate(edge.split):
        stride = math.prod(edge.split[k + 1:])
        if size != 1:
            terms.append(f"d{split_of[k]}" if stride == 1 else f"d{split_of[k]} * {stride}")
    flat = " + ".join(terms) or "0"
    results = []
    for j, size in enumerate(stored):
        stride = math.prod(stored[j + 1:])
        expr = f"({flat})" if len(terms) > 1 else flat
        if size == 1:
            results.append("0")
            continue
        if stride != 1:
            expr = f"{expr} floordiv {stride}"
        if j:
            expr = f"({expr}) mod {size}" if stride != 1 else f"{expr} mod {size}"
        results.append(expr)
    return results


def _grouped(split: Sequence[int], stored: Sequence[int],
             split_of: Sequence[int]) -> list[str] | None:
    """The stored index when each stored dimension merges consecutive dimensions of
    ``split`` (dimension ``k`` of ``split`` is ``d<split_of[k]>``), else None."""
    results: list[str] = []
    k = 0
    for size in stored:
        group: list[int] = []
        while k < len(split) and math.prod(split[g] for g in group) < size:
            group.append(k)
            k += 1
        while k < len(split) and split[k] == 1 and size == 1 and not group:
            group.append(k)
            k += 1
        if math.prod(split[g] for g in group) != size:
            return None
        terms = [f"d{split_of[g]}" if math.prod(split[g + 1:group[-1] + 1]) == 1 else
                 f"d{split_of[g]} * {math.prod(split[g + 1:group[-1] + 1])}"
                 for g in group if split[g] != 1]
        results.append(" + ".join(terms) or "0")
    return results if k == len(split) or all(split[g] == 1 for g in range(k, len(split))) \
        else None


def emit_float_layer(em: Emitter, layer: FloatLayer, edges: dict[str, str],
                     edge_types: dict[str, str]) -> None:
    """Append the float code of ``layer`` to ``em.lines``: each input dequantized into a
    float32 buffer, the operations, each output quantized into its int8 tensor (allocated here
    unless it is the program's output), the program's float output copied into ``%output``.
    ``edges`` are the buffers of the program's float input and output."""
    prefix = "%" + em.unique(layer.name)
    code = FloatCode(em, prefix, layer.name, dict(edges), dict(edge_types), layer.constants)
    for edge in layer.inputs:
        scale, zero_point = layer.quant[edge.tensor]
        stored = em.shape(edge.tensor)
        host_requant = em.program.host_requant.get(edge.tensor)
        if host_requant is not None:  # a product's accumulators (docs/onnx.md §4.19)
            emit_host_requant_edge(code, edge, em.buffer(edge.tensor), stored, host_requant,
                                   scale, layer.name)
            continue
        buf, buf_t = code.alloc(edge.value, edge.shape)
        rank = len(edge.shape)
        code.lines += generic(
            [(em.buffer(edge.tensor), memref_type(stored, "i8"), view_index(edge, stored),
              "i8")],
            (buf, buf_t, identity_map(rank), "f32"),
            [f"%zx = arith.constant {zero_point} : i32",
             f"%sx = arith.constant {scale!r} : f32",
             "%w = arith.extsi %a : i8 to i32",
             "%d = arith.subi %w, %zx : i32",
             "%f = arith.sitofp %d : i32 to f32",
             "%r = arith.mulf %f, %sx : f32",
             "linalg.yield %r : f32"], ["parallel"] * rank, layer.name)
    for op in layer.ops:
        _EMITTERS[op.op](code, op, None)
    allocate_float_outputs(em, layer)
    for edge in layer.outputs:
        scale, zero_point = layer.quant[edge.tensor]
        stored = em.shape(edge.tensor)
        src, src_t = code.values[edge.value], code.types[edge.value]
        rank = len(edge.shape)
        code.lines += generic(
            [(src, src_t, identity_map(rank), "f32")],
            (em.buffer(edge.tensor), memref_type(stored, "i8"), view_index(edge, stored), "i8"),
            [*quantize_lines("%a", scale, zero_point),
             "%q = arith.fptosi %q_clip : f32 to i8",
             "linalg.yield %q : i8"], ["parallel"] * rank, layer.name)
    for value in layer.writes:
        # The program's float output, written once at the end (the operations read their
        # buffers back; the argument is only written).
        rank = len(code.shape(value))
        code.lines += generic([(code.values[value], code.types[value], identity_map(rank),
                                "f32")],
                              (edges[value], edge_types[value], identity_map(rank), "f32"),
                              ["linalg.yield %a : f32"], ["parallel"] * rank, layer.name)
    em.lines += code.lines
    em.lines += [f"  memref.dealloc {buf} : {t}" for buf, t in code.owned]


class FloatBuffers:
    """The program's float edges (``%input``, ``%output``) as the float layers read and write
    them."""

    def __init__(self, em: Emitter, program: Program) -> None:
        self.buffers: dict[str, str] = {}
        self.types: dict[str, str] = {}
        for tensor, arg in ((program.input, "%input"), (program.output, "%output")):
            if isinstance(tensor, FloatTensor):
                self.buffers[tensor.name] = arg
                self.types[tensor.name] = memref_type(tensor.shape, "f32")
        if isinstance(program.input, FloatTensor):
            # The host reads the float input through a view: a float argument that linalg
            # code reads directly is how vta-integerize recognises a network requantizing in
            # float (torch-mlir's form), which this program is not.
            type_ = self.types[program.input.name]
            em.lines.append(f"  %input_host = memref.cast %input : {type_} to {type_}")
            self.buffers[program.input.name] = "%input_host"

    def emit(self, em: Emitter, layer: FloatLayer) -> None:
        """The code of ``layer``."""
        emit_float_layer(em, layer, self.buffers, self.types)


def float_parameter(tensor: QTensor | FloatTensor, arg: str, quant: str) -> str:
    """The function parameter of the program's input or output: int8 with its ``vta.quant``
    host step (``quant``), or float32."""
    if isinstance(tensor, FloatTensor):
        return f"{arg}: {memref_type(tensor.shape, 'f32')}"
    return f"{arg}: {memref_type(tensor.shape, 'i8')} {quant}"


def allocate_float_outputs(em: Emitter, layer: FloatLayer) -> None:
    """Allocate the int8 tensors ``layer`` quantizes now, before the float layer preceding it:
    the host code of two float layers in a row becomes one host step, which must not use a
    buffer allocated between them."""
    for edge in layer.outputs:
        if edge.tensor not in em.names and edge.tensor != em.program.output.name:
            name = "%" + em.unique(edge.tensor)
            em.names[edge.tensor] = name
            em.lines.append(f"  {name} = memref.alloc() : "
                            f"{memref_type(em.program.tensors[edge.tensor].shape, 'i8')}")
