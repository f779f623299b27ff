"""The rewrite pattern of ``vta-fold-uop-loops``: :class:`FoldUopLoops` turns the loops around
the micro-ops of one kernel into ``vta.uop_loop`` levels (the kernel planned by :mod:`.kernel`),
rebuilding the micro-ops' positions before the kernel."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import affine
from xdsl.dialects.builtin import AffineMapAttr
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from vta_mlir.dialects.vta import AluOp, GemmOp, GemmResetOp, UopLoopOp
from vta_mlir.dialects.vta_config_attr import get_config
from vta_mlir.ir.index_arith import LinearForm, affine_of_form, is_index_op
from vta_mlir.ir.locations import copy_location

from ..tensorize.conv import UOP_LIST_ATTR
from .kernel import (
    FIELDS,
    Kernel,
    Level,
    MicroOp,
    PositionForms,
    Uop,
    fold_chain,
    host_iterations,
    kernel_limits,
    kernel_of_body,
    list_kernel,
    loop_chain,
    unroll,
)

__all__ = ["FoldUopLoops"]


class _Builder:
    """Inserts the position values of a kernel before it, sharing equal ones."""

    def __init__(
        self,
        rewriter: PatternRewriter,
        point: InsertPoint,
        location_of: Operation,
        dims: Sequence[SSAValue] = (),
    ) -> None:
        self.rewriter = rewriter
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
            self.rewriter.insert(apply, self.point)
            value = self._values[variable] = apply.result
        return value, form.const


def _rebuild(u: Uop, builder: _Builder) -> MicroOp:
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
            attributes=attrs,
        )
    elif isinstance(t, GemmResetOp):
        new = GemmResetOp(t.acc, dst, attributes=attrs)
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


def _list_body(kernel: Kernel, rewriter: PatternRewriter) -> list[Operation]:
    """The list loops of ``kernel``, detached, around its micro-op rebuilt from its forms (the
    positions are ``affine.apply`` of the list variables, host values as symbols)."""
    outermost, innermost = kernel.listed[-1], kernel.listed[0]
    outermost.detach()
    for lp in kernel.listed:
        lp.attributes.pop(UOP_LIST_ATTR, None)
    old = [o for o in innermost.body.block.ops if isinstance(o, MicroOp)]
    terminator = innermost.body.block.last_op
    assert terminator is not None
    dims = [lp.body.block.args[0] for lp in reversed(kernel.listed)]
    builder = _Builder(rewriter, InsertPoint.before(terminator), innermost, dims)
    for u in kernel.uops:
        rewriter.insert(_rebuild(u, builder), InsertPoint.before(terminator))
    for o in old:
        rewriter.erase(o)
    # Index arithmetic the old micro-op used goes with it.
    changed = True
    while changed:
        changed = False
        for lp in kernel.listed:
            for o in reversed(list(lp.body.block.ops)):
                if is_index_op(o) and not any(r.uses for r in o.results):
                    rewriter.erase(o)
                    changed = True
    return [outermost]


def _materialise(kernel: Kernel, rewriter: PatternRewriter) -> None:
    """Replace the outermost consumed loop by the kernel."""
    outer = kernel.consumed[-1]
    # The kernel goes where the outermost consumed loop is; that loop may be a list loop
    # itself (no level folded: a convolution with a single output element), which
    # _list_body moves into the kernel.
    anchor = outer.next_op
    block = outer.parent_block()
    assert block is not None
    if kernel.listed:
        body: list[Operation] = _list_body(kernel, rewriter)
    else:
        builder = _Builder(rewriter, InsertPoint.before(outer), outer)
        body = [_rebuild(u, builder) for u in kernel.uops]
    levels = list(kernel.levels)
    if not levels and (len(body) > 1 or kernel.listed):
        # Several micro-ops are one kernel only inside a loop: give them a single iteration.
        levels = [Level(1, dict.fromkeys(FIELDS, 0), outer)]
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
        rewriter.insert(op, point)
    if outer.parent is not None and outer not in kernel.listed:
        rewriter.erase(outer)



@dataclass(frozen=True)
class FoldUopLoops(RewritePattern):
    """An ``affine.for`` whose body is the micro-ops of one kernel (next to index arithmetic)
    -> the kernel with the loops from it outwards folded into levels, as far as that is legal
    (at most ``max_levels`` levels; an innermost loop of at most ``unroll_limit`` iterations
    unrolled when that folds more).  ``forms`` reads the positions, shared by the walk."""

    max_levels: int
    unroll_limit: int
    forms: PositionForms

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: affine.ForOp, rewriter: PatternRewriter) -> None:
        start = kernel_of_body(op, self.forms)
        if start is None:
            return
        planned = self._plan(op, start, rewriter)
        if planned is not None:
            _materialise(planned, rewriter)

    def _plan(self, loop: affine.ForOp, start: Kernel, rewriter: PatternRewriter) -> Kernel | None:
        """The best legal kernel for the loops from ``loop`` outwards, or ``None`` to leave
        them as they are."""
        first = start.uops[0].template
        limits = kernel_limits(first, get_config(first), self.max_levels)
        chain = loop_chain(loop)
        marked = 0
        while marked < len(chain) and UOP_LIST_ATTR in chain[marked].attributes:
            marked += 1
        if marked:
            listed = list_kernel(start, chain[:marked], limits)
            if listed is not None:
                return fold_chain(listed, chain[marked:], limits)
            # Not a legal micro-op list: the loops are ordinary host loops.
            for lp in chain[:marked]:
                lp.attributes.pop(UOP_LIST_ATTR, None)
                rewriter.notify_op_modified(lp)
        folded = fold_chain(start, chain, limits)
        if self.unroll_limit and self.max_levels:
            unrolled = unroll(start, loop, limits, self.unroll_limit)
            if unrolled is not None:
                candidate = fold_chain(unrolled, chain[1:], limits)
                a, b = len(folded.consumed), len(candidate.consumed)
                # Unrolling pays only if it folds loops the plain plan leaves on the host.
                if b > a and host_iterations(chain, a, b) > 1:
                    folded = candidate
        return folded if folded.consumed else None
