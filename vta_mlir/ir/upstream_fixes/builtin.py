"""Fixes of xDSL's builtin attributes: ``dense<...>`` prints from its bytes, a hex integer
element of a float ``dense<...>`` literal is the float's bit pattern, and arrays print their
``i64`` / ``f64`` elements without the type, as MLIR does.

xDSL 0.74 stores a ``DenseIntOrFPElementsAttr`` as raw little-endian bytes (MLIR's hex form
``dense<"0x...">`` parses straight into them), but its printer unpacks every element into a
Python object twice — once to test for a splat, once more for the values it may print — even
when it prints the bytes as hex.  For a weight tensor of millions of elements that is hundreds
of MB and most of the printing time.  The fix tests for a splat on the bytes and unpacks
elements only to print them one by one (a splat, or at most 100 elements, where the stock
printer also writes a list); everything else prints exactly as before.

In a float literal MLIR reads a hex integer element as the bits of the float
(``dense<0xFF800000> : tensor<2xf32>`` is ``-inf``, as torch-mlir writes it); the stock parser
converted the integer's value instead (4.29e9).  The fix reinterprets such an element with the
element type's width.

MLIR prints the elements of an array attribute with the type elided when it is the default one
(``[0, 1]`` for ``i64`` integers, ``[1.000000e+00]`` for ``f64`` floats), so the reassociation of
``tensor.collapse_shape`` reads ``[[0], [1, 2, 3]]``; the stock printer wrote
``[[0 : i64], [1 : i64, 2 : i64, 3 : i64]]``.  Both parse to the same attribute.
"""

from __future__ import annotations

import struct

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    f64,
    i64,
)
from xdsl.ir import Attribute
from xdsl.parser.attribute_parser import AttrParser
from xdsl.printer import Printer

__all__ = [
    "HEX_THRESHOLD",
    "fix_array_element_types",
    "fix_dense_hex_floats",
    "fix_dense_printing",
    "float_from_bits",
]

#: ``struct`` formats of the IEEE float widths.
FLOAT_FORMATS = {16: "<e", 32: "<f", 64: "<d"}

#: Above this many elements a non-splat literal prints as hex (xDSL's and MLIR's threshold).
HEX_THRESHOLD = 100


def fix_dense_printing() -> None:
    def print_without_type(self: DenseIntOrFPElementsAttr, printer: Printer) -> None:
        printer.print_string("dense")
        data = self.data.data
        length = len(self)
        size = len(data) // length if length else 0
        with printer.in_angle_brackets():
            if length == 0:
                return
            if data == data[:size] * length:
                element = self.get_element_type().unpack(data[:size], 1)[0]  # type: ignore[union-attr]
                self._print_one_elem(element, printer)  # pyright: ignore[reportPrivateUsage]
            elif length > HEX_THRESHOLD:
                printer.print_string(f'"0x{data.hex().upper()}"')
            else:
                shape = self.get_shape() if self.shape_is_complete else (length,)
                self._print_dense_list(self.get_values(), shape, printer)  # pyright: ignore[reportPrivateUsage]

    DenseIntOrFPElementsAttr.print_without_type = print_without_type  # type: ignore[method-assign]


def float_from_bits(bits: int, element: AnyFloat) -> float | None:
    """The value of the float of type ``element`` whose bit pattern is ``bits``; None when the
    pattern does not fit the width or the type has no ``struct`` format."""
    width = 16 if isinstance(element, BFloat16Type) else element.bitwidth
    if bits < 0 or bits >= 1 << width:
        return None
    if isinstance(element, BFloat16Type):
        # The upper half of an f32.
        return struct.unpack("<f", (bits << 16).to_bytes(4, "little"))[0]
    fmt = FLOAT_FORMATS.get(width)
    if fmt is None:
        return None
    return struct.unpack(fmt, bits.to_bytes(width // 8, "little"))[0]


def fix_dense_hex_floats() -> None:
    element_class = AttrParser._TensorLiteralElement  # pyright: ignore[reportPrivateUsage]
    stock_to_type = element_class.to_type

    def to_type(self: AttrParser._TensorLiteralElement, parser: AttrParser,  # pyright: ignore[reportPrivateUsage]
                type: Attribute) -> object:
        if (
            isinstance(type, AnyFloat)
            and isinstance(self.value, int)
            and not isinstance(self.value, bool)
            and self.span.text[:2] in ("0x", "0X")
        ):
            value = float_from_bits(self.value, type)
            if value is None:
                parser.raise_error(
                    f"hexadecimal float literal {self.span.text} does not fit type {type}",
                    at_position=self.span,
                )
            return value
        return stock_to_type(self, parser, type)  # type: ignore[arg-type]

    element_class.to_type = to_type  # type: ignore[method-assign]


def fix_array_element_types() -> None:
    def print_element(printer: Printer, element: Attribute) -> None:
        if isinstance(element, IntegerAttr) and element.type == i64:
            element.print_without_type(printer)
        elif isinstance(element, FloatAttr) and element.type == f64:
            element.print_without_type(printer)
        else:
            printer.print_attribute(element)

    def print_builtin(self: ArrayAttr[Attribute], printer: Printer) -> None:
        with printer.in_square_brackets():
            printer.print_list(self.data, lambda element: print_element(printer, element))

    ArrayAttr.print_builtin = print_builtin  # type: ignore[method-assign]
