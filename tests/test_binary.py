"""Binary module format (.vtab) and argument packing: byte-identical round trips, rejection of
every class of truncated, oversized, corrupt or inconsistent file with a one-line
BinaryFormatError, and pack/unpack against the numpy recipes of docs/isa.md §1.6."""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vta_mlir import binary
from vta_mlir.abi import ArgSpec, ArgumentError, layout_tiles, tiled_packing
from vta_mlir.binary import (
    ARG_TABLE_VERSION,
    FORMAT_VERSION,
    MAGIC,
    SECTION_TAGS,
    BinaryModule,
    Linker,
    from_bytes,
    read_vtab,
    to_bytes,
    write_vtab,
)
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.errors import BinaryFormatError, VTAError
from vta_mlir.isa import AluInsn, AluKind, FinishInsn, MemInsn, MemType, Uop, encode_uops
from vta_mlir.program import Program, Run, Segment

CONFIGS = {name: VTAConfig.shipped(name) for name in SHIPPED_CONFIGS}
DEFAULT = CONFIGS["default"]
BASE = 0x40000
HEADER = 32
DIRENT = 16


# ---------------------------------------------------------------------------------------------
# A small module: one int32 input (LOAD ACC), an ALU kernel, an int8 output (STORE), a constant
# segment and a scratch micro-op staging segment.


def small_module(cfg: VTAConfig, shape: tuple[int, int] = (3, 40)) -> BinaryModule:
    link = Linker(BASE)
    a = link.argument(ArgSpec.for_layout("a", "in", "int32", shape, "NC", cfg))
    y = link.argument(ArgSpec.for_layout("y", "out", "int8", shape, "NC", cfg))
    link.segment("const", 100, np.arange(100, dtype=np.uint8))
    uops = link.segment("uops", 8)
    e = a.packed_nbytes // cfg.acc_elem_bytes
    insns = [
        MemInsn(memory_type=MemType.ACC, dram_base=a.phys // cfg.acc_elem_bytes, y_size=1,
                x_size=e, x_stride=e),
        MemInsn(memory_type=MemType.UOP, dram_base=uops.phys // 4, y_size=1, x_size=1,
                x_stride=1),
        AluInsn(alu_opcode=AluKind.SHR.opcode, use_imm=1, imm=1, uop_bgn=0, uop_end=1, iter_out=1,
                iter_in=e, dst_factor_in=1, src_factor_in=1, push_next_dep=1),
        MemInsn(is_store=1, memory_type=MemType.OUT, dram_base=y.phys // cfg.out_elem_bytes,
                y_size=1, x_size=e, x_stride=e, pop_prev_dep=1, push_prev_dep=1),
        MemInsn(memory_type=MemType.INP, push_next_dep=1),
        MemInsn(memory_type=MemType.UOP, pop_prev_dep=1, pop_next_dep=1),
        FinishInsn(),
    ]
    run = Run(insns, encode_uops([Uop(0, 0, 0)], cfg), uops.phys)
    return BinaryModule(cfg, Program([run], link.segments), [a, y], BASE)


def recrc(data: bytes | bytearray) -> bytes:
    """``data`` with its CRC field recomputed (to reach the checks behind the checksum)."""
    buf = bytearray(data)
    crc = zlib.crc32(bytes(buf[28:]), zlib.crc32(bytes(buf[:24]))) & 0xFFFFFFFF
    struct.pack_into("<I", buf, 24, crc)
    return bytes(buf)


def section(data: bytes, tag: bytes) -> tuple[int, int, int, int]:
    """(directory entry offset, section offset, size, count) of ``tag``."""
    i = SECTION_TAGS.index(tag)
    at = HEADER + i * DIRENT
    _, off, size, count = struct.unpack_from("<4sIII", data, at)
    return at, off, size, count


def patch(data: bytes, offset: int, fmt: str, *values: int) -> bytes:
    buf = bytearray(data)
    struct.pack_into(fmt, buf, offset, *values)
    return recrc(buf)


def rejects(data: bytes, match: str, **kw: object) -> str:
    with pytest.raises(BinaryFormatError, match=match) as info:
        from_bytes(data, **kw)  # type: ignore[arg-type]
    msg = str(info.value)
    assert "\n" not in msg
    return msg


def unchecked_bytes(module: BinaryModule, monkeypatch: pytest.MonkeyPatch) -> bytes:
    """Serialize ``module`` without the writer's consistency checks (to test the reader's)."""
    with monkeypatch.context() as m:
        m.setattr(binary, "check_module", lambda module, **kw: None)
        return to_bytes(module)


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
    image = bytearray(_SMALL_DEFAULT)
    flips = data.draw(st.lists(st.tuples(st.integers(0, len(image) - 1), st.integers(1, 255)),
                               min_size=1, max_size=4, unique_by=lambda t: t[0]))
    for at, mask in flips:
        image[at] ^= mask
    with pytest.raises(BinaryFormatError) as info:
        from_bytes(bytes(image))
    assert "\n" not in str(info.value)


_SMALL_DEFAULT = to_bytes(small_module(DEFAULT))


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_corruption_behind_a_valid_checksum_never_escapes(data: st.DataObject) -> None:
    """With the CRC recomputed, every structural check is on its own: a mutated image either
    still describes a consistent module or is refused with BinaryFormatError — nothing else."""
    image = bytearray(_SMALL_DEFAULT)
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
    data = _SMALL_DEFAULT
    at, _, _, _ = section(data, tag)
    rejects(patch(data, at + 12, "<I", 0xFFFFFFFF), "need|bytes|counts")


@pytest.mark.parametrize("tag", list(SECTION_TAGS))
def test_huge_section_sizes_are_rejected(tag: bytes) -> None:
    data = _SMALL_DEFAULT
    at, _, _, _ = section(data, tag)
    rejects(patch(data, at + 8, "<I", 0xFFFFFFF0), "runs past the end|after the last")
    rejects(patch(data, at + 4, "<I", 0xFFFFFF00), "starts at")


def test_huge_file_size_and_segment_sizes_are_rejected() -> None:
    data = _SMALL_DEFAULT
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
    path.write_bytes(_SMALL_DEFAULT[:100])
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
        good = _SMALL_DEFAULT
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
    data = _SMALL_DEFAULT
    _, off, _, _ = section(data, b"ARGS")
    rec = off + 4 + 2 + 1  # table header, name length, name 'a'
    rejects(patch(data, rec, "<B", 9), "unknown direction code 9")
    rejects(patch(data, rec + 1, "<B", 77), "unknown dtype code 77")
    rejects(patch(data, rec + 3, "<B", 0), "rank 0")
    rejects(patch(data, rec + 8, "<I", 99), "segment index 99")


# ---------------------------------------------------------------------------------------------
# Packing: against the numpy recipes of docs/isa.md §1.6, written out independently


def _pad_to(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    out = np.zeros(shape, dtype=x.dtype)
    out[tuple(slice(0, s) for s in x.shape)] = x
    return out


def _up(n: int, b: int) -> int:
    return -(-n // b) * b


def recipe_2d(a: np.ndarray, b: int, bi: int) -> np.ndarray:
    n, c = a.shape
    p = _pad_to(a, (_up(n, b), _up(c, bi)))
    n, c = p.shape
    return p.reshape(n // b, b, c // bi, bi).transpose(0, 2, 1, 3)


def recipe_nchw(x: np.ndarray, b: int, bi: int) -> np.ndarray:
    n, c, h, w = x.shape
    p = _pad_to(x, (_up(n, b), _up(c, bi), h, w))
    n, c = p.shape[:2]
    return p.reshape(n // b, b, c // bi, bi, h, w).transpose(0, 2, 4, 5, 1, 3)


def recipe_oihw(w: np.ndarray, bo: int, bi: int) -> np.ndarray:
    o, i, kh, kw = w.shape
    p = _pad_to(w, (_up(o, bo), _up(i, bi), kh, kw))
    o, i = p.shape[:2]
    return p.reshape(o // bo, bo, i // bi, bi, kh, kw).transpose(0, 2, 4, 5, 1, 3)


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("shape", [(1, 5), (3, 40), (5, 33), (2, 16)])
def test_pack_2d_matches_recipe(name: str, shape: tuple[int, int]) -> None:
    cfg = CONFIGS[name]
    rng = np.random.default_rng(1)
    for dtype in ("int8", "int32"):
        spec = ArgSpec.for_layout("x", "in", dtype, shape, "NC", cfg)
        x = rng.integers(-100, 100, shape).astype(dtype)
        want = recipe_2d(x, cfg.batch, cfg.block_in)
        packed = spec.pack(x)
        assert spec.packed_shape == want.shape
        assert packed == np.ascontiguousarray(want).astype(f"<{want.dtype.str[1:]}").tobytes()
        np.testing.assert_array_equal(spec.unpack(packed), x)
        assert spec.unpack(packed).dtype == np.dtype(dtype)
    # weights as (O, I) and as (I, O): both output-major blocks
    w = rng.integers(-128, 128, shape).astype(np.int8)
    oi = ArgSpec.for_layout("w", "in", "int8", shape, "OI", cfg)
    assert oi.pack(w) == recipe_2d(w, cfg.block_out, cfg.block_in).tobytes()
    kn = ArgSpec.for_layout("w", "in", "int8", shape[::-1], "KN", cfg)
    assert kn.pack(np.ascontiguousarray(w.T)) == oi.pack(w)
    np.testing.assert_array_equal(kn.unpack(kn.pack(np.ascontiguousarray(w.T))), w.T)


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("shape", [(1, 3, 5, 7), (3, 20, 4, 4), (2, 64, 1, 2)])
def test_pack_nchw_and_oihw_match_recipe(name: str, shape: tuple[int, ...]) -> None:
    cfg = CONFIGS[name]
    rng = np.random.default_rng(2)
    x = rng.integers(-128, 128, shape).astype(np.int8)
    data = ArgSpec.for_layout("x", "in", "int8", shape, "NCHW", cfg)
    assert data.pack(x) == recipe_nchw(x, cfg.batch, cfg.block_in).tobytes()
    np.testing.assert_array_equal(data.unpack(data.pack(x)), x)
    kern = ArgSpec.for_layout("w", "in", "int8", shape, "OIHW", cfg)
    assert kern.pack(x) == recipe_oihw(x, cfg.block_out, cfg.block_in).tobytes()
    np.testing.assert_array_equal(kern.unpack(kern.pack(x)), x)
    assert kern.packed_nbytes == recipe_oihw(x, cfg.block_out, cfg.block_in).nbytes


def test_generic_packing_parameters() -> None:
    assert tiled_packing((3, 20, 4, 4), (1, 16, None, None)) == (
        (3, 32, 4, 4), (3, 1, 2, 16, 4, 4), (0, 2, 4, 5, 1, 3))
    assert layout_tiles("OIHW", CONFIGS["block32"])[0] == (32, 32, None, None)
    flat = ArgSpec.for_layout("v", "inout", "int32", (7,), "flat", DEFAULT)
    v = np.arange(7, dtype=np.int32)
    assert flat.pack(v) == v.astype("<i4").tobytes()


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SHIPPED_CONFIGS), st.integers(1, 9), st.integers(1, 70),
       st.integers(1, 3), st.integers(1, 3))
def test_pack_unpack_round_trip_property(name: str, n: int, c: int, h: int, w: int) -> None:
    cfg = CONFIGS[name]
    x = np.random.default_rng(n * c).integers(-128, 128, (n, c, h, w)).astype(np.int8)
    spec = ArgSpec.for_layout("x", "in", "int8", x.shape, "NCHW", cfg)
    np.testing.assert_array_equal(spec.unpack(spec.pack(x)), x)


def test_packed_dtype_conversion_checks_range() -> None:
    spec = ArgSpec.for_layout("x", "in", "int32", (1, 4), "NC", DEFAULT, packed_dtype="int8")
    x = np.array([[1, -2, 3, 127]], dtype=np.int32)
    np.testing.assert_array_equal(spec.unpack(spec.pack(x)), x)
    assert spec.packed_nbytes == 16
    with pytest.raises(ArgumentError, match="do not fit the packed dtype int8"):
        spec.pack(np.array([[1, 2, 3, 300]], dtype=np.int32))


def test_pack_checks_the_array() -> None:
    spec = ArgSpec.for_layout("x", "in", "int8", (2, 20), "NC", DEFAULT)
    with pytest.raises(ArgumentError, match=r"expected dtype int8, got int64 \(convert"):
        spec.pack(np.zeros((2, 20), dtype=np.int64))
    with pytest.raises(ArgumentError, match=r"expected shape \(2, 20\), got \(20, 2\)"):
        spec.pack(np.zeros((20, 2), dtype=np.int8))
    with pytest.raises(ArgumentError, match="expected a numpy array"):
        spec.pack("abc")
    with pytest.raises(ArgumentError, match="packed image has 3 bytes"):
        spec.unpack(b"abc")
    assert isinstance(ArgumentError("x"), VTAError)


@pytest.mark.parametrize("kwargs, match", [
    (dict(perm=(0, 0, 1, 2)), "not a permutation"),
    (dict(split_shape=(1, 1, 2, 15)), "does not reshape"),
    (dict(padded_shape=(1, 8)), "smaller than shape"),
    (dict(direction="both"), "direction"),
    (dict(dtype="float32"), "not supported"),
    (dict(name=""), "non-empty"),
    (dict(shape=(0, 20)), "outside"),
    (dict(repeat=(2,)), r"split shape .* does not reshape repeat \(2,\) x padded shape"),
    (dict(repeat=(0,)), "repeat has dimension 0"),
    (dict(repeat=(1,) * 7), "has rank 9, more than 8"),
    (dict(repeat=(1,), direction="out"), "only allowed for 'in' arguments, not 'out'"),
    (dict(repeat=(1,), direction="inout"), "not 'inout'"),
    (dict(repeat=2), "repeat must be a sequence"),
])
def test_argspec_rejects_inconsistent_descriptions(kwargs: dict, match: str) -> None:
    good = dict(name="x", direction="in", dtype="int8", shape=(1, 20), padded_shape=(1, 32),
                split_shape=(1, 1, 2, 16), perm=(0, 2, 1, 3))
    good.update(kwargs)
    with pytest.raises(BinaryFormatError, match=match):
        ArgSpec(**good)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# The example of docs/binary-format.md is exactly what the writer produces


def doc_example_module() -> BinaryModule:
    cfg = DEFAULT
    link = Linker(0x100000)
    x = link.argument(ArgSpec.for_layout("x", "inout", "int8", (1, 20), "NC", cfg))
    staging = link.segment("uops", 4)
    n = x.packed_nbytes // cfg.acc8_elem_bytes
    insns = [
        MemInsn(memory_type=MemType.ACC_8BIT, dram_base=x.phys // cfg.acc8_elem_bytes, y_size=1,
                x_size=n, x_stride=n),
        MemInsn(memory_type=MemType.UOP, dram_base=staging.phys // 4, y_size=1, x_size=1,
                x_stride=1),
        AluInsn(alu_opcode=AluKind.ADD.opcode, use_imm=1, imm=1, uop_bgn=0, uop_end=1, iter_out=1,
                iter_in=n, dst_factor_in=1, src_factor_in=1, push_next_dep=1),
        MemInsn(is_store=1, memory_type=MemType.OUT, dram_base=x.phys // cfg.out_elem_bytes,
                y_size=1, x_size=n, x_stride=n, pop_prev_dep=1, push_prev_dep=1),
        MemInsn(memory_type=MemType.INP, push_next_dep=1),
        MemInsn(memory_type=MemType.UOP, pop_prev_dep=1, pop_next_dep=1),
        FinishInsn(),
    ]
    run = Run(insns, encode_uops([Uop(0, 0, 0)], cfg), staging.phys)
    return BinaryModule(cfg, Program([run], link.segments), [x], 0x100000)


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
# Repeated arguments (argument table version 2) and reading version-1 tables


def bias_recipe(bias: np.ndarray, batch: int, bo: int) -> np.ndarray:
    """A per-column bias as whole accumulator elements: ``(1, N/BO, BATCH, BO)``, each column
    block's values once per batch lane (written out independently of ``ArgSpec``)."""
    cols = _up(bias.shape[-1], bo)
    out = np.zeros((1, cols // bo, batch, bo), dtype=bias.dtype)
    for o in range(cols // bo):
        for lane in range(batch):
            for oo in range(bo):
                col = o * bo + oo
                out[0, o, lane, oo] = bias[col] if col < bias.shape[-1] else 0
    return out


def bias_spec(cfg: VTAConfig, n: int) -> ArgSpec:
    return ArgSpec.for_layout("bias", "in", "int32", (n,), "NC", cfg, repeat=(cfg.batch,))


@pytest.mark.parametrize("name", SHIPPED_CONFIGS)
@pytest.mark.parametrize("n", [5, 16, 48, 70])
def test_repeated_bias_packs_whole_accumulator_elements(name: str, n: int) -> None:
    cfg = CONFIGS[name]
    spec = bias_spec(cfg, n)
    bias = np.random.default_rng(n).integers(-(1 << 20), 1 << 20, n).astype(np.int32)
    want = bias_recipe(bias, cfg.batch, cfg.block_out)
    assert spec.shape == (n,) and spec.repeat == (cfg.batch,)
    assert spec.packed_shape == want.shape
    assert spec.packed_nbytes == want.nbytes
    assert spec.pack(bias) == want.astype("<i4").tobytes()
    # Every accumulator element of the image is the same size as the accumulator's.
    assert spec.packed_shape[2:] == (cfg.batch, cfg.block_out)


def test_repeat_over_several_axes_and_a_matrix_shape() -> None:
    x = np.arange(6, dtype=np.int16).reshape(2, 3)
    spec = ArgSpec("x", "in", "int16", (2, 3), (2, 4), (2, 3, 2, 4), (0, 1, 2, 3),
                   repeat=(2, 3))
    image = np.frombuffer(spec.pack(x), dtype="<i2").reshape(spec.packed_shape)
    for i in range(2):
        for j in range(3):
            np.testing.assert_array_equal(image[i, j], _pad_to(x, (2, 4)))
    assert spec.replicated_shape == (2, 3, 2, 4)


def test_repeated_argument_cannot_be_unpacked_or_misused() -> None:
    spec = bias_spec(CONFIGS["batch2"], 20)
    bias = np.arange(20, dtype=np.int32)
    with pytest.raises(ArgumentError, match=r"repeated over \(2,\) and cannot be unpacked"):
        spec.unpack(spec.pack(bias))
    with pytest.raises(ArgumentError, match=r"expected shape \(20,\), got \(2, 20\)"):
        spec.pack(np.stack([bias, bias]))
    assert "repeated 2" in spec.describe()
    assert "repeated" not in ArgSpec.for_layout("x", "in", "int8", (2, 20), "NC",
                                                DEFAULT).describe()
    with pytest.raises(BinaryFormatError, match=r"repeat \(3,\) is not a whole number of its "
                                                r"blocks \(2,\)"):
        ArgSpec.for_layout("bias", "in", "int32", (20,), "NC", CONFIGS["batch2"], repeat=(3,))


def bias_module(cfg: VTAConfig) -> BinaryModule:
    """``small_module`` with a repeated bias as a third argument."""
    mod = small_module(cfg)
    top = max(s.phys + s.nbytes for s in mod.program.segments)
    phys = -(-top // 4096) * 4096
    spec = bias_spec(cfg, 40)
    mod.program.segments.append(Segment("bias", phys, spec.packed_nbytes))
    mod.args.append(spec.placed("bias", phys))
    return mod


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


def args_records(data: bytes, specs: list[ArgSpec]) -> list[bytes]:
    """The raw argument records of a version-3 table (their sizes from ``specs``)."""
    _, off, _, _ = section(data, b"ARGS")
    pos = off + 4
    records = []
    for a in specs:
        size = (2 + len(a.name.encode()) + 16 + 4 * (2 * len(a.shape) + len(a.split_shape))
                + len(a.split_shape) + 1 + 4 * len(a.repeat) + 1 + 4 * len(a.window))
        records.append(data[pos:pos + size])
        pos += size
    assert pos == len(data)  # ARGS is the last section
    return records


def with_args_section(data: bytes, body: bytes) -> bytes:
    """``data`` with its (last) ARGS section replaced by ``body``, sizes and CRC fixed."""
    at, off, _, count = section(data, b"ARGS")
    buf = bytearray(data[:off] + body)
    struct.pack_into("<4sIII", buf, at, b"ARGS", off, len(body), count)
    struct.pack_into("<I", buf, 20, len(buf))
    return recrc(buf)


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
