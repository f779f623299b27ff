"""Custom directives of the ``vtaisa`` ops' ``assembly_format``: the pieces of their syntax that
xDSL's declarative format does not express.

* :class:`Hex`, ``custom<Hex>($phys)``: an address, printed in hexadecimal (``0x40000``);
  :class:`OptionalHex` the same after a keyword, left out when 0 (``uop_base 0x41000``).
* :class:`Flag`, ``custom<Flag>(`reset`, $reset_reg)``: a keyword for an integer field that is 1.
* :class:`Pair` (``[out, in]``), :class:`Pads` (``pad [y0, y1, x0, x1]``, left out when all
  are 0) and :class:`Deps` (``deps [pop_prev, push_next]``, the dependency flags that are set):
  integer fields printed together.
* :class:`Imm`: an ALU immediate, ``imm -3`` when ``use_imm`` is set, ``imm_unused 5`` for an
  immediate stored while it is not, nothing otherwise.
* :class:`UopTable` (``[(dst, src, wgt), ...]``), :class:`SegmentData` (``data "0x0102"``),
  :class:`Direction`, :class:`Dtype` (an argument's keywords) and :class:`Quant`
  (``quant scale 0.5 zero_point -3``).

Integer fields are ``i64`` properties built with :func:`~vta_mlir.dialects.vtaisa_syntax.int_attr`;
a parse error names the field.
"""

from __future__ import annotations

from typing import cast

from xdsl.dialects.builtin import (
    BytesAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    TensorType,
    f64,
    i32,
)
from xdsl.irdl import IRDLOperation
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    KeywordDirective,
    ParsingState,
    PrintingState,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from vta_mlir.abi import DIRECTIONS, DTYPE_CODES, Quantization
from vta_mlir.errors import BinaryFormatError

from .vtaisa_syntax import int_attr, parse_int

__all__ = [
    "U8",
    "Deps",
    "Direction",
    "Dtype",
    "Flag",
    "Hex",
    "Imm",
    "OptionalHex",
    "Pads",
    "Pair",
    "Quant",
    "SegmentData",
    "UopTable",
    "float_literal",
]

#: Element type of a segment's contents.
U8 = IntegerType(8, Signedness.UNSIGNED)

_FLAG_TEXT = ("pop_prev", "pop_next", "push_prev", "push_next")
_DTYPES = tuple(DTYPE_CODES)


def _int(var: AttributeVariable, op: IRDLOperation) -> int:
    attr = var.get(op)
    return attr.value.data if isinstance(attr, IntegerAttr) else 0


def _set_int(var: AttributeVariable, state: ParsingState, value: int) -> None:
    var.set(state, int_attr(value))


def _ints(values: list[int]) -> str:
    return "[" + ", ".join(map(str, values)) + "]"


def float_literal(value: float) -> str:
    """``value`` as an MLIR float literal that parses back to the same double (``repr`` is
    exact; MLIR needs a ``.`` in the mantissa: ``1e-05`` is spelt ``1.0e-05``)."""
    text = repr(float(value))
    if "." not in text:
        mantissa, _, exponent = text.partition("e")
        text = f"{mantissa}.0" + (f"e{exponent}" if exponent else "")
    return text


@irdl_custom_directive
class Hex(CustomDirective):
    """An integer field printed in hexadecimal (parsed in any base)."""

    value: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        _set_int(self.value, state, parse_int(parser, self.value.name))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_string(f"{_int(self.value, op):#x}")


@irdl_custom_directive
class OptionalHex(CustomDirective):
    """``keyword 0x...``: an integer field after its keyword, left out when 0."""

    keyword: KeywordDirective
    value: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        value = 0
        if parser.parse_optional_keyword(self.keyword.keyword) is not None:
            value = parse_int(parser, self.keyword.keyword)
        _set_int(self.value, state, value)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        value = _int(self.value, op)
        if value:
            state.print_whitespace(printer)
            printer.print_string(f"{self.keyword.keyword} {value:#x}")


@irdl_custom_directive
class Flag(CustomDirective):
    """``keyword``: present when the integer field is set (1), absent when it is 0."""

    keyword: KeywordDirective
    value: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        present = parser.parse_optional_keyword(self.keyword.keyword) is not None
        _set_int(self.value, state, int(present))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        if _int(self.value, op):
            state.print_whitespace(printer)
            printer.print_string(self.keyword.keyword)


@irdl_custom_directive
class Pair(CustomDirective):
    """``[out, in]``: the outer and inner loop values of a field."""

    outer: AttributeVariable
    inner: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        what = self.outer.name.removesuffix("_out")
        values = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parse_int(parser, what)
        )
        if len(values) != 2:
            parser.raise_error(f"{what} takes two values [out, in]")
        _set_int(self.outer, state, values[0])
        _set_int(self.inner, state, values[1])

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_string(_ints([_int(self.outer, op), _int(self.inner, op)]))


@irdl_custom_directive
class Pads(CustomDirective):
    """``pad [y0, y1, x0, x1]``: a LOAD's zero padding, left out when there is none."""

    y0: AttributeVariable
    y1: AttributeVariable
    x0: AttributeVariable
    x1: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        pads = [0, 0, 0, 0]
        if parser.parse_optional_keyword("pad") is not None:
            pads = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: parse_int(parser, "pad")
            )
            if len(pads) != 4:
                parser.raise_error("pad takes four values [y_pad_0, y_pad_1, x_pad_0, x_pad_1]")
        for var, value in zip((self.y0, self.y1, self.x0, self.x1), pads, strict=True):
            _set_int(var, state, value)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        pads = [_int(v, op) for v in (self.y0, self.y1, self.x0, self.x1)]
        if any(pads):
            state.print_whitespace(printer)
            printer.print_string("pad " + _ints(pads))


@irdl_custom_directive
class Deps(CustomDirective):
    """``deps [pop_prev, pop_next, push_prev, push_next]``: the dependency flags that are set
    (docs/isa.md §2.2), left out when none is."""

    pop_prev: AttributeVariable
    pop_next: AttributeVariable
    push_prev: AttributeVariable
    push_next: AttributeVariable

    def _vars(self) -> tuple[AttributeVariable, ...]:
        return self.pop_prev, self.pop_next, self.push_prev, self.push_next

    def parse(self, parser: Parser, state: ParsingState) -> None:
        on = [0, 0, 0, 0]
        if parser.parse_optional_keyword("deps") is not None:

            def one() -> None:
                name = parser.parse_keyword_in(_FLAG_TEXT, " (a dependency flag)")
                on[_FLAG_TEXT.index(name)] = 1

            parser.parse_comma_separated_list(parser.Delimiter.SQUARE, one)
        for var, value in zip(self._vars(), on, strict=True):
            _set_int(var, state, value)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        on = [t for t, v in zip(_FLAG_TEXT, self._vars(), strict=True) if _int(v, op)]
        if on:
            state.print_whitespace(printer)
            printer.print_string("deps [" + ", ".join(on) + "]")


@irdl_custom_directive
class Imm(CustomDirective):
    """``imm N`` (``use_imm`` set), ``imm_unused N`` (an immediate stored while ``use_imm`` is
    0) or nothing."""

    use_imm: AttributeVariable
    imm: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        use, imm = 0, 0
        if parser.parse_optional_keyword("imm") is not None:
            use, imm = 1, parse_int(parser, "imm")
        elif parser.parse_optional_keyword("imm_unused") is not None:
            imm = parse_int(parser, "imm_unused")
        _set_int(self.use_imm, state, use)
        _set_int(self.imm, state, imm)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        use, imm = _int(self.use_imm, op), _int(self.imm, op)
        if use or imm:
            state.print_whitespace(printer)
            printer.print_string(f"{'imm' if use else 'imm_unused'} {imm}")


@irdl_custom_directive
class UopTable(CustomDirective):
    """``[(dst, src, wgt), ...]``: a micro-op table, an ``i32`` dense array of triples."""

    table: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        flat: list[int] = []

        def triple() -> None:
            v = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, lambda: parse_int(parser, "a micro-op index")
            )
            if len(v) != 3:
                parser.raise_error("a micro-op is (dst, src, wgt)")
            flat.extend(v)

        parser.parse_comma_separated_list(parser.Delimiter.SQUARE, triple)
        self.table.set(state, DenseArrayBase.from_list(i32, flat))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        table = self.table.get(op)
        assert isinstance(table, DenseArrayBase)
        values = cast(tuple[int, ...], table.get_values())
        state.print_whitespace(printer)
        printer.print_string("[" + ", ".join(
            f"({values[i]}, {values[i + 1]}, {values[i + 2]})" for i in range(0, len(values), 3)
        ) + "]")


@irdl_custom_directive
class SegmentData(CustomDirective):
    """``data "0x0102..."``: a constant segment's bytes (a 1-D ``ui8`` tensor), left out for
    an uninitialized one."""

    data: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        if parser.parse_optional_keyword("data") is None:
            return
        pos = parser.pos
        text = parser.parse_str_literal(" (hex contents \"0x...\")")
        try:
            if not text.startswith("0x"):
                raise ValueError
            raw = bytes.fromhex(text[2:])
        except ValueError:
            parser.raise_error("segment contents must be a hex string \"0x...\"", pos)
        self.data.set(state, DenseIntOrFPElementsAttr(TensorType(U8, [len(raw)]), BytesAttr(raw)))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        data = self.data.get(op)
        if isinstance(data, DenseIntOrFPElementsAttr):
            state.print_whitespace(printer)
            printer.print_string(f'data "0x{data.data.data.hex().upper()}"')


class _Choice(CustomDirective):
    """A string field printed as one of a fixed set of keywords."""

    value: AttributeVariable
    WHAT = ""
    CHOICES: tuple[str, ...] = ()

    def parse(self, parser: Parser, state: ParsingState) -> None:
        self.value.set(state, StringAttr(parser.parse_keyword_in(self.CHOICES, self.WHAT)))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        attr = self.value.get(op)
        assert isinstance(attr, StringAttr)
        state.print_whitespace(printer)
        printer.print_string(attr.data)


@irdl_custom_directive
class Direction(_Choice):
    """An argument's direction: ``in``, ``out`` or ``inout``."""

    value: AttributeVariable
    WHAT = " (the argument direction)"
    CHOICES = tuple(DIRECTIONS)


@irdl_custom_directive
class Dtype(_Choice):
    """An argument's dtype keyword (``int8``, ``int32``...)."""

    value: AttributeVariable
    WHAT = " (a dtype)"
    CHOICES = _DTYPES


@irdl_custom_directive
class Quant(CustomDirective):
    """``quant scale S zero_point Z``: a quantized argument's parameters, left out for others;
    the scale printed so that it parses back to the same double."""

    scale: AttributeVariable
    zero_point: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        if parser.parse_optional_keyword("quant") is None:
            return
        parser.parse_keyword("scale")
        scale = parser.parse_float()
        parser.parse_keyword("zero_point")
        zero_point = parse_int(parser, "zero_point")
        try:
            Quantization(scale, zero_point)
        except BinaryFormatError as e:
            parser.raise_error(str(e))
        self.scale.set(state, FloatAttr(scale, f64))
        _set_int(self.zero_point, state, zero_point)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        scale = self.scale.get(op)
        if isinstance(scale, FloatAttr) and self.zero_point.get(op) is not None:
            state.print_whitespace(printer)
            printer.print_string(f"quant scale {float_literal(scale.value.data)} zero_point "
                                 f"{_int(self.zero_point, op)}")
