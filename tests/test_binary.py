"""Binary module format (.vtab): byte-identical round trips, the header layout, the example of
docs/binary-format.md, repeated arguments and the argument tables of earlier versions."""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
import pytest

from vta_mlir.binary import (
    MAGIC,
    SECTION_TAGS,
    BinaryModule,
    from_bytes,
    read_vtab,
    to_bytes,
    write_vtab,
)
from vta_mlir.config import SHIPPED_CONFIGS
from vta_mlir.program import Program

from .binary_helpers import (
    BASE,
    CONFIGS,
    DEFAULT,
    DIRENT,
    HEADER,
    args_records,
    bias_module,
    doc_example_module,
    rejects,
    section,
    small_module,
    with_args_section,
)

# ---------------------------------------------------------------------------------------------
# Round trips


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_round_trip_is_byte_identical(name: str, tmp_path) -> None:
    cfg = CONFIGS[name]
    mod = small_module(cfg)
    data = to_bytes(mod)
    path = tmp_path / "m.vtab"
    write_vtab(mod, path)
    assert path.read_bytes() == data
    back = read_vtab(path, cfg)
    assert to_bytes(back) == data
    assert back.base == BASE
    assert back.config.to_dict() == cfg.to_dict()
    assert back.args == mod.args
    assert [r.insns for r in back.program.runs] == [r.insns for r in mod.program.runs]
    assert [r.uop_base for r in back.program.runs] == [r.uop_base for r in mod.program.runs]
    np.testing.assert_array_equal(back.program.runs[0].uop_words, mod.program.runs[0].uop_words)
    for s, t in zip(back.program.segments, mod.program.segments, strict=True):
        assert (s.name, s.phys, s.nbytes) == (t.name, t.phys, t.nbytes)
        assert (s.data is None) == (t.data is None)
        if s.data is not None:
            np.testing.assert_array_equal(s.data, t.data)
    # file objects work too
    f = io.BytesIO()
    mod.save(f)
    assert f.getvalue() == data
    f.seek(0)
    assert BinaryModule.load(f).to_bytes() == data


def test_header_layout() -> None:
    mod = small_module(DEFAULT)
    data = to_bytes(mod)
    magic, version, nsec, flags, base, size, crc, reserved = struct.unpack_from(
        "<8sHHIIIII", data, 0)
    # Without layers a module is a version-1 file (seven sections).
    assert magic == MAGIC and version == 1 and nsec == len(SECTION_TAGS)
    assert (flags, reserved, base, size) == (0, 0, BASE, len(data))
    assert crc == zlib.crc32(data[28:], zlib.crc32(data[:24])) & 0xFFFFFFFF
    expect = HEADER + DIRENT * len(SECTION_TAGS)
    for tag in SECTION_TAGS:
        _, off, length, _ = section(data, tag)
        assert off == expect
        expect += length
    assert expect == len(data)
    _, off, length, count = section(data, b"INSN")
    assert count == 7 and length == 16 * 7
    _, off, _, _ = section(data, b"ARGS")
    # Without a quantized argument the table is version 3, as before version 4 existed.
    assert struct.unpack_from("<HH", data, off) == (3, 0)
    _, off, length, _ = section(data, b"CONF")
    assert data[off:off + length].decode() == DEFAULT.to_json()


def test_segments_are_written_in_address_order() -> None:
    mod = small_module(DEFAULT)
    mod.program.segments.reverse()
    back = from_bytes(to_bytes(mod))
    phys = [s.phys for s in back.program.segments]
    assert phys == sorted(phys)


def test_empty_module_round_trips() -> None:
    mod = BinaryModule(DEFAULT, Program(), [], BASE)
    data = to_bytes(mod)
    assert to_bytes(from_bytes(data)) == data


# ---------------------------------------------------------------------------------------------
# The example of docs/binary-format.md is exactly what the writer produces


def test_documented_hexdump_matches_the_writer() -> None:
    from pathlib import Path

    doc = Path(__file__).resolve().parents[1] / "docs" / "binary-format.md"
    if not doc.is_file():
        pytest.skip("docs/binary-format.md is not part of this installation")
    dump = bytearray()
    for line in doc.read_text(encoding="utf-8").splitlines():
        if len(line) > 10 and line[8:10] == ": " and all(
                c in "0123456789abcdef" for c in line[:8]):
            dump += bytes.fromhex(line[10:50].replace(" ", ""))
    assert bytes(dump) == to_bytes(doc_example_module())


# ---------------------------------------------------------------------------------------------
# Repeated arguments (argument table version 2) and reading version-1 and version-2 tables


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
def test_repeated_argument_round_trips(name: str, tmp_path) -> None:
    cfg = CONFIGS[name]
    mod = bias_module(cfg)
    data = to_bytes(mod)
    back = from_bytes(data, cfg)
    assert back.args == mod.args
    assert back.args[2].repeat == (cfg.batch,)
    assert to_bytes(back) == data
    # The record ends with the repeat rank and dimensions, then the window rank (no window).
    assert data[-6:] == struct.pack("<BIB", 1, cfg.batch, 0)


def test_version_1_tables_are_still_read() -> None:
    mod = small_module(DEFAULT)
    data = to_bytes(mod)
    # Without repeat and window, a record ends with their two zero ranks.
    v1 = struct.pack("<HH", 1, 0) + b"".join(r[:-2] for r in args_records(data, mod.args))
    old = with_args_section(data, v1)
    back = from_bytes(old, DEFAULT)
    assert back.args == mod.args and all(a.repeat == () for a in back.args)
    # Written again, the module gets the newest table.
    assert to_bytes(back) == data
    # A version-1 record ends at its permutation: the rank bytes would be left over (and read
    # as the start of the next record).
    rejects(with_args_section(data, struct.pack("<HH", 1, 0) + b"".join(
        args_records(data, mod.args))), "unused byte|needs|reserved fields")


def test_version_2_tables_are_still_read() -> None:
    cfg = CONFIGS["batch2"]
    mod = bias_module(cfg)
    data = to_bytes(mod)
    v2 = struct.pack("<HH", 2, 0) + b"".join(r[:-1] for r in args_records(data, mod.args))
    back = from_bytes(with_args_section(data, v2), cfg)
    assert back.args == mod.args and all(a.window == () for a in back.args)
    assert back.args[2].repeat == (cfg.batch,)
    assert to_bytes(back) == data
    # A version-2 record ends at its repeat: the window rank byte would be left over.
    rejects(with_args_section(data, struct.pack("<HH", 2, 0) + b"".join(
        args_records(data, mod.args))), "unused byte|needs")
