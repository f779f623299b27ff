"""Residual ``Add``s emitted in the epilogue of the convolution that produces one operand
(``docs/onnx.md`` §4.5, "The Add in the convolution's epilogue").

A residual ``Add`` (:class:`~vta_mlir.quant.program.AddLayer`) whose operand is the output of a
convolution read by nothing else is written as one ``linalg.generic``: the convolution's
requantization and output clip give its code ``a`` as today, the Add's arithmetic follows on
it in the same epilogue, and the other operand ``b`` is a second int8 input of that epilogue.
The codes are those of the two layers one after the other — the same operations on the same
values — but the convolution's output never goes to DRAM and back, and the Add is no layer of
its own. The integer semantics (the program's layers) are unchanged: only the emission fuses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from vta_mlir.frontend.mlir_text import memref_type

from .program import AddLayer, ConvLayer, Layer, Program, immediate_factors

if TYPE_CHECKING:
    from .emit import Emitter

__all__ = ["FusedAdd", "add_steps", "fused_adds", "layer_sources"]


@dataclass(frozen=True)
class FusedAdd:
    """The Add emitted in the epilogue of the convolution writing its operand ``a``
    (``swapped``: the convolution writes the layer's ``b``, and the roles of the operands'
    zero points and multipliers are exchanged)."""

    add: AddLayer
    swapped: bool

    @property
    def other(self) -> str:
        """The operand the epilogue reads from memory."""
        other = self.add.a if self.swapped else self.add.b
        assert other is not None
        return other


def layer_sources(layer: Layer) -> list[str]:
    """The tensors ``layer`` reads."""
    if isinstance(layer, AddLayer):
        return [layer.a] if layer.b is None else [layer.a, layer.b]
    srcs = getattr(layer, "srcs", None)
    return list(srcs) if srcs is not None else [layer.src]  # type: ignore[attr-defined]


def fused_adds(program: Program) -> dict[str, FusedAdd]:
    """The Adds to emit in a convolution's epilogue, by the convolution's name: an Add of two
    tensors of its output's shape, one of them the output of a convolution that no other
    layer reads and that is not the program's output, the other computed before that
    convolution (the program's input, or a layer's output earlier in the program). When both
    operands qualify, the later convolution takes the Add."""
    real = program.aliases.get
    position: dict[str, int] = {}
    readers: dict[str, int] = {}
    for i, layer in enumerate(program.layers):
        position[layer.dst] = i
        for src in set(real(s, s) for s in layer_sources(layer)):
            readers[src] = readers.get(src, 0) + 1
    output = real(program.output.name, program.output.name)
    layers = {layer.dst: layer for layer in program.layers}
    fused: dict[str, FusedAdd] = {}
    for add in program.layers:
        if not isinstance(add, AddLayer) or add.b is None:
            continue
        shape = program.tensors[add.dst].shape
        candidates = []
        for swapped, mine, other in ((False, add.a, add.b), (True, add.b, add.a)):
            conv = layers.get(real(mine, mine))
            other = real(other, other)
            if not isinstance(conv, ConvLayer) or conv.dst in (output, other) or \
                    readers.get(conv.dst) != 1 or conv.name in fused or \
                    program.tensors[conv.dst].shape != shape or \
                    program.tensors[other].shape != shape or \
                    position.get(other, -1) >= position[conv.dst]:
                continue
            candidates.append((position[conv.dst], conv.name, FusedAdd(add, swapped)))
        if candidates:
            _, name, found = max(candidates)
            fused[name] = found
    return fused


def add_steps(em: Emitter, layer: AddLayer, a: str, b: str | None, steps: list[str],
              swapped: bool = False) -> list[tuple[str, str, str, str]]:
    """Append to ``steps`` the Add's arithmetic up to its rounding shift and zero point
    (``docs/onnx.md`` §4.5): ``t = (a − za)·ma + (b − zb)·mb`` plus the per-column constant,
    then ``round(t / 2^shift) + zy``; ``a`` is an i32 value, ``b`` the i8 block argument of
    the second operand (``None``: a constant second operand), sign-extended here. With
    ``swapped``, ``a`` holds the layer's operand ``b`` and ``b`` its ``a``. Returns the
    operands the steps read besides the epilogue's own (the per-column constant)."""
    za, ma, zb, mb = layer.za, layer.ma, layer.zb, layer.mb
    if swapped:
        za, ma, zb, mb = zb, mb, za, ma
    # Zero points first (immediates within ±128), so no large constant is left to add.
    value = a
    if za:
        value = em.step(steps, "addi", -za, value)
    for factor in immediate_factors(ma):
        value = em.step(steps, "muli", factor, value)
    if b is not None:
        product_a = value
        steps.append(f"%be = arith.extsi {b} : i8 to i32")
        value = "%be"
        if zb:
            value = em.step(steps, "addi", -zb, value)
        for factor in immediate_factors(mb):
            value = em.step(steps, "muli", factor, value)
        value = _append(steps, f"arith.addi {product_a}, {value} : i32")
    operands: list[tuple[str, str, str, str]] = []
    if layer.const.size > 1:
        rank = len(em.program.tensors[layer.dst].shape)
        operands.append((em.constant(f"{layer.name}_c", layer.const),
                         memref_type((layer.const.size,), "i32"), f"d{rank - 1}", "%c: i32"))
        value = _append(steps, f"arith.addi {value}, %c : i32")
    em.rounding_shift(steps, layer.shift, layer.zero_point, half_first=True, src=value)
    return operands


def _append(steps: list[str], expression: str) -> str:
    """``%v<k> = expression`` with the next value number; returns ``%v<k>``."""
    name = f"%v{_count(steps)}"
    steps.append(f"{name} = {expression}")
    return name


def _count(steps: list[str]) -> int:
    """The number of values ``steps`` defines: the index of the next ``%v``."""
    return sum(1 for line in steps if line.startswith("%v"))
