"""Index arithmetic ops: which ops they are and their semantics on Python ints (the op table
both back-ends of :mod:`.backends` derive from); see the package docstring."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import AffineMapAttr, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineBinaryOpKind, AffineMap

__all__ = [
    "AFFINE_INDEX_OPS",
    "AFFINE_TEMPLATES",
    "BINARY_OPS",
    "CASTS",
    "CMPI_PREDICATES",
    "CMP_SYMBOLS",
    "HELPERS",
    "INDEX_WIDTH",
    "BinaryOp",
    "IndexArithError",
    "Range",
    "affine_fold",
    "affine_positive",
    "ceil_range",
    "cmpi",
    "constant_value",
    "corners",
    "div_range",
    "is_index_op",
    "map_of",
    "op_width",
    "signed_range",
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


def cmpi(predicate: int, a: int, b: int, w: int) -> int:
    """``arith.cmpi`` as an ``i1`` (true is -1, sign-extended)."""
    name = CMPI_PREDICATES[predicate]
    if name[0] == "u":
        a, b = unsigned(a, w), unsigned(b, w)
    return -1 if _COMPARE[name.lstrip("su") or name](a, b) else 0


_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
}
CMP_SYMBOLS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


# ---------------------------------------------------------------------------------------------
# The op table

#: A value range ``(lo, hi)``.
Range = tuple[int, int]


def corners(fn: Callable[[int, int], int], a: Range, b: Range) -> Range:
    values = [fn(x, y) for x in a for y in b]
    return min(values), max(values)


def _nonneg(r: Range) -> bool:
    return r[0] >= 0


def _positive(r: Range) -> bool:
    return r[0] > 0


def _amount(r: Range, w: int) -> bool:
    return r[0] >= 0 and r[1] < w


def div_range(a: Range, b: Range) -> Range:
    return corners(operator.floordiv, a, b)


def ceil_range(a: Range, b: Range) -> Range:
    return corners(lambda x, y: -(-x // y), a, b)


def _bits(a: Range, b: Range) -> Range:
    return 0, (1 << max(a[1], b[1]).bit_length()) - 1


@dataclass(frozen=True)
class BinaryOp:
    """A binary op: its semantics, and the Python template with the result range it has when
    ``plain`` holds for the operand ranges (``None``: the template may differ from MLIR)."""

    fold: Callable[[int, int, int], int]
    template: str
    plain: Callable[[Range, Range, int], Range | None]
    #: The op commutes with wrap-around (operands may be held modulo 2^width).
    ring: bool = False


BINARY_OPS: dict[str, BinaryOp] = {
    "arith.addi": BinaryOp(
        lambda a, b, w: wrap(a + b, w),
        "({a} + {b})",
        lambda a, b, w: (a[0] + b[0], a[1] + b[1]),
        ring=True,
    ),
    "arith.subi": BinaryOp(
        lambda a, b, w: wrap(a - b, w),
        "({a} - {b})",
        lambda a, b, w: (a[0] - b[1], a[1] - b[0]),
        ring=True,
    ),
    "arith.muli": BinaryOp(
        lambda a, b, w: wrap(a * b, w),
        "({a} * {b})",
        lambda a, b, w: corners(operator.mul, a, b),
        ring=True,
    ),
    "arith.divsi": BinaryOp(
        _divsi,
        "({a} // {b})",
        lambda a, b, w: div_range(a, b) if _nonneg(a) and _positive(b) else None,
    ),
    "arith.divui": BinaryOp(
        _divui,
        "({a} // {b})",
        lambda a, b, w: div_range(a, b) if _nonneg(a) and _positive(b) else None,
    ),
    "arith.floordivsi": BinaryOp(
        _floordivsi, "({a} // {b})", lambda a, b, w: div_range(a, b) if _positive(b) else None
    ),
    "arith.ceildivsi": BinaryOp(
        _ceildivsi, "(-(-{a} // {b}))", lambda a, b, w: ceil_range(a, b) if _positive(b) else None
    ),
    "arith.ceildivui": BinaryOp(
        _ceildivui,
        "(-(-{a} // {b}))",
        lambda a, b, w: ceil_range(a, b) if _nonneg(a) and _positive(b) else None,
    ),
    "arith.remsi": BinaryOp(
        _remsi,
        "({a} % {b})",
        lambda a, b, w: (0, min(a[1], b[1] - 1)) if _nonneg(a) and _positive(b) else None,
    ),
    "arith.remui": BinaryOp(
        _remui,
        "({a} % {b})",
        lambda a, b, w: (0, min(a[1], b[1] - 1)) if _nonneg(a) and _positive(b) else None,
    ),
    "arith.minsi": BinaryOp(
        lambda a, b, w: min(a, b),
        "min({a}, {b})",
        lambda a, b, w: (min(a[0], b[0]), min(a[1], b[1])),
    ),
    "arith.maxsi": BinaryOp(
        lambda a, b, w: max(a, b),
        "max({a}, {b})",
        lambda a, b, w: (max(a[0], b[0]), max(a[1], b[1])),
    ),
    "arith.minui": BinaryOp(
        _minui,
        "min({a}, {b})",
        lambda a, b, w: (min(a[0], b[0]), min(a[1], b[1])) if _nonneg(a) and _nonneg(b) else None,
    ),
    "arith.maxui": BinaryOp(
        _maxui,
        "max({a}, {b})",
        lambda a, b, w: (max(a[0], b[0]), max(a[1], b[1])) if _nonneg(a) and _nonneg(b) else None,
    ),
    # Python's bitwise ops on negative ints are two's complement of unbounded width: the
    # result of in-range operands is in range.
    "arith.andi": BinaryOp(
        lambda a, b, w: a & b,
        "({a} & {b})",
        lambda a, b, w: (0, min(a[1], b[1])) if _nonneg(a) and _nonneg(b) else signed_range(w),
    ),
    "arith.ori": BinaryOp(
        lambda a, b, w: a | b,
        "({a} | {b})",
        lambda a, b, w: _bits(a, b) if _nonneg(a) and _nonneg(b) else signed_range(w),
    ),
    "arith.xori": BinaryOp(
        lambda a, b, w: a ^ b,
        "({a} ^ {b})",
        lambda a, b, w: _bits(a, b) if _nonneg(a) and _nonneg(b) else signed_range(w),
    ),
    "arith.shli": BinaryOp(
        _shli,
        "({a} << {b})",
        lambda a, b, w: corners(operator.lshift, a, b) if _amount(b, w) else None,
    ),
    "arith.shrsi": BinaryOp(
        _shrsi,
        "({a} >> {b})",
        lambda a, b, w: corners(operator.rshift, a, b) if _amount(b, w) else None,
    ),
    "arith.shrui": BinaryOp(
        _shrui,
        "({a} >> {b})",
        lambda a, b, w: corners(operator.rshift, a, b) if _nonneg(a) and _amount(b, w) else None,
    ),
}

#: Casts: whether the operand is read unsigned (zero-extended) before it is wrapped to the
#: result's width.
CASTS: dict[str, bool] = {
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
    "_cmpi": cmpi,
    **{"_" + name.removeprefix("arith."): rule.fold for name, rule in BINARY_OPS.items()},
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
    if name in BINARY_OPS or name in CASTS or isinstance(op, arith.CmpiOp | arith.SelectOp):
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


def map_of(op: Operation) -> AffineMap:
    """The map of an ``affine.apply`` / ``min`` / ``max`` (xDSL has no ``affine.max`` class:
    the op is known by its name and its ``map`` property)."""
    attr = op.properties.get("map")
    if not isinstance(attr, AffineMapAttr):
        raise IndexArithError(f"'{op.name}' has no affine map")
    return attr.data


def op_width(op: Operation, value: SSAValue) -> int:
    width = type_width(value.type)
    if width is None:
        raise IndexArithError(f"'{op.name}' computes on {value.type}, not an integer or index")
    return width


def affine_fold(kind: AffineBinaryOpKind, a: int, b: int) -> int:
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
AFFINE_TEMPLATES = {
    AffineBinaryOpKind.Add: "({a} + {b})",
    AffineBinaryOpKind.Mul: "({a} * {b})",
    AffineBinaryOpKind.Mod: "({a} % {b})",
    AffineBinaryOpKind.FloorDiv: "({a} // {b})",
    AffineBinaryOpKind.CeilDiv: "(-(-{a} // {b}))",
}


def affine_positive(b: int, kind: int) -> int:
    """The divisor ``b`` of an affine ``floordiv`` / ``ceildiv`` / ``mod`` (``kind``), which
    must be positive."""
    if b <= 0:
        name = _AFFINE_NAMES[AffineBinaryOpKind(kind)]
        raise IndexArithError(f"affine {name} by a non-positive value ({b})")
    return b


HELPERS["_affine_positive"] = affine_positive
