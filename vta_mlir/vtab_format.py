"""The layout of a ``.vtab`` file (``docs/binary-format.md``): magic, versions, section tags,
size limits and the ``struct`` layouts of its records, shared by the writer
(:mod:`vta_mlir.binary`) and the reader (:mod:`vta_mlir.vtab_reader`)."""

from __future__ import annotations

import struct
import zlib

__all__ = [
    "ARG",
    "ARGS_HEAD",
    "ARG_TABLE_VERSION",
    "COPY_TABLE_VERSION",
    "CRC_AT",
    "DEFAULT_BASE",
    "DIRENT",
    "FORMAT_VERSION",
    "HEADER",
    "HOST_SECTION",
    "HOST_STEP",
    "INSN_BYTES",
    "LAYER_SECTION",
    "MAGIC",
    "MAX_CONFIG_BYTES",
    "MAX_FILE_BYTES",
    "NAME_LEN",
    "COPY_FLAG",
    "COPY_OF",
    "QUANT",
    "PARTS_TABLE_VERSION",
    "QUANTIZED_TABLE_VERSION",
    "QUANT_FLAG",
    "RANGE",
    "RANGE_COUNT",
    "REPEAT_RANK",
    "RUN",
    "SECTION_TAGS",
    "SEG",
    "TEXT_LEN",
    "UNQUANTIZED_TABLE_VERSION",
    "UOP_BYTES",
    "VERSION_SECTIONS",
    "WINDOW_RANK",
    "crc",
]

MAGIC = b"\x89VTAB\r\n\x1a"
#: Newest version of the container (header, directory, sections) this code reads and writes:
#: version 2 adds the ``LAYR`` section, written only for a program with layers (without, the
#: file is version 1, byte for byte as before); version 3 adds the ``HOST`` section, written
#: only for a program with host steps.
FORMAT_VERSION = 3
#: Newest version of the argument table this code reads (version 2 appends the repeat
#: dimensions to each argument record, version 3 the window, version 4 the quantization,
#: version 5 the argument a copy packs, version 6 appends nothing but lets ``split_shape``
#: split each element into its parts, ``vta_mlir.abi.ArgSpec.parts``).  A table is written in
#: the oldest version that holds it: 3 without quantized arguments and copies, byte for byte
#: as before, 4 with quantized arguments only, 5 with copies, 6 with an argument split into
#: parts.
ARG_TABLE_VERSION = 6
#: The table version written when an argument is split into parts (an int32 result).
PARTS_TABLE_VERSION = 6
#: The table version written when an argument is copied (and none is split into parts).
COPY_TABLE_VERSION = 5
#: The table version written when no argument is quantized.
UNQUANTIZED_TABLE_VERSION = 3
#: The table version written when an argument is quantized and none is copied.
QUANTIZED_TABLE_VERSION = 4
#: Base physical address used when none is given (16 MiB: clear of small ad-hoc allocations).
DEFAULT_BASE = 0x0100_0000
#: Sections of a version-1 file, in their mandatory order.
SECTION_TAGS: tuple[bytes, ...] = (b"CONF", b"RUNS", b"INSN", b"UOPS", b"SEGS", b"DATA", b"ARGS")
#: The section of a version-2 file after those: layer names and per-instruction layers.
LAYER_SECTION = b"LAYR"
#: The section of a version-3 file after those: the host steps.
HOST_SECTION = b"HOST"
#: Sections of each format version, in their mandatory order.
VERSION_SECTIONS: dict[int, tuple[bytes, ...]] = {
    1: SECTION_TAGS,
    2: (*SECTION_TAGS, LAYER_SECTION),
    3: (*SECTION_TAGS, LAYER_SECTION, HOST_SECTION),
}

#: Largest file accepted (all offsets and sizes are unsigned 32-bit).
MAX_FILE_BYTES = (1 << 32) - 1
#: Largest configuration JSON accepted.
MAX_CONFIG_BYTES = 1 << 16

HEADER = struct.Struct("<8sHHIIIII")  # magic version nsections flags base size crc reserved
DIRENT = struct.Struct("<4sIII")  # tag offset size count
RUN = struct.Struct("<III")  # insn_count uop_count uop_base
SEG = struct.Struct("<IIIIH")  # phys nbytes data_offset data_size name_len
ARGS_HEAD = struct.Struct("<HH")  # table version, reserved
ARG = struct.Struct("<BBBBBBHII")  # dir dtype packed rank srank res8 res16 segment phys
REPEAT_RANK = struct.Struct("<B")  # table version 2: number of repeat dimensions
WINDOW_RANK = struct.Struct("<B")  # table version 3: number of window fields (0 or 8)
QUANT_FLAG = struct.Struct("<B")  # table version 4: 1 if quantized, else 0
QUANT = struct.Struct("<di")  # table version 4, after a flag 1: scale, zero point
COPY_FLAG = struct.Struct("<B")  # table version 5: 1 if the record is a copy, else 0
COPY_OF = struct.Struct("<I")  # table version 5, after a flag 1: the copied record's index
RANGE_COUNT = struct.Struct("<I")  # LAYR: number of layer ranges
RANGE = struct.Struct("<II")  # LAYR: instruction count, layer index
HOST_STEP = struct.Struct("<II")  # HOST: runs before the step, number of buffers
TEXT_LEN = struct.Struct("<I")  # HOST: bytes of the step's function (UTF-8 MLIR)
CRC_AT = 24
INSN_BYTES = 16
UOP_BYTES = 4
NAME_LEN = struct.Struct("<H")


def crc(image: bytes | bytearray | memoryview) -> int:
    """CRC-32 (zlib) of every byte of the file except the CRC field itself."""
    view = memoryview(image)
    return zlib.crc32(view[CRC_AT + 4:], zlib.crc32(view[:CRC_AT])) & 0xFFFFFFFF
