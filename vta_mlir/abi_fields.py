"""The values the fields of an argument table entry may take (``docs/binary-format.md``):
directions and element types by their codes, rank, dimension and name limits, and the checks of
names, dimensions and dtypes that :class:`vta_mlir.abi.ArgSpec` applies."""

from __future__ import annotations

from typing import Any

import numpy as np

from vta_mlir.errors import BinaryFormatError

__all__ = [
    "DIRECTIONS",
    "DTYPE_CODES",
    "DTYPE_NAMES",
    "MAX_DIM",
    "MAX_NAME_BYTES",
    "MAX_RANK",
    "MAX_SPLIT_RANK",
    "check_dims",
    "check_dtype",
    "check_name",
]

#: Argument directions, by their code in the binary argument table.
DIRECTIONS: tuple[str, ...] = ("in", "out", "inout")

#: Element types an argument may have, by their code in the binary argument table.
DTYPE_CODES: dict[str, int] = {
    "int8": 1,
    "int16": 2,
    "int32": 3,
    "int64": 4,
    "uint8": 5,
    "uint16": 6,
    "uint32": 7,
    "uint64": 8,
    # Buffers only the host reads and writes (the operands of host steps): float results.
    "float32": 9,
}
DTYPE_NAMES: dict[int, str] = {v: k for k, v in DTYPE_CODES.items()}

#: Largest logical rank and largest rank of the split shape.
MAX_RANK = 8
MAX_SPLIT_RANK = 16
#: Largest dimension (dimensions are stored as unsigned 32-bit integers).
MAX_DIM = (1 << 32) - 1
#: Longest argument or segment name, in UTF-8 bytes.
MAX_NAME_BYTES = 255


def check_dims(value: Any, what: str, *, minimum: int = 1) -> tuple[int, ...]:
    """``value`` as a tuple of dimensions, each an integer in [``minimum``, :data:`MAX_DIM`]."""
    try:
        dims = tuple(value)
    except TypeError:
        raise BinaryFormatError(f"{what} must be a sequence of integers, got {value!r}") from None
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, int | np.integer):
            raise BinaryFormatError(f"{what} must hold integers, got {value!r}")
        if not minimum <= int(d) <= MAX_DIM:
            raise BinaryFormatError(f"{what} has dimension {int(d)} outside [{minimum}, {MAX_DIM}]")
    return tuple(int(d) for d in dims)


def check_name(name: Any, what: str) -> str:
    """Validate an argument or segment name (non-empty UTF-8, at most 255 bytes, printable)."""
    if not isinstance(name, str) or not name:
        raise BinaryFormatError(f"{what} name must be a non-empty string, got {name!r}")
    try:
        raw = name.encode("utf-8")
    except UnicodeEncodeError:
        raise BinaryFormatError(f"{what} name {name!r} is not valid UTF-8") from None
    if len(raw) > MAX_NAME_BYTES:
        raise BinaryFormatError(
            f"{what} name {name[:32]!r}... is longer than {MAX_NAME_BYTES} bytes"
        )
    if not name.isprintable():
        raise BinaryFormatError(f"{what} name {name!r} contains non-printable characters")
    return name


def check_dtype(name: Any, what: str) -> str:
    """The name of an element type of :data:`DTYPE_CODES` given as a name, dtype or type."""
    text: Any = name
    if isinstance(name, np.dtype | type):
        try:
            text = str(np.dtype(name))
        except TypeError:
            text = None
    if not isinstance(text, str) or text not in DTYPE_CODES:
        raise BinaryFormatError(
            f"{what} {name!r} is not supported (one of {', '.join(DTYPE_CODES)})"
        )
    return text
