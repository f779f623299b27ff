"""The elements of a ``dense<...>`` attribute as a numpy array, read from its bytes.

xDSL keeps a ``DenseIntOrFPElementsAttr`` as the raw little-endian bytes MLIR's hex form
``dense<"0x...">`` spells out; reading them with ``np.frombuffer`` costs one copy at most,
where ``get_values()`` would make a Python int of every element (weights of millions of
elements: hundreds of MB).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerType, Signedness

__all__ = ["dense_int_array"]

_WIDTHS = (8, 16, 32, 64)


def dense_int_array(attr: DenseIntOrFPElementsAttr, shape: Sequence[int]) -> np.ndarray | None:
    """The integer elements of ``attr`` in an array of ``shape`` (a splat repeated over it),
    with the numpy dtype of the element type (``int8`` ... ``int64``, ``uint*`` for unsigned
    types); None when the elements are not 8-, 16-, 32- or 64-bit integers.  Raises
    ``ValueError`` when the attribute holds another number of elements than ``shape``."""
    element = attr.get_element_type()
    if not isinstance(element, IntegerType) or element.width.data not in _WIDTHS:
        return None
    kind = "u" if element.signedness.data == Signedness.UNSIGNED else "i"
    stored = np.dtype(f"<{kind}{element.width.data // 8}")
    flat = np.frombuffer(attr.data.data, dtype=stored)
    count = math.prod(shape)
    if flat.size == 1 and count != 1:
        flat = np.full(count, flat[0], dtype=stored)
    if flat.size != count:
        raise ValueError(f"holds {flat.size} values for {count} elements")
    # Native byte order (the same bytes on little-endian hosts), shaped.
    return flat.astype(stored.newbyteorder("="), copy=False).reshape(tuple(shape))
