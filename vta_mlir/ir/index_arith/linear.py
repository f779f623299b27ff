"""Linear forms of index values (``const + Σ coeff·key``) and their conversion from and to
affine expressions; see the package docstring."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence

from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Operation
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymExpr,
)

from .ops import affine_fold, constant_value, type_width

__all__ = [
    "AtomRule",
    "LinearForm",
    "affine_of_form",
    "affine_of_op",
    "linear_affine_expr",
    "linear_form_of_op",
]


# ---------------------------------------------------------------------------------------------
# Linear forms: Σ coefficient · key + constant


class LinearForm:
    """An integer linear combination of keys (loop dimensions, SSA values, ...) plus a
    constant.  Zero coefficients are dropped; equality ignores the order of the terms."""

    __slots__ = ("const", "terms")

    def __init__(self, terms: Mapping[Hashable, int] | None = None, const: int = 0) -> None:
        self.terms: dict[Hashable, int] = {k: c for k, c in (terms or {}).items() if c}
        self.const = const

    @staticmethod
    def of(key: Hashable) -> LinearForm:
        """The form ``1·key``."""
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


#: What a non-linear sub-expression becomes: ``(expr, lhs form, rhs form) -> form or None``.
AtomRule = Callable[[AffineExpr, LinearForm, LinearForm], LinearForm | None]


def linear_affine_expr(
    expr: AffineExpr,
    dims: Sequence[LinearForm | None],
    syms: Sequence[LinearForm | None] = (),
    atom: AtomRule | None = None,
) -> LinearForm | None:
    """``expr`` with its dimensions and symbols replaced by linear forms, if the result is
    linear (products with a constant side; ``floordiv`` / ``ceildiv`` / ``mod`` of constants
    by a positive constant); a non-linear sub-expression is what ``atom`` makes of it, by
    default ``None`` (not linear)."""
    match expr:
        case AffineConstantExpr():
            return LinearForm(const=expr.value)
        case AffineDimExpr():
            return dims[expr.position]
        case AffineSymExpr():
            return syms[expr.position]
        case AffineBinaryOpExpr():
            lhs = linear_affine_expr(expr.lhs, dims, syms, atom)
            rhs = linear_affine_expr(expr.rhs, dims, syms, atom)
            if lhs is None or rhs is None:
                return None
            if expr.kind == AffineBinaryOpKind.Add:
                return lhs + rhs
            if expr.kind == AffineBinaryOpKind.Mul:
                if lhs.is_constant:
                    return rhs * lhs.const
                if rhs.is_constant:
                    return lhs * rhs.const
            elif lhs.is_constant and rhs.is_constant and rhs.const > 0:
                return LinearForm(const=affine_fold(expr.kind, lhs.const, rhs.const))
            return None if atom is None else atom(expr, lhs, rhs)
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


def _value_preserving_cast(op: Operation) -> bool:
    """A cast that never changes the value: sign extension to a type at least as wide."""
    if op.name not in ("arith.extsi", "arith.index_cast"):
        return False
    src, dst = type_width(op.operands[0].type), type_width(op.results[0].type)
    return src is not None and dst is not None and dst >= src


def _linear_ring(op: Operation) -> bool:
    return op.name in ("arith.addi", "arith.subi", "arith.muli") and isinstance(
        op.results[0].type, IndexType
    )


def linear_form_of_op(
    op: Operation, forms: Sequence[LinearForm | None], atom: AtomRule | None = None
) -> LinearForm | None:
    """The linear form of the result of ``op`` given those of its operands (``None``: not
    linear); ``atom`` as for :func:`linear_affine_expr`."""
    if isinstance(op, arith.ConstantOp):
        value = constant_value(op.result)
        return None if value is None else LinearForm(const=value)
    if any(f is None for f in forms):
        return None
    if isinstance(op, affine.ApplyOp):
        amap = op.map.data
        if len(amap.results) != 1:
            return None
        return linear_affine_expr(
            amap.results[0], forms[: amap.num_dims], forms[amap.num_dims :], atom
        )
    if _linear_ring(op):
        a, b = forms
        assert a is not None and b is not None
        if op.name == "arith.addi":
            return a + b
        if op.name == "arith.subi":
            return a - b
        if a.is_constant:
            return b * a.const
        if b.is_constant:
            return a * b.const
        return None
    if _value_preserving_cast(op):
        return forms[0]
    return None


def affine_of_op(op: Operation, exprs: Sequence[AffineExpr]) -> AffineExpr | None:
    """The result of ``op`` as an affine expression of its operands' (``exprs``), for the ops
    :func:`linear_form_of_op` looks through (a product only with a constant side); ``None``
    for any other op."""
    if isinstance(op, arith.ConstantOp):
        value = constant_value(op.result)
        return None if value is None else AffineExpr.constant(value)
    if isinstance(op, affine.ApplyOp):
        amap = op.map.data
        if len(amap.results) != 1:
            return None
        return amap.results[0].replace_dims_and_symbols(
            exprs[: amap.num_dims], exprs[amap.num_dims :]
        )
    if _linear_ring(op):
        a, b = exprs
        if op.name == "arith.addi":
            return a + b
        if op.name == "arith.subi":
            return a - b
        if isinstance(a, AffineConstantExpr) or isinstance(b, AffineConstantExpr):
            return a * b
        return None
    if _value_preserving_cast(op):
        return exprs[0]
    return None
