"""Host index arithmetic: which ops it is, what they compute, and their linear forms.

Host index values are the ``arith`` / ``affine`` values on ``index`` and integer types a host
program computes: DMA offsets, positions of ``vta.gemm`` / ``vta.alu`` micro-ops, loop bounds.
Every component that classifies or evaluates them uses this module, so the dependence analysis,
the host compiler and the reference evaluator cannot disagree on a position:

* **Which ops** (:func:`is_index_op`): ``arith.constant`` of an integer, the integer binary ops,
  ``cmpi``, ``select``, the integer casts, and ``affine.apply`` / ``affine.min`` /
  ``affine.max``, all on ``index`` or integer types.
* **Semantics** on Python ints, exactly as MLIR defines them.  A value of an ``iN`` type is held
  sign-extended (in ``[-2^(N-1), 2^(N-1))``; an ``i1`` true is ``-1``); unsigned ops read their
  operands modulo ``2^N``.  ``index`` is 64 bits wide (:data:`INDEX_WIDTH`, MLIR's width on the
  64-bit hosts this targets) and wraps like ``i64``: every result is wrapped to its type's
  width.  ``divsi`` rounds toward zero, ``floordivsi`` / ``ceildivsi`` toward −∞ / +∞, ``remsi``
  has the dividend's sign; affine ``floordiv`` / ``ceildiv`` / ``mod`` need a positive divisor
  (``lower-affine`` rejects others) and round toward −∞ / +∞, ``mod`` non-negative.  What MLIR
  leaves undefined (poison or undefined behaviour) is an :class:`IndexArithError`: a division by
  zero, a signed division overflowing (``MIN / -1``), a shift by a negative amount or by the
  width or more, an affine division by a non-positive value.
* **Two back-ends** derived from one op table: :func:`evaluate` interprets an op on ints (and
  :func:`compiled_map` an affine map, for analyses that evaluate it per loop iteration), and
  :func:`source` writes an op as a Python expression (:class:`Code`) for the host compiler.  A
  :class:`Code` carries the range of the values it can take, so the plain Python operator
  (``a + b``, ``a // b``, ...) is written wherever the range shows it agrees with MLIR (no
  wrap-around, non-negative operands of unsigned ops, positive divisors), and a call of the
  interpreter's own function (:data:`HELPERS`) everywhere else.
* **Linear forms** (:class:`LinearForm`): a value as ``const + Σ coeff·key`` over loop induction
  variables and opaque values; :func:`linear_form_of_op` is the one rule for which ops are
  looked through (constants, ``addi`` / ``subi`` / ``muli`` by a constant and ``affine.apply``
  on ``index``, value-preserving casts), :func:`linear_affine_expr` / :func:`affine_of_form`
  convert from and to affine expressions.  Forms are exact modulo ``2^64`` (the index width);
  they are not taken through ring ops of narrower types, which wrap earlier.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import AffineMapAttr, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)

__all__ = [
    "AFFINE_INDEX_OPS",
    "CMPI_PREDICATES",
    "HELPERS",
    "INDEX_WIDTH",
    "Code",
    "HostValue",
    "IndexArithError",
    "LinearForm",
    "affine_of_form",
    "affine_of_op",
    "combine",
    "compiled_map",
    "constant_value",
    "evaluate",
    "evaluate_map",
    "exact",
    "is_index_op",
    "linear_affine_expr",
    "linear_form_of_op",
    "signed_range",
    "source",
    "source_map",
    "type_width",
    "unsigned",
    "wrap",
]

#: Bit width of ``index`` (MLIR's on 64-bit hosts): index values wrap like ``i64``.
INDEX_WIDTH = 64
#: ``arith.cmpi`` predicates, by their number.
CMPI_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
#: The ``affine`` ops that compute index values.
AFFINE_INDEX_OPS = ("affine.apply", "affine.min", "affine.max")


class IndexArithError(ValueError):
    """An index computation MLIR leaves undefined (division by zero, ...); the message says
    which."""


# ---------------------------------------------------------------------------------------------
# Widths and the integer representation


def type_width(t: Attribute) -> int | None:
    """Bit width of an integer or ``index`` type, ``None`` for any other type."""
    if isinstance(t, IndexType):
        return INDEX_WIDTH
    if isinstance(t, IntegerType):
        return t.width.data
    return None


def signed_range(width: int) -> tuple[int, int]:
    """The values a ``width``-bit integer holds (sign-extended)."""
    half = 1 << (width - 1)
    return -half, half - 1


def wrap(value: int, width: int) -> int:
    """``value`` modulo ``2^width``, sign-extended (two's complement)."""
    half = 1 << (width - 1)
    return ((value + half) & ((half << 1) - 1)) - half


def unsigned(value: int, width: int) -> int:
    """The unsigned reading of a ``width``-bit value."""
    return value & ((1 << width) - 1)


# ---------------------------------------------------------------------------------------------
# Semantics of the binary ops: (a, b, width) -> result, operands and result sign-extended


def _nonzero(b: int) -> None:
    if b == 0:
        raise IndexArithError("division by zero")


def _signed_quotient(q: int, width: int) -> int:
    if q > signed_range(width)[1]:
        raise IndexArithError(f"signed division overflows i{width} (minimum value by -1)")
    return q


def _divsi(a: int, b: int, w: int) -> int:
    _nonzero(b)
    q = abs(a) // abs(b)
    return _signed_quotient(q if (a < 0) == (b < 0) else -q, w)


def _floordivsi(a: int, b: int, w: int) -> int:
    _nonzero(b)
    return _signed_quotient(a // b, w)


def _ceildivsi(a: int, b: int, w: int) -> int:
    _nonzero(b)
    return _signed_quotient(-(-a // b), w)


def _remsi(a: int, b: int, w: int) -> int:
    _nonzero(b)
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def _divui(a: int, b: int, w: int) -> int:
    ub = unsigned(b, w)
    _nonzero(ub)
    return wrap(unsigned(a, w) // ub, w)


def _ceildivui(a: int, b: int, w: int) -> int:
    ub = unsigned(b, w)
    _nonzero(ub)
    return wrap(-(-unsigned(a, w) // ub), w)


def _remui(a: int, b: int, w: int) -> int:
    ub = unsigned(b, w)
    _nonzero(ub)
    return wrap(unsigned(a, w) % ub, w)


def _shift_amount(b: int, w: int) -> int:
    amount = unsigned(b, w)
    if amount >= w:
        raise IndexArithError(f"shift amount {b} is out of range for i{w} (0..{w - 1})")
    return amount


def _shli(a: int, b: int, w: int) -> int:
    return wrap(a << _shift_amount(b, w), w)


def _shrsi(a: int, b: int, w: int) -> int:
    return a >> _shift_amount(b, w)


def _shrui(a: int, b: int, w: int) -> int:
    return wrap(unsigned(a, w) >> _shift_amount(b, w), w)


def _minui(a: int, b: int, w: int) -> int:
    return a if unsigned(a, w) <= unsigned(b, w) else b


def _maxui(a: int, b: int, w: int) -> int:
    return a if unsigned(a, w) >= unsigned(b, w) else b


def _cmpi(predicate: int, a: int, b: int, w: int) -> int:
    """``arith.cmpi`` as an ``i1`` (true is -1, sign-extended)."""
    name = CMPI_PREDICATES[predicate]
    if name[0] == "u":
        a, b = unsigned(a, w), unsigned(b, w)
    return -1 if _COMPARE[name.lstrip("su") or name](a, b) else 0


_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "eq": operator.eq, "ne": operator.ne,
    "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
}
_CMP_SYMBOLS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


# ---------------------------------------------------------------------------------------------
# The op table

#: A value range ``(lo, hi)``.
Range = tuple[int, int]


def _corners(fn: Callable[[int, int], int], a: Range, b: Range) -> Range:
    values = [fn(x, y) for x in a for y in b]
    return min(values), max(values)


def _nonneg(r: Range) -> bool:
    return r[0] >= 0


def _positive(r: Range) -> bool:
    return r[0] > 0


def _amount(r: Range, w: int) -> bool:
    return r[0] >= 0 and r[1] < w


def _div_range(a: Range, b: Range) -> Range:
    return _corners(operator.floordiv, a, b)


def _ceil_range(a: Range, b: Range) -> Range:
    return _corners(lambda x, y: -(-x // y), a, b)


def _bits(a: Range, b: Range) -> Range:
    return 0, (1 << max(a[1], b[1]).bit_length()) - 1


@dataclass(frozen=True)
class _Binary:
    """A binary op: its semantics, and the Python template with the result range it has when
    ``plain`` holds for the operand ranges (``None``: the template may differ from MLIR)."""

    fold: Callable[[int, int, int], int]
    template: str
    plain: Callable[[Range, Range, int], Range | None]
    #: The op commutes with wrap-around (operands may be held modulo 2^width).
    ring: bool = False


_BINARY: dict[str, _Binary] = {
    "arith.addi": _Binary(lambda a, b, w: wrap(a + b, w), "({a} + {b})",
                          lambda a, b, w: (a[0] + b[0], a[1] + b[1]), ring=True),
    "arith.subi": _Binary(lambda a, b, w: wrap(a - b, w), "({a} - {b})",
                          lambda a, b, w: (a[0] - b[1], a[1] - b[0]), ring=True),
    "arith.muli": _Binary(lambda a, b, w: wrap(a * b, w), "({a} * {b})",
                          lambda a, b, w: _corners(operator.mul, a, b), ring=True),
    "arith.divsi": _Binary(_divsi, "({a} // {b})",
                           lambda a, b, w: _div_range(a, b) if _nonneg(a) and _positive(b)
                           else None),
    "arith.divui": _Binary(_divui, "({a} // {b})",
                           lambda a, b, w: _div_range(a, b) if _nonneg(a) and _positive(b)
                           else None),
    "arith.floordivsi": _Binary(_floordivsi, "({a} // {b})",
                                lambda a, b, w: _div_range(a, b) if _positive(b) else None),
    "arith.ceildivsi": _Binary(_ceildivsi, "(-(-{a} // {b}))",
                               lambda a, b, w: _ceil_range(a, b) if _positive(b) else None),
    "arith.ceildivui": _Binary(_ceildivui, "(-(-{a} // {b}))",
                               lambda a, b, w: _ceil_range(a, b) if _nonneg(a) and _positive(b)
                               else None),
    "arith.remsi": _Binary(_remsi, "({a} % {b})",
                           lambda a, b, w: (0, min(a[1], b[1] - 1))
                           if _nonneg(a) and _positive(b) else None),
    "arith.remui": _Binary(_remui, "({a} % {b})",
                           lambda a, b, w: (0, min(a[1], b[1] - 1))
                           if _nonneg(a) and _positive(b) else None),
    "arith.minsi": _Binary(lambda a, b, w: min(a, b), "min({a}, {b})",
                           lambda a, b, w: (min(a[0], b[0]), min(a[1], b[1]))),
    "arith.maxsi": _Binary(lambda a, b, w: max(a, b), "max({a}, {b})",
                           lambda a, b, w: (max(a[0], b[0]), max(a[1], b[1]))),
    "arith.minui": _Binary(_minui, "min({a}, {b})",
                           lambda a, b, w: (min(a[0], b[0]), min(a[1], b[1]))
                           if _nonneg(a) and _nonneg(b) else None),
    "arith.maxui": _Binary(_maxui, "max({a}, {b})",
                           lambda a, b, w: (max(a[0], b[0]), max(a[1], b[1]))
                           if _nonneg(a) and _nonneg(b) else None),
    # Python's bitwise ops on negative ints are two's complement of unbounded width: the
    # result of in-range operands is in range.
    "arith.andi": _Binary(lambda a, b, w: a & b, "({a} & {b})",
                          lambda a, b, w: (0, min(a[1], b[1])) if _nonneg(a) and _nonneg(b)
                          else signed_range(w)),
    "arith.ori": _Binary(lambda a, b, w: a | b, "({a} | {b})",
                         lambda a, b, w: _bits(a, b) if _nonneg(a) and _nonneg(b)
                         else signed_range(w)),
    "arith.xori": _Binary(lambda a, b, w: a ^ b, "({a} ^ {b})",
                          lambda a, b, w: _bits(a, b) if _nonneg(a) and _nonneg(b)
                          else signed_range(w)),
    "arith.shli": _Binary(_shli, "({a} << {b})",
                          lambda a, b, w: _corners(operator.lshift, a, b) if _amount(b, w)
                          else None),
    "arith.shrsi": _Binary(_shrsi, "({a} >> {b})",
                           lambda a, b, w: _corners(operator.rshift, a, b) if _amount(b, w)
                           else None),
    "arith.shrui": _Binary(_shrui, "({a} >> {b})",
                           lambda a, b, w: _corners(operator.rshift, a, b)
                           if _nonneg(a) and _amount(b, w) else None),
}

#: Casts: whether the operand is read unsigned (zero-extended) before it is wrapped to the
#: result's width.
_CASTS: dict[str, bool] = {
    "arith.extsi": False,
    "arith.trunci": False,
    "arith.index_cast": False,
    "arith.extui": True,
    "arith.index_castui": True,
}

#: Names of the interpreter's functions the generated Python calls.
HELPERS: dict[str, Callable[..., int]] = {
    "_wrap": wrap,
    "_unsigned": unsigned,
    "_cmpi": _cmpi,
    **{"_" + name.removeprefix("arith."): rule.fold for name, rule in _BINARY.items()},
}


def _int_type(value: SSAValue) -> bool:
    return type_width(value.type) is not None


def is_index_op(op: Operation) -> bool:
    """True for the ops of host index arithmetic (module docstring): region-free, on
    integers and ``index``."""
    name = op.name
    if name in AFFINE_INDEX_OPS:
        return True
    if isinstance(op, arith.ConstantOp):
        return isinstance(op.value, IntegerAttr) and _int_type(op.result)
    if name in _BINARY or name in _CASTS or isinstance(op, arith.CmpiOp | arith.SelectOp):
        return all(_int_type(r) for r in op.results) and len(op.results) == 1
    return False


def constant_value(value: SSAValue) -> int | None:
    """The integer an ``arith.constant`` of an integer or ``index`` type produces (wrapped to
    its width), else ``None``."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        width = type_width(owner.result.type)
        if width is not None:
            return wrap(int(owner.value.value.data), width)
    return None


def _map_of(op: Operation) -> AffineMap:
    """The map of an ``affine.apply`` / ``min`` / ``max`` (xDSL has no ``affine.max`` class:
    the op is known by its name and its ``map`` property)."""
    attr = op.properties.get("map")
    if not isinstance(attr, AffineMapAttr):
        raise IndexArithError(f"'{op.name}' has no affine map")
    return attr.data


def _width(op: Operation, value: SSAValue) -> int:
    width = type_width(value.type)
    if width is None:
        raise IndexArithError(f"'{op.name}' computes on {value.type}, not an integer or index")
    return width


# ---------------------------------------------------------------------------------------------
# The interpreter


def evaluate(op: Operation, operands: Sequence[int]) -> int:
    """The value of an index op (:func:`is_index_op`) on the values of its operands."""
    name = op.name
    rule = _BINARY.get(name)
    if rule is not None:
        a, b = operands
        return rule.fold(a, b, _width(op, op.results[0]))
    if name in AFFINE_INDEX_OPS:
        amap = _map_of(op)
        results = compiled_map(amap)(operands[: amap.num_dims], operands[amap.num_dims :])
        if name == "affine.min":
            return min(results)
        return max(results) if name == "affine.max" else results[0]
    if isinstance(op, arith.ConstantOp):
        value = constant_value(op.result)
        if value is None:
            raise IndexArithError(f"constant {op.value} is not an integer or index")
        return value
    if name in _CASTS:
        (a,) = operands
        if _CASTS[name]:
            a = unsigned(a, _width(op, op.operands[0]))
        return wrap(a, _width(op, op.results[0]))
    if isinstance(op, arith.CmpiOp):
        a, b = operands
        return _cmpi(op.predicate.value.data, a, b, _width(op, op.operands[0]))
    if isinstance(op, arith.SelectOp):
        c, a, b = operands
        return a if c else b
    raise IndexArithError(f"'{name}' is not index arithmetic")


def _affine_fold(kind: AffineBinaryOpKind, a: int, b: int) -> int:
    if kind == AffineBinaryOpKind.Add:
        return a + b
    if kind == AffineBinaryOpKind.Mul:
        return a * b
    if b <= 0:
        raise IndexArithError(f"affine {_AFFINE_NAMES[kind]} by a non-positive value ({b})")
    if kind == AffineBinaryOpKind.Mod:
        return a % b
    if kind == AffineBinaryOpKind.FloorDiv:
        return a // b
    return -(-a // b)


_AFFINE_NAMES = {
    AffineBinaryOpKind.Mod: "mod",
    AffineBinaryOpKind.FloorDiv: "floordiv",
    AffineBinaryOpKind.CeilDiv: "ceildiv",
}
_AFFINE_TEMPLATES = {
    AffineBinaryOpKind.Add: "({a} + {b})",
    AffineBinaryOpKind.Mul: "({a} * {b})",
    AffineBinaryOpKind.Mod: "({a} % {b})",
    AffineBinaryOpKind.FloorDiv: "({a} // {b})",
    AffineBinaryOpKind.CeilDiv: "(-(-{a} // {b}))",
}


def _affine_positive(b: int, kind: int) -> int:
    """The divisor ``b`` of an affine ``floordiv`` / ``ceildiv`` / ``mod`` (``kind``), which
    must be positive."""
    if b <= 0:
        name = _AFFINE_NAMES[AffineBinaryOpKind(kind)]
        raise IndexArithError(f"affine {name} by a non-positive value ({b})")
    return b


HELPERS["_affine_positive"] = _affine_positive

_COMPILED: dict[AffineMap, Callable[[Sequence[int], Sequence[int]], tuple[int, ...]]] = {}


def compiled_map(amap: AffineMap) -> Callable[[Sequence[int], Sequence[int]], tuple[int, ...]]:
    """``amap`` as a Python function of (dims, symbols) (the :func:`source` back-end with
    operands of unknown range), made once per map: for analyses that evaluate it for every
    loop iteration."""
    fn = _COMPILED.get(amap)
    if fn is None:
        full = signed_range(INDEX_WIDTH)
        dims = [Code(f"d[{i}]", *full) for i in range(amap.num_dims)]
        syms = [Code(f"s[{i}]", *full) for i in range(amap.num_symbols)]
        body = "".join(f"{r}, " for r in source_map(amap, dims, syms))
        fn = eval(f"lambda d, s: ({body})", dict(HELPERS))  # noqa: S307 - our own text
        _COMPILED[amap] = fn
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
    rule = _BINARY.get(name)
    if rule is not None:
        a, b = operands
        width = _width(op, op.results[0])
        r = rule.plain(_range(a), _range(b), width)
        if r is not None:
            return _code(rule.template.format(a=a, b=b), r, width)
        return Code(f"_{name.removeprefix('arith.')}({a}, {b}, {width})", *signed_range(width))
    if name in AFFINE_INDEX_OPS:
        amap = _map_of(op)
        results = source_map(amap, operands[: amap.num_dims], operands[amap.num_dims :])
        if name == "affine.apply":
            return results[0]
        return combine(name.removeprefix("affine."), results)
    if name in _CASTS:
        (a,) = operands
        assert isinstance(a, Code)
        width = _width(op, op.results[0])
        if _CASTS[name] and a.lo < 0:
            src = _width(op, op.operands[0])
            a = Code(f"({a} & {(1 << src) - 1})", 0, (1 << src) - 1)
        return exact(a, width)
    if isinstance(op, arith.CmpiOp):
        a, b = operands
        pred = CMPI_PREDICATES[op.predicate.value.data]
        if pred[0] != "u" or (_range(a)[0] >= 0 and _range(b)[0] >= 0):
            return Code(f"(-({a} {_CMP_SYMBOLS[pred.lstrip('su') or pred]} {b}))", -1, 0)
        width = _width(op, op.operands[0])
        return Code(f"_cmpi({op.predicate.value.data}, {a}, {b}, {width})", -1, 0)
    if isinstance(op, arith.SelectOp):
        c, a, b = operands
        if isinstance(c, int):
            return a if c else b
        ra, rb = _range(a), _range(b)
        return Code(f"({a} if {c} else {b})", min(ra[0], rb[0]), max(ra[1], rb[1]))
    raise IndexArithError(f"'{name}' is not index arithmetic")


def _source_expr(expr: AffineExpr, dims: Sequence[HostValue],
                 syms: Sequence[HostValue]) -> HostValue:
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
            return _affine_fold(kind, a, b)
        fn = operator.add if kind == AffineBinaryOpKind.Add else operator.mul
        return Code(_AFFINE_TEMPLATES[kind].format(a=a, b=b), *_corners(fn, _range(a),
                                                                         _range(b)))
    a, b = exact(a, INDEX_WIDTH), exact(b, INDEX_WIDTH)
    if isinstance(a, int) and isinstance(b, int):
        return _affine_fold(kind, a, b)
    if isinstance(b, int):
        _affine_positive(b, kind.value)
    elif b.lo <= 0:
        b = Code(f"_affine_positive({b}, {kind.value})", 1, max(1, b.hi))
    rb = _range(b)
    if kind == AffineBinaryOpKind.Mod:
        r = (0, rb[1] - 1)
    elif kind == AffineBinaryOpKind.FloorDiv:
        r = _div_range(_range(a), rb)
    else:
        r = _ceil_range(_range(a), rb)
    return Code(_AFFINE_TEMPLATES[kind].format(a=a, b=b), *r)


def source_map(amap: AffineMap, dims: Sequence[HostValue],
               syms: Sequence[HostValue]) -> list[HostValue]:
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
    return Code(f"{kind}({', '.join(map(str, values))})", pick(r[0] for r in ranges),
                pick(r[1] for r in ranges))


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
                return LinearForm(const=_affine_fold(expr.kind, lhs.const, rhs.const))
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
        return linear_affine_expr(amap.results[0], forms[: amap.num_dims],
                                  forms[amap.num_dims :], atom)
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
        return amap.results[0].replace_dims_and_symbols(exprs[: amap.num_dims],
                                                        exprs[amap.num_dims :])
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
