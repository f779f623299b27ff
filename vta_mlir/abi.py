"""The argument ABI of a binary module: how a host array becomes a packed DRAM buffer and back.

Every argument of a compiled function is described by an :class:`ArgSpec`: its name, direction
(``in`` / ``out`` / ``inout``), logical dtype and shape, and a *generic* packing transform —

0. for an input with ``repeat`` dimensions, broadcast the array over them as new leading axes
   (``np.broadcast_to(a, repeat + a.shape)``: e.g. a per-column bias replicated over the batch
   lanes of an accumulator element); for an input with a ``window`` (KH, KW, stride_h,
   stride_w, pad_top, pad_bottom, pad_left, pad_right), replace its last three axes
   ``(C, H, W)`` by the convolution patches ``(C·KH·KW, OH, OW)`` (the im2col layout: zero
   padding of H and W included, patch channel ``c·KH·KW + kh·KW + kw``, see
   :func:`window_patches`),
1. zero-pad the (windowed) shape up to ``padded_shape`` (each dimension rounded up to its
   block; the ``repeat`` axes are not padded),
2. ``reshape`` the padded array to ``split_shape`` (each blocked dimension split in two),
3. ``transpose`` by ``perm``,
4. convert to ``packed_dtype`` and lay the result out contiguously (C order, little-endian).

An integer argument whose packed elements are narrower than its own (an ``int32`` result of
VTA, which stores ``OUT_WIDTH``-bit elements) may instead be *split into parts*
(:attr:`ArgSpec.parts`): each element of the padded array is its ``itemsize(dtype) /
itemsize(packed_dtype)`` little-endian parts, a new last axis of the padded array, which
``split_shape`` and ``perm`` then place like any other axis (the byte planes of an ``int32``
matrix: ``split_shape`` ``(N/B, B, C/BO, BO, 4)``, ``perm`` ``(4, 0, 2, 1, 3)``, each plane one
packed matrix).  The split is exact: unpacking reassembles the parts, the last one signed.
There may be fewer parts than that ratio, at least two (a result whose range needs only
three bytes: ``(N/B, B, C/BO, BO, 3)``): each element is then its low parts, which must hold
the value, and unpacking extends the last part's sign.

This expresses every packed layout of ``docs/isa.md`` §1.6, for example NCHW data
``reshape(N/B, B, C/BI, BI, H, W).transpose(0, 2, 4, 5, 1, 3)``, 2-D matrices
``reshape(N/B, B, C/BI, BI).transpose(0, 2, 1, 3)`` and OIHW weights
``reshape(O/BO, BO, I/BI, BI, KH, KW).transpose(0, 2, 4, 5, 1, 3)``, without the binary format
knowing any of them.  :func:`tiled_packing` builds such a transform from per-dimension block sizes
and :func:`layout_tiles` gives the block sizes of the standard layouts for a configuration.

The packed buffer lives in one DRAM segment of the module (``segment``, at physical address
``phys``); :meth:`ArgSpec.pack` and :meth:`ArgSpec.unpack` convert between the two forms.

An int8 argument may carry a :class:`Quantization` (``vta.quant`` in the IR, read by
``vta_mlir/ir/quant.py``): a *host step* at a float edge of the program.  The caller then passes
float arrays for it, which :meth:`ArgSpec.quantize` turns into int8 before packing
(ONNX's ``QuantizeLinear``), and receives float32 arrays, which :meth:`ArgSpec.dequantize`
computes from the unpacked int8 values (``DequantizeLinear``); :func:`quantize` and
:func:`dequantize` give the exact formulas.

This module holds :class:`ArgSpec` and re-exports the parts it is built from: the codes and
limits of the argument table's fields and the checks of names, dimensions and dtypes
(:mod:`vta_mlir.abi_fields`), the windows and blocked layouts of the packing transform
(:mod:`vta_mlir.abi_packing`) and the quantization of float edges (:mod:`vta_mlir.abi_quant`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vta_mlir.abi_fields import (
    DIRECTIONS,
    DTYPE_CODES,
    MAX_RANK,
    MAX_SPLIT_RANK,
    check_dims,
    check_dtype,
    check_name,
)
from vta_mlir.abi_fields import DTYPE_NAMES as DTYPE_NAMES
from vta_mlir.abi_fields import MAX_DIM as MAX_DIM
from vta_mlir.abi_fields import MAX_NAME_BYTES as MAX_NAME_BYTES
from vta_mlir.abi_packing import (
    LAYOUTS,
    WINDOW_FIELDS,
    check_window,
    join_parts,
    layout_tiles,
    part_ratio,
    parts_range,
    split_parts,
    tiled_packing,
    window_patches,
    windowed_shape,
)
from vta_mlir.abi_quant import QUANT_MAX as QUANT_MAX
from vta_mlir.abi_quant import QUANT_MIN as QUANT_MIN
from vta_mlir.abi_quant import Quantization, dequantize, quantize
from vta_mlir.config import VTAConfig
from vta_mlir.errors import BinaryFormatError, VTAError

__all__ = [
    "DIRECTIONS",
    "DTYPE_CODES",
    "LAYOUTS",
    "MAX_RANK",
    "MAX_SPLIT_RANK",
    "WINDOW_FIELDS",
    "ArgSpec",
    "ArgumentError",
    "Quantization",
    "dequantize",
    "layout_tiles",
    "quantize",
    "tiled_packing",
    "window_patches",
    "windowed_shape",
]


class ArgumentError(VTAError):
    """An array passed for an argument does not match its specification (count, dtype, shape)."""


@dataclass(frozen=True)
class ArgSpec:
    """One argument of a binary module (an entry of the versioned argument table).

    ``padded_shape`` has the rank of ``shape``; ``split_shape`` has as many elements as
    ``repeat + padded_shape`` and ``perm`` permutes its axes; the packed buffer has shape
    ``split_shape[perm]``, dtype ``packed_dtype`` and fills the DRAM segment ``segment`` that
    starts at physical address ``phys``.  ``repeat`` (only for ``in`` arguments: a replicated
    image has no single logical value to unpack) lists leading axes the logical array is
    broadcast over before padding; ``shape`` stays what the caller passes.  ``window`` (only
    for ``in`` arguments of rank ≥ 3 without ``repeat``: patches overlap) is empty or the
    eight fields of :data:`WINDOW_FIELDS`; the array is then replaced by its convolution
    patches (:func:`window_patches`) before padding, so ``padded_shape`` has the rank of
    :func:`windowed_shape`.  ``quant`` (only for ``int8`` arguments) makes the argument a float
    edge: :meth:`pack` takes float arrays and quantizes them, :meth:`unpack` returns float32.
    ``copy_of`` names the argument whose array this one packs once more, in another layout
    (an argument the program reads in two packed layouts gets one buffer per layout: the
    caller passes the array once, for the named argument); such a *copy* is an ``in``
    argument.  ``split_shape`` holding :attr:`parts` times the elements of ``padded_shape``
    splits every element into its parts (module doc; an integer argument without repeat,
    window or quantization).
    """

    name: str
    direction: str
    dtype: str
    shape: tuple[int, ...]
    padded_shape: tuple[int, ...]
    split_shape: tuple[int, ...]
    perm: tuple[int, ...]
    packed_dtype: str = ""
    segment: str = ""
    phys: int = 0
    repeat: tuple[int, ...] = ()
    window: tuple[int, ...] = ()
    quant: Quantization | None = None
    copy_of: str = ""
    _inverse: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_name(self.name, "argument")
        what = f"argument '{self.name}'"
        if self.direction not in DIRECTIONS:
            raise BinaryFormatError(
                f"{what}: direction {self.direction!r} is not one of {', '.join(DIRECTIONS)}"
            )
        object.__setattr__(self, "dtype", check_dtype(self.dtype, f"{what}: dtype"))
        packed = self.packed_dtype or self.dtype
        object.__setattr__(self, "packed_dtype", check_dtype(packed, f"{what}: packed dtype"))
        shape = check_dims(self.shape, f"{what}: shape")
        padded = check_dims(self.padded_shape, f"{what}: padded shape")
        split = check_dims(self.split_shape, f"{what}: split shape")
        perm = check_dims(self.perm, f"{what}: permutation", minimum=0)
        repeat = check_dims(self.repeat, f"{what}: repeat")
        if not 1 <= len(shape) <= MAX_RANK:
            raise BinaryFormatError(f"{what}: rank {len(shape)} is outside [1, {MAX_RANK}]")
        if len(repeat) + len(shape) > MAX_RANK:
            raise BinaryFormatError(
                f"{what}: repeat {repeat} over shape {shape} has rank "
                f"{len(repeat) + len(shape)}, more than {MAX_RANK}"
            )
        if repeat and self.direction != "in":
            raise BinaryFormatError(
                f"{what}: repeat {repeat} is only allowed for 'in' arguments, not "
                f"'{self.direction}' (a repeated image has no single value to unpack)"
            )
        window = check_window(self.window, shape, what)
        if window and (repeat or self.direction != "in"):
            raise BinaryFormatError(
                f"{what}: a window is only allowed for 'in' arguments without repeat, not "
                f"'{self.direction}'{' with repeat' if repeat else ''} (patches overlap, so "
                "the image has no single value to unpack)"
            )
        windowed = windowed_shape(shape, window)
        source = f"windowed shape {windowed}" if window else f"shape {shape}"
        if len(padded) != len(windowed):
            raise BinaryFormatError(
                f"{what}: padded shape {padded} does not have the rank of {source}"
            )
        if any(p < s for p, s in zip(padded, windowed, strict=True)):
            raise BinaryFormatError(f"{what}: padded shape {padded} is smaller than {source}")
        if not 1 <= len(split) <= MAX_SPLIT_RANK:
            raise BinaryFormatError(
                f"{what}: split rank {len(split)} is outside [1, {MAX_SPLIT_RANK}]"
            )
        elements = math.prod(repeat) * math.prod(padded)
        ratio = part_ratio(self.dtype, self.packed_dtype)
        parts, leftover = divmod(math.prod(split), elements)
        if leftover or not (parts == 1 or 1 < parts <= ratio):
            source = f"repeat {repeat} x padded shape" if repeat else "padded shape"
            hint = f" (or 2 to {ratio} parts per element)" if ratio > 1 else ""
            raise BinaryFormatError(
                f"{what}: split shape {split} does not reshape {source} {padded}{hint}"
            )
        if math.prod(split) != elements and (repeat or window or self.quant is not None):
            raise BinaryFormatError(
                f"{what}: an argument split into parts has no repeat, window or quantization"
            )
        if sorted(perm) != list(range(len(split))):
            raise BinaryFormatError(
                f"{what}: {perm} is not a permutation of the {len(split)} split axes"
            )
        if isinstance(self.phys, bool) or not isinstance(self.phys, int | np.integer) \
                or not 0 <= int(self.phys) < 1 << 32:
            raise BinaryFormatError(f"{what}: address {self.phys!r} is not a 32-bit address")
        if not isinstance(self.segment, str):
            raise BinaryFormatError(f"{what}: segment must be a name, got {self.segment!r}")
        if self.quant is not None:
            if not isinstance(self.quant, Quantization):
                raise BinaryFormatError(
                    f"{what}: quantization must be a Quantization, got {self.quant!r}"
                )
            if self.dtype != "int8":
                raise BinaryFormatError(
                    f"{what}: only an int8 argument can be quantized, not {self.dtype}"
                )
        if self.copy_of != "":
            check_name(self.copy_of, f"{what}: the copied argument's")
            if self.copy_of == self.name:
                raise BinaryFormatError(f"{what} is a copy of itself")
            if self.direction != "in":
                raise BinaryFormatError(
                    f"{what}: a copy of '{self.copy_of}' is an 'in' argument, not "
                    f"'{self.direction}' (the caller's array is packed into it, never read back)"
                )
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "padded_shape", padded)
        object.__setattr__(self, "split_shape", split)
        object.__setattr__(self, "perm", perm)
        object.__setattr__(self, "repeat", repeat)
        object.__setattr__(self, "window", window)
        object.__setattr__(self, "phys", int(self.phys))
        object.__setattr__(self, "_inverse", tuple(int(i) for i in np.argsort(perm)))

    # ---- construction ---------------------------------------------------------------------
    @classmethod
    def tiled(
        cls,
        name: str,
        direction: str,
        dtype: str | np.dtype | type,
        shape: Sequence[int],
        tiles: Sequence[int | None],
        *,
        outer_order: Sequence[int] | None = None,
        inner_order: Sequence[int] | None = None,
        packed_dtype: str | np.dtype | type | None = None,
        segment: str = "",
        phys: int = 0,
        repeat: Sequence[int] = (),
        window: Sequence[int] = (),
        quant: Quantization | None = None,
    ) -> ArgSpec:
        """An argument packed by :func:`tiled_packing` (see there for the parameters).

        With ``repeat``, ``tiles`` and the orders describe the replicated array
        ``repeat + shape``; a repeat axis is never padded, so its block must divide it.  With
        ``window``, they describe the patches, of shape :func:`windowed_shape`.
        """
        rep = check_dims(repeat, f"argument '{name}': repeat")
        shape = tuple(shape)
        win = check_window(window, shape, f"argument '{name}'")
        padded, split, perm = tiled_packing((*rep, *windowed_shape(shape, win)), tiles,
                                            outer_order=outer_order, inner_order=inner_order)
        if padded[:len(rep)] != rep:
            raise BinaryFormatError(
                f"argument '{name}': repeat {rep} is not a whole number of its blocks "
                f"{tuple(tiles[:len(rep)])}"
            )
        pdt: Any = "" if packed_dtype is None else packed_dtype
        return cls(name, direction, dtype, shape, padded[len(rep):], split, perm, pdt, segment,
                   phys, rep, win, quant)  # type: ignore[arg-type]  # normalized by __post_init__

    @classmethod
    def for_layout(
        cls,
        name: str,
        direction: str,
        dtype: str | np.dtype | type,
        shape: Sequence[int],
        layout: str,
        cfg: VTAConfig,
        *,
        packed_dtype: str | np.dtype | type | None = None,
        segment: str = "",
        phys: int = 0,
        repeat: Sequence[int] = (),
        window: Sequence[int] = (),
        quant: Quantization | None = None,
    ) -> ArgSpec:
        """An argument in one of the standard packed layouts (:data:`LAYOUTS`) of ``cfg``; with
        ``repeat``, the layout is that of the replicated array ``repeat + shape`` (a per-column
        bias ``(N,)`` with ``repeat=(BATCH,)`` in layout ``NC`` is one accumulator element per
        column block); with ``window``, that of the patches (NCHW data of a convolution
        folded into a 1×1 one: ``(N, C·KH·KW, OH, OW)``)."""
        shape = tuple(shape)
        tiles, outer, inner = layout_tiles(layout, cfg, len(tuple(repeat)) + len(shape))
        return cls.tiled(name, direction, dtype, shape, tiles, outer_order=outer,
                         inner_order=inner, packed_dtype=packed_dtype, segment=segment, phys=phys,
                         repeat=repeat, window=window, quant=quant)

    def placed(self, segment: str, phys: int) -> ArgSpec:
        """This argument, living in DRAM segment ``segment`` at physical address ``phys``."""
        return dataclasses.replace(self, segment=segment, phys=phys)

    # ---- derived --------------------------------------------------------------------------
    @property
    def packed_shape(self) -> tuple[int, ...]:
        return tuple(self.split_shape[p] for p in self.perm)

    @property
    def parts(self) -> int:
        """How many packed elements each logical element is split into (module doc): 1, or 2
        to ``itemsize(dtype) / itemsize(packed_dtype)`` for an argument split into parts."""
        elements = math.prod(self.repeat) * math.prod(self.padded_shape)
        return math.prod(self.split_shape) // elements

    @property
    def parts_shape(self) -> tuple[int, ...]:
        """The shape ``split_shape`` reshapes: ``repeat + padded_shape``, with the parts of
        each element as a last axis when it has several."""
        parts = self.parts
        return self.replicated_shape + ((parts,) if parts > 1 else ())

    @property
    def packed_nbytes(self) -> int:
        return math.prod(self.split_shape) * np.dtype(self.packed_dtype).itemsize

    @property
    def is_input(self) -> bool:
        """True for ``in`` and ``inout`` arguments (the caller supplies them)."""
        return self.direction in ("in", "inout")

    @property
    def is_output(self) -> bool:
        """True for ``out`` and ``inout`` arguments (the call returns them)."""
        return self.direction in ("out", "inout")

    @property
    def host_dtype(self) -> str:
        """The dtype of the arrays the caller exchanges: ``float32`` for a quantized argument
        (any float dtype is accepted as input), else :attr:`dtype`."""
        return "float32" if self.quant is not None else self.dtype

    @property
    def replicated_shape(self) -> tuple[int, ...]:
        """``repeat + padded_shape``: the replicated, padded array that is reshaped."""
        return self.repeat + self.padded_shape

    def describe(self) -> str:
        """A one-line human-readable summary."""
        shape = "x".join(map(str, self.shape))
        packed = "x".join(map(str, self.packed_shape))
        where = f" @ {self.segment}:{self.phys:#x}" if self.segment else ""
        repeated = f" repeated {'x'.join(map(str, self.repeat))}" if self.repeat else ""
        if self.window:
            kh, kw, sh, sw, *pads = self.window
            repeated += f" windowed {kh}x{kw}/{sh}x{sw} pad {'x'.join(map(str, pads))}"
        if self.quant is not None:
            repeated += f" quant {self.quant.scale!r}, {self.quant.zero_point}"
        if self.copy_of:
            repeated += f" copy of {self.copy_of}"
        return (f"{self.direction} {self.name}: {shape}x{self.dtype}{repeated} -> "
                f"{packed}x{self.packed_dtype}{where}")

    # ---- packing --------------------------------------------------------------------------
    def check_array(self, array: Any) -> np.ndarray:
        """``array`` as an ndarray after checking its dtype and shape (raises ArgumentError):
        :attr:`dtype`, or any float dtype for a quantized argument."""
        if not isinstance(array, np.ndarray):
            if isinstance(array, np.generic) or hasattr(array, "__array__"):
                array = np.asarray(array)
            else:
                raise ArgumentError(
                    f"argument '{self.name}': expected a numpy array, got {type(array).__name__}"
                )
        if self.quant is not None:
            # Integers are refused rather than quantized again: an int8 array given for a
            # float edge is most likely already quantized.
            if not np.issubdtype(array.dtype, np.floating):
                raise ArgumentError(
                    f"argument '{self.name}': quantized (vta.quant), expects a float array "
                    f"(float32) of the model's values, got {array.dtype} (convert with "
                    ".astype(np.float32))"
                )
            if tuple(array.shape) != self.shape:
                raise ArgumentError(f"argument '{self.name}': expected shape {self.shape}, "
                                    f"got {tuple(array.shape)}")
            if np.isnan(array).any():
                raise ArgumentError(f"argument '{self.name}': NaN cannot be quantized")
            return array
        if array.dtype != np.dtype(self.dtype):
            raise ArgumentError(
                f"argument '{self.name}': expected dtype {self.dtype}, got {array.dtype} "
                f"(convert with .astype(np.{self.dtype}))"
            )
        if tuple(array.shape) != self.shape:
            raise ArgumentError(
                f"argument '{self.name}': expected shape {self.shape}, got {tuple(array.shape)}"
            )
        return array

    def quantize(self, array: Any) -> np.ndarray:
        """The host step before packing: ``array`` checked and, for a quantized argument,
        quantized to int8 (:func:`quantize`); other arguments' arrays are returned as they
        are."""
        arr = self.check_array(array)
        return arr if self.quant is None else quantize(arr, self.quant)

    def dequantize(self, values: np.ndarray) -> np.ndarray:
        """The host step after unpacking: for a quantized argument, the float32 values of its
        int8 ``values`` (:func:`dequantize`); other arguments' values as they are."""
        return values if self.quant is None else dequantize(values, self.quant)

    def pack(self, array: Any) -> bytes:
        """The packed DRAM image of ``array``: quantize (a quantized argument), replicate,
        zero-pad, reshape, transpose, contiguous."""
        return self.pack_values(self.quantize(array))

    def pack_values(self, values: np.ndarray) -> bytes:
        """The packed DRAM image of the logical values of :attr:`dtype` (for a quantized
        argument, after :meth:`quantize`)."""
        arr = values
        if arr.dtype != np.dtype(self.dtype) or tuple(arr.shape) != self.shape:
            raise ArgumentError(f"argument '{self.name}': expected {self.dtype} values of shape "
                                f"{self.shape}, got {arr.dtype} {tuple(arr.shape)}")
        if self.window:
            arr = window_patches(arr, self.window)
        padded = np.zeros(self.replicated_shape, dtype=self.dtype)
        # Assigning into every repeat index broadcasts the array over the repeat axes.
        where = (slice(None),) * len(self.repeat) + tuple(slice(0, s) for s in arr.shape)
        padded[where] = arr
        if self.parts > 1:
            lo, hi = parts_range(self.dtype, self.packed_dtype, self.parts)
            if arr.size and (int(arr.min()) < lo or int(arr.max()) > hi):
                raise ArgumentError(
                    f"argument '{self.name}': values in [{int(arr.min())}, {int(arr.max())}] "
                    f"do not fit its {self.parts} parts of {self.packed_dtype} ([{lo}, {hi}])")
            padded = split_parts(padded, self.packed_dtype, self.parts)
        packed = padded.reshape(self.split_shape).transpose(self.perm)
        packed = _convert(packed, self.packed_dtype, f"argument '{self.name}'")
        return np.ascontiguousarray(packed, dtype=np.dtype(self.packed_dtype).newbyteorder("<")) \
            .tobytes()

    def unpack(self, data: bytes | bytearray | memoryview | np.ndarray) -> np.ndarray:
        """The logical array of a packed image: the inverse of :meth:`pack` (padding cropped),
        float32 for a quantized argument (:meth:`dequantize`).

        Not defined for a repeated argument (its replicas need not agree), which raises
        :class:`ArgumentError`.
        """
        return self.dequantize(self.unpack_values(data))

    def unpack_values(self, data: bytes | bytearray | memoryview | np.ndarray) -> np.ndarray:
        """The logical values of :attr:`dtype` of a packed image, before :meth:`dequantize`."""
        if self.repeat or self.window:
            how = f"repeated over {self.repeat}" if self.repeat else "a set of patches"
            raise ArgumentError(
                f"argument '{self.name}': its image is {how} and cannot be unpacked (such an "
                "argument is an input only)"
            )
        raw = data.tobytes() if isinstance(data, np.ndarray) else bytes(data)
        if len(raw) != self.packed_nbytes:
            raise ArgumentError(
                f"argument '{self.name}': packed image has {len(raw)} bytes, "
                f"expected {self.packed_nbytes}"
            )
        packed = np.frombuffer(raw, dtype=np.dtype(self.packed_dtype).newbyteorder("<"))
        packed = packed.reshape(self.packed_shape).transpose(self._inverse)
        if self.parts > 1:
            packed = join_parts(packed.reshape(self.parts_shape), self.dtype)
        padded = packed.reshape(self.padded_shape)
        logical = padded[tuple(slice(0, s) for s in self.shape)]
        logical = _convert(logical, self.dtype, f"argument '{self.name}'")
        return np.ascontiguousarray(logical, dtype=self.dtype)


def _convert(array: np.ndarray, dtype: str, what: str) -> np.ndarray:
    """``array`` as ``dtype``, refusing values the target type cannot represent."""
    target = np.dtype(dtype)
    if array.dtype == target:
        return array
    if array.size and not np.can_cast(array.dtype, target, "safe"):
        info = np.iinfo(target)
        lo, hi = int(array.min()), int(array.max())
        if lo < info.min or hi > info.max:
            raise ArgumentError(
                f"{what}: values in [{lo}, {hi}] do not fit the packed dtype {dtype}"
            )
    return array.astype(target)
