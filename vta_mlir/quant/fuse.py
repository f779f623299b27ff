"""Residual ``Add`` layers computed in the epilogue of the convolution (or fully connected
layer) writing one of their operands (``docs/onnx.md`` §4.5).

An :class:`~vta_mlir.quant.program.AddLayer` on its own loads both int8 operands into the
accumulator, computes and stores. When one operand is the output of a
:class:`~vta_mlir.quant.program.ConvLayer` or :class:`~vta_mlir.quant.program.DenseLayer` that
nothing else reads, the Add's arithmetic continues that layer's epilogue instead: the layer's
requantized, clipped code stays in the accumulator (it is never stored nor loaded again), the
other operand is an ``i8`` input of the epilogue, and the epilogue writes the Add's output.
The integers are the same: the code, clipped to the layer's ``[lo, hi]`` within int8, is what
its ``trunci`` would store and the Add's ``extsi`` load, and the Add's steps follow unchanged.

:func:`emission_units` decides which Adds fuse; :func:`fused_epilogue` writes the epilogue.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vta_mlir.frontend.mlir_text import memref_type

from .batch_product import BatchProductLayer
from .emit_cnn import last_value
from .host_float import FloatLayer
from .layers_cnn import ConcatLayer
from .program import AddLayer, ConvLayer, DenseLayer, Layer, Program, immediate_factors

if TYPE_CHECKING:
    from .emit import Emitter

__all__ = ["ResidualAdd", "Unit", "emission_units", "fused_epilogue", "layer_sources",
           "rescaled_operand", "unit_sources"]

Operand = tuple[str, str, str, str]


@dataclass(frozen=True)
class ResidualAdd:
    """``add`` computed in the epilogue of ``layer``, which writes the operand ``add.a`` (or
    ``add.b`` when ``layer_is_b``) and nothing else reads. Its name is the layer's, its output
    the Add's."""

    layer: ConvLayer | DenseLayer
    add: AddLayer
    layer_is_b: bool

    @property
    def name(self) -> str:
        return self.layer.name

    @property
    def dst(self) -> str:
        return self.add.dst

    @property
    def residual(self) -> str | None:
        """The Add's other operand, read from DRAM by the epilogue (None for a constant
        vector, ``add.const``)."""
        return self.add.a if self.layer_is_b else self.add.b


#: What the emission writes in order: a layer alone, or a layer with its Add.
Unit = Layer | ResidualAdd


def layer_sources(layer: Layer) -> list[str]:
    """The tensors ``layer`` reads (as it names them: a Flatten's output is not resolved)."""
    if isinstance(layer, AddLayer):
        return [layer.a] if layer.b is None else [layer.a, layer.b]
    if isinstance(layer, ConcatLayer | FloatLayer | BatchProductLayer):
        return list(layer.srcs)
    return [layer.src]


def unit_sources(unit: Unit) -> list[str]:
    """The tensors ``unit`` reads from DRAM."""
    if isinstance(unit, ResidualAdd):
        return [unit.layer.src] if unit.residual is None else [unit.layer.src, unit.residual]
    return layer_sources(unit)


def emission_units(program: Program) -> list[Unit]:
    """The layers of ``program`` in order, each Add that fuses (module docstring) replaced by
    a :class:`ResidualAdd` at the place of the layer it fuses into.

    An Add of two tensors fuses into the layer writing one of its operands when that layer is
    a convolution or a fully connected layer, its output has the Add's shape, is read by this
    Add alone (once) and is not the program's output nor viewed by a Flatten, and the other
    operand is already in DRAM when the layer runs (the program's input, or written by an
    earlier layer). When both operands qualify, the Add fuses into the later layer."""
    readers = Counter(program.aliases.get(src, src) for layer in program.layers
                      for src in layer_sources(layer))
    viewed = set(program.aliases.values())
    index = {layer.dst: k for k, layer in enumerate(program.layers)}
    fusions: dict[int, ResidualAdd] = {}
    fused: set[int] = set()
    for k, add in enumerate(program.layers):
        if isinstance(add, AddLayer) and add.b is None and add.a in program.views:
            # The bias of a product of rows (docs/onnx.md §4.16): in that product's epilogue.
            at = index.get(add.a)
            layer = program.layers[at] if at is not None else None
            if isinstance(layer, DenseLayer) and readers[add.a] == 1 and \
                    add.a not in viewed and add.a != program.output.name and at not in fusions:
                fusions[at] = ResidualAdd(layer, add, False)
                fused.add(k)
            continue
        # Any other constant operand (a vector per column, `const`) stays a layer of its own.
        if not isinstance(add, AddLayer) or add.b is None or add.const.size > 1 \
                or add.a == add.b:
            continue
        shape = program.tensors[add.dst].shape
        choice: ResidualAdd | None = None
        for operand, other, layer_is_b in ((add.a, add.b, False), (add.b, add.a, True)):
            at = index.get(operand)
            if at is None or at in fusions:
                continue
            layer = program.layers[at]
            real_other = program.aliases.get(other, other)
            other_at = -1 if real_other == program.input.name else index.get(real_other)
            if (not isinstance(layer, ConvLayer | DenseLayer) or readers[operand] != 1
                    or operand in viewed or operand == program.output.name
                    or program.tensors[operand].shape != shape
                    or program.tensors[real_other].shape != shape
                    or other_at is None or other_at >= at):
                continue
            if choice is None or at > index[choice.layer.dst]:
                choice = ResidualAdd(layer, add, layer_is_b)
        if choice is not None:
            fusions[index[choice.layer.dst]] = choice
            fused.add(k)
    return [fusions.get(k, layer) for k, layer in enumerate(program.layers) if k not in fused]


def rescaled_operand(em: Emitter, steps: list[str], value: str, zero_point: int,
                     multiplier: int) -> str:
    """Append an Add operand's ``(value − zero_point)·multiplier`` (one or two immediates,
    :func:`~vta_mlir.quant.program.immediate_factors`) to ``steps``; returns the product."""
    if zero_point:
        value = em.step(steps, "addi", -zero_point, value)
    for factor in immediate_factors(multiplier):
        value = em.step(steps, "muli", factor, value)
    return value


def fused_epilogue(em: Emitter, prefix: str, shape: Sequence[int], out: str, steps: list[str],
                   operands: list[Operand], unit: ResidualAdd, in_range: bool) -> None:
    """The epilogue of ``unit.layer`` (its requantization in ``steps``, already within the
    layer's ``[lo, hi]`` when ``in_range``), then ``unit.add`` on its code and the residual:
    the clip of the layer's output, each operand's rescale, their sum, the Add's rounding shift
    and output zero point, and its clip to the Add's ``[lo, hi]``."""
    layer, add = unit.layer, unit.add
    if not in_range:
        em.step(steps, "minsi", layer.hi)
        em.step(steps, "maxsi", layer.lo)
    code = last_value(steps)
    if unit.residual is None:
        # (code − za)·ma + c, c the constant rescaled per column, as the Add layer computes it.
        product = rescaled_operand(em, steps, code, add.za, add.ma)
        operands.append((em.constant(f"{add.name}_c", add.const),
                         memref_type(add.const.shape, "i32"), f"d{len(shape) - 1}", "%c: i32"))
        steps.append(f"%v{_count(steps)} = arith.addi {product}, %c : i32")
        em.rounding_shift(steps, add.shift, add.zero_point, half_first=True)
        em.epilogue(prefix, shape, out, steps, operands, add.lo, add.hi)
        return
    residual = em.buffer(unit.residual)
    dims = ", ".join(f"d{i}" for i in range(len(shape)))
    operands.append((residual, memref_type(em.shape(unit.residual), "i8"), dims, "%r: i8"))
    steps.append("%re = arith.extsi %r : i8 to i32")
    a, b = ("%re", code) if unit.layer_is_b else (code, "%re")
    product_a = rescaled_operand(em, steps, a, add.za, add.ma)
    product_b = rescaled_operand(em, steps, b, add.zb, add.mb)
    steps.append(f"%v{_count(steps)} = arith.addi {product_a}, {product_b} : i32")
    em.rounding_shift(steps, add.shift, add.zero_point, half_first=True)
    em.epilogue(prefix, shape, out, steps, operands, add.lo, add.hi)


def _count(steps: list[str]) -> int:
    """The index of the next ``%v<k>`` of ``steps``."""
    return sum(1 for line in steps if line.startswith("%v"))

