"""The records the ``.vtab`` reader and writer share (``docs/binary-format.md``): a
bounds-checked cursor over one section, length-prefixed names, and the argument record of the
``ARGS`` table, which the ``HOST`` section uses for the buffers of each host step."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

from vta_mlir.abi import DIRECTIONS, DTYPE_CODES, DTYPE_NAMES, ArgSpec, Quantization
from vta_mlir.errors import BinaryFormatError
from vta_mlir.program import HostStep
from vta_mlir.vtab_format import (
    ARG,
    COPY_FLAG,
    COPY_OF,
    HOST_STEP,
    NAME_LEN,
    QUANT,
    QUANT_FLAG,
    REPEAT_RANK,
    TEXT_LEN,
    WINDOW_RANK,
)

__all__ = ["HOST_TABLE_VERSION", "Cursor", "arg_record", "host_section", "name_bytes",
           "read_arg_record", "read_host_section"]

#: The argument-record version of a host step's buffers (no quantization, no copies).
HOST_TABLE_VERSION = 3


class Cursor:
    """Bounds-checked little-endian reads from one section of the buffer."""

    def __init__(self, data: bytes, start: int, end: int, what: str) -> None:
        self.data, self.pos, self.end, self.what = data, start, end, what

    def take(self, n: int, what: str) -> int:
        if n < 0 or self.pos + n > self.end:
            raise BinaryFormatError(
                f"section {self.what}: {what} needs {n} bytes at offset {self.pos}, "
                f"only {self.end - self.pos} left"
            )
        at = self.pos
        self.pos += n
        return at

    def unpack(self, st: struct.Struct, what: str) -> tuple[Any, ...]:
        return st.unpack_from(self.data, self.take(st.size, what))

    def bytes(self, n: int, what: str) -> bytes:
        at = self.take(n, what)
        return self.data[at:at + n]

    def dims(self, n: int, what: str) -> tuple[int, ...]:
        return struct.unpack_from(f"<{n}I", self.data, self.take(4 * n, what))

    def name(self, what: str) -> str:
        (n,) = self.unpack(NAME_LEN, f"{what} name length")
        raw = self.bytes(n, f"{what} name")
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise BinaryFormatError(f"section {self.what}: {what} name is not UTF-8") from None

    def done(self) -> None:
        if self.pos != self.end:
            raise BinaryFormatError(
                f"section {self.what}: {self.end - self.pos} unused byte(s) after its records"
            )


def name_bytes(name: str) -> bytes:
    """A name as the format stores it: its UTF-8 length, then its bytes."""
    raw = name.encode("utf-8")
    return NAME_LEN.pack(len(raw)) + raw


def arg_record(a: ArgSpec, table_version: int, seg_index: dict[str, int],
               index: dict[str, int]) -> bytes:
    """The record of argument ``a`` in a table of ``table_version`` (``seg_index``: segment
    name → index; ``index``: argument name → record index, for a copy)."""
    parts = [name_bytes(a.name),
             ARG.pack(DIRECTIONS.index(a.direction), DTYPE_CODES[a.dtype],
                      DTYPE_CODES[a.packed_dtype], len(a.shape), len(a.split_shape), 0, 0,
                      seg_index[a.segment], a.phys)]
    dims = (*a.shape, *a.padded_shape, *a.split_shape)
    parts.append(struct.pack(f"<{len(dims)}I", *dims))
    parts.append(bytes(a.perm))
    parts.append(REPEAT_RANK.pack(len(a.repeat)))
    parts.append(struct.pack(f"<{len(a.repeat)}I", *a.repeat))
    parts.append(WINDOW_RANK.pack(len(a.window)))
    parts.append(struct.pack(f"<{len(a.window)}I", *a.window))
    if table_version >= 4:
        parts.append(QUANT_FLAG.pack(a.quant is not None))
        if a.quant is not None:
            parts.append(QUANT.pack(a.quant.scale, a.quant.zero_point))
    if table_version >= 5:
        parts.append(COPY_FLAG.pack(bool(a.copy_of)))
        if a.copy_of:
            parts.append(COPY_OF.pack(index[a.copy_of]))
    return b"".join(parts)


def read_arg_record(cur: Cursor, i: int, table_version: int, segment_names: Sequence[str],
                    args: Sequence[ArgSpec], copies: Sequence[ArgSpec]) -> ArgSpec:
    """Record ``i`` of a table of ``table_version`` (``args`` / ``copies``: the records read
    before it)."""
    name = cur.name(f"argument {i}")
    (direction, dtype, pdtype, rank, srank, r8, r16, seg_i, phys) = cur.unpack(
        ARG, f"argument {i}")
    what = f"argument '{name}'"
    if r8 or r16:
        raise BinaryFormatError(f"{what}: reserved fields are not 0")
    if direction >= len(DIRECTIONS):
        raise BinaryFormatError(f"{what}: unknown direction code {direction}")
    for code in (dtype, pdtype):
        if code not in DTYPE_NAMES:
            raise BinaryFormatError(f"{what}: unknown dtype code {code}")
    shape = cur.dims(rank, f"{what} shape")
    padded = cur.dims(rank, f"{what} padded shape")
    split = cur.dims(srank, f"{what} split shape")
    perm = tuple(cur.bytes(srank, f"{what} permutation"))
    repeat: tuple[int, ...] = ()
    if table_version >= 2:
        (nrepeat,) = cur.unpack(REPEAT_RANK, f"{what} repeat rank")
        repeat = cur.dims(nrepeat, f"{what} repeat")
    window: tuple[int, ...] = ()
    if table_version >= 3:
        (nwindow,) = cur.unpack(WINDOW_RANK, f"{what} window rank")
        window = cur.dims(nwindow, f"{what} window")
    quant: Quantization | None = None
    if table_version >= 4:
        (flag,) = cur.unpack(QUANT_FLAG, f"{what} quantization flag")
        if flag > 1:
            raise BinaryFormatError(f"{what}: quantization flag {flag} is not 0 or 1")
        if flag:
            scale, zero_point = cur.unpack(QUANT, f"{what} quantization")
            try:
                quant = Quantization(scale, zero_point)
            except BinaryFormatError as e:
                raise BinaryFormatError(f"{what}: {e}") from None
    copy_of = ""
    if table_version >= 5:
        (flag,) = cur.unpack(COPY_FLAG, f"{what} copy flag")
        if flag > 1:
            raise BinaryFormatError(f"{what}: copy flag {flag} is not 0 or 1")
        if flag:
            (source,) = cur.unpack(COPY_OF, f"{what} copied argument")
            if source >= len(args):
                raise BinaryFormatError(
                    f"{what}: copies record {source}, which is not an argument before it"
                )
            copy_of = args[source].name
        elif copies:
            raise BinaryFormatError(
                f"{what}: an argument record after a copy (the copies come last)"
            )
    if seg_i >= len(segment_names):
        raise BinaryFormatError(
            f"{what}: segment index {seg_i} is out of range ({len(segment_names)} segments)"
        )
    spec = ArgSpec(name, DIRECTIONS[direction], DTYPE_NAMES[dtype], shape, padded, split,
                   perm, DTYPE_NAMES[pdtype], segment_names[seg_i], phys, repeat, window,
                   quant, copy_of)
    return spec


def host_section(steps: Sequence[HostStep], seg_index: dict[str, int]) -> bytes:
    """The ``HOST`` body: per step, the runs before it and its buffer count, its name and
    source location, its buffers' records, then its function as UTF-8 MLIR text."""
    parts: list[bytes] = []
    for step in steps:
        text = step.function.encode("utf-8")
        parts.append(HOST_STEP.pack(step.after_run, len(step.args)))
        parts.append(name_bytes(step.name))
        parts.append(name_bytes(step.location))
        parts += [arg_record(a, HOST_TABLE_VERSION, seg_index, {}) for a in step.args]
        parts.append(TEXT_LEN.pack(len(text)) + text)
    return b"".join(parts)


def read_host_section(cur: Cursor, count: int, segment_names: Sequence[str],
                      runs: int) -> list[HostStep]:
    """The ``count`` host steps of a ``HOST`` section (``runs``: the module's runs)."""
    steps: list[HostStep] = []
    for k in range(count):
        after, nargs = cur.unpack(HOST_STEP, f"host step {k}")
        if after > runs or (steps and after < steps[-1].after_run):
            raise BinaryFormatError(
                f"section HOST: host step {k} comes after run {after}, outside the module's "
                f"{runs} run(s) or before the step ahead of it"
            )
        name = cur.name(f"host step {k}")
        location = cur.name(f"host step '{name}' location")
        args = [read_arg_record(cur, i, HOST_TABLE_VERSION, segment_names, [], [])
                for i in range(nargs)]
        (length,) = cur.unpack(TEXT_LEN, f"host step '{name}' function length")
        raw = cur.bytes(length, f"host step '{name}' function")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise BinaryFormatError(
                f"section HOST: the function of host step '{name}' is not UTF-8") from None
        steps.append(HostStep(name, after, args, text, location))
    cur.done()
    return steps
