"""Shared by the tests of the binary module format and argument packing
(``tests/test_binary*.py``): a small module and its bytes, byte patching behind a recomputed
checksum, the independent numpy recipes of the packed layouts of ``docs/isa.md`` §1.6, the
example module of ``docs/binary-format.md``, a module with a repeated bias and the raw records of
its argument table."""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest

from vta_mlir import binary
from vta_mlir.abi import ArgSpec
from vta_mlir.binary import (
    SECTION_TAGS,
    BinaryModule,
    Linker,
    from_bytes,
    to_bytes,
)
from vta_mlir.config import SHIPPED_CONFIGS, VTAConfig
from vta_mlir.errors import BinaryFormatError
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


#: The bytes of ``small_module`` on the default configuration.
SMALL_DEFAULT = to_bytes(small_module(DEFAULT))


# ---------------------------------------------------------------------------------------------
# The numpy recipes of the packed layouts of docs/isa.md §1.6, written out independently


def pad_to(x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``x`` zero-padded at the end of each axis up to ``shape``."""
    out = np.zeros(shape, dtype=x.dtype)
    out[tuple(slice(0, s) for s in x.shape)] = x
    return out


def round_up(n: int, b: int) -> int:
    """``n`` rounded up to a multiple of ``b``."""
    return -(-n // b) * b


def recipe_2d(a: np.ndarray, b: int, bi: int) -> np.ndarray:
    n, c = a.shape
    p = pad_to(a, (round_up(n, b), round_up(c, bi)))
    n, c = p.shape
    return p.reshape(n // b, b, c // bi, bi).transpose(0, 2, 1, 3)


def recipe_nchw(x: np.ndarray, b: int, bi: int) -> np.ndarray:
    n, c, h, w = x.shape
    p = pad_to(x, (round_up(n, b), round_up(c, bi), h, w))
    n, c = p.shape[:2]
    return p.reshape(n // b, b, c // bi, bi, h, w).transpose(0, 2, 4, 5, 1, 3)


def recipe_oihw(w: np.ndarray, bo: int, bi: int) -> np.ndarray:
    o, i, kh, kw = w.shape
    p = pad_to(w, (round_up(o, bo), round_up(i, bi), kh, kw))
    o, i = p.shape[:2]
    return p.reshape(o // bo, bo, i // bi, bi, kh, kw).transpose(0, 2, 4, 5, 1, 3)


# ---------------------------------------------------------------------------------------------
# The example module of docs/binary-format.md


def doc_example_module() -> BinaryModule:
    """The module whose bytes docs/binary-format.md shows as a hexdump."""
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


# ---------------------------------------------------------------------------------------------
# Repeated arguments (argument table version 2) and the raw records of an argument table


def bias_recipe(bias: np.ndarray, batch: int, bo: int) -> np.ndarray:
    """A per-column bias as whole accumulator elements: ``(1, N/BO, BATCH, BO)``, each column
    block's values once per batch lane (written out independently of ``ArgSpec``)."""
    cols = round_up(bias.shape[-1], bo)
    out = np.zeros((1, cols // bo, batch, bo), dtype=bias.dtype)
    for o in range(cols // bo):
        for lane in range(batch):
            for oo in range(bo):
                col = o * bo + oo
                out[0, o, lane, oo] = bias[col] if col < bias.shape[-1] else 0
    return out


def bias_spec(cfg: VTAConfig, n: int) -> ArgSpec:
    return ArgSpec.for_layout("bias", "in", "int32", (n,), "NC", cfg, repeat=(cfg.batch,))


def bias_module(cfg: VTAConfig) -> BinaryModule:
    """``small_module`` with a repeated bias as a third argument."""
    mod = small_module(cfg)
    top = max(s.phys + s.nbytes for s in mod.program.segments)
    phys = -(-top // 4096) * 4096
    spec = bias_spec(cfg, 40)
    mod.program.segments.append(Segment("bias", phys, spec.packed_nbytes))
    mod.args.append(spec.placed("bias", phys))
    return mod


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
