"""The two back-ends of index arithmetic, derived from the op table of :mod:`.ops`: the
interpreter on Python ints and the Python source the host compiler generates."""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.ir import Operation
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)

from .ops import (
    AFFINE_INDEX_OPS,
    AFFINE_TEMPLATES,
    BINARY_OPS,
    CASTS,
    CMP_SYMBOLS,
    CMPI_PREDICATES,
    HELPERS,
    INDEX_WIDTH,
    IndexArithError,
    Range,
    affine_fold,
    affine_positive,
    ceil_range,
    cmpi,
    constant_value,
    corners,
    div_range,
    map_of,
    op_width,
    signed_range,
    unsigned,
    wrap,
)

__all__ = [
    "Code",
    "HostValue",
    "combine",
    "compiled_map",
    "evaluate",
    "evaluate_map",
    "exact",
    "source",
    "source_map",
]


# ---------------------------------------------------------------------------------------------
# The interpreter


def evaluate(op: Operation, operands: Sequence[int]) -> int:
    """The value of an index op (:func:`is_index_op`) on the values of its operands."""
    name = op.name
    rule = BINARY_OPS.get(name)
    if rule is not None:
        a, b = operands
        return rule.fold(a, b, op_width(op, op.results[0]))
    if name in AFFINE_INDEX_OPS:
        amap = map_of(op)
        results = compiled_map(amap)(operands[: amap.num_dims], operands[amap.num_dims :])
        if name == "affine.min":
            return min(results)
        return max(results) if name == "affine.max" else results[0]
    if isinstance(op, arith.ConstantOp):
        value = constant_value(op.result)
        if value is None:
            raise IndexArithError(f"constant {op.value} is not an integer or index")
        return value
    if name in CASTS:
        (a,) = operands
        if CASTS[name]:
            a = unsigned(a, op_width(op, op.operands[0]))
        return wrap(a, op_width(op, op.results[0]))
    if isinstance(op, arith.CmpiOp):
        a, b = operands
        return cmpi(op.predicate.value.data, a, b, op_width(op, op.operands[0]))
    if isinstance(op, arith.SelectOp):
        c, a, b = operands
        return a if c else b
    raise IndexArithError(f"'{name}' is not index arithmetic")


_MapFunction = Callable[[Sequence[int], Sequence[int]], tuple[int, ...]]
_COMPILED: dict[AffineMap, _MapFunction] = {}
#: The function of each map instance seen, by identity (the instance is kept, so its id is
#: not reused): hashing a map hashes its whole expression tree, and an analysis evaluates the
#: same op's map for every loop iteration.
_COMPILED_BY_ID: dict[int, tuple[AffineMap, _MapFunction]] = {}
#: Instances remembered by identity before that table starts again.
_BY_ID_LIMIT = 1 << 16


def compiled_map(amap: AffineMap) -> _MapFunction:
    """``amap`` as a Python function of (dims, symbols) (the :func:`source` back-end with
    operands of unknown range), made once per map: for analyses that evaluate it for every
    loop iteration."""
    seen = _COMPILED_BY_ID.get(id(amap))
    if seen is not None and seen[0] is amap:
        return seen[1]
    fn = _COMPILED.get(amap)
    if fn is None:
        full = signed_range(INDEX_WIDTH)
        dims = [Code(f"d[{i}]", *full) for i in range(amap.num_dims)]
        syms = [Code(f"s[{i}]", *full) for i in range(amap.num_symbols)]
        body = "".join(f"{r}, " for r in source_map(amap, dims, syms))
        fn = eval(f"lambda d, s: ({body})", dict(HELPERS))  # noqa: S307 - our own text
        _COMPILED[amap] = fn
    if len(_COMPILED_BY_ID) >= _BY_ID_LIMIT:
        _COMPILED_BY_ID.clear()
    _COMPILED_BY_ID[id(amap)] = (amap, fn)
    return fn


def evaluate_map(amap: AffineMap, operands: Sequence[int]) -> tuple[int, ...]:
    """The results of ``amap`` on its dimension operands followed by its symbol operands."""
    return compiled_map(amap)(operands[: amap.num_dims], operands[amap.num_dims :])


# ---------------------------------------------------------------------------------------------
# Python source


@dataclass(frozen=True)
class Code:
    """A Python expression computing a host value, and the range ``[lo, hi]`` of the values it
    takes.  Outside an affine expression (see :func:`source_map`) the range lies within the
    value's type, so the expression is the value itself."""

    text: str
    lo: int
    hi: int

    def __str__(self) -> str:
        return self.text

    @property
    def range(self) -> Range:
        return self.lo, self.hi


#: A host value: known when the program is compiled (an int), or computed by an expression.
HostValue = int | Code


def _range(v: HostValue) -> Range:
    return (v, v) if isinstance(v, int) else v.range


def _code(text: str, r: Range, width: int) -> Code:
    """The expression ``text`` of range ``r``, wrapped to ``width`` bits unless ``r`` shows it
    does not need to be."""
    lo, hi = signed_range(width)
    if lo <= r[0] and r[1] <= hi:
        return Code(text, *r)
    return Code(f"_wrap({text}, {width})", lo, hi)


def exact(value: HostValue, width: int) -> HostValue:
    """``value`` (held modulo ``2^width``) as the ``width``-bit value itself."""
    if isinstance(value, int):
        return wrap(value, width)
    return _code(value.text, value.range, width)


def source(op: Operation, operands: Sequence[HostValue]) -> HostValue:
    """The value of an index op (:func:`is_index_op`) on ``operands``: folded to an int when
    they all are, else a :class:`Code` that computes exactly what :func:`evaluate` does."""
    if all(isinstance(v, int) for v in operands):
        return evaluate(op, operands)  # type: ignore[arg-type]
    name = op.name
    rule = BINARY_OPS.get(name)
    if rule is not None:
        a, b = operands
        width = op_width(op, op.results[0])
        r = rule.plain(_range(a), _range(b), width)
        if r is not None:
            return _code(rule.template.format(a=a, b=b), r, width)
        return Code(f"_{name.removeprefix('arith.')}({a}, {b}, {width})", *signed_range(width))
    if name in AFFINE_INDEX_OPS:
        amap = map_of(op)
        results = source_map(amap, operands[: amap.num_dims], operands[amap.num_dims :])
        if name == "affine.apply":
            return results[0]
        return combine(name.removeprefix("affine."), results)
    if name in CASTS:
        (a,) = operands
        assert isinstance(a, Code)
        width = op_width(op, op.results[0])
        if CASTS[name] and a.lo < 0:
            src = op_width(op, op.operands[0])
            a = Code(f"({a} & {(1 << src) - 1})", 0, (1 << src) - 1)
        return exact(a, width)
    if isinstance(op, arith.CmpiOp):
        a, b = operands
        pred = CMPI_PREDICATES[op.predicate.value.data]
        if pred[0] != "u" or (_range(a)[0] >= 0 and _range(b)[0] >= 0):
            return Code(f"(-({a} {CMP_SYMBOLS[pred.lstrip('su') or pred]} {b}))", -1, 0)
        width = op_width(op, op.operands[0])
        return Code(f"_cmpi({op.predicate.value.data}, {a}, {b}, {width})", -1, 0)
    if isinstance(op, arith.SelectOp):
        c, a, b = operands
        if isinstance(c, int):
            return a if c else b
        ra, rb = _range(a), _range(b)
        return Code(f"({a} if {c} else {b})", min(ra[0], rb[0]), max(ra[1], rb[1]))
    raise IndexArithError(f"'{name}' is not index arithmetic")


def _source_expr(
    expr: AffineExpr, dims: Sequence[HostValue], syms: Sequence[HostValue]
) -> HostValue:
    """``expr`` held modulo ``2^64`` (sums and products are wrapped once, at the end)."""
    if isinstance(expr, AffineConstantExpr):
        return expr.value
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, AffineSymExpr):
        return syms[expr.position]
    assert isinstance(expr, AffineBinaryOpExpr)
    a = _source_expr(expr.lhs, dims, syms)
    b = _source_expr(expr.rhs, dims, syms)
    kind = expr.kind
    if kind in (AffineBinaryOpKind.Add, AffineBinaryOpKind.Mul):
        if isinstance(a, int) and isinstance(b, int):
            return affine_fold(kind, a, b)
        fn = operator.add if kind == AffineBinaryOpKind.Add else operator.mul
        return Code(AFFINE_TEMPLATES[kind].format(a=a, b=b), *corners(fn, _range(a), _range(b)))
    a, b = exact(a, INDEX_WIDTH), exact(b, INDEX_WIDTH)
    if isinstance(a, int) and isinstance(b, int):
        return affine_fold(kind, a, b)
    if isinstance(b, int):
        affine_positive(b, kind.value)
    elif b.lo <= 0:
        b = Code(f"_affine_positive({b}, {kind.value})", 1, max(1, b.hi))
    rb = _range(b)
    if kind == AffineBinaryOpKind.Mod:
        r = (0, rb[1] - 1)
    elif kind == AffineBinaryOpKind.FloorDiv:
        r = div_range(_range(a), rb)
    else:
        r = ceil_range(_range(a), rb)
    return Code(AFFINE_TEMPLATES[kind].format(a=a, b=b), *r)


def source_map(
    amap: AffineMap, dims: Sequence[HostValue], syms: Sequence[HostValue]
) -> list[HostValue]:
    """The results of ``amap`` with its dimensions and symbols bound to ``dims`` / ``syms``."""
    return [exact(_source_expr(r, dims, syms), INDEX_WIDTH) for r in amap.results]


def combine(kind: str, values: Sequence[HostValue]) -> HostValue:
    """``min`` / ``max`` of several host values (multi-result affine bounds, ``affine.min``,
    ``affine.max``)."""
    if len(values) == 1:
        return values[0]
    if all(isinstance(v, int) for v in values):
        return (min if kind == "min" else max)(values)  # type: ignore[type-var]
    pick = min if kind == "min" else max
    ranges = [_range(v) for v in values]
    return Code(
        f"{kind}({', '.join(map(str, values))})",
        pick(r[0] for r in ranges),
        pick(r[1] for r in ranges),
    )
