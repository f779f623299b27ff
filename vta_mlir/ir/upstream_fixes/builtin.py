"""Fixes of xDSL's builtin ``dense<...>`` attribute: printing works on its bytes, and a hex
integer element of a float literal is the float's bit pattern.

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
"""

from __future__ import annotations

import struct

from xdsl.dialects.builtin import AnyFloat, BFloat16Type, DenseIntOrFPElementsAttr
from xdsl.ir import Attribute
from xdsl.parser.attribute_parser import AttrParser
from xdsl.printer import Printer

__all__ = ["HEX_THRESHOLD", "fix_dense_hex_floats", "fix_dense_printing", "float_from_bits"]

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
