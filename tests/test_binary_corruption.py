"""Binary module format (.vtab) robustness: every class of truncated, oversized, corrupt or
inconsistent file is rejected with a one-line BinaryFormatError, by the writer and by the
reader."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vta_mlir.binary import (
    ARG_TABLE_VERSION,
    FORMAT_VERSION,
    SECTION_TAGS,
    BinaryModule,
    from_bytes,
    read_vtab,
    to_bytes,
)
from vta_mlir.errors import BinaryFormatError
from vta_mlir.isa import FinishInsn, MemType
from vta_mlir.program import Run, Segment

from .binary_helpers import (
    BASE,
    CONFIGS,
    DEFAULT,
    SMALL_DEFAULT,
    args_records,
    bias_module,
    patch,
    recrc,
    rejects,
    section,
    small_module,
    unchecked_bytes,
    with_args_section,
)

# ---------------------------------------------------------------------------------------------
# Truncated, oversized and corrupt files


def test_every_truncation_is_rejected() -> None:
    data = to_bytes(small_module(DEFAULT))
    for n in range(len(data)):
        with pytest.raises(BinaryFormatError) as info:
            from_bytes(data[:n])
        assert "\n" not in str(info.value)


def test_trailing_bytes_are_rejected() -> None:
    data = to_bytes(small_module(DEFAULT))
    rejects(data + b"\0", "1 trailing byte")
    rejects(data + b"garbage", "trailing")


def test_bad_magic_and_future_versions() -> None:
    data = to_bytes(small_module(DEFAULT))
    rejects(b"PK\x03\x04" + data[4:], "bad magic")
    rejects(b"hello", "bad magic")
    rejects(patch(data, 8, "<H", FORMAT_VERSION + 1),
            f"unsupported module format version {FORMAT_VERSION + 1}")
    _, off, _, _ = section(data, b"ARGS")
    rejects(patch(data, off, "<H", ARG_TABLE_VERSION + 1),
            f"argument table version {ARG_TABLE_VERSION + 1}")
    rejects(patch(data, 12, "<I", 1), "unknown header flags")
    rejects(patch(data, 10, "<H", 8), "8 sections")


def test_checksum_catches_a_flipped_payload_byte() -> None:
    data = bytearray(to_bytes(small_module(DEFAULT)))
    data[-1] ^= 0x40
    rejects(bytes(data), "checksum mismatch")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_corruption_is_always_rejected(data: st.DataObject) -> None:
    image = bytearray(SMALL_DEFAULT)
    flips = data.draw(st.lists(st.tuples(st.integers(0, len(image) - 1), st.integers(1, 255)),
                               min_size=1, max_size=4, unique_by=lambda t: t[0]))
    for at, mask in flips:
        image[at] ^= mask
    with pytest.raises(BinaryFormatError) as info:
        from_bytes(bytes(image))
    assert "\n" not in str(info.value)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_corruption_behind_a_valid_checksum_never_escapes(data: st.DataObject) -> None:
    """With the CRC recomputed, every structural check is on its own: a mutated image either
    still describes a consistent module or is refused with BinaryFormatError — nothing else."""
    image = bytearray(SMALL_DEFAULT)
    flips = data.draw(st.lists(st.tuples(st.integers(8, len(image) - 1), st.integers(1, 255)),
                               min_size=1, max_size=3, unique_by=lambda t: t[0]))
    for at, mask in flips:
        image[at] ^= mask
    try:
        module = from_bytes(recrc(image))
    except BinaryFormatError as e:
        assert "\n" not in str(e)
    else:
        assert from_bytes(to_bytes(module)).args == module.args


@pytest.mark.parametrize("tag", [b"RUNS", b"INSN", b"UOPS", b"SEGS", b"ARGS"])
def test_huge_counts_are_rejected(tag: bytes) -> None:
    data = SMALL_DEFAULT
    at, _, _, _ = section(data, tag)
    rejects(patch(data, at + 12, "<I", 0xFFFFFFFF), "need|bytes|counts")


@pytest.mark.parametrize("tag", list(SECTION_TAGS))
def test_huge_section_sizes_are_rejected(tag: bytes) -> None:
    data = SMALL_DEFAULT
    at, _, _, _ = section(data, tag)
    rejects(patch(data, at + 8, "<I", 0xFFFFFFF0), "runs past the end|after the last")
    rejects(patch(data, at + 4, "<I", 0xFFFFFF00), "starts at")


def test_huge_file_size_and_segment_sizes_are_rejected() -> None:
    data = SMALL_DEFAULT
    rejects(patch(data, 20, "<I", 0xFFFFFFFF), "truncated")
    _, off, _, _ = section(data, b"SEGS")
    # the first segment record: phys, nbytes, ...
    rejects(patch(data, off + 4, "<I", 0xFFFFFFFF), "exceeds the 32-bit address space|overlap")
    rejects(patch(data, off + 16, "<H", 0xFFFF), "needs 65535 bytes")


def test_absurd_dram_footprint_is_rejected() -> None:
    mod = small_module(DEFAULT)
    mod.program.segments.append(Segment("huge", 0x1000_0000, 0x8000_0000))
    with pytest.raises(BinaryFormatError, match="more than the 1024 MiB limit"):
        to_bytes(mod)


def test_wrong_configuration_is_rejected() -> None:
    data = to_bytes(small_module(DEFAULT))
    rejects(data, "built for 1x16_i8w8a32_15_15_18_17, expected 1x32", config=CONFIGS["block32"])
    assert from_bytes(data, DEFAULT).config.same_hardware(DEFAULT)
    # a configuration JSON that is not a configuration
    _, off, length, _ = section(data, b"CONF")
    bad = data[:off] + b"{" + b" " * (length - 1) + data[off + length:]
    rejects(recrc(bad), "not valid JSON")


def test_read_vtab_names_the_file(tmp_path) -> None:
    path = tmp_path / "bad.vtab"
    path.write_bytes(SMALL_DEFAULT[:100])
    with pytest.raises(BinaryFormatError, match=r"bad\.vtab: truncated"):
        read_vtab(path)
    with pytest.raises(BinaryFormatError, match="cannot read"):
        read_vtab(tmp_path / "missing.vtab")


# ---------------------------------------------------------------------------------------------
# Inconsistent modules: rejected by the writer, and by the reader when written unchecked


def _bad_cases() -> list[tuple[str, object, str]]:
    def unaligned(m: BinaryModule) -> None:
        m.program.segments[2].phys += 64

    def overlapping(m: BinaryModule) -> None:
        m.program.segments[2].phys = m.program.segments[1].phys

    def below_base(m: BinaryModule) -> None:
        m.base = m.program.segments[-1].phys + 4096

    def outside(m: BinaryModule) -> None:
        m.args[0] = m.args[0].placed(m.args[0].segment, m.args[0].phys + 4096)

    def size_mismatch(m: BinaryModule) -> None:
        m.program.segments[0].nbytes -= 1

    def undecodable(m: BinaryModule) -> None:
        m.program.runs[0].insns[2] = _Opcode7()

    def no_finish(m: BinaryModule) -> None:
        m.program.runs[0].insns.pop()

    def early_finish(m: BinaryModule) -> None:
        m.program.runs[0].insns.insert(0, FinishInsn())

    def staging_outside(m: BinaryModule) -> None:
        m.program.runs[0].uop_base = BASE + 0x100000

    def staging_in_argument(m: BinaryModule) -> None:
        m.program.runs[0].uop_base = m.args[0].phys

    def dram_outside(m: BinaryModule) -> None:
        m.program.runs[0].insns[0].dram_base = 0x10  # type: ignore[union-attr]

    def store_wrong_type(m: BinaryModule) -> None:
        m.program.runs[0].insns[3].memory_type = MemType.ACC  # type: ignore[union-attr]

    def uop_outside_staging(m: BinaryModule) -> None:
        m.program.runs[0].insns[1].x_size = 3  # type: ignore[union-attr]

    def duplicate_segment(m: BinaryModule) -> None:
        seg = m.program.segments[2]
        m.program.segments.append(Segment(seg.name, seg.phys + 0x100000, 4))

    def constant_argument(m: BinaryModule) -> None:
        seg = m.program.segments[0]
        seg.data = np.zeros(seg.nbytes, dtype=np.uint8)

    def empty_run(m: BinaryModule) -> None:
        m.program.runs.append(Run([]))

    return [
        ("unaligned segment", unaligned, "not 4 KiB-aligned"),
        ("overlapping segments", overlapping, "overlap"),
        ("segment below base", below_base, "below the module base"),
        ("argument outside its segment", outside, "points outside"),
        ("packed size != segment size", size_mismatch, "differs from the size"),
        ("instruction does not decode", undecodable, "unknown opcode 7"),
        ("run without FINISH", no_finish, "does not end in FINISH"),
        ("FINISH before the end", early_finish, "FINISH at instruction 0"),
        ("uop staging outside segments", staging_outside, "not inside a segment"),
        ("uop staging in an argument", staging_in_argument, "holds constants or an argument"),
        ("DRAM access outside segments", dram_outside, "outside every segment"),
        ("STORE of a non-OUT buffer", store_wrong_type, "only OUT"),
        ("LOAD UOP outside staging", uop_outside_staging, "staging region"),
        ("duplicate segment name", duplicate_segment, "defined twice"),
        ("constant argument segment", constant_argument, "constant contents"),
        ("empty run", empty_run, "no instructions"),
    ]


class _Opcode7(FinishInsn):
    """An instruction whose opcode field reads 7 (no such opcode)."""

    @property
    def opcode(self) -> int:
        return 7


@pytest.mark.parametrize("case", _bad_cases(), ids=lambda c: c[0])
def test_inconsistent_modules_are_rejected(case, monkeypatch: pytest.MonkeyPatch) -> None:
    _, mutate, match = case
    mod = small_module(DEFAULT)
    mutate(mod)
    if match == "unknown opcode 7":
        # the writer cannot encode it at all; the reader must refuse its words
        with pytest.raises(BinaryFormatError):
            to_bytes(mod)
        good = SMALL_DEFAULT
        _, off, _, _ = section(good, b"INSN")
        buf = bytearray(good)
        buf[off + 2 * 16] = (buf[off + 2 * 16] & ~7) | 7
        rejects(recrc(buf), match)
        return
    with pytest.raises(BinaryFormatError, match=match) as info:
        to_bytes(mod)
    assert "\n" not in str(info.value)
    if match in ("no instructions",):
        return
    rejects(unchecked_bytes(mod, monkeypatch), match)


def test_unknown_dtype_and_direction_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    data = SMALL_DEFAULT
    _, off, _, _ = section(data, b"ARGS")
    rec = off + 4 + 2 + 1  # table header, name length, name 'a'
    rejects(patch(data, rec, "<B", 9), "unknown direction code 9")
    rejects(patch(data, rec + 1, "<B", 77), "unknown dtype code 77")
    rejects(patch(data, rec + 3, "<B", 0), "rank 0")
    rejects(patch(data, rec + 8, "<I", 99), "segment index 99")


# ---------------------------------------------------------------------------------------------
# Corrupt repeat fields of the argument table


def test_corrupt_repeat_fields_are_rejected() -> None:
    cfg = CONFIGS["batch2"]
    mod = bias_module(cfg)
    data = to_bytes(mod)
    rank_at = len(data) - 6  # repeat rank, one u32 dimension, then the window rank 0
    assert data[rank_at] == 1
    rejects(patch(data, rank_at + 1, "<I", 0), "repeat has dimension 0")
    rejects(patch(data, rank_at + 1, "<I", 3), r"does not reshape repeat \(3,\)")
    rejects(patch(data, rank_at, "<B", 2), r"bias' repeat needs 8 bytes")
    records = args_records(data, mod.args)
    no_repeat = bytes(records[2][:-6]) + struct.pack("<BB", 0, 0)
    rejects(with_args_section(data, data[section(data, b"ARGS")[1]:len(data) - len(records[2])]
                              + no_repeat), r"does not reshape padded shape \(48,\)")
    rejects(patch(data, rank_at, "<B", 255), "needs 1020 bytes")
    records = args_records(data, mod.args)
    # The bias declared 'out' (direction code 1) is refused: it could not be unpacked.
    bias = bytearray(records[2])
    bias[2 + len("bias")] = 1
    head = data[:len(data) - len(records[2])]
    rejects(recrc(head + bytes(bias)), "only allowed for 'in' arguments, not 'out'")
    # A repeated rank over 8: eight repeat dimensions of 1 over the rank-1 bias.
    wide = bytes(records[2][:-6]) + struct.pack("<B8IB", 8, *([1] * 8), 0)
    wide_data = with_args_section(data, data[section(data, b"ARGS")[1]:len(data)
                                             - len(records[2])] + wide)
    rejects(wide_data, "has rank 9, more than 8")
