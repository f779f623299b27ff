"""The binary module format ``.vtab``: a linked VTA program, its DRAM image and its argument ABI.

A :class:`BinaryModule` is what the compiler emits and the runtime loads: the hardware
configuration it was built for, a :class:`~vta_mlir.program.Program` (runs of instructions, each
with its micro-op staging image, and the DRAM segments they address), the argument table
(:class:`~vta_mlir.abi.ArgSpec`, with the *copies*: further packed images of arguments the
program reads in two layouts) and the base physical address it is linked at.  Instructions hold
absolute physical addresses, so the runtime places every segment at exactly its address.

On disk (``docs/binary-format.md`` gives every byte): a 32-byte little-endian header (magic,
format version, section count, base address, file size, CRC-32), a directory of seven sections
and the sections themselves — ``CONF`` (the configuration JSON), ``RUNS`` (per run: instruction
count, micro-op count, staging address), ``INSN`` (16-byte instruction words), ``UOPS`` (4-byte
micro-op words), ``SEGS`` (segment table), ``DATA`` (constant segment contents) and ``ARGS`` (the
versioned argument table).  A program with layers (:attr:`vta_mlir.program.Program.layers`) is
written as format version 2, which adds an eighth section, ``LAYR`` (the layer names and the
layer of each instruction, as runs of consecutive instructions); one without is written as
version 1, as before.  Both versions are read.

:func:`from_bytes` checks every size, offset and count against the buffer and the configuration
before it trusts it, never reads outside the buffer, never allocates more than the buffer holds,
and reports any defect as a one-line :class:`~vta_mlir.errors.BinaryFormatError`.
"""

from __future__ import annotations

import io
import os
import struct
import zlib
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np

from vta_mlir.abi import DIRECTIONS, DTYPE_CODES, DTYPE_NAMES, ArgSpec, Quantization
from vta_mlir.atomic_write import write_bytes
from vta_mlir.binary_checks import ADDRESS_LIMIT, check_module, encode_run
from vta_mlir.config import PAGE_BYTES, VTAConfig
from vta_mlir.errors import BinaryFormatError, ConfigError, EncodingError, VTAError
from vta_mlir.isa import Insn, decode_insns
from vta_mlir.program import Program, Run, Segment

__all__ = [
    "ARG_TABLE_VERSION",
    "DEFAULT_BASE",
    "FORMAT_VERSION",
    "LAYER_SECTION",
    "MAGIC",
    "SECTION_TAGS",
    "BinaryModule",
    "Linker",
    "from_bytes",
    "read_vtab",
    "to_bytes",
    "write_vtab",
]

MAGIC = b"\x89VTAB\r\n\x1a"
#: Newest version of the container (header, directory, sections) this code reads and writes:
#: version 2 adds the ``LAYR`` section, written only for a program with layers (without, the
#: file is version 1, byte for byte as before).
FORMAT_VERSION = 2
#: Newest version of the argument table this code reads (version 2 appends the repeat
#: dimensions to each argument record, version 3 the window, version 4 the quantization,
#: version 5 the argument a copy packs).  A table is written in the oldest version that holds
#: it: 3 without quantized arguments and copies, byte for byte as before, 4 with quantized
#: arguments only, 5 with copies.
ARG_TABLE_VERSION = 5
#: The table version written when no argument is quantized.
_UNQUANTIZED_TABLE_VERSION = 3
#: The table version written when an argument is quantized and none is copied.
_QUANTIZED_TABLE_VERSION = 4
#: Base physical address used when none is given (16 MiB: clear of small ad-hoc allocations).
DEFAULT_BASE = 0x0100_0000
#: Sections of a version-1 file, in their mandatory order.
SECTION_TAGS: tuple[bytes, ...] = (b"CONF", b"RUNS", b"INSN", b"UOPS", b"SEGS", b"DATA", b"ARGS")
#: The section of a version-2 file after those: layer names and per-instruction layers.
LAYER_SECTION = b"LAYR"
#: Sections of each format version, in their mandatory order.
VERSION_SECTIONS: dict[int, tuple[bytes, ...]] = {1: SECTION_TAGS,
                                                  2: (*SECTION_TAGS, LAYER_SECTION)}

#: Largest file accepted (all offsets and sizes are unsigned 32-bit).
MAX_FILE_BYTES = (1 << 32) - 1
#: Largest configuration JSON accepted.
MAX_CONFIG_BYTES = 1 << 16

_HEADER = struct.Struct("<8sHHIIIII")  # magic version nsections flags base size crc reserved
_DIRENT = struct.Struct("<4sIII")  # tag offset size count
_RUN = struct.Struct("<III")  # insn_count uop_count uop_base
_SEG = struct.Struct("<IIIIH")  # phys nbytes data_offset data_size name_len
_ARGS_HEAD = struct.Struct("<HH")  # table version, reserved
_ARG = struct.Struct("<BBBBBBHII")  # dir dtype packed rank srank res8 res16 segment phys
_REPEAT_RANK = struct.Struct("<B")  # table version 2: number of repeat dimensions
_WINDOW_RANK = struct.Struct("<B")  # table version 3: number of window fields (0 or 8)
_QUANT_FLAG = struct.Struct("<B")  # table version 4: 1 if quantized, else 0
_QUANT = struct.Struct("<di")  # table version 4, after a flag 1: scale, zero point
_COPY_FLAG = struct.Struct("<B")  # table version 5: 1 if the record is a copy, else 0
_COPY_OF = struct.Struct("<I")  # table version 5, after a flag 1: the copied record's index
_RANGE_COUNT = struct.Struct("<I")  # LAYR: number of layer ranges
_RANGE = struct.Struct("<II")  # LAYR: instruction count, layer index
_CRC_AT = 24
_INSN_BYTES = 16
_UOP_BYTES = 4
_NAME_LEN = struct.Struct("<H")


# ---------------------------------------------------------------------------------------------
# The in-memory module


@dataclass
class BinaryModule:
    """A linked program with its configuration, argument table and link base address.

    ``args`` are the function's arguments, in signature order; ``copies`` the further packed
    images of arguments the program reads in more than one layout (:attr:`ArgSpec.copy_of
    <vta_mlir.abi.ArgSpec.copy_of>` names the argument): the caller passes each array once,
    and the host packs it into its argument's buffer and into each of its copies'.  The
    argument table lists the arguments, then the copies."""

    config: VTAConfig
    program: Program
    args: list[ArgSpec] = field(default_factory=list)
    base: int = DEFAULT_BASE
    copies: list[ArgSpec] = field(default_factory=list)

    # ---- queries ----------------------------------------------------------------------------
    @property
    def inputs(self) -> list[ArgSpec]:
        """Arguments the caller supplies (``in`` and ``inout``), in signature order."""
        return [a for a in self.args if a.is_input]

    @property
    def outputs(self) -> list[ArgSpec]:
        """Arguments a call returns (``out`` and ``inout``), in signature order."""
        return [a for a in self.args if a.is_output]

    def segment(self, name: str) -> Segment:
        for seg in self.program.segments:
            if seg.name == name:
                return seg
        raise BinaryFormatError(f"module has no segment named {name!r}")

    def describe(self) -> str:
        """A short multi-line summary: configuration, runs, segments, arguments and layers."""
        prog = self.program
        lines = [
            f"VTA module for {self.config.bitstream}, linked at {self.base:#x}",
            f"  {len(prog.runs)} run(s), {prog.num_insns} instruction(s), "
            f"{sum(len(r.uop_words) for r in prog.runs)} micro-op word(s)",
        ]
        for seg in sorted(prog.segments, key=lambda s: s.phys):
            kind = "const" if seg.data is not None else "scratch"
            lines.append(f"  segment {seg.name}: {seg.phys:#x} +{seg.nbytes} ({kind})")
        for arg in [*self.args, *self.copies]:
            lines.append(f"  arg {arg.describe()}")
        if prog.layers:
            lines.append(f"  {len(prog.layers)} layer(s): {', '.join(prog.layers)}")
        return "\n".join(lines)

    # ---- checks and serialization -----------------------------------------------------------
    def validate(self, *, encode: bool = True) -> None:
        """Raise :class:`BinaryFormatError` unless the module is self-consistent (``encode``:
        also check that every instruction fits its encoding)."""
        check_module(self, encode=encode)

    def run_streams(self) -> list[bytes]:
        """The encoded instruction words of each run (16 bytes per instruction)."""
        return [encode_run(r.insns, self.config, f"run {i}")
                for i, r in enumerate(self.program.runs)]

    def to_bytes(self) -> bytes:
        return to_bytes(self)

    def save(self, path_or_file: str | os.PathLike[str] | IO[bytes]) -> None:
        write_vtab(self, path_or_file)

    @classmethod
    def from_bytes(cls, data: bytes | bytearray | memoryview,
                   config: VTAConfig | None = None) -> BinaryModule:
        return from_bytes(data, config)

    @classmethod
    def load(cls, path_or_file: str | os.PathLike[str] | IO[bytes],
             config: VTAConfig | None = None) -> BinaryModule:
        return read_vtab(path_or_file, config)


class Linker:
    """Places segments at consecutive page-aligned physical addresses from ``base`` upwards.

    ``link.argument(spec)`` gives an argument its own segment; ``link.segment(name, nbytes,
    data)`` adds a constant or scratch segment; ``link.segments`` lists them in address order.
    """

    def __init__(self, base: int = DEFAULT_BASE) -> None:
        if base % PAGE_BYTES or not PAGE_BYTES <= base < ADDRESS_LIMIT:
            raise BinaryFormatError(f"base address {base:#x} is not a non-zero page address")
        self.base = base
        self.next = base
        self.segments: list[Segment] = []

    def segment(self, name: str, nbytes: int, data: bytes | np.ndarray | None = None) -> Segment:
        """A new segment of ``nbytes`` (with constant ``data`` if given) at the next free page."""
        contents = None if data is None else _as_bytes_array(data, f"segment '{name}'")
        seg = Segment(name, self.next, int(nbytes), contents)
        pages = -(-max(int(nbytes), 1) // PAGE_BYTES)
        self.next += pages * PAGE_BYTES
        if self.next > ADDRESS_LIMIT:
            raise BinaryFormatError(f"segment '{name}' does not fit the 32-bit address space")
        self.segments.append(seg)
        return seg

    def argument(self, spec: ArgSpec) -> ArgSpec:
        """``spec`` bound to a new segment of its packed size, named after the argument."""
        seg = self.segment(spec.name, spec.packed_nbytes)
        return spec.placed(seg.name, seg.phys)


def _as_bytes_array(data: Any, what: str) -> np.ndarray:
    if isinstance(data, bytes | bytearray | memoryview):
        return np.frombuffer(bytes(data), dtype=np.uint8).copy()
    if isinstance(data, np.ndarray):
        return np.frombuffer(np.ascontiguousarray(data).tobytes(), dtype=np.uint8).copy()
    raise BinaryFormatError(f"{what}: contents must be bytes or a numpy array")


# ---------------------------------------------------------------------------------------------
# Writer


def _name_bytes(name: str) -> bytes:
    raw = name.encode("utf-8")
    return _NAME_LEN.pack(len(raw)) + raw


def to_bytes(module: BinaryModule) -> bytes:
    """The ``.vtab`` image of ``module`` (validated first; segments written by address)."""
    check_module(module, encode=False)
    cfg, prog = module.config, module.program
    segs = sorted(prog.segments, key=lambda s: s.phys)
    seg_index = {s.name: i for i, s in enumerate(segs)}

    conf = cfg.to_json().encode("utf-8")
    if len(conf) > MAX_CONFIG_BYTES:
        raise BinaryFormatError(f"configuration JSON of {len(conf)} bytes is too large")
    runs = b"".join(_RUN.pack(len(r.insns), int(r.uop_words.size), int(r.uop_base))
                    for r in prog.runs)
    insn = b"".join(encode_run(r.insns, cfg, f"run {i}") for i, r in enumerate(prog.runs))
    uops = b"".join(r.uop_words.astype("<u4").tobytes() for r in prog.runs)
    seg_parts: list[bytes] = []
    data_parts: list[bytes] = []
    data_off = 0
    for s in segs:
        size = 0 if s.data is None else int(s.nbytes)
        seg_parts.append(_SEG.pack(int(s.phys), int(s.nbytes), data_off if size else 0, size,
                                   len(s.name.encode("utf-8"))) + s.name.encode("utf-8"))
        if s.data is not None:
            data_parts.append(s.data.tobytes())
        data_off += size
    table = [*module.args, *module.copies]
    quantized = any(a.quant is not None for a in table)
    table_version = ARG_TABLE_VERSION if module.copies else \
        _QUANTIZED_TABLE_VERSION if quantized else _UNQUANTIZED_TABLE_VERSION
    index = {a.name: i for i, a in enumerate(module.args)}
    arg_parts = [_ARGS_HEAD.pack(table_version, 0)]
    for a in table:
        arg_parts.append(_name_bytes(a.name))
        arg_parts.append(_ARG.pack(DIRECTIONS.index(a.direction), DTYPE_CODES[a.dtype],
                                   DTYPE_CODES[a.packed_dtype], len(a.shape), len(a.split_shape),
                                   0, 0, seg_index[a.segment], a.phys))
        dims = (*a.shape, *a.padded_shape, *a.split_shape)
        arg_parts.append(struct.pack(f"<{len(dims)}I", *dims))
        arg_parts.append(bytes(a.perm))
        arg_parts.append(_REPEAT_RANK.pack(len(a.repeat)))
        arg_parts.append(struct.pack(f"<{len(a.repeat)}I", *a.repeat))
        arg_parts.append(_WINDOW_RANK.pack(len(a.window)))
        arg_parts.append(struct.pack(f"<{len(a.window)}I", *a.window))
        if table_version >= 4:
            arg_parts.append(_QUANT_FLAG.pack(a.quant is not None))
            if a.quant is not None:
                arg_parts.append(_QUANT.pack(a.quant.scale, a.quant.zero_point))
        if table_version >= 5:
            arg_parts.append(_COPY_FLAG.pack(bool(a.copy_of)))
            if a.copy_of:
                arg_parts.append(_COPY_OF.pack(index[a.copy_of]))
    bodies = [
        (conf, 0),
        (runs, len(prog.runs)),
        (insn, prog.num_insns),
        (uops, sum(int(r.uop_words.size) for r in prog.runs)),
        (b"".join(seg_parts), len(segs)),
        (b"".join(data_parts), 0),
        (b"".join(arg_parts), len(table)),
    ]
    version = 2 if prog.layers else 1
    if prog.layers:
        bodies.append((_layer_section(prog), len(prog.layers)))
    tags = VERSION_SECTIONS[version]
    offset = _HEADER.size + _DIRENT.size * len(tags)
    directory = bytearray()
    for tag, (body, count) in zip(tags, bodies, strict=True):
        directory += _DIRENT.pack(tag, offset, len(body), count)
        offset += len(body)
    if offset > MAX_FILE_BYTES:
        raise BinaryFormatError(f"module of {offset} bytes exceeds the 4 GiB format limit")
    header = _HEADER.pack(MAGIC, version, len(tags), 0, module.base, offset, 0, 0)
    image = bytearray(header + directory + b"".join(b for b, _ in bodies))
    struct.pack_into("<I", image, _CRC_AT, _crc(image))
    return bytes(image)


def _layer_section(prog: Program) -> bytes:
    """The ``LAYR`` body: the names, then the layer of the instructions as ranges of
    consecutive instructions of one layer (in stream order, across runs)."""
    tags = prog.insn_layers().astype(np.int64)
    starts = np.flatnonzero(np.concatenate([[True], tags[1:] != tags[:-1]]))
    counts = np.diff(np.concatenate([starts, [tags.size]]))
    ranges = np.stack([counts, tags[starts]], axis=1).astype("<u4")
    return (b"".join(_name_bytes(n) for n in prog.layers) + _RANGE_COUNT.pack(len(starts))
            + ranges.tobytes())


def _crc(image: bytes | bytearray | memoryview) -> int:
    """CRC-32 (zlib) of every byte of the file except the CRC field itself."""
    view = memoryview(image)
    return zlib.crc32(view[_CRC_AT + 4:], zlib.crc32(view[:_CRC_AT])) & 0xFFFFFFFF


def write_vtab(module: BinaryModule, path_or_file: str | os.PathLike[str] | IO[bytes]) -> None:
    """Write ``module`` as a ``.vtab`` file (a path, or a binary file object)."""
    data = to_bytes(module)
    if isinstance(path_or_file, str | os.PathLike):
        try:
            # All at once: an interrupted or concurrent save never leaves a torn module.
            write_bytes(path_or_file, data)
        except OSError as e:
            raise VTAError(f"{os.fspath(path_or_file)}: cannot write module: {e}") from None
    else:
        path_or_file.write(data)


# ---------------------------------------------------------------------------------------------
# Reader


class _Cursor:
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
        (n,) = self.unpack(_NAME_LEN, f"{what} name length")
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


def from_bytes(data: bytes | bytearray | memoryview, config: VTAConfig | None = None
               ) -> BinaryModule:
    """Parse and check a ``.vtab`` image.  ``config``, if given, must describe the same hardware.

    Raises :class:`BinaryFormatError` (one line) for any truncated, oversized, corrupt or
    inconsistent image.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise BinaryFormatError(f"expected bytes, got {type(data).__name__}")
    buf = bytes(data)
    n = len(buf)
    if n < _HEADER.size:
        raise BinaryFormatError(
            f"truncated module: {n} bytes, the header alone is {_HEADER.size}"
            if buf[:len(MAGIC)] == MAGIC[:min(n, len(MAGIC))]
            else "not a VTA module (bad magic)"
        )
    magic, version, nsec, flags, base, size, crc, reserved = _HEADER.unpack_from(buf, 0)
    if magic != MAGIC:
        raise BinaryFormatError("not a VTA module (bad magic)")
    if version not in VERSION_SECTIONS:
        raise BinaryFormatError(
            f"unsupported module format version {version} (this reader understands "
            f"versions 1 to {FORMAT_VERSION})"
        )
    tags = VERSION_SECTIONS[version]
    if size > n:
        raise BinaryFormatError(f"truncated module: header says {size} bytes, got {n}")
    if size < n:
        raise BinaryFormatError(f"{n - size} trailing byte(s) after the {size}-byte module")
    if _crc(buf) != crc:
        raise BinaryFormatError(
            f"checksum mismatch (stored {crc:#010x}, computed {_crc(buf):#010x}): "
            "the module is corrupt"
        )
    if flags != 0 or reserved != 0:
        raise BinaryFormatError(f"unknown header flags {flags:#x} / reserved field {reserved:#x}")
    if nsec != len(tags):
        raise BinaryFormatError(
            f"{nsec} sections, a version-{version} module has {len(tags)}"
        )
    sections: dict[bytes, tuple[int, int, int]] = {}
    expect = _HEADER.size + _DIRENT.size * nsec
    if expect > size:
        raise BinaryFormatError(f"truncated module: the section directory ends at {expect}")
    for i, want in enumerate(tags):
        tag, off, length, count = _DIRENT.unpack_from(buf, _HEADER.size + i * _DIRENT.size)
        if tag != want:
            raise BinaryFormatError(f"section {i} is {tag!r}, expected {want.decode()}")
        label = want.decode()
        if off != expect:
            raise BinaryFormatError(f"section {label} starts at {off}, expected {expect}")
        if off + length > size:
            raise BinaryFormatError(
                f"section {label} of {length} bytes at offset {off} runs past the end ({size})"
            )
        sections[want] = (off, length, count)
        expect = off + length
    if expect != size:
        raise BinaryFormatError(f"{size - expect} byte(s) after the last section")

    def section(tag: bytes) -> tuple[int, int, int]:
        return sections[tag]

    # CONF
    off, length, count = section(b"CONF")
    if count != 0:
        raise BinaryFormatError(f"section CONF: count {count} must be 0")
    if length > MAX_CONFIG_BYTES:
        raise BinaryFormatError(f"section CONF: {length} bytes of configuration is too large")
    try:
        text = buf[off:off + length].decode("utf-8")
        cfg = VTAConfig.from_json(text, source="module configuration")
    except UnicodeDecodeError:
        raise BinaryFormatError("section CONF: configuration is not UTF-8") from None
    except ConfigError as e:
        raise BinaryFormatError(str(e)) from None
    if config is not None and not config.same_hardware(cfg):
        raise BinaryFormatError(
            f"module was built for {cfg.bitstream}, expected {config.bitstream}"
        )

    # RUNS, INSN, UOPS
    off, length, nruns = section(b"RUNS")
    if length != nruns * _RUN.size:
        raise BinaryFormatError(
            f"section RUNS: {nruns} runs need {nruns * _RUN.size} bytes, section has {length}"
        )
    run_rows = [_RUN.unpack_from(buf, off + i * _RUN.size) for i in range(nruns)]
    ioff, ilen, icount = section(b"INSN")
    if ilen != icount * _INSN_BYTES:
        raise BinaryFormatError(
            f"section INSN: {icount} instructions need {icount * _INSN_BYTES} bytes, "
            f"section has {ilen}"
        )
    uoff, ulen, ucount = section(b"UOPS")
    if ulen != ucount * _UOP_BYTES:
        raise BinaryFormatError(
            f"section UOPS: {ucount} micro-ops need {ucount * _UOP_BYTES} bytes, "
            f"section has {ulen}"
        )
    total_i = sum(r[0] for r in run_rows)
    total_u = sum(r[1] for r in run_rows)
    if total_i != icount:
        raise BinaryFormatError(f"run table counts {total_i} instructions, section INSN has "
                                f"{icount}")
    if total_u != ucount:
        raise BinaryFormatError(f"run table counts {total_u} micro-ops, section UOPS has {ucount}")
    runs: list[Run] = []
    ipos, upos = ioff, uoff
    for r, (ni, nu, ubase) in enumerate(run_rows):
        raw = buf[ipos:ipos + ni * _INSN_BYTES]
        try:
            insns: list[Insn] = decode_insns(raw, cfg)
        except EncodingError as e:
            raise BinaryFormatError(f"run {r}: {e}") from None
        words = np.frombuffer(buf, dtype="<u4", count=nu, offset=upos).astype(np.uint32)
        runs.append(Run(insns, words, ubase))
        ipos += ni * _INSN_BYTES
        upos += nu * _UOP_BYTES

    # SEGS, DATA
    soff, slen, nseg = section(b"SEGS")
    doff, dlen, dcount = section(b"DATA")
    if dcount != 0:
        raise BinaryFormatError(f"section DATA: count {dcount} must be 0")
    if nseg * (_SEG.size + 1) > slen:
        raise BinaryFormatError(
            f"section SEGS: {nseg} segments need at least {nseg * (_SEG.size + 1)} bytes, "
            f"section has {slen}"
        )
    cur = _Cursor(buf, soff, soff + slen, "SEGS")
    segments: list[Segment] = []
    data_next = 0
    last_phys = -1
    for i in range(nseg):
        phys, nbytes, dpos, dsize, name_len = cur.unpack(_SEG, f"segment {i}")
        raw_name = cur.bytes(name_len, f"segment {i} name")
        try:
            name = raw_name.decode("utf-8")
        except UnicodeDecodeError:
            raise BinaryFormatError(f"section SEGS: segment {i} name is not UTF-8") from None
        what = f"segment '{name}'"
        if phys < last_phys:
            raise BinaryFormatError(f"{what} at {phys:#x} is out of address order")
        last_phys = phys
        contents = None
        if dsize:
            if dsize != nbytes:
                raise BinaryFormatError(
                    f"{what}: {dsize} bytes of contents for a {nbytes}-byte segment"
                )
            if dpos != data_next:
                raise BinaryFormatError(
                    f"{what}: contents at DATA offset {dpos}, expected {data_next}"
                )
            if dpos + dsize > dlen:
                raise BinaryFormatError(
                    f"{what}: contents [{dpos}, +{dsize}) run past the {dlen}-byte DATA section"
                )
            contents = np.frombuffer(buf, dtype=np.uint8, count=dsize, offset=doff + dpos).copy()
            data_next += dsize
        elif dpos != 0:
            raise BinaryFormatError(f"{what}: DATA offset {dpos} without contents")
        segments.append(Segment(name, phys, nbytes, contents))
    cur.done()
    if data_next != dlen:
        raise BinaryFormatError(
            f"section DATA: {dlen - data_next} byte(s) not owned by any segment"
        )

    # ARGS
    aoff, alen, nargs = section(b"ARGS")
    cur = _Cursor(buf, aoff, aoff + alen, "ARGS")
    table_version, table_reserved = cur.unpack(_ARGS_HEAD, "table header")
    if table_version < 1 or table_version > ARG_TABLE_VERSION:
        raise BinaryFormatError(
            f"unsupported argument table version {table_version} (this reader understands "
            f"versions 1 to {ARG_TABLE_VERSION})"
        )
    if table_reserved != 0:
        raise BinaryFormatError(f"section ARGS: reserved field {table_reserved:#x} is not 0")
    minimum = _NAME_LEN.size + 1 + _ARG.size + 4 * 3 + 1
    if table_version >= 2:
        minimum += _REPEAT_RANK.size
    if table_version >= 3:
        minimum += _WINDOW_RANK.size
    if table_version >= 4:
        minimum += _QUANT_FLAG.size
    if table_version >= 5:
        minimum += _COPY_FLAG.size
    if nargs * minimum > alen - _ARGS_HEAD.size:
        raise BinaryFormatError(
            f"section ARGS: {nargs} arguments need at least {nargs * minimum} bytes, "
            f"section has {alen - _ARGS_HEAD.size}"
        )
    args: list[ArgSpec] = []
    copies: list[ArgSpec] = []
    for i in range(nargs):
        name = cur.name(f"argument {i}")
        (direction, dtype, pdtype, rank, srank, r8, r16, seg_i, phys) = cur.unpack(
            _ARG, f"argument {i}")
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
            (nrepeat,) = cur.unpack(_REPEAT_RANK, f"{what} repeat rank")
            repeat = cur.dims(nrepeat, f"{what} repeat")
        window: tuple[int, ...] = ()
        if table_version >= 3:
            (nwindow,) = cur.unpack(_WINDOW_RANK, f"{what} window rank")
            window = cur.dims(nwindow, f"{what} window")
        quant: Quantization | None = None
        if table_version >= 4:
            (flag,) = cur.unpack(_QUANT_FLAG, f"{what} quantization flag")
            if flag > 1:
                raise BinaryFormatError(f"{what}: quantization flag {flag} is not 0 or 1")
            if flag:
                scale, zero_point = cur.unpack(_QUANT, f"{what} quantization")
                try:
                    quant = Quantization(scale, zero_point)
                except BinaryFormatError as e:
                    raise BinaryFormatError(f"{what}: {e}") from None
        copy_of = ""
        if table_version >= 5:
            (flag,) = cur.unpack(_COPY_FLAG, f"{what} copy flag")
            if flag > 1:
                raise BinaryFormatError(f"{what}: copy flag {flag} is not 0 or 1")
            if flag:
                (source,) = cur.unpack(_COPY_OF, f"{what} copied argument")
                if source >= len(args):
                    raise BinaryFormatError(
                        f"{what}: copies record {source}, which is not an argument before it"
                    )
                copy_of = args[source].name
            elif copies:
                raise BinaryFormatError(
                    f"{what}: an argument record after a copy (the copies come last)"
                )
        if seg_i >= len(segments):
            raise BinaryFormatError(
                f"{what}: segment index {seg_i} is out of range ({len(segments)} segments)"
            )
        spec = ArgSpec(name, DIRECTIONS[direction], DTYPE_NAMES[dtype], shape, padded, split,
                       perm, DTYPE_NAMES[pdtype], segments[seg_i].name, phys, repeat, window,
                       quant, copy_of)
        (copies if copy_of else args).append(spec)
    cur.done()

    layers = _read_layers(buf, sections[LAYER_SECTION], runs) if version >= 2 else []
    module = BinaryModule(cfg, Program(runs, segments, layers), args, base, copies)
    check_module(module, encode=False)
    return module


def _read_layers(buf: bytes, section: tuple[int, int, int], runs: list[Run]) -> list[str]:
    """The layer names of a ``LAYR`` section; sets each run's layer tags."""
    off, length, nlayers = section
    cur = _Cursor(buf, off, off + length, "LAYR")
    if nlayers == 0:
        raise BinaryFormatError("section LAYR: a version-2 module names at least one layer")
    minimum = nlayers * (_NAME_LEN.size + 1) + _RANGE_COUNT.size
    if minimum > length:
        raise BinaryFormatError(
            f"section LAYR: {nlayers} layers need at least {minimum} bytes, section has {length}"
        )
    names = [cur.name(f"layer {i}") for i in range(nlayers)]
    (nranges,) = cur.unpack(_RANGE_COUNT, "range count")
    if nranges * _RANGE.size != cur.end - cur.pos:
        raise BinaryFormatError(
            f"section LAYR: {nranges} ranges need {nranges * _RANGE.size} bytes, "
            f"{cur.end - cur.pos} are left"
        )
    ranges = np.frombuffer(buf, dtype="<u4", count=2 * nranges, offset=cur.pos)
    ranges = ranges.reshape(nranges, 2).astype(np.int64)
    counts, layer_of = ranges[:, 0], ranges[:, 1]
    total = sum(len(r.insns) for r in runs)
    if nranges and int(counts.min()) == 0:
        raise BinaryFormatError(f"section LAYR: range {int(np.argmin(counts))} is empty")
    if int(counts.sum()) != total:
        raise BinaryFormatError(
            f"section LAYR: the ranges cover {int(counts.sum())} instructions, the module has "
            f"{total}"
        )
    if nranges and int(layer_of.max()) >= nlayers:
        bad = int(np.argmax(layer_of >= nlayers))
        raise BinaryFormatError(
            f"section LAYR: range {bad} has layer {int(layer_of[bad])}, only {nlayers} are named"
        )
    same = np.flatnonzero(layer_of[1:] == layer_of[:-1])
    if same.size:
        raise BinaryFormatError(
            f"section LAYR: ranges {int(same[0])} and {int(same[0]) + 1} are of the same layer "
            "(consecutive instructions of one layer are one range)"
        )
    flat = np.repeat(layer_of, counts).astype(np.int32)
    at = 0
    for run in runs:
        run.layers = flat[at:at + len(run.insns)]
        at += len(run.insns)
    return names


def read_vtab(path_or_file: str | os.PathLike[str] | IO[bytes],
              config: VTAConfig | None = None) -> BinaryModule:
    """Read and check a ``.vtab`` file (a path or a binary file object); see :func:`from_bytes`.

    Errors name the file: ``gemm.vtab: truncated module: ...``.
    """
    if isinstance(path_or_file, str | os.PathLike):
        label = os.fspath(path_or_file)
        try:
            with open(path_or_file, "rb") as f:
                data = _read_capped(f, label)
        except OSError as e:
            raise BinaryFormatError(f"{label}: cannot read module: {e.strerror or e}") from None
    else:
        label = str(getattr(path_or_file, "name", "<module>"))
        data = _read_capped(path_or_file, label)
    try:
        return from_bytes(data, config)
    except BinaryFormatError as e:
        raise BinaryFormatError(f"{label}: {e}") from None


def _read_capped(f: IO[bytes] | io.BufferedIOBase, label: str) -> bytes:
    try:
        too_big = os.fstat(f.fileno()).st_size > MAX_FILE_BYTES
    except (OSError, AttributeError, io.UnsupportedOperation):
        too_big = False
    if too_big:
        raise BinaryFormatError(f"{label}: larger than the 4 GiB format limit")
    data = f.read(MAX_FILE_BYTES + 1)
    if not isinstance(data, bytes | bytearray):
        raise BinaryFormatError(f"{label}: not opened in binary mode")
    if len(data) > MAX_FILE_BYTES:
        raise BinaryFormatError(f"{label}: larger than the 4 GiB format limit")
    return bytes(data)
