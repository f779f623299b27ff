"""Host index arithmetic: ``arith`` and ``affine`` ops as Python expressions.

A host value is either known when the program is lowered (an ``int``, folded here) or computed
while it runs (the name of a Python local of the generated host program, :mod:`.compiler`).
:func:`arith_expr` and :func:`affine_expr` turn one op into either a folded constant or the
source text of an expression over such names; both evaluate exactly as MLIR defines the op on
the values a host program computes (element offsets and loop counters, far from the 64-bit
limits, so no wrap-around is modelled except by explicit casts).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Operation
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymExpr,
)

from vta_mlir.ir.diagnostics import report_error

__all__ = [
    "HELPERS",
    "Operand",
    "affine_expr",
    "arith_expr",
    "combine",
    "is_host_arith",
    "offset",
]

#: A host value: a constant, or the name of a local of the generated program.
Operand = int | str


def _divsi(a: int, b: int) -> int:
    """Signed division rounding toward zero (``arith.divsi``); Python's ``//`` floors."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _remsi(a: int, b: int) -> int:
    """Remainder with the sign of the dividend (``arith.remsi``)."""
    return a - b * _divsi(a, b)


def _ceildiv(a: int, b: int) -> int:
    return -(-a // b)


def _trunc(a: int, width: int) -> int:
    """``a`` wrapped to a signed ``width``-bit integer (``arith.trunci``)."""
    a &= (1 << width) - 1
    return a - (1 << width) if a >> (width - 1) else a


#: Functions the generated expressions call, by the name they use.
HELPERS: dict[str, Callable[..., int]] = {
    "_divsi": _divsi,
    "_remsi": _remsi,
    "_trunc": _trunc,
}

# name -> (expression template, folding function)
_BINARY: dict[str, tuple[str, Callable[[int, int], int]]] = {
    "arith.addi": ("{a} + {b}", operator.add),
    "arith.subi": ("{a} - {b}", operator.sub),
    "arith.muli": ("{a} * {b}", operator.mul),
    "arith.divsi": ("_divsi({a}, {b})", _divsi),
    # Host values are non-negative where unsigned ops are used (offsets, counters).
    "arith.divui": ("{a} // {b}", operator.floordiv),
    "arith.floordivsi": ("{a} // {b}", operator.floordiv),
    "arith.ceildivsi": ("-(-{a} // {b})", _ceildiv),
    "arith.ceildivui": ("-(-{a} // {b})", _ceildiv),
    "arith.remsi": ("_remsi({a}, {b})", _remsi),
    "arith.remui": ("{a} % {b}", operator.mod),
    "arith.minsi": ("min({a}, {b})", min),
    "arith.minui": ("min({a}, {b})", min),
    "arith.maxsi": ("max({a}, {b})", max),
    "arith.maxui": ("max({a}, {b})", max),
    "arith.andi": ("{a} & {b}", operator.and_),
    "arith.ori": ("{a} | {b}", operator.or_),
    "arith.xori": ("{a} ^ {b}", operator.xor),
    "arith.shli": ("{a} << {b}", operator.lshift),
    "arith.shrsi": ("{a} >> {b}", operator.rshift),
    "arith.shrui": ("{a} >> {b}", operator.rshift),
}

_CMP: dict[str, tuple[str, Callable[[int, int], bool]]] = {
    "eq": ("==", operator.eq), "ne": ("!=", operator.ne),
    "slt": ("<", operator.lt), "sle": ("<=", operator.le),
    "sgt": (">", operator.gt), "sge": (">=", operator.ge),
    "ult": ("<", operator.lt), "ule": ("<=", operator.le),
    "ugt": (">", operator.gt), "uge": (">=", operator.ge),
}
_CMP_NAMES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")

_CASTS = ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui",
          "arith.trunci")


def is_host_arith(op: Operation) -> bool:
    """True for the ``arith`` ops a host program computes with."""
    return op.name in _BINARY or op.name in _CASTS or isinstance(
        op, arith.ConstantOp | arith.CmpiOp | arith.SelectOp
    )


def _width(t: object) -> int | None:
    """Bit width of an integer type (``None`` for ``index``: exact)."""
    if isinstance(t, IntegerType):
        return t.width.data
    return None


def _fold(op: Operation, fn: Callable[..., int], *args: int) -> int:
    try:
        return int(fn(*args))
    except ZeroDivisionError:
        report_error(op, "division by zero")
    except ValueError as e:
        report_error(op, str(e))


def arith_expr(op: Operation, operands: Sequence[Operand]) -> Operand:
    """The result of a host ``arith`` op (:func:`is_host_arith`) on ``operands``."""
    if isinstance(op, arith.ConstantOp):
        value = op.value
        if not isinstance(value.type, IntegerType | IndexType) or not hasattr(value, "value"):
            report_error(op, f"a host program computes with integers and indices, not "
                             f"{value.type}")
        v = int(value.value.data)  # type: ignore[attr-defined]
        return v & 1 if _width(value.type) == 1 else v
    names = op.name
    if names in _BINARY:
        template, fn = _BINARY[names]
        a, b = operands
        if isinstance(a, int) and isinstance(b, int):
            return _fold(op, fn, a, b)
        return "(" + template.format(a=a, b=b) + ")"
    if isinstance(op, arith.CmpiOp):
        pred = _CMP_NAMES[op.predicate.value.data]
        sym, fn = _CMP[pred]
        a, b = operands
        if isinstance(a, int) and isinstance(b, int):
            return int(fn(a, b))
        return f"int({a} {sym} {b})"
    if isinstance(op, arith.SelectOp):
        c, a, b = operands
        if isinstance(c, int):
            return a if c else b
        return f"({a} if {c} else {b})"
    (a,) = operands
    if names == "arith.trunci":
        width = _width(op.results[0].type)
        if width is None:
            return a
        return _fold(op, _trunc, a, width) if isinstance(a, int) else f"_trunc({a}, {width})"
    if names == "arith.extui":
        width = _width(op.operands[0].type)
        if width is None:
            return a
        mask = (1 << width) - 1
        return a & mask if isinstance(a, int) else f"({a} & {mask})"
    # index_cast, index_castui, extsi: the value is unchanged.
    return a


_AFFINE_OPS: dict[AffineBinaryOpKind, tuple[str, Callable[[int, int], int]]] = {
    AffineBinaryOpKind.Add: ("({a} + {b})", operator.add),
    AffineBinaryOpKind.Mul: ("({a} * {b})", operator.mul),
    AffineBinaryOpKind.Mod: ("({a} % {b})", operator.mod),
    AffineBinaryOpKind.FloorDiv: ("({a} // {b})", operator.floordiv),
    AffineBinaryOpKind.CeilDiv: ("-(-{a} // {b})", _ceildiv),
}


def affine_expr(op: Operation, expr: AffineExpr, dims: Sequence[Operand],
                symbols: Sequence[Operand]) -> Operand:
    """``expr`` with its dimensions and symbols bound to ``dims`` / ``symbols``: a constant
    when every value it uses is one.  Affine ``floordiv``, ``ceildiv`` and ``mod`` round as
    Python's ``//`` and ``%`` do (toward −∞, non-negative remainder)."""
    if isinstance(expr, AffineConstantExpr):
        return expr.value
    if isinstance(expr, AffineDimExpr):
        return dims[expr.position]
    if isinstance(expr, AffineSymExpr):
        return symbols[expr.position]
    if isinstance(expr, AffineBinaryOpExpr):
        a = affine_expr(op, expr.lhs, dims, symbols)
        b = affine_expr(op, expr.rhs, dims, symbols)
        template, fn = _AFFINE_OPS[expr.kind]
        if isinstance(a, int) and isinstance(b, int):
            return _fold(op, fn, a, b)
        return template.format(a=a, b=b)
    report_error(op, f"unsupported affine expression {expr}")


def combine(kind: str, values: Sequence[Operand]) -> Operand:
    """``min``/``max`` of several host values (multi-result affine bounds, ``affine.min``)."""
    if len(values) == 1:
        return values[0]
    if all(isinstance(v, int) for v in values):
        return (min if kind == "min" else max)(values)  # type: ignore[type-var]
    return f"{kind}({', '.join(map(str, values))})"


def offset(value: Operand, constant: int) -> Operand:
    """``value + constant``, folded when possible."""
    if isinstance(value, int):
        return value + constant
    if constant == 0:
        return value
    return f"{value} + {constant}" if constant > 0 else f"{value} - {-constant}"
