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
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

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
}
DTYPE_NAMES: dict[int, str] = {v: k for k, v in DTYPE_CODES.items()}

#: Largest logical rank and largest rank of the split shape.
MAX_RANK = 8
MAX_SPLIT_RANK = 16
#: Largest dimension (dimensions are stored as unsigned 32-bit integers).
MAX_DIM = (1 << 32) - 1
#: Fields of a window: kernel height and width, strides, padding (top, bottom, left, right).
WINDOW_FIELDS = ("KH", "KW", "stride_h", "stride_w", "pad_top", "pad_bottom", "pad_left",
                 "pad_right")
#: Longest argument or segment name, in UTF-8 bytes.
MAX_NAME_BYTES = 255

#: Standard layout names accepted by :func:`layout_tiles`.
LAYOUTS: tuple[str, ...] = ("NC", "OI", "KN", "NCHW", "OIHW", "flat")


class ArgumentError(VTAError):
    """An array passed for an argument does not match its specification (count, dtype, shape)."""


#: The int8 range quantized values are clipped to.
QUANT_MIN, QUANT_MAX = -128, 127


@dataclass(frozen=True)
class Quantization:
    """The per-tensor int8 quantization of an argument at a float edge of the program: a
    positive finite ``scale`` and a ``zero_point`` in [-128, 127] (ONNX's
    ``QuantizeLinear`` / ``DequantizeLinear`` parameters)."""

    scale: float
    zero_point: int

    def __post_init__(self) -> None:
        scale, zp = self.scale, self.zero_point
        real = float | int | np.floating | np.integer
        if isinstance(scale, bool) or not isinstance(scale, real) \
                or not math.isfinite(float(scale)) or float(scale) <= 0:
            raise BinaryFormatError(
                f"quantization scale {scale!r} is not a positive finite number"
            )
        if isinstance(zp, bool) or not isinstance(zp, int | np.integer) \
                or not QUANT_MIN <= int(zp) <= QUANT_MAX:
            raise BinaryFormatError(
                f"quantization zero point {zp!r} is not an integer in [{QUANT_MIN}, {QUANT_MAX}]"
            )
        object.__setattr__(self, "scale", float(scale))
        object.__setattr__(self, "zero_point", int(zp))


def quantize(x: np.ndarray, quant: Quantization) -> np.ndarray:
    """ONNX ``QuantizeLinear`` to int8: ``clip(round_half_to_even(x / scale) + zero_point,
    -128, 127)``, the division in float32 as onnxruntime computes it."""
    scaled = np.rint(x.astype(np.float32) / np.float32(quant.scale))
    return np.clip(scaled + quant.zero_point, QUANT_MIN, QUANT_MAX).astype(np.int8)


def dequantize(q: np.ndarray, quant: Quantization) -> np.ndarray:
    """ONNX ``DequantizeLinear`` of int8 values to float32: ``(q - zero_point) * scale``,
    in float32."""
    return (q.astype(np.float32) - np.float32(quant.zero_point)) * np.float32(quant.scale)


def _dims(value: Any, what: str, *, minimum: int = 1) -> tuple[int, ...]:
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


def _dtype(name: Any, what: str) -> str:
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
    argument.
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
        object.__setattr__(self, "dtype", _dtype(self.dtype, f"{what}: dtype"))
        packed = self.packed_dtype or self.dtype
        object.__setattr__(self, "packed_dtype", _dtype(packed, f"{what}: packed dtype"))
        shape = _dims(self.shape, f"{what}: shape")
        padded = _dims(self.padded_shape, f"{what}: padded shape")
        split = _dims(self.split_shape, f"{what}: split shape")
        perm = _dims(self.perm, f"{what}: permutation", minimum=0)
        repeat = _dims(self.repeat, f"{what}: repeat")
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
        window = _window(self.window, shape, what)
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
        if math.prod(split) != math.prod(repeat) * math.prod(padded):
            source = f"repeat {repeat} x padded shape" if repeat else "padded shape"
            raise BinaryFormatError(
                f"{what}: split shape {split} does not reshape {source} {padded}"
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
        rep = _dims(repeat, f"argument '{name}': repeat")
        shape = tuple(shape)
        win = _window(window, shape, f"argument '{name}'")
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
        padded = packed.reshape(self.padded_shape)
        logical = padded[tuple(slice(0, s) for s in self.shape)]
        logical = _convert(logical, self.dtype, f"argument '{self.name}'")
        return np.ascontiguousarray(logical, dtype=self.dtype)


def _window(value: Any, shape: tuple[int, ...], what: str) -> tuple[int, ...]:
    """A validated window of an argument of logical ``shape``: empty, or the eight fields of
    :data:`WINDOW_FIELDS` with at least one output row and column."""
    window = _dims(value, f"{what}: window", minimum=0)
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
    shape = _dims(shape, "shape")
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
