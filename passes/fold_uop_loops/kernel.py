"""The analysis of ``vta-fold-uop-loops``: micro-kernels under construction and the loops that
can fold into them.

:func:`kernel_of_body` reads the kernel a loop body holds (micro-ops of one kind, or one
``vta.uop_loop`` kernel) with its positions as linear forms (:class:`PositionForms`);
:func:`fold_chain`, :func:`list_kernel` and :func:`unroll` grow it by the loops around it
while that is legal (fields, extents, the write-hazard rule); :mod:`.patterns` chooses among
them and rewrites.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from xdsl.dialects import affine
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineMap

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import (
    EXTENT_MAX,
    WRITE_HAZARD_WINDOW,
    AluOp,
    MicroOp,
    UopLoopOp,
)
from vta_mlir.ir.index_arith import LinearForm, is_index_op, linear_form_of_op

from ..tensorize.conv import write_hazard_free

__all__ = [
    "FIELDS",
    "Kernel",
    "Level",
    "Limits",
    "MicroOp",
    "PositionForms",
    "Uop",
    "fold_chain",
    "host_iterations",
    "kernel_limits",
    "kernel_of_body",
    "list_kernel",
    "loop_chain",
    "unroll",
]

#: The micro-op index fields, in ``vta.uop_loop`` order.
FIELDS = ("dst", "src", "wgt")

# ---------------------------------------------------------------------------------------------
# Positions as linear forms over SSA values


class PositionForms:
    """Linear forms of ``index`` values over the values they are computed from.

    Constants fold in; the index ops :func:`~vta_mlir.ir.index_arith.linear_form_of_op` looks
    through (``arith.addi/subi/muli``, ``affine.apply``, ...) are looked through while they stay
    linear; anything else (a loop variable, a function argument, a ``floordiv`` of a
    variable, ...) is a term of its own.
    """

    def __init__(self) -> None:
        self._cache: dict[SSAValue, LinearForm] = {}

    def of(self, value: SSAValue | None, offset: int = 0) -> LinearForm:
        if value is None:
            return LinearForm(const=offset)
        form = self._cache.get(value)
        if form is None:
            form = self._compute(value)
            self._cache[value] = form
        return form + LinearForm(const=offset)

    def _compute(self, value: SSAValue) -> LinearForm:
        owner = value.owner
        if isinstance(owner, Operation) and is_index_op(owner):
            form = linear_form_of_op(owner, [self.of(v) for v in owner.operands])
            if form is not None:
                return form
        return LinearForm.of(value)


# ---------------------------------------------------------------------------------------------
# Kernels under construction


def _signature(op: MicroOp) -> tuple[object, ...]:
    """What the micro-ops of one kernel share (docs/isa.md §4.4)."""
    if isinstance(op, AluOp):
        return ("alu", op.kind, op.use_imm, op.imm_value)
    return (op.name,)


@dataclass(frozen=True)
class Uop:
    """A micro-op of a kernel: the op it is built from and its positions per index field."""

    template: MicroOp
    forms: dict[str, LinearForm]

    def field_form(self, name: str) -> LinearForm | None:
        form = self.forms.get(name)
        if form is None and name == "src" and isinstance(self.template, AluOp):
            # An immediate ALU micro-op's source follows its destination, as in TVM.
            return self.forms["dst"]
        return form

    def replace(self, key: Hashable, value: LinearForm | None) -> Uop:
        """Positions with ``key`` removed (``value`` None) or replaced by ``value``."""
        return Uop(
            self.template,
            {
                k: f.without(key) if value is None else f.substitute(key, value)
                for k, f in self.forms.items()
            },
        )


@dataclass(frozen=True)
class Level:
    extent: int
    factors: dict[str, int]
    origin: Operation


@dataclass(frozen=True)
class Kernel:
    uops: tuple[Uop, ...]
    levels: tuple[Level, ...] = ()  # outermost first
    #: The ``affine.for`` loops folded or unrolled into the kernel, innermost first.
    consumed: tuple[affine.ForOp, ...] = ()
    #: Loops kept inside the kernel that enumerate its micro-op list (innermost first): the
    #: positions of ``uops`` are forms over their variables too.
    listed: tuple[affine.ForOp, ...] = ()
    #: The accumulator elements the enumerated list writes, relative to its first.
    list_dsts: tuple[int, ...] = ()


@dataclass(frozen=True)
class Limits:
    """What the configuration allows a kernel of one kind."""

    factor_max: dict[str, int]
    uop_depth: int
    max_levels: int


def kernel_limits(op: MicroOp, cfg: VTAConfig, max_levels: int) -> Limits:
    layout = cfg.alu_fields if isinstance(op, AluOp) else cfg.gemm_fields
    factor_max: dict[str, int] = {}
    for name in FIELDS:
        widths = [layout[f"{name}_factor_{lvl}"].width for lvl in ("out", "in")
                  if f"{name}_factor_{lvl}" in layout]
        # One loop maps to iter_out in GEMM and iter_in in ALU: each level must fit both.
        factor_max[name] = (1 << min(widths)) - 1 if widths else 0
    return Limits(factor_max, cfg.uop_buff_depth, max_levels)


def _constant_bound(m: AffineMap) -> int | None:
    if m.num_dims or m.num_symbols or len(m.results) != 1:
        return None
    result = m.results[0]
    return result.value if isinstance(result, AffineConstantExpr) else None


def _iterations(loop: affine.ForOp) -> range | None:
    """The values a loop with constant bounds takes, else ``None``."""
    if loop.inits or loop.results:
        return None
    lb = _constant_bound(loop.lowerBoundMap.data)
    ub = _constant_bound(loop.upperBoundMap.data)
    step = loop.step.value.data
    if lb is None or ub is None or step <= 0:
        return None
    return range(lb, ub, step)


def _defined_inside(value: SSAValue, op: Operation) -> bool:
    """True if ``value`` is defined by an op or block nested in ``op``."""
    return op.is_ancestor(value.owner)


def _hazard_free(uops: Sequence[Uop]) -> bool:
    """The write-hazard rule on positions known only symbolically: two micro-ops in the window
    must write elements that differ by a nonzero constant."""
    for i, u in enumerate(uops):
        for prev in uops[max(0, i - WRITE_HAZARD_WINDOW) : i]:
            diff = u.forms["dst"] - prev.forms["dst"]
            if not diff.is_constant or diff.const == 0:
                return False
    return True


def _leaves_outside(kernel: Kernel, loop: affine.ForOp, iv: SSAValue) -> bool:
    listed = {lp.body.block.args[0] for lp in kernel.listed}
    return all(
        leaf is iv or leaf in listed or not _defined_inside(leaf, loop)  # type: ignore[arg-type]
        for u in kernel.uops
        for form in u.forms.values()
        for leaf in form.terms
    )


def _kernel_hazard_free(kernel: Kernel, uops: Sequence[Uop], levels: Sequence[Level]) -> bool:
    """The write-hazard rule for ``kernel`` with new micro-ops and levels: symbolic for a list
    of micro-ops, and enumerated over the list loops and across level iterations for a kernel
    with list loops."""
    if kernel.listed:
        dst_levels = [(lv.extent, lv.factors["dst"]) for lv in levels]
        return write_hazard_free(kernel.list_dsts, dst_levels)
    return _hazard_free(uops)


def _fold(kernel: Kernel, loop: affine.ForOp, limits: Limits) -> Kernel | None:
    """``kernel`` with ``loop`` folded around it, or ``None`` if that is not legal."""
    iterations = _iterations(loop)
    if iterations is None or iterations.start != 0 or iterations.step != 1:
        return None
    if loop.attributes:
        # Attributes on a loop (e.g. vta.double_buffer) are meant for a later pass: keep it.
        return None
    extent = len(iterations)
    if not 1 <= extent <= EXTENT_MAX:
        return None
    iv = loop.body.block.args[0]
    if not _leaves_outside(kernel, loop, iv):
        return None
    consumed = (*kernel.consumed, loop)
    if extent == 1:
        # A single iteration: the loop variable is 0 and no level is needed, except that
        # several micro-ops form one kernel only inside a loop (see the pattern).
        if not kernel.levels and len(kernel.uops) > 1 and not limits.max_levels:
            return None
        uops = tuple(u.replace(iv, LinearForm()) for u in kernel.uops)
        if not _kernel_hazard_free(kernel, uops, kernel.levels):
            return None
        return Kernel(uops, kernel.levels, consumed, kernel.listed, kernel.list_dsts)
    factors: dict[str, int] = {}
    for name in FIELDS:
        coeffs = {f.coeff(iv) for u in kernel.uops if (f := u.field_form(name)) is not None}
        if len(coeffs) > 1:
            return None
        factor = coeffs.pop() if coeffs else 0
        if not 0 <= factor <= limits.factor_max[name]:
            return None
        factors[name] = factor
    uops = tuple(u.replace(iv, None) for u in kernel.uops)
    levels = kernel.levels
    if levels and levels[0].extent * extent <= EXTENT_MAX and all(
        levels[0].factors[n] * levels[0].extent == factors[n] for n in FIELDS
    ):
        inner = levels[0]
        levels = (Level(inner.extent * extent, inner.factors, inner.origin), *levels[1:])
    elif len(levels) < limits.max_levels:
        levels = (Level(extent, factors, loop), *levels)
    else:
        return None
    if not _kernel_hazard_free(kernel, uops, levels):
        return None
    return Kernel(uops, levels, consumed, kernel.listed, kernel.list_dsts)


def list_kernel(kernel: Kernel, loops: Sequence[affine.ForOp], limits: Limits) -> Kernel | None:
    """``kernel`` (one micro-op, no levels) with ``loops`` (innermost first, marked
    ``vta.uop_list``) enumerating its micro-op list, or ``None`` if the list does not fit the
    micro-op SRAM, is not affine in the loop variables or breaks the write-hazard rule."""
    if kernel.levels or len(kernel.uops) != 1:
        return None
    (uop,) = kernel.uops
    ivs = [lp.body.block.args[0] for lp in loops]
    ranges: list[range] = []
    for lp in loops:
        iterations = _iterations(lp)
        if iterations is None or not len(iterations):
            return None
        ranges.append(iterations)
    if math.prod(len(r) for r in ranges) > limits.uop_depth:
        return None
    outer = loops[-1]
    for form in uop.forms.values():
        for leaf in form.terms:
            if leaf not in ivs and _defined_inside(leaf, outer):  # type: ignore[arg-type]
                return None
    dst = uop.forms["dst"]
    dsts = [0]
    for iv, iterations in zip(reversed(ivs), reversed(ranges), strict=True):
        c = dst.coeff(iv)
        dsts = [v + c * (k - iterations.start) for v in dsts for k in iterations]
    listed = Kernel(kernel.uops, (), tuple(loops), tuple(loops), tuple(dsts))
    if not write_hazard_free(dsts, []):
        return None
    return listed


def unroll(kernel: Kernel, loop: affine.ForOp, limits: Limits, limit: int) -> Kernel | None:
    """``kernel`` (micro-ops without levels) with ``loop`` unrolled into it, or ``None``."""
    iterations = _iterations(loop)
    if kernel.levels or iterations is None or not 2 <= len(iterations) <= limit:
        return None
    if loop.attributes:
        return None
    iv = loop.body.block.args[0]
    if not _leaves_outside(kernel, loop, iv):
        return None
    uops = tuple(u.replace(iv, LinearForm(const=k)) for k in iterations for u in kernel.uops)
    if len(uops) > limits.uop_depth or not _hazard_free(uops):
        return None
    return Kernel(uops, (), (loop,))


def fold_chain(kernel: Kernel, chain: Sequence[affine.ForOp], limits: Limits) -> Kernel:
    for loop in chain:
        folded = _fold(kernel, loop, limits)
        if folded is None:
            break
        kernel = folded
    return kernel


# ---------------------------------------------------------------------------------------------
# Finding kernels


def _body(loop: affine.ForOp) -> list[Operation]:
    return [o for o in loop.body.block.ops if not isinstance(o, affine.YieldOp)]


def kernel_of_body(loop: affine.ForOp, forms: PositionForms) -> Kernel | None:
    """The kernel a loop body holds: micro-ops of one kind, or one ``vta.uop_loop`` kernel,
    next to index arithmetic only."""
    ops = [o for o in _body(loop) if not is_index_op(o)]
    if not ops:
        return None
    if len(ops) == 1 and isinstance(ops[0], UopLoopOp):
        kernel_op = ops[0]
        micro = kernel_op.micro_ops()
        levels = tuple(
            Level(lp.field("extent"), {n: lp.field(f"{n}_factor") for n in FIELDS}, lp)
            for lp in kernel_op.loops()
        )
    elif all(isinstance(o, MicroOp) for o in ops):
        micro = [o for o in ops if isinstance(o, MicroOp)]
        levels = ()
    else:
        return None
    if len({_signature(u) for u in micro}) != 1:
        return None
    uops = tuple(
        Uop(u, {name: forms.of(index, offset) for name, _, index, offset, _ in
                 u.operand_positions()})
        for u in micro
    )
    return Kernel(uops, levels)


def loop_chain(loop: affine.ForOp) -> list[affine.ForOp]:
    """``loop`` and the loops around it that hold nothing else but index arithmetic."""
    chain = [loop]
    while isinstance(parent := chain[-1].parent_op(), affine.ForOp):
        if any(o is not chain[-1] and not is_index_op(o) for o in _body(parent)):
            break
        chain.append(parent)
    return chain


def host_iterations(chain: Sequence[affine.ForOp], start: int, stop: int) -> int:
    counts = [_iterations(lp) for lp in chain[start:stop]]
    return math.prod(len(c) if c is not None else 2 for c in counts)

