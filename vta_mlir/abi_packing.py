"""The packing transforms of arguments: the convolution window whose patches replace an array
(im2col, :func:`window_patches`), the parts an integer is split into when its packed elements
are narrower (:func:`split_parts`, :func:`join_parts`: an int32 result as byte planes) and the
blocked layouts of ``docs/isa.md`` §1.6 as a
``(padded_shape, split_shape, perm)`` transform (:func:`tiled_packing`, with the block sizes of
the standard layouts from :func:`layout_tiles`), which :class:`vta_mlir.abi.ArgSpec` applies."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from vta_mlir.abi_fields import check_dims
from vta_mlir.config import VTAConfig
from vta_mlir.errors import BinaryFormatError

__all__ = [
    "LAYOUTS",
    "WINDOW_FIELDS",
    "check_window",
    "join_parts",
    "layout_tiles",
    "part_ratio",
    "parts_range",
    "split_parts",
    "tiled_packing",
    "window_patches",
    "windowed_shape",
]

#: Fields of a window: kernel height and width, strides, padding (top, bottom, left, right).
WINDOW_FIELDS = ("KH", "KW", "stride_h", "stride_w", "pad_top", "pad_bottom", "pad_left",
                 "pad_right")

#: Standard layout names accepted by :func:`layout_tiles`.
LAYOUTS: tuple[str, ...] = ("NC", "OI", "KN", "NCHW", "OIHW", "flat")


def check_window(value: Any, shape: tuple[int, ...], what: str) -> tuple[int, ...]:
    """A validated window of an argument of logical ``shape``: empty, or the eight fields of
    :data:`WINDOW_FIELDS` with at least one output row and column."""
    window = check_dims(value, f"{what}: window", minimum=0)
    if not window:
        return ()
    if len(window) != len(WINDOW_FIELDS):
        raise BinaryFormatError(
            f"{what}: window {window} does not have the {len(WINDOW_FIELDS)} fields "
            f"({', '.join(WINDOW_FIELDS)})"
        )
    if min(window[:4]) < 1:
        raise BinaryFormatError(f"{what}: window {window} has a kernel size or stride of 0")
    if len(shape) < 3:
        raise BinaryFormatError(
            f"{what}: a window needs the axes (C, H, W) at the end of the shape, got {shape}"
        )
    kh, kw, _, _, top, bottom, left, right = window
    if shape[-2] + top + bottom < kh or shape[-1] + left + right < kw:
        raise BinaryFormatError(
            f"{what}: window {window} is larger than the padded image of shape {shape}"
        )
    return window


def windowed_shape(shape: Sequence[int], window: Sequence[int]) -> tuple[int, ...]:
    """The shape of :func:`window_patches` of an array of ``shape``: the last three axes
    ``(C, H, W)`` become ``(C·KH·KW, OH, OW)``; ``shape`` itself without a window."""
    shape = tuple(shape)
    if not window:
        return shape
    kh, kw, sh, sw, top, bottom, left, right = window
    *lead, c, h, w = shape
    return (*lead, c * kh * kw, (h + top + bottom - kh) // sh + 1,
            (w + left + right - kw) // sw + 1)


def window_patches(array: np.ndarray, window: Sequence[int]) -> np.ndarray:
    """The convolution patches of ``array`` (im2col): for ``(..., C, H, W)`` and the window
    (KH, KW, stride_h, stride_w, pad_top, pad_bottom, pad_left, pad_right), the array
    ``(..., C·KH·KW, OH, OW)`` whose element ``[..., c·KH·KW + kh·KW + kw, oh, ow]`` is
    ``padded[..., c, oh·stride_h + kh, ow·stride_w + kw]``, ``padded`` the array zero-padded
    along H and W.  A convolution of ``array`` with an OIHW kernel is then a 1×1 convolution
    of the patches with the kernel reshaped to ``(O, C·KH·KW, 1, 1)``, which is the kernel's
    own patches for the window (KH, KW, 1, 1, 0, 0, 0, 0)."""
    kh, kw, sh, sw, top, bottom, left, right = window
    lead = array.ndim - 2
    padded = np.pad(array, [(0, 0)] * lead + [(top, bottom), (left, right)])
    # (..., C, H', W', KH, KW) views of every window position, then every stride-th one.
    views = np.lib.stride_tricks.sliding_window_view(padded, (kh, kw), axis=(-2, -1))
    views = views[..., ::sh, ::sw, :, :]
    *rest, c, oh, ow, _, _ = views.shape
    patches = np.moveaxis(views, (-2, -1), (-4, -3))  # (..., C, KH, KW, OH, OW)
    return patches.reshape(*rest, c * kh * kw, oh, ow)


def tiled_packing(
    shape: Sequence[int],
    tiles: Sequence[int | None],
    *,
    outer_order: Sequence[int] | None = None,
    inner_order: Sequence[int] | None = None,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """``(padded_shape, split_shape, perm)`` of a blocked layout.

    ``tiles[i]`` is the block size of logical dimension ``i`` (``None``: not blocked).  A blocked
    dimension ``d`` is padded to a multiple of its block ``t`` and split into ``(d/t, t)``.  The
    packed order is: the outer parts of all dimensions (in ``outer_order``, default the logical
    order), then the blocks (in ``inner_order``, default the logical order of blocked dimensions).
    NCHW with tiles ``(B, BI, None, None)`` gives ``perm (0, 2, 4, 5, 1, 3)``, as §1.6.
    """
    shape = check_dims(shape, "shape")
    if len(tiles) != len(shape):
        raise BinaryFormatError(f"tiles {tuple(tiles)} do not match the rank of shape {shape}")
    padded: list[int] = []
    split: list[int] = []
    outer_axis: list[int] = []
    inner_axis: dict[int, int] = {}
    for i, (d, t) in enumerate(zip(shape, tiles, strict=True)):
        if t is None:
            padded.append(d)
            outer_axis.append(len(split))
            split.append(d)
            continue
        if isinstance(t, bool) or not isinstance(t, int | np.integer) or t < 1:
            raise BinaryFormatError(f"tile {t!r} of dimension {i} is not a positive integer")
        n = -(-d // int(t))
        padded.append(n * int(t))
        outer_axis.append(len(split))
        inner_axis[i] = len(split) + 1
        split += [n, int(t)]
    outer = list(range(len(shape))) if outer_order is None else [int(i) for i in outer_order]
    if sorted(outer) != list(range(len(shape))):
        raise BinaryFormatError(f"outer order {tuple(outer)} is not a permutation of the axes")
    inner = sorted(inner_axis) if inner_order is None else [int(i) for i in inner_order]
    if sorted(inner) != sorted(inner_axis):
        raise BinaryFormatError(
            f"inner order {tuple(inner)} is not a permutation of the blocked axes "
            f"{tuple(sorted(inner_axis))}"
        )
    perm = [outer_axis[i] for i in outer] + [inner_axis[i] for i in inner]
    return tuple(padded), tuple(split), tuple(perm)


def layout_tiles(
    layout: str, cfg: VTAConfig, rank: int | None = None
) -> tuple[tuple[int | None, ...], tuple[int, ...] | None, tuple[int, ...] | None]:
    """``(tiles, outer_order, inner_order)`` of a standard packed layout for ``cfg``.

    * ``NC`` — a matrix of activations, accumulators or outputs, ``(N, C)`` →
      ``(N/BATCH, C/BLOCK, BATCH, BLOCK)``;
    * ``OI`` — a weight matrix ``(O, I)`` → ``(O/BLOCK_OUT, I/BLOCK_IN, BLOCK_OUT, BLOCK_IN)``;
    * ``KN`` — a weight matrix given as ``(I, O)`` (the right operand of ``x @ w``), packed like
      ``OI`` (VTA's weight element is output-major);
    * ``NCHW`` — data ``(N, C, H, W)`` → ``(N/BATCH, C/BLOCK, H, W, BATCH, BLOCK)``;
    * ``OIHW`` — a kernel → ``(O/BLOCK_OUT, I/BLOCK_IN, KH, KW, BLOCK_OUT, BLOCK_IN)``;
    * ``flat`` — no packing (``rank`` required).

    ``BLOCK_IN == BLOCK_OUT`` in every configuration; data layouts use ``BLOCK_IN`` for C.
    """
    b, bi, bo = cfg.batch, cfg.block_in, cfg.block_out
    table: dict[str, tuple[tuple[int | None, ...], tuple[int, ...] | None,
                           tuple[int, ...] | None]] = {
        "NC": ((b, bi), None, None),
        "OI": ((bo, bi), None, None),
        "KN": ((bi, bo), (1, 0), (1, 0)),
        "NCHW": ((b, bi, None, None), None, None),
        "OIHW": ((bo, bi, None, None), None, None),
    }
    if layout == "flat":
        if rank is None:
            raise BinaryFormatError("layout 'flat' needs the rank of the shape")
        return (None,) * rank, None, None
    if layout not in table:
        raise BinaryFormatError(f"unknown layout {layout!r} (one of {', '.join(LAYOUTS)})")
    tiles, outer, inner = table[layout]
    if rank is not None and rank != len(tiles):
        raise BinaryFormatError(
            f"layout {layout!r} is for rank-{len(tiles)} tensors, got rank {rank}"
        )
    return tiles, outer, inner


def part_ratio(dtype: str, packed_dtype: str) -> int:
    """How many ``packed_dtype`` elements make one integer of ``dtype`` (1 when they are not
    both integers, or the packed one is not narrower)."""
    logical, packed = np.dtype(dtype), np.dtype(packed_dtype)
    if logical.kind not in "iu" or packed.kind not in "iu" \
            or packed.itemsize >= logical.itemsize:
        return 1
    return logical.itemsize // packed.itemsize


def split_parts(array: np.ndarray, packed_dtype: str, parts: int | None = None) -> np.ndarray:
    """Each integer of ``array`` as its low ``parts`` little-endian ``packed_dtype`` parts (all
    of them by default), a new last axis.  Fewer parts than the ratio of the itemsizes drop
    the high ones: they are exact for values that fit the kept parts as a two's complement
    integer of ``dtype``'s signedness (the caller checks, :func:`parts_range`)."""
    little = array.astype(array.dtype.newbyteorder("<"))
    split = little.view(np.dtype(packed_dtype).newbyteorder("<"))
    split = split.reshape(*array.shape, array.dtype.itemsize // split.dtype.itemsize)
    return split if parts is None else split[..., :parts]


def parts_range(dtype: str, packed_dtype: str, parts: int) -> tuple[int, int]:
    """The values of ``dtype`` that ``parts`` parts of ``packed_dtype`` hold exactly: a two's
    complement integer of ``parts`` times the part's width (unsigned for an unsigned
    ``dtype``), as :func:`join_parts` extends it."""
    bits = parts * np.dtype(packed_dtype).itemsize * 8
    if np.dtype(dtype).kind == "u":
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def join_parts(parts: np.ndarray, dtype: str) -> np.ndarray:
    """The integers of ``dtype`` whose little-endian parts are the last axis of ``parts`` (the
    inverse of :func:`split_parts`: the last part carries the sign).  Fewer parts than the
    ratio of the itemsizes are extended by the last one's sign (zeros for an unsigned
    ``dtype``)."""
    target = np.dtype(dtype).newbyteorder("<")
    width = parts.dtype.itemsize
    unsigned = np.ascontiguousarray(parts).view(np.dtype(f"<u{width}"))
    missing = target.itemsize // width - unsigned.shape[-1]
    if missing > 0:
        top = unsigned[..., -1:] >> (8 * width - 1)
        fill = top * np.iinfo(unsigned.dtype).max if target.kind == "i" else top * 0
        unsigned = np.concatenate([unsigned, np.repeat(fill, missing, axis=-1)], axis=-1)
    return np.ascontiguousarray(unsigned).view(target)[..., 0]
