"""Float code the host computes: the float computations of a network written in linalg between
a dequantize (or the function's float input) and a quantize (or the function's float result)
that none of the integer forms of ``vta-integerize`` reads — a transformer's bias adds on
reals, the heads' ``expand_shape`` and ``transpose``, a Softmax of scaled scores, LayerNorm's
reductions and ``rsqrt``, GELU's ``erf``, residual adds (``docs/pipeline.md``, "Input forms:
float requantization").

Each such op joins the open float layer (:class:`~vta_mlir.quant.host_float.FloatLayer`) as it
is: a float ``linalg.generic`` as a :data:`~vta_mlir.quant.host_generic.GENERIC` operation with
its maps, iterators and body (:mod:`.float_body`), ``collapse_shape`` / ``expand_shape`` as a
``Reshape``, ``linalg.transpose`` as a ``Transpose``, ``linalg.broadcast`` as a generic copy.
The host computes them with the reference evaluator's semantics, so the values are exactly
those of the network's own ops.  The layer reads int8 tensors through their dequantize (a
product's int32 accumulators requantized by the host first, ``docs/onnx.md`` §4.19), and a
quantize of one of its values is an int8 tensor it writes.  The layer closes (takes its place
in the program) when an integer layer reads a tensor it writes; a value of a closed layer that a
later float op reads is computed again in the open one (host steps hand each other int8
buffers, and the ops are deterministic); codes the open layer writes and itself reads again
are its value quantized and dequantized in float (the same numbers as the int8 round trip).

An integer form may have begun to read a value before float code reads it (a chain of
element-wise ops on one tensor's reals, ``hard.py``; a softmax on reals, ``host.py``; the sum
of two tensors' reals): every float op is remembered with what its operands held
(:class:`Pending`), and such a value becomes float code, op for op, when float code reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import Float32Type, MemRefType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue

from vta_mlir.quant.fuse import layer_sources
from vta_mlir.quant.host_float import FloatEdge, FloatLayer, FloatOp
from vta_mlir.quant.host_float_ops import quantize_lines
from vta_mlir.quant.host_generic import GENERIC
from vta_mlir.quant.program import FloatTensor, Layer, QTensor

from .edges import INPUT, OUTPUT
from .float_body import body_text
from .meaning import (
    Accumulator,
    ActivationProduct,
    Codes,
    Const,
    Filled,
    FloatInput,
    Meaning,
    Real,
    ScaledAccumulator,
    Unsupported,
)
from .values import shape as _shape

__all__ = ["FloatValue", "HostCode", "Pending"]


class Lifter(Protocol):
    """What this module uses of the lifter."""

    held: dict[SSAValue, Meaning]
    tensors: dict[str, QTensor]
    aliases: dict[str, str]
    layers: list[Layer]
    producer: dict[str, Layer]
    input: QTensor | FloatTensor | None
    output: QTensor | FloatTensor | None

    def name(self, kind: str) -> str: ...

    def new_tensor(self, shape: tuple[int, ...], scale: float, zero_point: int) -> QTensor: ...


@dataclass(frozen=True)
class FloatValue:
    """A float value the host computes: ``name`` among the float layers' values."""

    name: str
    shape: tuple[int, ...]


@dataclass(eq=False)
class Pending:
    """A float op as it was read: ``inputs`` each operand with what it held then (and how
    that was computed, when float code did), ``init`` what the output held before (a
    reduction's fill), ``written`` what the reading made of the output."""

    op: Operation
    inputs: tuple[tuple[SSAValue, Meaning | None, Pending | None], ...]
    init: Meaning | None
    written: Meaning | None = None


def _is_f32(value: SSAValue) -> bool:
    return isinstance(value.type, MemRefType) and isinstance(value.type.element_type,
                                                              Float32Type)


def _target(op: Operation) -> SSAValue | None:
    """The f32 buffer ``op`` writes when it is an op float code may be (module doc)."""
    target: SSAValue | None = None
    if isinstance(op, linalg.GenericOp) and op.outputs:
        target = op.outputs[0]
    elif isinstance(op, memref.CollapseShapeOp | memref.ExpandShapeOp):
        target = op.result
    elif isinstance(op, linalg.TransposeOp | linalg.BroadcastOp):
        target = op.operands[1]
    return target if target is not None and _is_f32(target) else None


def _sources(op: Operation) -> list[SSAValue]:
    if isinstance(op, linalg.GenericOp):
        return list(op.inputs)
    if isinstance(op, memref.CollapseShapeOp | memref.ExpandShapeOp):
        return [op.src]
    return [op.operands[0]]


def _identity(rank: int) -> tuple[int, ...]:
    return tuple(range(rank))


def _map_results(op: linalg.GenericOp, index: int) -> tuple[str, ...]:
    found = op.indexing_maps.data[index].data
    if found.num_symbols or found.num_dims != len(op.iterator_types.data):
        raise Unsupported(op, "a float generic's indexing maps are of its loop dimensions only")
    return tuple(str(e) for e in found.results)


def _describe(meaning: Meaning | None) -> str:
    if isinstance(meaning, ScaledAccumulator):
        return ("the scaled accumulator of a product before its quantize (the host reads a "
                "product's int8 codes, dequantized)")
    if isinstance(meaning, Accumulator | ActivationProduct):
        return "an int32 accumulator"
    if isinstance(meaning, Codes):
        return "int8 codes without their dequantize"
    if meaning is None:
        return "a buffer that holds nothing this pass recognises"
    return f"a value computed by an op the host does not ({type(meaning).__name__})"


class HostCode:
    """The float layers of the function being read (module doc)."""

    def __init__(self, lifter: Lifter) -> None:
        self.lifter = lifter
        self.open: FloatLayer | None = None
        #: How each f32 buffer was last written by an op float code may be.
        self.pending: dict[SSAValue, Pending] = {}
        self.current: Pending | None = None
        #: The value each remembered op computes, once float code read it.
        self.values: dict[Pending, FloatValue] = {}
        #: Each value's operation and the layer that last computed it.
        self.ops: dict[str, tuple[FloatOp, FloatLayer]] = {}
        #: The int8 tensors float layers write, and those whose stored shape a reader fixed.
        self.written: dict[str, FloatLayer] = {}
        self.stored: set[str] = set()
        self.count = 0

    # -- what each op computed -----------------------------------------------------------
    def before(self, op: Operation) -> None:
        """Before ``op`` is read: what its operands hold, when it writes an f32 buffer."""
        target = _target(op)
        held = self.lifter.held
        self.current = None if target is None else Pending(
            op, tuple((v, held.get(v), self._pending_of(v)) for v in _sources(op)),
            held.get(target))

    def after(self, op: Operation) -> None:
        """After ``op`` was read: remember it with what it made of its output."""
        found = self.current
        target = _target(op)
        if found is not None and found.op is op and target is not None:
            found.written = self.lifter.held.get(target)
            self.pending[target] = found
        self.current = None

    def _pending_of(self, value: SSAValue) -> Pending | None:
        found = self.pending.get(value)
        held = self.lifter.held.get(value)
        return found if found is not None and held is not None and found.written is held \
            else None

    # -- the open layer ------------------------------------------------------------------
    def layer(self) -> FloatLayer:
        if self.open is None:
            self.open = FloatLayer(self.lifter.name("float"))
        return self.open

    def close(self) -> None:
        """Put the open layer in the program."""
        layer, self.open = self.open, None
        if layer is None:
            return
        self.lifter.layers.append(layer)
        for edge in layer.outputs:
            self.lifter.producer[edge.tensor] = layer

    def before_reading(self, tensors: list[str]) -> None:
        """An integer layer (or the host's dequantize of the result) about to read
        ``tensors``: the open layer closes first when it writes one."""
        if self.open is None:
            return
        writes = {edge.tensor for edge in self.open.outputs}
        if any(self.lifter.aliases.get(t, t) in writes for t in tensors):
            self.close()

    def before_layer(self, layer: Layer) -> None:
        self.before_reading(layer_sources(layer))

    # -- ops -----------------------------------------------------------------------------
    def compute(self, op: linalg.GenericOp) -> bool:
        """``op`` as float code, when it computes on f32 buffers: its first result a value of
        the open layer (an error at ``op`` for what the host does not compute); False for a
        generic that reads or writes another type."""
        if not op.outputs or not all(_is_f32(v) for v in (*op.inputs, op.outputs[0])):
            return False
        assert self.current is not None and self.current.op is op
        self.lifter.held[op.outputs[0]] = self._materialize(self.current)
        for extra in op.outputs[1:]:  # results nobody may read (a softmax's argmax)
            self.lifter.held.pop(extra, None)
        return True

    def layout(self, op: Operation) -> bool:
        """A reshape, transpose or broadcast of a float value as float code; False when
        ``op`` writes no f32 buffer."""
        target = _target(op)
        if target is None or self.current is None or self.current.op is not op:
            return False
        self.lifter.held[target] = self._materialize(self.current)
        return True

    def quantize(self, op: linalg.GenericOp, scale: float, zero_point: int,
                 unsigned: bool) -> Codes:
        """The codes a quantize of float code writes: an output of the open layer."""
        out = op.outputs[0]
        shape = _shape(out)
        rank = len(shape)
        identity = tuple(f"d{d}" for d in range(rank))
        if any(_map_results(op, i) != identity for i in range(2)):
            raise Unsupported(op, "a quantize of float code reads and writes element by "
                                  "element (identity maps)")
        src = op.inputs[0]
        value = self._source(op, self.lifter.held.get(src), self._pending_of(src))
        if not isinstance(value, str):
            raise Unsupported(op, "quantizes a constant")
        y = self.lifter.new_tensor(shape, scale, zero_point)
        layer = self.layer()
        layer.outputs.append(FloatEdge(value, y.name, shape, shape, _identity(rank)))
        layer.quant[y.name] = (scale, zero_point)
        self.written[y.name] = layer
        return Codes(y, unsigned)

    def store(self, op: Operation, tensor: QTensor, shape: tuple[int, ...]) -> None:
        """An integer layer reads ``tensor`` as ``shape``: codes a float layer writes are
        stored so (the same elements in C order; the float layers read them through their
        own shapes)."""
        root = self.lifter.aliases.get(tensor.name, tensor.name)
        stored = self.lifter.tensors[root]
        if root not in self.written:
            return
        if stored.shape != shape:
            if root in self.stored or np.prod(stored.shape) != np.prod(shape):
                raise Unsupported(op, f"reads the codes a float layer writes as {shape}, "
                                      f"another layout than {stored.shape}, which an earlier "
                                      "layer reads")
            self.lifter.tensors[root] = replace(stored, shape=shape)
        self.stored.add(root)

    def finish(self, function: Operation, result: SSAValue) -> None:
        """The function's float result, when float code computes it; then the open layer
        closes."""
        held = self.lifter.held.get(result)
        pending = self._pending_of(result)
        if self.lifter.output is None and (isinstance(held, FloatValue) or pending is not None):
            value = self._source(function, held, pending)
            if not isinstance(value, str):
                raise Unsupported(function, "the result is a constant")
            shape = _shape(result)
            layer = self.layer()
            layer.ops.append(FloatOp("Identity", (value,), OUTPUT, shape))
            layer.writes.append(OUTPUT)
            self.lifter.output = FloatTensor(OUTPUT, shape)
        self.close()

    # -- values --------------------------------------------------------------------------
    def _source(self, op: Operation, meaning: Meaning | None,
                pending: Pending | None) -> str | float:
        """A value of the open layer holding what ``meaning`` is, or a scalar constant."""
        if isinstance(meaning, FloatValue):
            return self._available(meaning.name)
        if isinstance(meaning, Real):
            return self._edge(meaning.tensor)
        if isinstance(meaning, Filled):
            return float(meaning.value)
        if isinstance(meaning, Const) and meaning.array.dtype.kind == "f":
            if meaning.array.size == 1:
                return float(np.float32(meaning.array.reshape(-1)[0]))
            name = f"c{self._count()}"
            self.layer().constants[name] = meaning.array.astype(np.float32)
            return name
        if isinstance(meaning, FloatInput):
            if not isinstance(self.lifter.input, FloatTensor):
                raise Unsupported(op, "float code reads the function's float input: only a "
                                      "B×S×K input quantized into rows before it is read so "
                                      "(another is quantized by a vta.quant host step)")
            layer = self.layer()
            if INPUT not in layer.reads:
                layer.reads.append(INPUT)
            return INPUT
        if pending is not None and not isinstance(
                meaning, ScaledAccumulator | Accumulator | ActivationProduct | Codes):
            return self._available(self._materialize(pending).name)
        raise Unsupported(op, f"float code reads {_describe(meaning)}")

    def _count(self) -> int:
        self.count += 1
        return self.count - 1

    def _edge(self, tensor: QTensor) -> str:
        """The reals of ``tensor`` (codes, or a view of them) in the open layer."""
        root = self.lifter.aliases.get(tensor.name, tensor.name)
        layer = self.layer()
        if self.written.get(root) is layer:
            return self._requantized(root, tensor.shape)
        name = f"{root}@{'x'.join(map(str, tensor.shape))}"
        if all(edge.value != name for edge in layer.inputs):
            stored = self.lifter.tensors[root]
            layer.inputs.append(FloatEdge(name, root, tensor.shape, tensor.shape,
                                          _identity(len(tensor.shape))))
            layer.quant[root] = (stored.scale, stored.zero_point)
        return name

    def _requantized(self, root: str, shape: tuple[int, ...]) -> str:
        """The reals of codes the open layer writes, in that layer: the value it quantizes,
        quantized and dequantized (the ops of the quantize and of an int8 input's
        dequantize, so the same numbers)."""
        layer = self.layer()
        edge = next(e for e in layer.outputs if e.tensor == root)
        scale, zero_point = layer.quant[root]
        body = (*quantize_lines("%a", scale, zero_point),
                f"%zx = arith.constant {zero_point} : i32",
                "%v5 = arith.fptosi %q_clip : f32 to i32",
                "%v6 = arith.subi %v5, %zx : i32", "%v7 = arith.sitofp %v6 : i32 to f32",
                "%v8 = arith.mulf %v7, %q_sy : f32", "linalg.yield %v8 : f32")
        identity = tuple(f"d{d}" for d in range(len(edge.shape)))
        name = self._add(FloatOp(GENERIC, (edge.value,), f"f{self._count()}", edge.shape, {
            "maps": (identity, identity), "iterators": ("parallel",) * len(identity),
            "body": body, "init": None}))
        if shape == edge.shape:
            return name
        return self._add(FloatOp("Reshape", (name,), f"f{self._count()}", shape))

    def _add(self, op: FloatOp) -> str:
        layer = self.layer()
        layer.ops.append(op)
        self.ops[op.output] = (op, layer)
        return op.output

    def _available(self, name: str) -> str:
        """``name`` in the open layer: computed again there, with what it reads, when an
        earlier layer computed it."""
        if name == INPUT or name not in self.ops:
            return name  # the float input, an input edge or a constant of the open layer
        op, owner = self.ops[name]
        layer = self.layer()
        if owner is layer:
            return name
        for value in op.inputs:
            if value in owner.constants:
                layer.constants[value] = owner.constants[value]
            elif value == INPUT:
                if INPUT not in layer.reads:
                    layer.reads.append(INPUT)
            elif (edge := next((e for e in owner.inputs if e.value == value), None)) is not None:
                if all(e.value != value for e in layer.inputs):
                    layer.inputs.append(edge)
                    layer.quant[edge.tensor] = owner.quant[edge.tensor]
            else:
                self._available(value)
        return self._add(op)

    def _materialize(self, pending: Pending) -> FloatValue:
        """The value of the float op ``pending``, computed in the open layer."""
        found = self.values.get(pending)
        if found is not None:
            self._available(found.name)
            return found
        op = pending.op
        sources = [self._source(op, meaning, inner) for _, meaning, inner in pending.inputs]
        target = _target(op)
        assert target is not None
        shape = _shape(target)
        name = f"f{self._count()}"
        if isinstance(op, linalg.GenericOp):
            float_op = self._generic(op, sources, pending.init, name, shape)
        elif not isinstance(sources[0], str):
            raise Unsupported(op, "reshapes, transposes or broadcasts a constant scalar")
        elif isinstance(op, linalg.TransposeOp):
            float_op = FloatOp("Transpose", (sources[0],), name, shape,
                               {"perm": list(op.permutation.get_values())})
        elif isinstance(op, linalg.BroadcastOp):
            dims = set(op.dimensions.get_values())
            kept = tuple(f"d{d}" for d in range(len(shape)) if d not in dims)
            identity = tuple(f"d{d}" for d in range(len(shape)))
            float_op = FloatOp(GENERIC, (sources[0],), name, shape, {
                "maps": (kept, identity), "iterators": ("parallel",) * len(shape),
                "body": ("linalg.yield %a : f32",), "init": None})
        else:
            float_op = FloatOp("Reshape", (sources[0],), name, shape)
        self._add(float_op)
        value = FloatValue(name, shape)
        self.values[pending] = value
        return value

    def _generic(self, op: linalg.GenericOp, sources: list[str | float], init: Meaning | None,
                 name: str, shape: tuple[int, ...]) -> FloatOp:
        """``op`` as a float layer's generic (:mod:`.float_body`): operands that are scalars
        become constants of its body."""
        kept = [i for i, s in enumerate(sources) if isinstance(s, str)]
        scalars = {i: s for i, s in enumerate(sources) if not isinstance(s, str)}
        body = body_text(op, scalars, kept)
        start = None
        if body.reads_output:
            if not isinstance(init, Filled):
                raise Unsupported(op, "a float reduction starts from a filled buffer")
            start = init.value
        maps = (*(_map_results(op, i) for i in kept), _map_results(op, len(op.inputs)))
        return FloatOp(GENERIC, tuple(str(sources[i]) for i in kept), name, shape, {
            "maps": maps, "iterators": tuple(str(it.data) for it in op.iterator_types.data),
            "body": body.lines, "init": start})
