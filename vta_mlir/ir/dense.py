"""The elements of a ``dense<...>`` or ``dense_resource<...>`` attribute as a numpy array,
read from its bytes.

xDSL keeps a ``DenseIntOrFPElementsAttr`` as the raw little-endian bytes MLIR's hex form
``dense<"0x...">`` spells out, and the blob of a ``dense_resource`` is bytes too
(:mod:`vta_mlir.ir.upstream_fixes.resources`); reading them with ``np.frombuffer`` costs one copy
at most, where ``get_values()`` would make a Python int of every element (weights of millions of
elements: hundreds of MB).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    ShapedType,
    Signedness,
)
from xdsl.ir import Attribute

from vta_mlir.ir.upstream_fixes.resources import ResourceBlobs

__all__ = ["dense_int_array", "dense_resource_array", "resource_dtype", "resource_problem"]

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


def resource_dtype(element: Attribute) -> np.dtype | None:
    """The little-endian numpy dtype of one element of ``element`` type in a resource blob
    (``i1`` is a byte per element, ``index`` 64 bits, as MLIR stores them); None for element
    types numpy has no dtype for (``bf16``, ``i4``, complex, ...)."""
    if isinstance(element, IntegerType):
        width = element.width.data
        if width == 1:
            return np.dtype(np.bool_)
        if width not in _WIDTHS:
            return None
        kind = "u" if element.signedness.data == Signedness.UNSIGNED else "i"
        return np.dtype(f"<{kind}{width // 8}")
    if isinstance(element, IndexType):
        return np.dtype("<i8")
    if isinstance(element, BFloat16Type):
        return None
    if isinstance(element, Float16Type | Float32Type | Float64Type):
        return np.dtype(f"<f{element.bitwidth // 8}")
    return None


def resource_problem(attr: DenseResourceAttr, blobs: ResourceBlobs | None) -> str | None:
    """What makes ``attr`` unreadable with ``blobs`` (an unknown key, a dynamic shape, a
    blob of the wrong size, an element type without a dtype), None when nothing does."""
    key = attr.resource_handle.data
    shaped = attr.type
    blob = None if blobs is None else blobs.blob(key)
    if blob is None:
        return (f"unknown resource '{key}': the file's {{-# dialect_resources #-}} section "
                "has no blob for it")
    if not isinstance(shaped, ShapedType) or any(d < 0 for d in shaped.get_shape()):
        return f"dense_resource<{key}> has a dynamic shape ({shaped}); expected a static shape"
    dtype = resource_dtype(shaped.get_element_type())
    if dtype is None:
        return (f"dense_resource<{key}> has elements of type {shaped.get_element_type()}, "
                "which vta-mlir does not read")
    size = math.prod(shaped.get_shape()) * dtype.itemsize
    if len(blob.data) != size:
        return f"resource '{key}' holds {len(blob.data)} bytes, but {shaped} needs {size}"
    return None


def dense_resource_array(attr: DenseResourceAttr, blobs: ResourceBlobs | None) -> np.ndarray:
    """The elements of ``attr`` as a read-only numpy array over its blob's bytes (no copy), of
    its type's shape and element dtype (:func:`resource_dtype`, native byte order on
    little-endian hosts).  ``blobs`` is the resource store of the context or module the
    attribute was parsed into (:func:`vta_mlir.ir.context.resource_blobs`,
    :func:`vta_mlir.ir.upstream_fixes.resources.module_resources`).  Raises ``ValueError``
    with the message of :func:`resource_problem` when the attribute cannot be read."""
    if (problem := resource_problem(attr, blobs)) is not None:
        raise ValueError(problem)
    assert blobs is not None and isinstance(attr.type, ShapedType)
    blob = blobs.blob(attr.resource_handle.data)
    assert blob is not None
    dtype = resource_dtype(attr.type.get_element_type())
    assert dtype is not None
    array = np.frombuffer(blob.data, dtype=dtype)
    return array.reshape(tuple(attr.type.get_shape()))
