"""VTA instructions and micro-ops: records, exact encoding/decoding, and a text disassembler.

Encodings follow ``docs/isa.md`` §2: 128-bit instructions (two little-endian 64-bit words, byte 0
holding bits 0–7) and 32-bit micro-ops, with the field layout derived from the configuration
(:meth:`vta_mlir.config.VTAConfig.field_layouts`).  Padding bits are zero on encode and ignored
on decode, as by the hardware.

The disassembler prints one line per instruction, e.g.::

    LOAD INP sram=0 dram=0x100 y=16 x=16 stride=14 pad=1,1,1,1 [pop_next]
    GEMM reset uop=0:1 iter=16x1 dst=1,0 src=0,0 wgt=0,0 [push_prev]
    ALU SHR uop=3:4 iter=1x1 dst=0,0 src=0,0 imm=-3
    FINISH

and :func:`parse_insn` / :func:`parse_asm` read that text back to the same records.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from enum import IntEnum, StrEnum
from typing import ClassVar

import numpy as np

from vta_mlir.config import Field, VTAConfig
from vta_mlir.errors import EncodingError


class Opcode(IntEnum):
    LOAD = 0
    STORE = 1
    GEMM = 2
    FINISH = 3
    ALU = 4


class MemType(IntEnum):
    UOP = 0
    WGT = 1
    INP = 2
    ACC = 3
    OUT = 4
    ACC_8BIT = 5


def dram_elem_bytes(cfg: VTAConfig) -> dict[MemType, int]:
    """DRAM bytes of one element of each memory type (docs/isa.md §3.3–§3.5; ACC_8BIT reads
    one byte per lane)."""
    return {
        MemType.UOP: cfg.uop_elem_bytes,
        MemType.WGT: cfg.wgt_elem_bytes,
        MemType.INP: cfg.inp_elem_bytes,
        MemType.ACC: cfg.acc_elem_bytes,
        MemType.OUT: cfg.out_elem_bytes,
        MemType.ACC_8BIT: cfg.acc8_elem_bytes,
    }


class AluKind(StrEnum):
    """The ALU operations (docs/isa.md §2.5, §3.7), the one enumeration of them: each member's
    value is its keyword in the ``vta`` dialect (``vta.alu shr ...``) and in ``vtaisa``, its
    :attr:`opcode` the ``alu_opcode`` field it encodes to.  ``shr`` by a negative amount shifts
    left.

    ``AluOp`` is the same class under the name this module gave the ISA's opcode enumeration
    before it was merged with the dialect's; for code written against that integer
    enumeration, ``int(kind)`` is the opcode and ``AluKind(opcode)`` the member.
    """

    MIN = ("min", 0)
    MAX = ("max", 1)
    ADD = ("add", 2)
    SHR = ("shr", 3)
    MUL = ("mul", 4)

    opcode: int

    def __new__(cls, keyword: str, opcode: int) -> AluKind:
        member = str.__new__(cls, keyword)
        member._value_ = keyword
        member.opcode = opcode
        return member

    def __int__(self) -> int:
        return self.opcode

    @classmethod
    def _missing_(cls, value: object) -> AluKind | None:
        # ``AluKind(3)``: lookup by opcode (members are looked up by keyword).
        if isinstance(value, int) and not isinstance(value, bool):
            return cls.from_opcode(value)
        return None

    @classmethod
    def from_opcode(cls, opcode: int) -> AluKind | None:
        """The operation whose ``alu_opcode`` field value is ``opcode``, ``None`` for none."""
        return _ALU_KIND_OF_OPCODE.get(opcode)


# A dict lookup: verifiers, printers and the runtime decode an opcode per ALU instruction.
_ALU_KIND_OF_OPCODE = {kind.opcode: kind for kind in AluKind}

#: The ISA's name for :class:`AluKind`.
AluOp = AluKind


DEP_FLAGS = ("pop_prev_dep", "pop_next_dep", "push_prev_dep", "push_next_dep")


@dataclass(slots=True)
class _Insn:
    pop_prev_dep: int = 0
    pop_next_dep: int = 0
    push_prev_dep: int = 0
    push_next_dep: int = 0

    layout_name: ClassVar[str] = ""

    @property
    def opcode(self) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    def field_values(self) -> dict[str, int]:
        values = {f.name: int(getattr(self, f.name)) for f in fields(self)}
        values["opcode"] = int(self.opcode)
        return values


@dataclass(slots=True)
class MemInsn(_Insn):
    """LOAD or STORE (docs/isa.md §2.3).  ``x_size == 0`` makes it a NOP that only carries flags."""

    is_store: int = 0
    memory_type: int = 0
    sram_base: int = 0
    dram_base: int = 0
    y_size: int = 0
    x_size: int = 0
    x_stride: int = 0
    y_pad_0: int = 0
    y_pad_1: int = 0
    x_pad_0: int = 0
    x_pad_1: int = 0

    layout_name: ClassVar[str] = "mem"

    @property
    def opcode(self) -> int:
        return Opcode.STORE if self.is_store else Opcode.LOAD

    def field_values(self) -> dict[str, int]:
        values = _Insn.field_values(self)
        del values["is_store"]
        return values

    @property
    def is_nop(self) -> bool:
        return self.x_size == 0


@dataclass(slots=True)
class GemmInsn(_Insn):
    """GEMM (docs/isa.md §2.4); ``reset_reg`` zeroes the addressed accumulators."""

    reset_reg: int = 0
    uop_bgn: int = 0
    uop_end: int = 0
    iter_out: int = 0
    iter_in: int = 0
    dst_factor_out: int = 0
    dst_factor_in: int = 0
    src_factor_out: int = 0
    src_factor_in: int = 0
    wgt_factor_out: int = 0
    wgt_factor_in: int = 0

    layout_name: ClassVar[str] = "gemm"

    @property
    def opcode(self) -> int:
        return Opcode.GEMM


@dataclass(slots=True)
class AluInsn(_Insn):
    """ALU (docs/isa.md §2.5); ``imm`` is a signed 16-bit value, used when ``use_imm`` is 1."""

    reset_reg: int = 0
    uop_bgn: int = 0
    uop_end: int = 0
    iter_out: int = 0
    iter_in: int = 0
    dst_factor_out: int = 0
    dst_factor_in: int = 0
    src_factor_out: int = 0
    src_factor_in: int = 0
    alu_opcode: int = 0
    use_imm: int = 0
    imm: int = 0

    layout_name: ClassVar[str] = "alu"

    @property
    def opcode(self) -> int:
        return Opcode.ALU


@dataclass(slots=True)
class FinishInsn(_Insn):
    """FINISH (docs/isa.md §2.6): ends a run."""

    layout_name: ClassVar[str] = "finish"

    @property
    def opcode(self) -> int:
        return Opcode.FINISH


Insn = MemInsn | GemmInsn | AluInsn | FinishInsn


@dataclass(frozen=True, slots=True)
class Uop:
    """A micro-op (docs/isa.md §2.7): accumulator, input (or accumulator) and weight indices."""

    dst_idx: int = 0
    src_idx: int = 0
    wgt_idx: int = 0


# ---------------------------------------------------------------------------------------------
# Encoding


def _layout(insn: Insn, cfg: VTAConfig) -> dict[str, Field]:
    if isinstance(insn, MemInsn):
        return cfg.mem_fields
    if isinstance(insn, AluInsn):
        return cfg.alu_fields
    # FINISH has only the common header, which sits at the same place in every layout.
    return cfg.gemm_fields


def _put(word: int, f: Field, value: int, what: str) -> int:
    if f.name == "imm":
        lo, hi = -(1 << (f.width - 1)), (1 << (f.width - 1)) - 1
        if not lo <= value <= hi:
            raise EncodingError(f"{what}: imm = {value} does not fit a signed {f.width}-bit field")
        value &= f.mask
    elif not 0 <= value <= f.mask:
        raise EncodingError(
            f"{what}: {f.name} = {value} does not fit its {f.width}-bit field "
            f"(range 0..{f.mask})"
        )
    return word | (value << f.lsb)


def encode_insn(insn: Insn, cfg: VTAConfig) -> int:
    """The 128-bit word of ``insn`` as a Python integer (bit i of the hardware word = bit i)."""
    layout = _layout(insn, cfg)
    what = f"{type(insn).__name__}"
    word = 0
    for name, value in insn.field_values().items():
        if isinstance(value, bool):
            value = int(value)
        word = _put(word, layout[name], value, what)
    return word


def encode_insns(insns: Iterable[Insn], cfg: VTAConfig) -> np.ndarray:
    """Instructions as a ``uint8[16*N]`` array (each 128-bit word little-endian)."""
    out = bytearray()
    for insn in insns:
        out += encode_insn(insn, cfg).to_bytes(16, "little")
    return np.frombuffer(bytes(out), dtype=np.uint8).copy()


def _get(word: int, f: Field) -> int:
    return (word >> f.lsb) & f.mask


def decode_insn(word: int | bytes | bytearray | np.ndarray, cfg: VTAConfig) -> Insn:
    """Decode one 128-bit instruction word.  Raises :class:`EncodingError` for an unknown opcode."""
    if not isinstance(word, int):
        raw = bytes(np.asarray(word, dtype=np.uint8).tobytes() if isinstance(word, np.ndarray)
                    else word)
        if len(raw) != 16:
            raise EncodingError(f"an instruction is 16 bytes, got {len(raw)}")
        word = int.from_bytes(raw, "little")
    opcode = word & 7
    cls: type[_Insn]
    if opcode in (Opcode.LOAD, Opcode.STORE):
        layout = cfg.mem_fields
        insn: Insn = MemInsn(is_store=int(opcode == Opcode.STORE))
        cls = MemInsn
    elif opcode == Opcode.GEMM:
        layout, cls = cfg.gemm_fields, GemmInsn
        insn = GemmInsn()
    elif opcode == Opcode.ALU:
        layout, cls = cfg.alu_fields, AluInsn
        insn = AluInsn()
    elif opcode == Opcode.FINISH:
        layout, cls = cfg.gemm_fields, FinishInsn
        insn = FinishInsn()
    else:
        raise EncodingError(f"unknown opcode {opcode}")
    for f in fields(cls):
        if f.name == "is_store":
            continue
        value = _get(word, layout[f.name])
        if f.name == "imm" and value >> (layout["imm"].width - 1):
            value -= 1 << layout["imm"].width
        setattr(insn, f.name, value)
    return insn


def decode_insns(data: bytes | np.ndarray, cfg: VTAConfig) -> list[Insn]:
    """Decode a byte stream of whole instructions."""
    raw = bytes(np.asarray(data, dtype=np.uint8).tobytes()) if isinstance(data, np.ndarray) \
        else bytes(data)
    if len(raw) % 16:
        raise EncodingError(f"instruction stream of {len(raw)} bytes is not a multiple of 16")
    out: list[Insn] = []
    for i in range(0, len(raw), 16):
        try:
            out.append(decode_insn(int.from_bytes(raw[i : i + 16], "little"), cfg))
        except EncodingError as e:
            raise EncodingError(f"instruction {i // 16}: {e}") from None
    return out


def encode_uop(uop: Uop, cfg: VTAConfig) -> int:
    word = 0
    for name in ("dst_idx", "src_idx", "wgt_idx"):
        word = _put(word, cfg.uop_fields[name], int(getattr(uop, name)), "micro-op")
    return word


def encode_uops(uops: Sequence[Uop], cfg: VTAConfig) -> np.ndarray:
    """Micro-ops as ``uint32`` words (little-endian when written with ``tobytes``)."""
    return np.array([encode_uop(u, cfg) for u in uops], dtype="<u4")


def decode_uop_fields(
    words: np.ndarray, cfg: VTAConfig
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Vectorized decode of micro-op words into (dst, src, wgt) ``int64`` index arrays."""
    w = np.asarray(words, dtype=np.uint32).astype(np.int64)
    out = []
    for name in ("dst_idx", "src_idx", "wgt_idx"):
        f = cfg.uop_fields[name]
        out.append((w >> f.lsb) & f.mask)
    return out[0], out[1], out[2]


def decode_uops(words: np.ndarray, cfg: VTAConfig) -> list[Uop]:
    dst, src, wgt = decode_uop_fields(words, cfg)
    return [Uop(int(d), int(s), int(w)) for d, s, w in zip(dst, src, wgt, strict=True)]


# ---------------------------------------------------------------------------------------------
# Classification helpers shared by the simulator, the timing model and the command builder

#: Module that executes an instruction (docs/isa.md §3.2 step 1).
LOAD_MODULE, COMPUTE_MODULE, STORE_MODULE = "load", "compute", "store"


def module_of(insn: Insn) -> str:
    if isinstance(insn, MemInsn):
        if insn.is_store:
            return STORE_MODULE
        if insn.memory_type in (MemType.INP, MemType.WGT):
            return LOAD_MODULE
    return COMPUTE_MODULE


# ---------------------------------------------------------------------------------------------
# Disassembler

_FLAG_NAMES = {"pop_prev_dep": "pop_prev", "pop_next_dep": "pop_next",
               "push_prev_dep": "push_prev", "push_next_dep": "push_next"}
_FLAG_FROM_NAME = {v: k for k, v in _FLAG_NAMES.items()}


def _flags_text(insn: Insn) -> str:
    on = [_FLAG_NAMES[f] for f in DEP_FLAGS if getattr(insn, f)]
    return f" [{','.join(on)}]" if on else ""


def _mem_name(t: int) -> str:
    return MemType(t).name if t in MemType._value2member_map_ else str(t)


def format_insn(insn: Insn) -> str:
    """One readable line for ``insn``; :func:`parse_insn` reads it back."""
    if isinstance(insn, MemInsn):
        op = "STORE" if insn.is_store else "LOAD"
        text = (f"{op} {_mem_name(insn.memory_type)} sram={insn.sram_base} "
                f"dram={insn.dram_base:#x} y={insn.y_size} x={insn.x_size} "
                f"stride={insn.x_stride}")
        pads = (insn.y_pad_0, insn.y_pad_1, insn.x_pad_0, insn.x_pad_1)
        if any(pads):
            text += " pad=" + ",".join(map(str, pads))
    elif isinstance(insn, GemmInsn | AluInsn):
        if isinstance(insn, GemmInsn):
            text = "GEMM"
        else:
            kind = AluKind.from_opcode(insn.alu_opcode)
            name = kind.name if kind is not None else str(insn.alu_opcode)
            text = f"ALU {name}"
        if insn.reset_reg:
            text += " reset"
        text += (f" uop={insn.uop_bgn}:{insn.uop_end} iter={insn.iter_out}x{insn.iter_in}"
                 f" dst={insn.dst_factor_out},{insn.dst_factor_in}"
                 f" src={insn.src_factor_out},{insn.src_factor_in}")
        if isinstance(insn, GemmInsn):
            text += f" wgt={insn.wgt_factor_out},{insn.wgt_factor_in}"
        elif insn.use_imm:
            text += f" imm={insn.imm}"
        elif insn.imm:
            text += f" imm_unused={insn.imm}"
    else:
        text = "FINISH"
    return text + _flags_text(insn)


def disassemble(insns: Sequence[Insn], *, numbered: bool = True) -> str:
    """The whole stream, one instruction per line (``index: text`` when ``numbered``)."""
    width = len(str(max(len(insns) - 1, 0)))
    lines = [(f"{i:>{width}}: " if numbered else "") + format_insn(x) for i, x in enumerate(insns)]
    return "\n".join(lines) + ("\n" if lines else "")


_INT = r"[-+]?(?:0[xX][0-9a-fA-F]+|\d+)"
_LINE_NUMBER = re.compile(r"^\s*\d+\s*:\s*")


def _int(text: str, what: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise EncodingError(f"{what}: expected an integer, got {text!r}") from None


def _pair(text: str, what: str) -> tuple[int, int]:
    parts = re.split(r"[,:x]", text)
    if len(parts) != 2:
        raise EncodingError(f"{what}: expected two integers, got {text!r}")
    return _int(parts[0], what), _int(parts[1], what)


def parse_insn(line: str) -> Insn:
    """Parse one line printed by :func:`format_insn` (an ``index:`` prefix and ``#`` comment
    are allowed).  Raises :class:`EncodingError` with the reason on bad text."""
    text = line.split("#", 1)[0]
    text = _LINE_NUMBER.sub("", text).strip()
    flags: list[str] = []
    m = re.search(r"\[([^\]]*)\]\s*$", text)
    if m:
        flags = [f.strip() for f in m.group(1).split(",") if f.strip()]
        text = text[: m.start()].strip()
    tokens = text.split()
    if not tokens:
        raise EncodingError("empty instruction")
    op = tokens[0].upper()
    rest = tokens[1:]
    insn: Insn
    if op in ("LOAD", "STORE"):
        if not rest:
            raise EncodingError(f"{op}: missing memory type")
        mt = rest[0].upper()
        if mt in MemType.__members__:
            memory_type = int(MemType[mt])
        else:
            memory_type = _int(rest[0], f"{op} memory type")
        insn = MemInsn(is_store=int(op == "STORE"), memory_type=memory_type)
        keys = {"sram": "sram_base", "dram": "dram_base", "y": "y_size", "x": "x_size",
                "stride": "x_stride"}
        for tok in rest[1:]:
            key, _, value = tok.partition("=")
            if key == "pad":
                pads = [_int(p, "pad") for p in value.split(",")]
                if len(pads) != 4:
                    raise EncodingError(f"pad: expected 4 values y0,y1,x0,x1, got {value!r}")
                insn.y_pad_0, insn.y_pad_1, insn.x_pad_0, insn.x_pad_1 = pads
            elif key in keys:
                setattr(insn, keys[key], _int(value, key))
            else:
                raise EncodingError(f"{op}: unknown operand {tok!r}")
    elif op in ("GEMM", "ALU"):
        if op == "GEMM":
            insn = GemmInsn()
        else:
            if not rest:
                raise EncodingError("ALU: missing ALU opcode")
            name = rest[0].upper()
            alu_opcode = AluKind[name].opcode if name in AluKind.__members__ \
                else _int(rest[0], "ALU opcode")
            insn = AluInsn(alu_opcode=alu_opcode)
            rest = rest[1:]
        for tok in rest:
            key, _, value = tok.partition("=")
            if tok == "reset":
                insn.reset_reg = 1
            elif key == "uop":
                insn.uop_bgn, insn.uop_end = _pair(value, "uop")
            elif key == "iter":
                insn.iter_out, insn.iter_in = _pair(value, "iter")
            elif key in ("dst", "src") or (key == "wgt" and isinstance(insn, GemmInsn)):
                a, b = _pair(value, key)
                setattr(insn, f"{key}_factor_out", a)
                setattr(insn, f"{key}_factor_in", b)
            elif key == "imm" and isinstance(insn, AluInsn):
                insn.use_imm, insn.imm = 1, _int(value, "imm")
            elif key == "imm_unused" and isinstance(insn, AluInsn):
                insn.imm = _int(value, "imm_unused")
            else:
                raise EncodingError(f"{op}: unknown operand {tok!r}")
    elif op == "FINISH":
        if rest:
            raise EncodingError(f"FINISH takes no operands, got {' '.join(rest)!r}")
        insn = FinishInsn()
    else:
        raise EncodingError(f"unknown instruction {tokens[0]!r}")
    for f in flags:
        if f not in _FLAG_FROM_NAME:
            raise EncodingError(f"unknown dependency flag {f!r}")
        setattr(insn, _FLAG_FROM_NAME[f], 1)
    return insn


def parse_asm(text: str) -> list[Insn]:
    """Parse a whole listing printed by :func:`disassemble` (blank and comment lines skipped)."""
    out: list[Insn] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.split("#", 1)[0].strip():
            continue
        try:
            out.append(parse_insn(line))
        except EncodingError as e:
            raise EncodingError(f"line {lineno}: {e}") from None
    return out
