"""SRAM buffers and positions of the ``vta`` dialect, and the micro-op list-loop analysis.

* The SRAM memory space ``#vta.sram<inp|wgt|acc|uop>`` (:class:`SramAttr`, registered by
  :data:`vta_mlir.dialects.vta.VTA`) and the checks of an SRAM buffer against the configuration
  (:func:`check_sram_buffer`).
* Buffer positions ``%buf[%i + 4]``: an optional ``index`` value plus a constant, as given to
  the op builders (:data:`Position`), parsed and printed.
* Micro-op list loops (``affine.for`` with constant bounds inside a ``vta.uop_loop``,
  ``docs/isa.md`` §4.4) and the linear form of a micro-op position over their induction
  variables (:class:`LinearPosition`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from xdsl.dialects import affine
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, MemRefType, i64
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import (
    AffineExpr,
)
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from vta_mlir.config import UOP_BITS, VTAConfig
from vta_mlir.ir.index_arith import LinearForm, constant_value, is_index_op, linear_form_of_op

__all__ = [
    "LinearPosition",
    "Linearizer",
    "OperandPosition",
    "Position",
    "SRAM_OFFSET_ATTR",
    "Sram",
    "SramAttr",
    "check_field",
    "check_sram_buffer",
    "check_static_in",
    "constant_index",
    "int_prop",
    "integer_type",
    "list_loop_bounds",
    "list_loop_trip",
    "parse_position",
    "print_attr_dict",
    "print_position",
    "prop_value",
    "resolve_index",
    "space_text",
    "split_position",
    "sram_element_shape",
    "sram_element_type",
    "sram_offset",
    "sram_space",
    "static_position",
    "static_shape",
]


# ---------------------------------------------------------------------------------------------
# The SRAM memory space


class Sram(StrEnum):
    """The on-chip SRAMs (docs/isa.md §1.2, §3.1)."""

    INP = "inp"
    WGT = "wgt"
    ACC = "acc"
    UOP = "uop"


@irdl_attr_definition
class SramAttr(EnumAttribute[Sram]):
    """Memory space of an SRAM buffer: ``#vta.sram<inp>``, ``<wgt>``, ``<acc>`` or ``<uop>``."""

    name = "vta.sram"

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.data.value)

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> Sram:
        with parser.in_angle_brackets():
            return parser.parse_str_enum(Sram)


# ---------------------------------------------------------------------------------------------
# Buffer and index helpers


#: The attribute of an SRAM ``memref.alloc`` fixing its first element in its SRAM.  ``vta-tile``
#: sets it so that the regions of a function (the layers of a network) each use the whole SRAM
#: one after the other; ``vta-coproc-sync`` orders commands on overlapping element ranges of
#: such buffers, and ``vta-lower-to-isa`` places them there.
SRAM_OFFSET_ATTR = "vta.sram_offset"


def sram_offset(op: Operation) -> int | None:
    """The element offset ``op`` (an SRAM allocation) fixes, if any."""
    attr = op.attributes.get(SRAM_OFFSET_ATTR)
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    return None


def sram_space(type_: Attribute) -> Sram | None:
    """The SRAM of a memref type in a ``#vta.sram`` space, ``None`` for any other type."""
    if isinstance(type_, MemRefType) and isinstance(type_.memory_space, SramAttr):
        return type_.memory_space.data
    return None


def sram_element_shape(space: Sram, cfg: VTAConfig) -> tuple[int, ...]:
    """Shape of one tensor element of ``space`` (docs/isa.md §1.6); a micro-op is a scalar."""
    return {
        Sram.INP: (cfg.batch, cfg.block_in),
        Sram.WGT: (cfg.block_out, cfg.block_in),
        Sram.ACC: (cfg.batch, cfg.block_out),
        Sram.UOP: (),
    }[space]


def sram_element_type(space: Sram, cfg: VTAConfig) -> IntegerType:
    """Scalar type of ``space``: ``i8`` for inp/wgt, ``i32`` for acc and micro-ops."""
    width = {
        Sram.INP: cfg.inp_width,
        Sram.WGT: cfg.wgt_width,
        Sram.ACC: cfg.acc_width,
        Sram.UOP: UOP_BITS,
    }[space]
    return integer_type(width)


@lru_cache(maxsize=64)
def integer_type(width: int) -> IntegerType:
    """The signless integer type of ``width`` bits, one instance per width: types are
    immutable, and the verifiers ask for them for every command of a program (constructing an
    attribute checks its parameters each time)."""
    return IntegerType(width)


def space_text(space: Sram) -> str:
    return f"#vta.sram<{space.value}>"


def static_shape(type_: MemRefType) -> tuple[int, ...] | None:
    shape = tuple(type_.get_shape())
    return None if any(d < 0 for d in shape) else shape


def check_sram_buffer(value: SSAValue, space: Sram, cfg: VTAConfig, what: str) -> int:
    """Check that ``value`` is a buffer of ``space`` for ``cfg``; return its element count."""
    t = value.type
    have = sram_space(t)
    if have != space:
        raise VerifyException(f"{what} must be a memref in {space_text(space)}, got {t}")
    assert isinstance(t, MemRefType)
    elem = sram_element_type(space, cfg)
    if t.element_type != elem:
        raise VerifyException(
            f"{what} in {space_text(space)} must have element type {elem}, got {t.element_type}"
        )
    shape = static_shape(t)
    if shape is None:
        raise VerifyException(f"{what} must have a static shape, got {t}")
    tile = sram_element_shape(space, cfg)
    if len(shape) < len(tile) + 1 or shape[len(shape) - len(tile):] != tile:
        dims = "x".join(map(str, tile)) if tile else "(none)"
        raise VerifyException(
            f"{what} must be shaped [elements...]x{dims} (one {space.value} tensor element per "
            f"row), got {t}"
        )
    count = math.prod(shape[: len(shape) - len(tile)])
    depth = cfg.sram_depth(space.value)
    if count > depth:
        raise VerifyException(
            f"{what} holds {count} elements, more than the {space.value.upper()} SRAM depth "
            f"{depth}"
        )
    return count


def constant_index(value: SSAValue | None) -> int | None:
    """The value of an ``index`` produced by ``arith.constant``, else ``None``."""
    if value is None:
        return 0
    return constant_value(value)


#: A buffer position given to a builder: an index value, a constant, both, or nothing (0).
Position = SSAValue | Operation | int | tuple[SSAValue | Operation, int] | None
#: ``(uop field, buffer, index value or None, constant, SRAM)`` of a micro-op operand.
OperandPosition = tuple[str, SSAValue, SSAValue | None, int, Sram]


def split_position(pos: Position) -> tuple[SSAValue | None, int]:
    if pos is None:
        return None, 0
    if isinstance(pos, bool):
        raise TypeError("a buffer position is an index value and/or an integer, not a bool")
    if isinstance(pos, int):
        return None, pos
    if isinstance(pos, tuple):
        value, offset = pos
        return SSAValue.get(value), int(offset)
    return SSAValue.get(pos), 0


def static_position(value: SSAValue | None, offset: int) -> int | None:
    base = constant_index(value)
    return None if base is None else base + offset


def parse_position(parser: Parser) -> tuple[UnresolvedOperand | None, int]:
    """``[%i]``, ``[%i + 4]``, ``[%i - 4]`` or ``[4]``."""
    parser.parse_punctuation("[")
    operand = parser.parse_optional_unresolved_operand()
    offset = 0
    if operand is not None:
        if parser.parse_optional_punctuation("+") is not None:
            offset = parser.parse_integer(allow_boolean=False, allow_negative=False)
        elif parser.parse_optional_punctuation("-") is not None:
            offset = -parser.parse_integer(allow_boolean=False, allow_negative=False)
    else:
        offset = parser.parse_integer(
            allow_boolean=False, context_msg=" (an element offset or an index value)"
        )
    parser.parse_punctuation("]")
    return operand, offset


def resolve_index(parser: Parser, operand: UnresolvedOperand | None) -> SSAValue | None:
    return None if operand is None else parser.resolve_operand(operand, IndexType())


def print_position(printer: Printer, value: SSAValue | None, offset: int) -> None:
    printer.print_string("[")
    if value is not None:
        printer.print_operand(value)
        if offset > 0:
            printer.print_string(f" + {offset}")
        elif offset < 0:
            printer.print_string(f" - {-offset}")
    else:
        printer.print_string(str(offset))
    printer.print_string("]")


@lru_cache(maxsize=4096)
def int_prop(value: int) -> IntegerAttr:
    """The ``i64`` property of ``value``, one instance per value (attributes are immutable;
    the passes set tens of thousands of fields, mostly small repeated values)."""
    return IntegerAttr(int(value), i64)


def prop_value(op: Operation, name: str) -> int:
    attr = op.properties[name]
    assert isinstance(attr, IntegerAttr)
    return int(attr.value.data)


def check_field(value: int, width: int, name: str) -> None:
    hi = (1 << width) - 1
    if not 0 <= value <= hi:
        raise VerifyException(f"{name} = {value} does not fit its {width}-bit field (0..{hi})")


def check_static_in(pos: int | None, count: int, what: str) -> None:
    if pos is None:
        return
    if pos < 0:
        raise VerifyException(f"{what} index {pos} is negative")
    if pos >= count:
        raise VerifyException(f"{what} index {pos} is out of bounds of its {count} elements")


def print_attr_dict(printer: Printer, op: Operation) -> None:
    if op.attributes:
        printer.print_op_attributes(op.attributes)


# ---------------------------------------------------------------------------------------------
# Micro-op list loops and linear positions


def list_loop_bounds(op: affine.ForOp) -> tuple[int, int] | None:
    """The bounds ``(lower, upper)`` of a micro-op list loop (docs/isa.md §4.4: the runtime
    records a kernel by running its closure, loops included): an ``affine.for`` with constant
    bounds (constants, or maps of ``arith.constant`` operands) and step 1; ``None`` otherwise."""
    if int(op.step.value.data) != 1:
        return None
    bounds: list[int] = []
    for amap_attr, operands, pick in ((op.lowerBoundMap, op.lowerBoundOperands, max),
                                      (op.upperBoundMap, op.upperBoundOperands, min)):
        values = [constant_index(v) for v in operands]
        if any(v is None for v in values):
            return None
        amap = amap_attr.data
        ints = [v for v in values if v is not None]
        bounds.append(pick(amap.eval(ints[: amap.num_dims], ints[amap.num_dims :])))
    return bounds[0], bounds[1]


def list_loop_trip(op: affine.ForOp) -> int | None:
    """The iteration count of a micro-op list loop (:func:`list_loop_bounds`), else ``None``."""
    bounds = list_loop_bounds(op)
    return None if bounds is None else max(0, bounds[1] - bounds[0])


@dataclass(frozen=True)
class LinearPosition:
    """A micro-op position inside a micro-kernel as ``constant + Σ inner[j]·iv_j +
    Σ c·atom``: ``iv_j`` the induction variables of the micro-op's list loops (outermost first),
    the atoms host values the kernel does not vary (values defined outside it, or index
    arithmetic of such values that is not linear)."""

    constant: int
    inner: tuple[int, ...]
    outer: frozenset[tuple[Hashable, int]]


class Linearizer:
    """Linear forms of index values inside one micro-kernel over the list loops' induction
    variables and *atoms* (``None``: not linear in the induction variables).  The ops looked
    through are those of :func:`~vta_mlir.ir.index_arith.linear_form_of_op`; a value defined
    outside the kernel, and index arithmetic the loops do not vary that is not linear, are
    atoms."""

    def __init__(self, kernel: Operation, ivs: Sequence[SSAValue]) -> None:
        self.kernel = kernel
        self.ivs = set(ivs)
        self.memo: dict[SSAValue, LinearForm | None] = {}

    def _invariant(self, form: LinearForm | None) -> bool:
        return form is not None and not any(k in self.ivs for k in form.terms)

    def value(self, v: SSAValue) -> LinearForm | None:
        if v in self.ivs:
            return LinearForm.of(v)
        c = constant_index(v)
        if c is not None:
            return LinearForm(const=c)
        owner = v.owner
        if not isinstance(owner, Operation) or not self.kernel.is_ancestor(owner):
            return LinearForm.of(v)
        if v in self.memo:
            return self.memo[v]
        self.memo[v] = form = self._op(owner, v)
        return form

    def _op(self, op: Operation, v: SSAValue) -> LinearForm | None:
        forms = [self.value(o) for o in op.operands]

        def atom(e: AffineExpr, a: LinearForm, b: LinearForm) -> LinearForm | None:
            # Not linear, but the same in every iteration.
            return LinearForm.of((v, str(e))) if self._invariant(a) and \
                self._invariant(b) else None

        form = linear_form_of_op(op, forms, atom) if is_index_op(op) else None
        if form is not None:
            return form
        if all(self._invariant(f) for f in forms):
            return LinearForm.of(v)  # the same value in every iteration
        return None
