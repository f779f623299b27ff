"""Linear forms of host index values, and the view analysis of ``memref.subview`` chains.

Used by ``vta-tensorize``, ``vta-inject-dma`` and ``vta-fold-uop-loops``:

* :class:`LinearForm` is an integer linear combination of keys (loop dimensions, SSA values,
  ...) plus a constant, the shape of every position VTA can fold; :func:`linear_affine_expr`
  reads an affine expression as one and :func:`affine_of_form` writes one back (all three
  defined by :mod:`vta_mlir.ir.index_arith`, re-exported here).
* :class:`HostIndex` reads the index values the host computes (looked through the ops
  :func:`~vta_mlir.ir.index_arith.linear_form_of_op` looks through: ``arith.constant``,
  ``arith.addi / subi / muli``, ``affine.apply``, ...) as linear forms over
  atoms of one shared list of leaves; :meth:`HostIndex.materialise` turns a form back into a
  position, one ``affine.apply`` of the leaves plus a constant.
* :func:`buffer_view` gives the view a memref value is of its buffer (an SRAM or DRAM buffer
  itself, or a chain of ``memref.subview`` ops of one with static sizes and strides): the
  buffer, the view's strides in scalars and its first scalar as a form over :class:`HostIndex`
  atoms; :func:`element_view` counts them in tensor elements.  :class:`ViewError` says why a
  view cannot be analysed.
* :func:`erase_dead_views` erases, with a pattern's rewriter, the subviews and the index
  arithmetic only they used, once the micro-ops or DMAs address the buffers themselves.

The double-buffered input tile ``%ib = memref.subview %inp2[%p, 0, 0, 0, 0] [1, 1, 16, 1, 16]
[1, 1, 1, 1, 1]`` of ``%inp2 : memref<2x1x16x1x16xi8, #vta.sram<inp>>``, with ``%p =
affine.apply (d0 mod 2) (%ic)``, is the view of ``%inp2`` with scalar strides ``(0, 16, 0, 1)``
and offset ``256 * (d0 mod 2)`` (``d0`` the leaf ``%ic``); in ``1x16`` tensor elements, the
leading strides ``(0, 1)`` and offset ``16 * (d0 mod 2)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from xdsl.dialects import affine, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    MemRefType,
    NoneAttr,
)
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import (
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.pattern_rewriter import PatternRewriter

from vta_mlir.ir.index_arith import (
    LinearForm,
    affine_of_form,
    affine_of_op,
    constant_value,
    is_index_op,
    linear_affine_expr,
)

from .unsupported import Unsupported

__all__ = [
    "BufferView",
    "HostIndex",
    "LinearForm",
    "Position",
    "ViewError",
    "affine_of_form",
    "buffer_view",
    "constant_int",
    "element_view",
    "erase_dead_views",
    "linear_affine_expr",
]


#: A micro-op position: an optional ``index`` value plus a constant element offset.
Position = tuple[SSAValue | None, int]


# ---------------------------------------------------------------------------------------------
# Host index expressions and buffer views


def constant_int(value: SSAValue) -> int | None:
    """The integer an ``arith.constant`` produces, else ``None``."""
    return constant_value(value)


def _atoms(expr: AffineExpr) -> LinearForm:
    """``expr`` as a linear form whose keys are *atoms*: dimensions, and the non-linear
    sub-expressions (``d0 mod 2``, ``d0 floordiv 4``, ...) taken whole."""
    dims = [LinearForm.of(AffineExpr.dimension(d)) for d in range(max(expr.used_dims(),
                                                                       default=-1) + 1)]
    form = linear_affine_expr(expr, dims, (), lambda e, a, b: LinearForm.of(e))
    assert form is not None
    return form


class HostIndex:
    """Index values the host computes, as linear forms over atoms of one shared dimension
    list.

    A value is looked through the ops of :func:`~vta_mlir.ir.index_arith.affine_of_op`
    (``arith.constant``, ``arith.addi / subi / muli``, single-result ``affine.apply``, ...) down
    to its *leaves* (loop variables, function arguments, anything else),
    which become the dimensions ``d0, d1, ...`` in order of first use; non-linear parts such as
    the ``d0 mod 2`` of a double-buffer parity stay atoms.  :meth:`materialise` turns a form back
    into a position: one ``affine.apply`` of the leaves plus a constant, so a position never
    depends on the intermediate index ops (which may then be erased).
    """

    def __init__(self) -> None:
        self.leaves: list[SSAValue] = []
        self._dims: dict[SSAValue, int] = {}
        self._exprs: dict[SSAValue, AffineExpr] = {}
        self._forms: dict[SSAValue, LinearForm] = {}

    def leaf(self, value: SSAValue) -> AffineExpr:
        """The dimension standing for ``value`` itself."""
        pos = self._dims.get(value)
        if pos is None:
            pos = self._dims[value] = len(self.leaves)
            self.leaves.append(value)
        return AffineExpr.dimension(pos)

    def expr(self, value: SSAValue) -> AffineExpr:
        """``value`` as an affine expression of the leaves."""
        expr = self._exprs.get(value)
        if expr is None:
            expr = self._exprs[value] = self._compute(value)
        return expr

    def _compute(self, value: SSAValue) -> AffineExpr:
        owner = value.owner
        if isinstance(owner, Operation) and is_index_op(owner):
            expr = affine_of_op(owner, [self.expr(v) for v in owner.operands])
            if expr is not None:
                return expr
        return self.leaf(value)

    def form(self, value: SSAValue | int) -> LinearForm:
        """``value`` (an index value or a constant) as a linear form over atoms."""
        if isinstance(value, int):
            return LinearForm(const=value)
        # Forms are never changed in place: one per value serves every view reading it.
        form = self._forms.get(value)
        if form is None:
            form = self._forms[value] = _atoms(self.expr(value))
        return form

    def materialise(
        self,
        form: LinearForm,
        insert: Callable[[Operation], None],
        cache: dict[LinearForm, SSAValue] | None = None,
    ) -> Position:
        """The position ``form``: ``(None, c)`` for a constant, ``(leaf, c)`` for a leaf plus a
        constant, else ``(affine.apply of the leaves, c)`` (built with ``insert``; forms that
        differ only in the constant share it through ``cache``)."""
        if form.is_constant:
            return None, form.const
        variable = LinearForm(form.terms)
        if len(form.terms) == 1:
            ((atom, coeff),) = form.terms.items()
            if coeff == 1 and isinstance(atom, AffineDimExpr):
                return self.leaves[atom.position], form.const
        if cache is not None and variable in cache:
            return cache[variable], form.const
        used: list[int] = []
        for atom in form.terms:
            assert isinstance(atom, AffineExpr)
            used += sorted(d for d in atom.used_dims() if d not in used)
        replace: list[AffineExpr] = [AffineExpr.constant(0)] * len(self.leaves)
        for j, d in enumerate(used):
            replace[d] = AffineExpr.dimension(j)
        expr: AffineExpr | None = None
        for atom, coeff in form.terms.items():
            assert isinstance(atom, AffineExpr)
            term = atom.replace_dims_and_symbols(replace, [])
            term = term if coeff == 1 else term * coeff
            expr = term if expr is None else expr + term
        assert expr is not None
        apply = affine.ApplyOp(
            [self.leaves[d] for d in used], AffineMapAttr(AffineMap(len(used), 0, (expr,)))
        )
        insert(apply)
        if cache is not None:
            cache[variable] = apply.result
        return apply.result, form.const


class ViewError(Unsupported):
    """Why a buffer view cannot be analysed, and the op responsible."""

    def __init__(self, message: str, op: Operation | None = None) -> None:
        super().__init__(message)
        self.op = op


@dataclass(frozen=True)
class BufferView:
    """A memref value as a strided view of the buffer it comes from.

    ``base`` is the allocation or function argument; ``shape`` the view's shape; ``strides``
    the distance in scalars of a step along each view dimension (0 for dimensions of size 1,
    which are only ever indexed at 0); ``offset`` the view's first scalar as a form over
    :class:`HostIndex` atoms; ``subviews`` the ``memref.subview`` ops in between (outermost
    first).
    """

    base: SSAValue
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: LinearForm
    subviews: tuple[Operation, ...] = ()


def _identity_layout(t: MemRefType) -> bool:
    layout = t.layout
    if isinstance(layout, NoneAttr):
        return True
    return isinstance(layout, AffineMapAttr) and layout.data == AffineMap.identity(
        len(t.get_shape())
    )


def buffer_view(value: SSAValue, index: HostIndex) -> BufferView:
    """The view ``value`` is of its buffer: a buffer itself (static shape, identity layout) or
    a chain of ``memref.subview`` ops with static sizes and strides (offsets may be dynamic;
    rank-reducing subviews drop dimensions of size 1)."""
    owner = value.owner
    t = value.type
    if not isinstance(t, MemRefType):
        raise ViewError(f"expected a memref, got {t}")
    shape = tuple(t.get_shape())
    if isinstance(owner, memref.SubviewOp):
        src = buffer_view(owner.source, index)
        offsets = list(owner.static_offsets.get_values())
        sizes = list(owner.static_sizes.get_values())
        steps = list(owner.static_strides.get_values())
        if DYNAMIC_INDEX in sizes or DYNAMIC_INDEX in steps:
            raise ViewError(
                "a subview with dynamic sizes or strides is not supported (VTA copies and "
                "micro-ops have static shapes)",
                owner,
            )
        dynamic = iter(owner.offsets)
        offset = src.offset
        strides: list[int] = []
        for dim, (off, size, step) in enumerate(zip(offsets, sizes, steps, strict=True)):
            stride = src.strides[dim]
            if off == DYNAMIC_INDEX:
                offset = offset + index.form(next(dynamic)) * stride
            else:
                last = off + (size - 1) * step
                if size > 0 and (off < 0 or last < 0 or last >= src.shape[dim]):
                    raise ViewError(
                        f"the subview reaches outside its source in dimension {dim} (elements "
                        f"{off}..{last} of {src.shape[dim]})",
                        owner,
                    )
                offset = offset + LinearForm(const=off * stride)
            strides.append(stride * step)
        # Rank reduction drops dimensions of size 1: the others map in order.
        kept = [(n, s) for n, s in zip(sizes, strides, strict=True) if n != 1]
        if [n for n in shape if n != 1] != [n for n, _ in kept]:
            raise ViewError(
                f"the subview's result type {t} does not match its sizes {sizes}", owner
            )
        kept_iter = iter(kept)
        view_strides = tuple(0 if n == 1 else next(kept_iter)[1] for n in shape)
        return BufferView(src.base, shape, view_strides, offset, (*src.subviews, owner))
    if any(n < 0 for n in shape):
        raise ViewError(f"a buffer with a dynamic shape is not supported: {t}")
    if not _identity_layout(t):
        raise ViewError(
            f"a buffer with layout {t.layout} is not supported (only a memref.subview of a "
            "buffer with the identity layout)"
        )
    strides = [0] * len(shape)
    acc = 1
    for dim in reversed(range(len(shape))):
        strides[dim] = acc if shape[dim] != 1 else 0
        acc *= shape[dim]
    return BufferView(value, shape, tuple(strides), LinearForm())


def element_view(
    view: BufferView, element: Sequence[int], what: str
) -> tuple[tuple[int, ...], LinearForm]:
    """``(strides, offset)`` of ``view`` counted in tensor elements of shape ``element`` (its
    trailing dimensions): the strides of its leading dimensions and its first element, after
    checking that each element is whole and dense in the buffer."""
    lanes = math.prod(element)
    lead = len(view.shape) - len(element)
    inner = 1
    for dim in reversed(range(len(element))):
        n, stride = view.shape[lead + dim], view.strides[lead + dim]
        if n != 1 and stride != inner:
            raise ViewError(
                f"{what} does not hold whole, dense tensor elements (the element dimensions "
                "must be the buffer's own)"
            )
        inner *= element[dim]
    strides: list[int] = []
    for stride in view.strides[:lead]:
        if stride % lanes:
            raise ViewError(f"{what} does not start every tensor element on an element boundary")
        strides.append(stride // lanes)
    offset = view.offset
    if offset.const % lanes or any(c % lanes for c in offset.terms.values()):
        raise ViewError(f"{what} starts inside a tensor element (its offset is {offset})")
    return tuple(strides), LinearForm(
        {k: c // lanes for k, c in offset.terms.items()}, offset.const // lanes
    )


def erase_dead_views(ops: Iterable[Operation], rewriter: PatternRewriter) -> None:
    """Erase the given subviews that lost their last use, and the index arithmetic (and
    subviews) that only they used: what a pattern's rewrite left behind, and nothing else of
    the module (xDSL's dead-code elimination would take every unused pure op)."""
    work = list(ops)
    seen: set[int] = set()
    while work:
        op = work.pop()
        if id(op) in seen or op.parent is None:
            continue
        if any(r.uses for r in op.results):
            continue
        if not (isinstance(op, memref.SubviewOp) or is_index_op(op)):
            continue
        seen.add(id(op))
        operands = [v.owner for v in op.operands if isinstance(v.owner, Operation)]
        rewriter.erase(op)
        work += operands
