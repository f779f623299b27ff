"""``vta-fold-uop-loops``: host loops around micro-ops become micro-kernel loops (stage 4 → 5).

The contract is ``docs/pipeline.md``, stage 5.  A micro-kernel is one GEMM or ALU instruction:
a list of micro-ops of one kind (all ``vta.gemm`` with the same ``reset``, or all ``vta.alu``
with the same operation and immediate) inside at most two ``vta.uop_loop`` levels, each adding
a constant factor to the destination / source / weight index per iteration (``docs/isa.md``
§4.4).  Starting from every innermost ``affine.for`` whose body holds only micro-ops of one
kernel (plus index arithmetic), the pass folds the enclosing loops from the inside out while

* the loop counts from 0 to a constant with step 1 (no ``iter_args``);
* every micro-op position is affine in the loop variable with the same coefficient for all
  micro-ops of the kernel per operand (the coefficient is the level's factor, the position
  without the loop variable the micro-op's new base) and no other value it uses is computed
  inside the loop;
* the factors are non-negative and fit their instruction fields, and the extent fits 14 bits;
* the micro-op list keeps the runtime's write-hazard rule: no micro-op writes an accumulator
  element that one of the two before it may write (positions must differ by a nonzero
  constant), and it fits the micro-op SRAM.

A loop whose factors are the inner level's factors times its extent is merged into that level
(one level, extent multiplied: the same iterations in the same order) instead of taking a new
one; a loop of extent 1 is folded away.  At most ``max-levels`` levels are made; loops further
out stay host loops.  The ALU ignores the source of an immediate micro-op but still computes it
(``docs/isa.md`` §3.7), so an immediate kernel's ``src`` factor follows its ``dst`` factor as in
TVM.  Positions that remain are rebuilt before the kernel as ``affine.apply`` of values defined
outside the folded loops, so no micro-op depends on a folded loop variable.  This is how
micro-ops on SRAM subviews fold: ``vta-tensorize`` gives them the view's offset as a value
computed before their loops (for the double-buffer copy ``(%ic mod 2) * tile``, not affine in
``%ic``), a term the folded loops leave alone; it becomes the kernel's base position, and the
host loop it depends on stays on the host.

**Micro-op list loops.**  Innermost loops marked ``vta.uop_list`` (by ``vta-tensorize``, for a
convolution) enumerate the kernel's micro-op list: they stay ``affine.for`` loops, unmarked,
inside the innermost ``vta.uop_loop`` (each iteration pushes micro-ops, as TVM's kernel closure
does), the micro-op's positions rebuilt inside them as ``affine.apply`` of the list variables
with host values as symbols.  The loops around them fold into levels as above.  The list must
fit the micro-op SRAM and keep the write-hazard rule, enumerated over the list loops and across
level iterations; otherwise the marks are dropped and the loops fold like any other::

    affine.for %oh = 0 to 8 {                     vta.uop_loop 8 dst 8 src 10 {
      affine.for %ow = 0 to 8 {                     vta.uop_loop 8 dst 1 src 1 {
        affine.for %i = 0 to 2 {                      affine.for %i = 0 to 2 {
          ...                              →            ...
            affine.for %o = 0 to 4 {                      affine.for %o = 0 to 4 {
              vta.gemm ...                                  %d = affine.apply (d0 * 64) (%o)
            } {vta.uop_list}                                vta.gemm %acc[%d] += ...
          ...                                             }
                                                      ...

Unrolling (``unroll-limit``): when the innermost loop has a constant trip count of at most
``unroll-limit``, the pass also considers unrolling it into that many micro-ops of the one
kernel (the iterations in order, so execution order is unchanged) and folding the loops around
it instead.  It does so only when that leaves strictly fewer host loop iterations, i.e. fewer
GEMM/ALU instructions, and the unrolled list obeys the write-hazard rule (a reduction loop,
whose micro-ops all write one element, is never unrolled).  ``unroll-limit=0`` disables it.

Before::

    affine.for %o = 0 to 16 {
      affine.for %i = 0 to 16 {
        %w = affine.apply affine_map<(d0, d1) -> (d0 * 16 + d1)> (%o, %i)
        vta.gemm %acc[%o] += %inp[%i] * %wgt[%w] : ...
      }
    }
    affine.for %o = 0 to 16 {
      vta.alu shr %acc[%o], 8 : memref<1x16x1x16xi32, #vta.sram<acc>>
    }

After::

    vta.uop_loop 16 dst 1 wgt 16 {
      vta.uop_loop 16 src 1 wgt 1 {
        vta.gemm %acc[0] += %inp[0] * %wgt[0] : ...
      }
    }
    vta.uop_loop 16 dst 1 src 1 {
      vta.alu shr %acc[0], 8 : memref<1x16x1x16xi32, #vta.sram<acc>>
    }
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine
from xdsl.dialects.builtin import AffineMapAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta import (
    EXTENT_MAX,
    MAX_UOP_LOOP_DEPTH,
    WRITE_HAZARD_WINDOW,
    AluOp,
    GemmOp,
    UopLoopOp,
)
from vta_mlir.dialects.vta_config_attr import get_config
from vta_mlir.ir.diagnostics import report_error, verify_op
from vta_mlir.ir.index_arith import LinearForm, affine_of_form, is_index_op, linear_form_of_op
from vta_mlir.ir.locations import copy_location

from .tensorize.conv import UOP_LIST_ATTR, write_hazard_free

__all__ = ["FoldUopLoopsPass"]

#: The micro-op index fields, in ``vta.uop_loop`` order.
FIELDS = ("dst", "src", "wgt")

MicroOp = GemmOp | AluOp


# ---------------------------------------------------------------------------------------------
# Positions as linear forms over SSA values


class _Forms:
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
    if isinstance(op, GemmOp):
        return ("gemm", op.is_reset)
    return ("alu", op.kind, op.use_imm, op.imm_value)


@dataclass(frozen=True)
class _Uop:
    """A micro-op of a kernel: the op it is built from and its positions per index field."""

    template: MicroOp
    forms: dict[str, LinearForm]

    def field_form(self, name: str) -> LinearForm | None:
        form = self.forms.get(name)
        if form is None and name == "src" and isinstance(self.template, AluOp):
            # An immediate ALU micro-op's source follows its destination, as in TVM.
            return self.forms["dst"]
        return form

    def replace(self, key: Hashable, value: LinearForm | None) -> _Uop:
        """Positions with ``key`` removed (``value`` None) or replaced by ``value``."""
        return _Uop(
            self.template,
            {
                k: f.without(key) if value is None else f.substitute(key, value)
                for k, f in self.forms.items()
            },
        )


@dataclass(frozen=True)
class _Level:
    extent: int
    factors: dict[str, int]
    origin: Operation


@dataclass(frozen=True)
class _Kernel:
    uops: tuple[_Uop, ...]
    levels: tuple[_Level, ...] = ()  # outermost first
    #: The ``affine.for`` loops folded or unrolled into the kernel, innermost first.
    consumed: tuple[affine.ForOp, ...] = ()
    #: Loops kept inside the kernel that enumerate its micro-op list (innermost first): the
    #: positions of ``uops`` are forms over their variables too.
    listed: tuple[affine.ForOp, ...] = ()
    #: The accumulator elements the enumerated list writes, relative to its first.
    list_dsts: tuple[int, ...] = ()


@dataclass(frozen=True)
class _Limits:
    """What the configuration allows a kernel of one kind."""

    factor_max: dict[str, int]
    uop_depth: int
    max_levels: int


def _limits(op: MicroOp, cfg: VTAConfig, max_levels: int) -> _Limits:
    layout = cfg.gemm_fields if isinstance(op, GemmOp) else cfg.alu_fields
    factor_max: dict[str, int] = {}
    for name in FIELDS:
        widths = [layout[f"{name}_factor_{lvl}"].width for lvl in ("out", "in")
                  if f"{name}_factor_{lvl}" in layout]
        # One loop maps to iter_out in GEMM and iter_in in ALU: each level must fit both.
        factor_max[name] = (1 << min(widths)) - 1 if widths else 0
    return _Limits(factor_max, cfg.uop_buff_depth, max_levels)


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


def _hazard_free(uops: Sequence[_Uop]) -> bool:
    """The write-hazard rule on positions known only symbolically: two micro-ops in the window
    must write elements that differ by a nonzero constant."""
    for i, u in enumerate(uops):
        for prev in uops[max(0, i - WRITE_HAZARD_WINDOW) : i]:
            diff = u.forms["dst"] - prev.forms["dst"]
            if not diff.is_constant or diff.const == 0:
                return False
    return True


def _leaves_outside(kernel: _Kernel, loop: affine.ForOp, iv: SSAValue) -> bool:
    listed = {lp.body.block.args[0] for lp in kernel.listed}
    return all(
        leaf is iv or leaf in listed or not _defined_inside(leaf, loop)  # type: ignore[arg-type]
        for u in kernel.uops
        for form in u.forms.values()
        for leaf in form.terms
    )


def _kernel_hazard_free(kernel: _Kernel, uops: Sequence[_Uop], levels: Sequence[_Level]) -> bool:
    """The write-hazard rule for ``kernel`` with new micro-ops and levels: symbolic for a list
    of micro-ops, and enumerated over the list loops and across level iterations for a kernel
    with list loops."""
    if kernel.listed:
        dst_levels = [(lv.extent, lv.factors["dst"]) for lv in levels]
        return write_hazard_free(kernel.list_dsts, dst_levels)
    return _hazard_free(uops)


def _fold(kernel: _Kernel, loop: affine.ForOp, limits: _Limits) -> _Kernel | None:
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
        # several micro-ops form one kernel only inside a loop (see _materialise).
        if not kernel.levels and len(kernel.uops) > 1 and not limits.max_levels:
            return None
        uops = tuple(u.replace(iv, LinearForm()) for u in kernel.uops)
        if not _kernel_hazard_free(kernel, uops, kernel.levels):
            return None
        return _Kernel(uops, kernel.levels, consumed, kernel.listed, kernel.list_dsts)
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
        levels = (_Level(inner.extent * extent, inner.factors, inner.origin), *levels[1:])
    elif len(levels) < limits.max_levels:
        levels = (_Level(extent, factors, loop), *levels)
    else:
        return None
    if not _kernel_hazard_free(kernel, uops, levels):
        return None
    return _Kernel(uops, levels, consumed, kernel.listed, kernel.list_dsts)


def _list_kernel(kernel: _Kernel, loops: Sequence[affine.ForOp], limits: _Limits) -> _Kernel | None:
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
    listed = _Kernel(kernel.uops, (), tuple(loops), tuple(loops), tuple(dsts))
    if not write_hazard_free(dsts, []):
        return None
    return listed


def _unroll(kernel: _Kernel, loop: affine.ForOp, limits: _Limits, limit: int) -> _Kernel | None:
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
    return _Kernel(uops, (), (loop,))


def _fold_chain(kernel: _Kernel, chain: Sequence[affine.ForOp], limits: _Limits) -> _Kernel:
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


def _kernel_of_body(loop: affine.ForOp, forms: _Forms) -> _Kernel | None:
    """The kernel a loop body holds: micro-ops of one kind, or one ``vta.uop_loop`` kernel,
    next to index arithmetic only."""
    ops = [o for o in _body(loop) if not is_index_op(o)]
    if not ops:
        return None
    if len(ops) == 1 and isinstance(ops[0], UopLoopOp):
        kernel_op = ops[0]
        micro = kernel_op.micro_ops()
        levels = tuple(
            _Level(lp.field("extent"), {n: lp.field(f"{n}_factor") for n in FIELDS}, lp)
            for lp in kernel_op.loops()
        )
    elif all(isinstance(o, GemmOp | AluOp) for o in ops):
        micro = [o for o in ops if isinstance(o, GemmOp | AluOp)]
        levels = ()
    else:
        return None
    if len({_signature(u) for u in micro}) != 1:
        return None
    uops = tuple(
        _Uop(u, {name: forms.of(index, offset) for name, _, index, offset, _ in
                 u.operand_positions()})
        for u in micro
    )
    return _Kernel(uops, levels)


def _chain(loop: affine.ForOp) -> list[affine.ForOp]:
    """``loop`` and the loops around it that hold nothing else but index arithmetic."""
    chain = [loop]
    while isinstance(parent := chain[-1].parent_op(), affine.ForOp):
        if any(o is not chain[-1] and not is_index_op(o) for o in _body(parent)):
            break
        chain.append(parent)
    return chain


def _host_iterations(chain: Sequence[affine.ForOp], start: int, stop: int) -> int:
    counts = [_iterations(lp) for lp in chain[start:stop]]
    return math.prod(len(c) if c is not None else 2 for c in counts)


# ---------------------------------------------------------------------------------------------
# Rewriting


class _Builder:
    """Inserts the position values of a kernel before it, sharing equal ones."""

    def __init__(
        self, point: InsertPoint, location_of: Operation, dims: Sequence[SSAValue] = ()
    ) -> None:
        self.point = point
        self.location_of = location_of
        #: Values that are the map's dimensions (in this order); other values are symbols.
        self.dims = list(dims)
        self._values: dict[LinearForm, SSAValue] = {}

    def position(self, form: LinearForm | None) -> tuple[SSAValue | None, int] | None:
        if form is None:
            return None
        if form.is_constant:
            return None, form.const
        variable = LinearForm(form.terms)
        if len(form.terms) == 1 and next(iter(form.terms.values())) == 1:
            return next(iter(form.terms)), form.const  # type: ignore[return-value]
        value = self._values.get(variable)
        if value is None:
            if self.dims:
                dims = [v for v in self.dims if v in form.terms]
                syms = [k for k in form.terms if k not in dims]
            else:
                dims, syms = list(form.terms), []
            keys = [*dims, *syms]
            expr = affine_of_form(form, keys).replace_dims_and_symbols(
                [AffineExpr.dimension(j) for j in range(len(dims))]
                + [AffineExpr.symbol(j) for j in range(len(syms))],
                [],
            )
            apply = affine.ApplyOp(
                keys,  # type: ignore[arg-type]
                AffineMapAttr(AffineMap(len(dims), len(syms), (expr,))),
            )
            copy_location(self.location_of, apply)
            Rewriter.insert_op(apply, self.point)
            value = self._values[variable] = apply.result
        return value, form.const


def _rebuild(u: _Uop, builder: _Builder) -> MicroOp:
    t = u.template
    attrs = dict(t.attributes)
    dst = builder.position(u.forms["dst"])
    if isinstance(t, GemmOp):
        new: MicroOp = GemmOp(
            t.acc,
            dst,
            t.inp,
            builder.position(u.forms.get("src")),
            t.wgt,
            builder.position(u.forms.get("wgt")),
            reset=t.is_reset,
            attributes=attrs,
        )
    else:
        new = AluOp(
            t.kind,
            t.dst,
            dst,
            imm=t.imm_value if t.use_imm else None,
            src=t.src,
            src_pos=builder.position(u.forms.get("src")),
            attributes=attrs,
        )
    copy_location(t, new)
    return new


def _list_body(kernel: _Kernel) -> list[Operation]:
    """The list loops of ``kernel``, detached, around its micro-op rebuilt from its forms (the
    positions are ``affine.apply`` of the list variables, host values as symbols)."""
    outermost, innermost = kernel.listed[-1], kernel.listed[0]
    outermost.detach()
    for lp in kernel.listed:
        lp.attributes.pop(UOP_LIST_ATTR, None)
    old = [o for o in innermost.body.block.ops if isinstance(o, GemmOp | AluOp)]
    terminator = innermost.body.block.last_op
    assert terminator is not None
    dims = [lp.body.block.args[0] for lp in reversed(kernel.listed)]
    builder = _Builder(InsertPoint.before(terminator), innermost, dims)
    for u in kernel.uops:
        Rewriter.insert_op(_rebuild(u, builder), InsertPoint.before(terminator))
    for o in old:
        Rewriter.erase_op(o)
    # Index arithmetic the old micro-op used goes with it.
    changed = True
    while changed:
        changed = False
        for lp in kernel.listed:
            for o in reversed(list(lp.body.block.ops)):
                if is_index_op(o) and not any(r.uses for r in o.results):
                    Rewriter.erase_op(o)
                    changed = True
    return [outermost]


def _materialise(kernel: _Kernel) -> None:
    """Replace the outermost consumed loop by the kernel."""
    outer = kernel.consumed[-1]
    # The kernel goes where the outermost consumed loop is; that loop may be a list loop
    # itself (no level folded: a convolution with a single output element), which
    # _list_body moves into the kernel.
    anchor = outer.next_op
    block = outer.parent_block()
    assert block is not None
    if kernel.listed:
        body: list[Operation] = _list_body(kernel)
    else:
        builder = _Builder(InsertPoint.before(outer), outer)
        body = [_rebuild(u, builder) for u in kernel.uops]
    levels = list(kernel.levels)
    if not levels and (len(body) > 1 or kernel.listed):
        # Several micro-ops are one kernel only inside a loop: give them a single iteration.
        levels = [_Level(1, dict.fromkeys(FIELDS, 0), outer)]
    for level in reversed(levels):
        loop = UopLoopOp(
            level.extent,
            level.factors["dst"],
            level.factors["src"],
            level.factors["wgt"],
            body,
        )
        copy_location(level.origin, loop)
        body = [loop]
    point = InsertPoint.at_end(block) if anchor is None else InsertPoint.before(anchor)
    for op in body:
        Rewriter.insert_op(op, point)
    if outer.parent is not None and outer not in kernel.listed:
        Rewriter.erase_op(outer)


# ---------------------------------------------------------------------------------------------
# The pass


@dataclass(frozen=True)
class FoldUopLoopsPass(ModulePass):
    """Fold the innermost host loops around micro-ops into ``vta.uop_loop`` levels.

    ``max-levels``: at most this many levels per kernel (0..2; 0 folds nothing).
    ``unroll-limit``: unroll an innermost loop of at most this many iterations into the kernel
    when that saves instructions (0: never).
    """

    name = "vta-fold-uop-loops"

    max_levels: int = MAX_UOP_LOOP_DEPTH
    unroll_limit: int = 16

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not 0 <= self.max_levels <= MAX_UOP_LOOP_DEPTH:
            report_error(
                op,
                f"vta-fold-uop-loops: max-levels = {self.max_levels} is out of range "
                f"(0..{MAX_UOP_LOOP_DEPTH}: a micro-kernel has at most {MAX_UOP_LOOP_DEPTH} "
                "loop levels)",
            )
        if self.unroll_limit < 0:
            report_error(
                op, f"vta-fold-uop-loops: unroll-limit = {self.unroll_limit} is negative"
            )
        if not self.max_levels:
            return
        forms = _Forms()
        candidates = [
            (loop, kernel)
            for loop in op.walk()
            if isinstance(loop, affine.ForOp)
            and (kernel := _kernel_of_body(loop, forms)) is not None
        ]
        for loop, kernel in candidates:
            planned = self._plan(loop, kernel)
            if planned is not None:
                _materialise(planned)
        verify_op(op)

    def _plan(self, loop: affine.ForOp, start: _Kernel) -> _Kernel | None:
        """The best legal kernel for the loops from ``loop`` outwards, or ``None`` to leave
        them as they are."""
        first = start.uops[0].template
        limits = _limits(first, get_config(first), self.max_levels)
        chain = _chain(loop)
        marked = 0
        while marked < len(chain) and UOP_LIST_ATTR in chain[marked].attributes:
            marked += 1
        if marked:
            listed = _list_kernel(start, chain[:marked], limits)
            if listed is not None:
                return _fold_chain(listed, chain[marked:], limits)
            # Not a legal micro-op list: the loops are ordinary host loops.
            for lp in chain[:marked]:
                lp.attributes.pop(UOP_LIST_ATTR, None)
        folded = _fold_chain(start, chain, limits)
        if self.unroll_limit and self.max_levels:
            unrolled = _unroll(start, loop, limits, self.unroll_limit)
            if unrolled is not None:
                candidate = _fold_chain(unrolled, chain[1:], limits)
                a, b = len(folded.consumed), len(candidate.consumed)
                # Unrolling pays only if it folds loops the plain plan leaves on the host.
                if b > a and _host_iterations(chain, a, b) > 1:
                    folded = candidate
        return folded if folded.consumed else None
