"""The ``.vtab`` reader: a file image to a checked :class:`~vta_mlir.binary.BinaryModule`.

:func:`from_bytes` checks the container itself — magic, versions, CRC, section sizes and
order, truncation, record counts against the bytes that back them — before it trusts any
field, never reads outside the buffer and never allocates more than the buffer holds.  What
the file holds is then checked as a program: its ``vtaisa.program`` is built and verified
(:func:`vta_mlir.binary_checks.check_module`; SRAM bounds are left to
``sram_index_problems``).  Every defect is one line of
:class:`~vta_mlir.errors.BinaryFormatError`.
"""

from __future__ import annotations

import io
import os
from typing import IO

import numpy as np

from vta_mlir.abi import ArgSpec
from vta_mlir.binary import BinaryModule
from vta_mlir.binary_checks import check_module
from vta_mlir.config import VTAConfig
from vta_mlir.errors import BinaryFormatError, ConfigError, EncodingError
from vta_mlir.isa import Insn, decode_insns
from vta_mlir.program import HostStep, Program, Run, Segment
from vta_mlir.vtab_format import (
    ARG,
    ARG_TABLE_VERSION,
    ARGS_HEAD,
    COPY_FLAG,
    DIRENT,
    FORMAT_VERSION,
    HEADER,
    HOST_SECTION,
    INSN_BYTES,
    LAYER_SECTION,
    MAGIC,
    MAX_CONFIG_BYTES,
    MAX_FILE_BYTES,
    NAME_LEN,
    QUANT_FLAG,
    RANGE,
    RANGE_COUNT,
    REPEAT_RANK,
    RUN,
    SEG,
    UOP_BYTES,
    VERSION_SECTIONS,
    WINDOW_RANK,
    crc,
)
from vta_mlir.vtab_records import Cursor, read_arg_record, read_host_section

__all__ = ["from_bytes", "read_vtab"]

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
    if n < HEADER.size:
        raise BinaryFormatError(
            f"truncated module: {n} bytes, the header alone is {HEADER.size}"
            if buf[:len(MAGIC)] == MAGIC[:min(n, len(MAGIC))]
            else "not a VTA module (bad magic)"
        )
    magic, version, nsec, flags, base, size, stored, reserved = HEADER.unpack_from(buf, 0)
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
    if crc(buf) != stored:
        raise BinaryFormatError(
            f"checksum mismatch (stored {stored:#010x}, computed {crc(buf):#010x}): "
            "the module is corrupt"
        )
    if flags != 0 or reserved != 0:
        raise BinaryFormatError(f"unknown header flags {flags:#x} / reserved field {reserved:#x}")
    if nsec != len(tags):
        raise BinaryFormatError(
            f"{nsec} sections, a version-{version} module has {len(tags)}"
        )
    sections: dict[bytes, tuple[int, int, int]] = {}
    expect = HEADER.size + DIRENT.size * nsec
    if expect > size:
        raise BinaryFormatError(f"truncated module: the section directory ends at {expect}")
    for i, want in enumerate(tags):
        tag, off, length, count = DIRENT.unpack_from(buf, HEADER.size + i * DIRENT.size)
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
    if length != nruns * RUN.size:
        raise BinaryFormatError(
            f"section RUNS: {nruns} runs need {nruns * RUN.size} bytes, section has {length}"
        )
    run_rows = [RUN.unpack_from(buf, off + i * RUN.size) for i in range(nruns)]
    ioff, ilen, icount = section(b"INSN")
    if ilen != icount * INSN_BYTES:
        raise BinaryFormatError(
            f"section INSN: {icount} instructions need {icount * INSN_BYTES} bytes, "
            f"section has {ilen}"
        )
    uoff, ulen, ucount = section(b"UOPS")
    if ulen != ucount * UOP_BYTES:
        raise BinaryFormatError(
            f"section UOPS: {ucount} micro-ops need {ucount * UOP_BYTES} bytes, "
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
        raw = buf[ipos:ipos + ni * INSN_BYTES]
        try:
            insns: list[Insn] = decode_insns(raw, cfg)
        except EncodingError as e:
            raise BinaryFormatError(f"run {r}: {e}") from None
        words = np.frombuffer(buf, dtype="<u4", count=nu, offset=upos).astype(np.uint32)
        runs.append(Run(insns, words, ubase))
        ipos += ni * INSN_BYTES
        upos += nu * UOP_BYTES

    # SEGS, DATA
    soff, slen, nseg = section(b"SEGS")
    doff, dlen, dcount = section(b"DATA")
    if dcount != 0:
        raise BinaryFormatError(f"section DATA: count {dcount} must be 0")
    if nseg * (SEG.size + 1) > slen:
        raise BinaryFormatError(
            f"section SEGS: {nseg} segments need at least {nseg * (SEG.size + 1)} bytes, "
            f"section has {slen}"
        )
    cur = Cursor(buf, soff, soff + slen, "SEGS")
    segments: list[Segment] = []
    data_next = 0
    last_phys = -1
    for i in range(nseg):
        phys, nbytes, dpos, dsize, name_len = cur.unpack(SEG, f"segment {i}")
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
    cur = Cursor(buf, aoff, aoff + alen, "ARGS")
    table_version, table_reserved = cur.unpack(ARGS_HEAD, "table header")
    if table_version < 1 or table_version > ARG_TABLE_VERSION:
        raise BinaryFormatError(
            f"unsupported argument table version {table_version} (this reader understands "
            f"versions 1 to {ARG_TABLE_VERSION})"
        )
    if table_reserved != 0:
        raise BinaryFormatError(f"section ARGS: reserved field {table_reserved:#x} is not 0")
    minimum = NAME_LEN.size + 1 + ARG.size + 4 * 3 + 1
    if table_version >= 2:
        minimum += REPEAT_RANK.size
    if table_version >= 3:
        minimum += WINDOW_RANK.size
    if table_version >= 4:
        minimum += QUANT_FLAG.size
    if table_version >= 5:
        minimum += COPY_FLAG.size
    if nargs * minimum > alen - ARGS_HEAD.size:
        raise BinaryFormatError(
            f"section ARGS: {nargs} arguments need at least {nargs * minimum} bytes, "
            f"section has {alen - ARGS_HEAD.size}"
        )
    args: list[ArgSpec] = []
    copies: list[ArgSpec] = []
    segment_names = [s.name for s in segments]
    for i in range(nargs):
        spec = read_arg_record(cur, i, table_version, segment_names, args, copies)
        if spec.parts > 1 and table_version < 6:
            raise BinaryFormatError(
                f"argument '{spec.name}': split into {spec.parts} parts per element, which "
                f"needs table version 6, not {table_version}"
            )
        (copies if spec.copy_of else args).append(spec)
    cur.done()

    layers = _read_layers(buf, sections[LAYER_SECTION], runs, version) if version >= 2 else []
    host_steps: list[HostStep] = []
    if version >= 3:
        hoff, hlen, nsteps = sections[HOST_SECTION]
        if nsteps == 0:
            raise BinaryFormatError("section HOST: a version-3 module has at least one host step")
        host_steps = read_host_section(Cursor(buf, hoff, hoff + hlen, "HOST"), nsteps,
                                       segment_names, len(runs))
    module = BinaryModule(cfg, Program(runs, segments, layers, host_steps), args, base, copies)
    check_module(module, encode=False)
    return module


def _read_layers(buf: bytes, section: tuple[int, int, int], runs: list[Run],
                 version: int) -> list[str]:
    """The layer names of a ``LAYR`` section; sets each run's layer tags.  A version-3 module
    without layers has an empty section (no names, no ranges)."""
    off, length, nlayers = section
    cur = Cursor(buf, off, off + length, "LAYR")
    if nlayers == 0 and version >= 3:
        (nranges,) = cur.unpack(RANGE_COUNT, "range count")
        if nranges:
            raise BinaryFormatError("section LAYR: ranges without layer names")
        cur.done()
        return []
    if nlayers == 0:
        raise BinaryFormatError("section LAYR: a version-2 module names at least one layer")
    minimum = nlayers * (NAME_LEN.size + 1) + RANGE_COUNT.size
    if minimum > length:
        raise BinaryFormatError(
            f"section LAYR: {nlayers} layers need at least {minimum} bytes, section has {length}"
        )
    names = [cur.name(f"layer {i}") for i in range(nlayers)]
    (nranges,) = cur.unpack(RANGE_COUNT, "range count")
    if nranges * RANGE.size != cur.end - cur.pos:
        raise BinaryFormatError(
            f"section LAYR: {nranges} ranges need {nranges * RANGE.size} bytes, "
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
