"""What ``vta-tensorize`` makes of a linalg op: nests of loops around one micro-op each, and
their emission (used by the patterns of :mod:`.patterns`).

A :class:`Nest` is the loops' extents, the micro-op's positions as affine expressions of the
loop dimensions and how to build the micro-op; :func:`emit_nest` inserts it before the op with
a pattern's rewriter.  The helpers read SRAM operands (:class:`SramOperand`: the buffer a
micro-op addresses, through any subview) and linearise subscripts over them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import affine
from xdsl.dialects.builtin import AffineMapAttr, IndexType, MemRefType, UnitAttr
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

from vta_mlir.config import VTAConfig
from vta_mlir.dialects.vta_positions import Sram, check_sram_buffer, sram_element_shape
from vta_mlir.ir.locations import copy_location

from ..analysis.sram_views import (
    HostIndex,
    LinearForm,
    Position,
    affine_of_form,
    buffer_view,
    element_view,
    linear_affine_expr,
)
from ..analysis.unsupported import Unsupported
from .conv import UOP_LIST_ATTR

__all__ = [
    "Nest",
    "SramOperand",
    "check_buffer",
    "dim_of",
    "emit_nest",
    "infer_extents",
    "leading_shape",
    "linearise",
    "loop_nest_for",
    "sram_operand",
]


@dataclass
class Nest:
    """Loops of the given extents (outermost first) around one micro-op.

    ``positions`` are the micro-op's element positions as affine expressions of the loop
    dimensions (``d0`` = outermost loop); ``build`` makes the micro-op from their values.
    """

    extents: tuple[int, ...]
    positions: dict[str, AffineExpr]
    build: Callable[[dict[str, Position]], Operation]
    #: Element offsets of operands that are views into a larger buffer (by position name);
    #: loop-invariant, so they are computed once before the loops.
    offsets: dict[str, LinearForm] = field(default_factory=dict[str, LinearForm])
    #: How many of the innermost loops enumerate the micro-op list of one kernel (marked
    #: ``vta.uop_list``).
    listed: int = 0


def check_buffer(value: SSAValue, space: Sram, cfg: VTAConfig, what: str) -> MemRefType:
    """The buffer's type, after checking it is a well-formed ``space`` buffer for ``cfg``."""
    try:
        check_sram_buffer(value, space, cfg, what)
    except VerifyException as exc:
        raise Unsupported(str(exc)) from None
    assert isinstance(value.type, MemRefType)
    return value.type


def leading_shape(t: MemRefType, space: Sram, cfg: VTAConfig) -> tuple[int, ...]:
    """The shape of ``t`` without its tensor element's dimensions."""
    shape = tuple(t.get_shape())
    return shape[: len(shape) - len(sram_element_shape(space, cfg))]


@dataclass(frozen=True)
class SramOperand:
    """An SRAM operand as the micro-ops address it: the buffer (``base``; the operand itself
    unless it is a subview), the element strides of the operand's leading dimensions in that
    buffer, and the element where the operand starts."""

    base: SSAValue
    strides: tuple[int, ...]
    offset: LinearForm


def sram_operand(
    value: SSAValue, space: Sram, cfg: VTAConfig, what: str, index: HostIndex
) -> SramOperand:
    """``value`` as the micro-ops address it (a view that cannot be analysed is a
    :class:`~vta_mlir.passes.analysis.sram_views.ViewError`, an :class:`Unsupported`)."""
    check_buffer(value, space, cfg, what)
    view = buffer_view(value, index)
    if view.base is not value:
        check_buffer(view.base, space, cfg, f"the buffer of the {what} subview")
    strides, offset = element_view(view, sram_element_shape(space, cfg), what)
    return SramOperand(view.base, strides, offset)


def linearise(exprs: Sequence[AffineExpr], strides: Sequence[int]) -> AffineExpr:
    """Element index of the leading-dimension subscripts ``exprs`` with the given element
    strides."""
    total: AffineExpr = AffineExpr.constant(0)
    for expr, stride in zip(reversed(exprs), reversed(strides), strict=True):
        total = total + expr * stride
    return total


def loop_nest_for(
    op: linalg.GenericOp,
    element_dims: Sequence[int],
    extents: Mapping[int, int],
    accesses: Mapping[str, AffineExpr],
) -> tuple[tuple[int, ...], dict[str, AffineExpr]]:
    """Loops over the element dimensions of extent > 1 (in iteration order) and the access
    expressions rewritten over them; dimensions of extent 1 are fixed at 0."""
    looped = [d for d in element_dims if extents[d] > 1]
    num_dims = op.get_num_loops()
    replace: list[AffineExpr] = [AffineExpr.constant(0)] * num_dims
    for i, d in enumerate(looped):
        replace[d] = AffineExpr.dimension(i)
    rewritten = {
        k: e.replace_dims_and_symbols(replace, []).simplify(len(looped), 0)
        for k, e in accesses.items()
    }
    return tuple(extents[d] for d in looped), rewritten


def infer_extents(
    element_dims: Iterable[int],
    subscripts: Iterable[tuple[AffineExpr, int]],
) -> dict[int, int]:
    """The extent of every element dimension, from the buffer dimensions it indexes alone."""
    extents: dict[int, int] = {}
    for expr, size in subscripts:
        if isinstance(expr, AffineDimExpr):
            known = extents.setdefault(expr.position, size)
            if known != size:
                raise Unsupported(
                    f"iteration dimension d{expr.position} indexes buffer dimensions of "
                    f"different sizes ({known} and {size})"
                )
    for d in element_dims:
        if d not in extents:
            raise Unsupported(
                f"the extent of iteration dimension d{d} cannot be inferred (it indexes no "
                "buffer dimension on its own)"
            )
    return extents


def dim_of(expr: AffineExpr, what: str) -> int:
    """The iteration dimension ``expr`` is, else :class:`Unsupported` naming ``what``."""
    if not isinstance(expr, AffineDimExpr):
        raise Unsupported(f"{what} must be a plain iteration dimension, got {expr}")
    return expr.position



# ---------------------------------------------------------------------------------------------
# Emission


def _position(
    expr: AffineExpr, ivs: Sequence[SSAValue], insert: Callable[[Operation], None]
) -> Position:
    """The position value of ``expr`` over the loop variables: a constant, a loop variable
    (plus a constant), or an ``affine.apply`` (plus its constant part)."""
    dims = [LinearForm.of(i) for i in range(len(ivs))]
    form = linear_affine_expr(expr, dims)
    if form is None:
        used = sorted(expr.used_dims())
        replace: list[AffineExpr] = [AffineExpr.constant(0)] * len(ivs)
        for j, d in enumerate(used):
            replace[d] = AffineExpr.dimension(j)
        compact = expr.replace_dims_and_symbols(replace, [])
        apply = affine.ApplyOp(
            [ivs[d] for d in used], AffineMapAttr(AffineMap(len(used), 0, (compact,)))
        )
        insert(apply)
        return apply.result, 0
    if form.is_constant:
        return None, form.const
    keys = list(form.terms)
    if len(keys) == 1 and form.terms[keys[0]] == 1:
        return ivs[keys[0]], form.const  # type: ignore[index]
    keys.sort()  # type: ignore[call-overload]
    apply = affine.ApplyOp(
        [ivs[k] for k in keys],  # type: ignore[index]
        AffineMapAttr(AffineMap(len(keys), 0, (affine_of_form(form, keys),))),
    )
    insert(apply)
    return apply.result, form.const


def emit_nest(op: Operation, nest: Nest, index: HostIndex, rewriter: PatternRewriter) -> None:
    """Insert the loops and the micro-op of ``nest`` before ``op``."""
    new_ops: list[Operation] = []
    point = InsertPoint.before(op)

    def insert_before(new: Operation) -> None:
        rewriter.insert(new, InsertPoint.before(op))
        new_ops.append(new)

    # The offset of a view is the same for every micro-op of the nest: computed once, before
    # the loops, it stays outside what vta-fold-uop-loops folds (the kernel's base position).
    cache: dict[LinearForm, SSAValue] = {}
    bases = {k: index.materialise(f, insert_before, cache) for k, f in nest.offsets.items()}
    ivs: list[SSAValue] = []
    first_listed = len(nest.extents) - nest.listed
    for depth, extent in enumerate(nest.extents):
        terminator = affine.YieldOp.get()
        block = Block([terminator], arg_types=[IndexType()])
        loop = affine.ForOp.from_region([], [], [], [], 0, extent, Region(block))
        if depth >= first_listed:
            loop.attributes[UOP_LIST_ATTR] = UnitAttr()
        rewriter.insert(loop, point)
        new_ops += [loop, terminator]
        ivs.append(block.args[0])
        point = InsertPoint.before(terminator)

    def insert(new: Operation) -> None:
        rewriter.insert(new, point)
        new_ops.append(new)

    # Equal positions (x op x), or positions that differ by a constant, share one value.
    values: dict[tuple[AffineExpr, SSAValue | None], Position] = {}
    positions: dict[str, Position] = {}
    for k, e in nest.positions.items():
        base, const = bases.get(k, (None, 0))
        key = (e, base)
        if key not in values:
            expr, operands = e, ivs
            if base is not None:
                expr, operands = expr + AffineExpr.dimension(len(ivs)), [*ivs, base]
            values[key] = _position(expr, operands, insert)
        value, offset = values[key]
        positions[k] = value, offset + const
    insert(nest.build(positions))
    copy_location(op, new_ops)

