"""Linear forms of host index values, and the view analysis of ``memref.subview`` chains.

Used by ``vta-tensorize``, ``vta-inject-dma`` and ``vta-fold-uop-loops``:

* :class:`LinearForm` is an integer linear combination of keys (loop dimensions, SSA values,
  ...) plus a constant, the shape of every position VTA can fold; :func:`linear_affine_expr`
  reads an affine expression as one and :func:`affine_of_form` writes one back.
* :class:`HostIndex` reads the index values the host computes (looked through
  ``arith.constant``, ``arith.addi / subi / muli`` and ``affine.apply``) as linear forms over
  atoms of one shared list of leaves; :meth:`HostIndex.materialise` turns a form back into a
  position, one ``affine.apply`` of the leaves plus a constant.
* :func:`buffer_view` gives the view a memref value is of its buffer (an SRAM or DRAM buffer
  itself, or a chain of ``memref.subview`` ops of one with static sizes and strides): the
  buffer, the view's strides in scalars and its first scalar as a form over :class:`HostIndex`
  atoms; :func:`element_view` counts them in tensor elements.  :class:`ViewError` says why a
  view cannot be analysed.
* :func:`erase_dead_views` erases the subviews, and the index arithmetic only they used, once
  the micro-ops or DMAs address the buffers themselves.

The double-buffered input tile ``%ib = memref.subview %inp2[%p, 0, 0, 0, 0] [1, 1, 16, 1, 16]
[1, 1, 1, 1, 1]`` of ``%inp2 : memref<2x1x16x1x16xi8, #vta.sram<inp>>``, with ``%p =
affine.apply (d0 mod 2) (%ic)``, is the view of ``%inp2`` with scalar strides ``(0, 16, 0, 1)``
and offset ``256 * (d0 mod 2)`` (``d0`` the leaf ``%ic``); in ``1x16`` tensor elements, the
leading strides ``(0, 1)`` and offset ``16 * (d0 mod 2)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from xdsl.dialects import affine, arith, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    NoneAttr,
)
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)
from xdsl.rewriter import Rewriter

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


# ---------------------------------------------------------------------------------------------
# Linear forms: Σ coefficient · key + constant, the shape of every position VTA can fold


class LinearForm:
    """An integer linear combination of keys (loop dimensions, SSA values, ...) plus a
    constant.  Zero coefficients are dropped; equality ignores the order of the terms."""

    __slots__ = ("const", "terms")

    def __init__(self, terms: Mapping[Hashable, int] | None = None, const: int = 0) -> None:
        self.terms: dict[Hashable, int] = {k: c for k, c in (terms or {}).items() if c}
        self.const = const

    @staticmethod
    def of(key: Hashable) -> LinearForm:
        return LinearForm({key: 1})

    @property
    def is_constant(self) -> bool:
        return not self.terms

    def coeff(self, key: Hashable) -> int:
        return self.terms.get(key, 0)

    def without(self, key: Hashable) -> LinearForm:
        """The form with the term of ``key`` removed."""
        return LinearForm({k: c for k, c in self.terms.items() if k != key}, self.const)

    def substitute(self, key: Hashable, value: LinearForm) -> LinearForm:
        """The form with ``key`` replaced by ``value``."""
        c = self.coeff(key)
        return self.without(key) + value * c if c else self

    def __add__(self, other: LinearForm | int) -> LinearForm:
        if isinstance(other, int):
            return LinearForm(self.terms, self.const + other)
        terms = dict(self.terms)
        for k, c in other.terms.items():
            terms[k] = terms.get(k, 0) + c
        return LinearForm(terms, self.const + other.const)

    def __sub__(self, other: LinearForm) -> LinearForm:
        return self + other * -1

    def __mul__(self, factor: int) -> LinearForm:
        return LinearForm({k: c * factor for k, c in self.terms.items()}, self.const * factor)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, LinearForm)
            and self.const == other.const
            and self.terms == other.terms
        )

    def __hash__(self) -> int:
        return hash((frozenset(self.terms.items()), self.const))

    def __repr__(self) -> str:
        parts = [f"{c}*{k}" for k, c in self.terms.items()]
        return " + ".join([*parts, str(self.const)])


def linear_affine_expr(
    expr: AffineExpr, dims: Sequence[LinearForm], syms: Sequence[LinearForm] = ()
) -> LinearForm | None:
    """``expr`` with its dimensions and symbols replaced by linear forms, if the result is
    linear (products with a constant side only; ``floordiv``/``ceildiv``/``mod`` only of
    constants), else ``None``."""
    match expr:
        case AffineConstantExpr():
            return LinearForm(const=expr.value)
        case AffineDimExpr():
            return dims[expr.position]
        case AffineSymExpr():
            return syms[expr.position]
        case AffineBinaryOpExpr():
            lhs = linear_affine_expr(expr.lhs, dims, syms)
            rhs = linear_affine_expr(expr.rhs, dims, syms)
            if lhs is None or rhs is None:
                return None
            if expr.kind == AffineBinaryOpKind.Add:
                return lhs + rhs
            if expr.kind == AffineBinaryOpKind.Mul:
                if lhs.is_constant:
                    return rhs * lhs.const
                if rhs.is_constant:
                    return lhs * rhs.const
                return None
            if not (lhs.is_constant and rhs.is_constant) or rhs.const == 0:
                return None
            a, b = lhs.const, rhs.const
            if expr.kind == AffineBinaryOpKind.FloorDiv:
                return LinearForm(const=a // b)
            if expr.kind == AffineBinaryOpKind.CeilDiv:
                return LinearForm(const=-(-a // b))
            return LinearForm(const=a % b)
    return None


def affine_of_form(form: LinearForm, keys: Sequence[Hashable]) -> AffineExpr:
    """The expression ``Σ c·d_i`` (constant excluded) of ``form`` over dimensions ``keys``."""
    expr: AffineExpr | None = None
    for i, key in enumerate(keys):
        c = form.coeff(key)
        if not c:
            continue
        term = AffineExpr.dimension(i) if c == 1 else AffineExpr.dimension(i) * c
        expr = term if expr is None else expr + term
    return expr if expr is not None else AffineExpr.constant(0)


#: A micro-op position: an optional ``index`` value plus a constant element offset.
Position = tuple[SSAValue | None, int]


# ---------------------------------------------------------------------------------------------
# Host index expressions and buffer views


def constant_int(value: SSAValue) -> int | None:
    """The integer an ``arith.constant`` produces, else ``None``."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _atoms(expr: AffineExpr) -> LinearForm:
    """``expr`` as a linear form whose keys are *atoms*: dimensions, and the non-linear
    sub-expressions (``d0 mod 2``, ``d0 floordiv 4``, ...) taken whole."""
    if isinstance(expr, AffineConstantExpr):
        return LinearForm(const=expr.value)
    if isinstance(expr, AffineBinaryOpExpr):
        lhs, rhs = _atoms(expr.lhs), _atoms(expr.rhs)
        if expr.kind == AffineBinaryOpKind.Add:
            return lhs + rhs
        if expr.kind == AffineBinaryOpKind.Mul:
            if lhs.is_constant:
                return rhs * lhs.const
            if rhs.is_constant:
                return lhs * rhs.const
        elif lhs.is_constant and rhs.is_constant and rhs.const:
            a, b = lhs.const, rhs.const
            if expr.kind == AffineBinaryOpKind.FloorDiv:
                return LinearForm(const=a // b)
            if expr.kind == AffineBinaryOpKind.CeilDiv:
                return LinearForm(const=-(-a // b))
            return LinearForm(const=a % b)
    return LinearForm({expr: 1})


class HostIndex:
    """Index values the host computes, as linear forms over atoms of one shared dimension
    list.

    A value is looked through ``arith.constant``, ``arith.addi / subi / muli`` and single-result
    ``affine.apply`` down to its *leaves* (loop variables, function arguments, anything else),
    which become the dimensions ``d0, d1, ...`` in order of first use; non-linear parts such as
    the ``d0 mod 2`` of a double-buffer parity stay atoms.  :meth:`materialise` turns a form back
    into a position: one ``affine.apply`` of the leaves plus a constant, so a position never
    depends on the intermediate index ops (which may then be erased).
    """

    def __init__(self) -> None:
        self.leaves: list[SSAValue] = []
        self._dims: dict[SSAValue, int] = {}
        self._exprs: dict[SSAValue, AffineExpr] = {}

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
        const = constant_int(value)
        if const is not None:
            return AffineExpr.constant(const)
        if isinstance(owner, affine.ApplyOp) and len(owner.map.data.results) == 1:
            m = owner.map.data
            args = [self.expr(v) for v in owner.mapOperands]
            return m.results[0].replace_dims_and_symbols(args[: m.num_dims], args[m.num_dims :])
        if isinstance(owner, arith.AddiOp | arith.SubiOp | arith.MuliOp):
            lhs, rhs = self.expr(owner.lhs), self.expr(owner.rhs)
            if isinstance(owner, arith.AddiOp):
                return lhs + rhs
            if isinstance(owner, arith.SubiOp):
                return lhs - rhs
            if isinstance(lhs, AffineConstantExpr) or isinstance(rhs, AffineConstantExpr):
                return lhs * rhs
        return self.leaf(value)

    def form(self, value: SSAValue | int) -> LinearForm:
        """``value`` (an index value or a constant) as a linear form over atoms."""
        if isinstance(value, int):
            return LinearForm(const=value)
        return _atoms(self.expr(value))

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


class ViewError(Exception):
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


def erase_dead_views(ops: Iterable[Operation]) -> None:
    """Erase the given subviews that lost their last use, and the index arithmetic (and
    subviews) that only they used."""
    work = list(ops)
    seen: set[int] = set()
    while work:
        op = work.pop()
        if id(op) in seen or op.parent is None:
            continue
        if any(r.uses for r in op.results):
            continue
        if not (
            isinstance(op, memref.SubviewOp | affine.ApplyOp)
            or (
                op.name.startswith("arith.")
                and not op.regions
                and all(isinstance(r.type, IndexType) for r in op.results)
            )
        ):
            continue
        seen.add(id(op))
        operands = [v.owner for v in op.operands if isinstance(v.owner, Operation)]
        Rewriter.erase_op(op)
        work += operands
