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

import os
import struct
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np

from vta_mlir import vtab_format as fmt
from vta_mlir.abi import ArgSpec
from vta_mlir.atomic_write import write_bytes
from vta_mlir.binary_checks import ADDRESS_LIMIT, check_module
from vta_mlir.config import PAGE_BYTES, VTAConfig
from vta_mlir.errors import BinaryFormatError, EncodingError, VTAError
from vta_mlir.isa import Insn, encode_insns
from vta_mlir.program import Program, Segment
from vta_mlir.vtab_format import (
    ARG_TABLE_VERSION,
    DEFAULT_BASE,
    FORMAT_VERSION,
    LAYER_SECTION,
    MAGIC,
    MAX_CONFIG_BYTES,
    MAX_FILE_BYTES,
    SECTION_TAGS,
    VERSION_SECTIONS,
)
from vta_mlir.vtab_records import arg_record, host_section, name_bytes

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
    #: Set when the module is known to be valid: serialised from a verified ``vtaisa.program``
    #: or read and checked.  :meth:`validate`, the writer and the device then trust it.
    #: Assigning any other field clears it; a part changed in place (a list appended to, an
    #: instruction edited) must have it cleared by hand.
    checked: bool = field(default=False, repr=False, compare=False)

    def __setattr__(self, name: str, value: Any) -> None:
        if name != "checked":
            object.__setattr__(self, "checked", False)
        object.__setattr__(self, name, value)

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
        """Raise :class:`BinaryFormatError` unless the module is a valid program: the verifiers
        of its ``vtaisa`` ops (:func:`vta_mlir.binary_checks.check_module`; ``encode`` is
        accepted for compatibility — the verifiers check every field's width)."""
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


def encode_run(insns: list[Insn], cfg: VTAConfig, where: str) -> bytes:
    """The instruction words of one run; encoding failures become BinaryFormatError."""
    try:
        return encode_insns(insns, cfg).tobytes()
    except (EncodingError, TypeError, AttributeError, KeyError) as e:
        raise BinaryFormatError(f"{where}: {e}") from None


def to_bytes(module: BinaryModule) -> bytes:
    """The ``.vtab`` image of ``module`` (checked first unless it is marked checked; segments
    written by address)."""
    check_module(module, encode=False)
    cfg, prog = module.config, module.program
    segs = sorted(prog.segments, key=lambda s: s.phys)
    seg_index = {s.name: i for i, s in enumerate(segs)}

    conf = cfg.to_json().encode("utf-8")
    if len(conf) > MAX_CONFIG_BYTES:
        raise BinaryFormatError(f"configuration JSON of {len(conf)} bytes is too large")
    runs = b"".join(fmt.RUN.pack(len(r.insns), int(r.uop_words.size), int(r.uop_base))
                    for r in prog.runs)
    insn = b"".join(encode_run(r.insns, cfg, f"run {i}") for i, r in enumerate(prog.runs))
    uops = b"".join(r.uop_words.astype("<u4").tobytes() for r in prog.runs)
    seg_parts: list[bytes] = []
    data_parts: list[bytes] = []
    data_off = 0
    for s in segs:
        size = 0 if s.data is None else int(s.nbytes)
        seg_parts.append(fmt.SEG.pack(int(s.phys), int(s.nbytes), data_off if size else 0, size,
                                   len(s.name.encode("utf-8"))) + s.name.encode("utf-8"))
        if s.data is not None:
            data_parts.append(s.data.tobytes())
        data_off += size
    table = [*module.args, *module.copies]
    quantized = any(a.quant is not None for a in table)
    table_version = fmt.PARTS_TABLE_VERSION if any(a.parts > 1 for a in table) else \
        fmt.COPY_TABLE_VERSION if module.copies else \
        fmt.QUANTIZED_TABLE_VERSION if quantized else fmt.UNQUANTIZED_TABLE_VERSION
    index = {a.name: i for i, a in enumerate(module.args)}
    arg_parts = [fmt.ARGS_HEAD.pack(table_version, 0)]
    arg_parts += [arg_record(a, table_version, seg_index, index) for a in table]
    bodies = [
        (conf, 0),
        (runs, len(prog.runs)),
        (insn, prog.num_insns),
        (uops, sum(int(r.uop_words.size) for r in prog.runs)),
        (b"".join(seg_parts), len(segs)),
        (b"".join(data_parts), 0),
        (b"".join(arg_parts), len(table)),
    ]
    version = 3 if prog.host_steps else 2 if prog.layers else 1
    if version >= 2:
        bodies.append((_layer_section(prog), len(prog.layers)))
    if version >= 3:
        bodies.append((host_section(prog.host_steps, seg_index), len(prog.host_steps)))
    tags = VERSION_SECTIONS[version]
    offset = fmt.HEADER.size + fmt.DIRENT.size * len(tags)
    directory = bytearray()
    for tag, (body, count) in zip(tags, bodies, strict=True):
        directory += fmt.DIRENT.pack(tag, offset, len(body), count)
        offset += len(body)
    if offset > MAX_FILE_BYTES:
        raise BinaryFormatError(f"module of {offset} bytes exceeds the 4 GiB format limit")
    header = fmt.HEADER.pack(MAGIC, version, len(tags), 0, module.base, offset, 0, 0)
    image = bytearray(header + directory + b"".join(b for b, _ in bodies))
    struct.pack_into("<I", image, fmt.CRC_AT, fmt.crc(image))
    return bytes(image)


def _layer_section(prog: Program) -> bytes:
    """The ``LAYR`` body: the names, then the layer of the instructions as ranges of
    consecutive instructions of one layer (in stream order, across runs)."""
    if not prog.layers:
        return fmt.RANGE_COUNT.pack(0)  # a version-3 module without layers
    tags = prog.insn_layers().astype(np.int64)
    starts = np.flatnonzero(np.concatenate([[True], tags[1:] != tags[:-1]]))
    counts = np.diff(np.concatenate([starts, [tags.size]]))
    ranges = np.stack([counts, tags[starts]], axis=1).astype("<u4")
    return (b"".join(name_bytes(n) for n in prog.layers) + fmt.RANGE_COUNT.pack(len(starts))
            + ranges.tobytes())


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
# Reader (vta_mlir.vtab_reader)


def from_bytes(data: bytes | bytearray | memoryview, config: VTAConfig | None = None
               ) -> BinaryModule:
    """Parse and check a ``.vtab`` image (:func:`vta_mlir.vtab_reader.from_bytes`)."""
    from vta_mlir.vtab_reader import from_bytes as read

    return read(data, config)


def read_vtab(path_or_file: str | os.PathLike[str] | IO[bytes],
              config: VTAConfig | None = None) -> BinaryModule:
    """Read and check a ``.vtab`` file (:func:`vta_mlir.vtab_reader.read_vtab`)."""
    from vta_mlir.vtab_reader import read_vtab as read

    return read(path_or_file, config)
