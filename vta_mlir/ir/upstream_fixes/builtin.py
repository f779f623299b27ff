"""Fix of xDSL's builtin ``dense<...>`` attribute: printing works on its bytes.

xDSL 0.74 stores a ``DenseIntOrFPElementsAttr`` as raw little-endian bytes (MLIR's hex form
``dense<"0x...">`` parses straight into them), but its printer unpacks every element into a
Python object twice — once to test for a splat, once more for the values it may print — even
when it prints the bytes as hex.  For a weight tensor of millions of elements that is hundreds
of MB and most of the printing time.  The fix tests for a splat on the bytes and unpacks
elements only to print them one by one (a splat, or at most 100 elements, where the stock
printer also writes a list); everything else prints exactly as before.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.printer import Printer

__all__ = ["HEX_THRESHOLD", "fix_dense_printing"]

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
