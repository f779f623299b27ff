"""VTA hardware configuration: the 11 keys of ``vta_config.json`` and everything derived from them.

A :class:`VTAConfig` is the single description of the target hardware.  Every other part of
vta-mlir (encoder, simulator, command builder, passes) takes one as a parameter; nothing else
hard-codes a block size, an SRAM depth or a field width.

Derived quantities follow ``docs/isa.md`` §1.2–§1.3; instruction and micro-op field layouts follow
the bit-field packing rule of §2.1 (a field that would straddle a 64-bit boundary — 32-bit for
micro-ops — starts at the next unit), which reproduces the C structs of ``hw_spec.h`` exactly.

The optional ``timing`` object holds the parameters of the cycle model (``docs/timing-model.md``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from vta_mlir.errors import ConfigError

#: TARGET names accepted in a configuration (docs/isa.md §1.1).  Only the simulator executes.
TARGETS = ("sim", "tsim", "pynq", "ultra96", "zcu104", "de10nano", "intelfocl")

#: The 11 keys of a configuration file, in the order of ``vta_config.json``.
CONFIG_KEYS = (
    "TARGET",
    "HW_VER",
    "LOG_INP_WIDTH",
    "LOG_WGT_WIDTH",
    "LOG_ACC_WIDTH",
    "LOG_BATCH",
    "LOG_BLOCK",
    "LOG_UOP_BUFF_SIZE",
    "LOG_INP_BUFF_SIZE",
    "LOG_WGT_BUFF_SIZE",
    "LOG_ACC_BUFF_SIZE",
)

#: The configurations shipped with vta-mlir (``vta_mlir/configs/<name>.json``).
SHIPPED_CONFIGS = ("default", "block32", "batch2")

INSN_BITS = 128
UOP_BITS = 32
PAGE_BYTES = 4096
#: Width of the loop-iteration fields of GEMM/ALU (docs/isa.md §2.2).
LOOP_ITER_WIDTH = 14
#: Width of the memory-instruction fields (docs/isa.md §2.2–§2.3).
SRAM_ADDR_WIDTH = 16
DRAM_ADDR_WIDTH = 32
MEMOP_SIZE_WIDTH = 16
MEMOP_STRIDE_WIDTH = 16
MEMOP_PAD_WIDTH = 4
ALU_IMM_WIDTH = 16


@dataclass(frozen=True)
class Field:
    """One bit-field of an instruction or micro-op word."""

    name: str
    lsb: int
    width: int

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1


@dataclass(frozen=True)
class TimingParams:
    """Parameters of the cycle model, ``docs/timing-model.md`` (defaults as there)."""

    dma_latency: int = 32
    dram_bytes_per_cycle: int = 8
    pipeline_depth: int = 4
    clock_mhz: float = 100.0

    @classmethod
    def from_dict(cls, data: Any) -> TimingParams:
        if not isinstance(data, Mapping):
            raise ConfigError("'timing' must be a JSON object")
        known = {"dma_latency", "dram_bytes_per_cycle", "pipeline_depth", "clock_mhz"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(
                f"unknown key(s) in 'timing': {', '.join(unknown)} "
                f"(expected some of {', '.join(sorted(known))})"
            )
        values: dict[str, Any] = {}
        for key in ("dma_latency", "dram_bytes_per_cycle", "pipeline_depth"):
            if key in data:
                v = data[key]
                if isinstance(v, bool) or not isinstance(v, int):
                    raise ConfigError(f"timing.{key} must be an integer, got {v!r}")
                minimum = 1 if key == "dram_bytes_per_cycle" else 0
                if v < minimum or v > 1 << 20:
                    raise ConfigError(f"timing.{key} = {v} is out of range [{minimum}, {1 << 20}]")
                values[key] = v
        if "clock_mhz" in data:
            v = data["clock_mhz"]
            if isinstance(v, bool) or not isinstance(v, int | float) or not v > 0 or v > 1e6:
                raise ConfigError(f"timing.clock_mhz must be a positive number, got {v!r}")
            values["clock_mhz"] = float(v)
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dma_latency": self.dma_latency,
            "dram_bytes_per_cycle": self.dram_bytes_per_cycle,
            "pipeline_depth": self.pipeline_depth,
            "clock_mhz": self.clock_mhz,
        }


def _pack(unit: int, total: int, fields: list[tuple[str, int, tuple[str, ...]]], what: str):
    """Lay fields out LSB-first; a field that would straddle a ``unit``-bit boundary moves up.

    Raises :class:`ConfigError` naming the first field that ends beyond ``total`` bits and the
    configuration keys its width derives from.
    """
    pos = 0
    out: dict[str, Field] = {}
    word_keys = sorted({k for _, _, keys in fields for k in keys})
    for name, width, keys in fields:
        if width <= 0:
            width = 0
        if (pos % unit) + width > unit:
            pos = (pos // unit + 1) * unit
        if pos + width > total:
            derived = f"; its width {width} derives from {', '.join(keys)}" if keys else ""
            raise ConfigError(
                f"{what} field '{name}' does not fit in {total} bits: it would end at bit "
                f"{pos + width}{derived}; the word's field widths derive from "
                f"{', '.join(word_keys)}"
            )
        out[name] = Field(name, pos, width)
        pos += width
    return out


_HEADER = [
    ("opcode", 3, ()),
    ("pop_prev_dep", 1, ()),
    ("pop_next_dep", 1, ()),
    ("push_prev_dep", 1, ()),
    ("push_next_dep", 1, ()),
]


@dataclass(frozen=True)
class VTAConfig:
    """A validated VTA hardware configuration with all derived quantities.

    Construct with :meth:`from_dict`, :meth:`from_file`, :meth:`shipped` or :meth:`load`;
    the constructor itself validates too.
    """

    target: str = "sim"
    hw_ver: str = "0.0.2"
    log_inp_width: int = 3
    log_wgt_width: int = 3
    log_acc_width: int = 5
    log_batch: int = 0
    log_block: int = 4
    log_uop_buff_size: int = 15
    log_inp_buff_size: int = 15
    log_wgt_buff_size: int = 18
    log_acc_buff_size: int = 17
    timing: TimingParams = field(default_factory=TimingParams)

    # ---- derived (filled by __post_init__) ----------------------------------------------
    inp_width: int = field(init=False, repr=False)
    wgt_width: int = field(init=False, repr=False)
    acc_width: int = field(init=False, repr=False)
    out_width: int = field(init=False, repr=False)
    batch: int = field(init=False, repr=False)
    block_in: int = field(init=False, repr=False)
    block_out: int = field(init=False, repr=False)
    inp_elem_bits: int = field(init=False, repr=False)
    wgt_elem_bits: int = field(init=False, repr=False)
    acc_elem_bits: int = field(init=False, repr=False)
    out_elem_bits: int = field(init=False, repr=False)
    inp_elem_bytes: int = field(init=False, repr=False)
    wgt_elem_bytes: int = field(init=False, repr=False)
    acc_elem_bytes: int = field(init=False, repr=False)
    out_elem_bytes: int = field(init=False, repr=False)
    uop_elem_bytes: int = field(init=False, repr=False)
    acc8_elem_bytes: int = field(init=False, repr=False)
    log_uop_buff_depth: int = field(init=False, repr=False)
    log_inp_buff_depth: int = field(init=False, repr=False)
    log_wgt_buff_depth: int = field(init=False, repr=False)
    log_acc_buff_depth: int = field(init=False, repr=False)
    log_out_buff_size: int = field(init=False, repr=False)
    uop_buff_depth: int = field(init=False, repr=False)
    inp_buff_depth: int = field(init=False, repr=False)
    wgt_buff_depth: int = field(init=False, repr=False)
    acc_buff_depth: int = field(init=False, repr=False)
    out_buff_depth: int = field(init=False, repr=False)
    mem_fields: dict[str, Field] = field(init=False, repr=False, compare=False, hash=False)
    gemm_fields: dict[str, Field] = field(init=False, repr=False, compare=False, hash=False)
    alu_fields: dict[str, Field] = field(init=False, repr=False, compare=False, hash=False)
    uop_fields: dict[str, Field] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        self._validate_keys()
        d: dict[str, Any] = {}
        d["inp_width"] = 1 << self.log_inp_width
        d["wgt_width"] = 1 << self.log_wgt_width
        d["acc_width"] = 1 << self.log_acc_width
        d["out_width"] = d["inp_width"]
        d["batch"] = 1 << self.log_batch
        d["block_in"] = d["block_out"] = 1 << self.log_block
        d["inp_elem_bits"] = d["inp_width"] * d["batch"] * d["block_in"]
        d["wgt_elem_bits"] = d["wgt_width"] * d["block_out"] * d["block_in"]
        d["acc_elem_bits"] = d["acc_width"] * d["batch"] * d["block_out"]
        d["out_elem_bits"] = d["out_width"] * d["batch"] * d["block_out"]
        for k in ("inp", "wgt", "acc", "out"):
            d[f"{k}_elem_bytes"] = d[f"{k}_elem_bits"] // 8
        d["uop_elem_bytes"] = UOP_BITS // 8
        d["acc8_elem_bytes"] = d["batch"] * d["block_out"] * d["inp_width"] // 8
        # log2 depths exactly as hw_spec_const.h (docs/isa.md §1.2)
        d["log_uop_buff_depth"] = self.log_uop_buff_size - 5 + 3
        d["log_inp_buff_depth"] = (
            self.log_inp_buff_size - self.log_batch - self.log_block - self.log_inp_width + 3
        )
        d["log_wgt_buff_depth"] = (
            self.log_wgt_buff_size - 2 * self.log_block - self.log_wgt_width + 3
        )
        d["log_acc_buff_depth"] = (
            self.log_acc_buff_size - self.log_batch - self.log_block - self.log_acc_width + 3
        )
        d["log_out_buff_size"] = self.log_acc_buff_size + self.log_inp_width - self.log_acc_width
        keys = {
            "uop": ("LOG_UOP_BUFF_SIZE",),
            "inp": ("LOG_INP_BUFF_SIZE", "LOG_BATCH", "LOG_BLOCK", "LOG_INP_WIDTH"),
            "wgt": ("LOG_WGT_BUFF_SIZE", "LOG_BLOCK", "LOG_WGT_WIDTH"),
            "acc": ("LOG_ACC_BUFF_SIZE", "LOG_BATCH", "LOG_BLOCK", "LOG_ACC_WIDTH"),
        }
        for buf, src in keys.items():
            log_depth = d[f"log_{buf}_buff_depth"]
            if log_depth < 0:
                raise ConfigError(
                    f"{buf.upper()} SRAM would hold less than one element "
                    f"(log2 depth {log_depth} from {', '.join(src)}); increase {src[0]}"
                )
            if log_depth > SRAM_ADDR_WIDTH:
                raise ConfigError(
                    f"{buf.upper()} SRAM depth 2^{log_depth} exceeds the {SRAM_ADDR_WIDTH}-bit "
                    f"field 'sram_base' (derived from {', '.join(src)})"
                )
            d[f"{buf}_buff_depth"] = 1 << log_depth
        d["out_buff_depth"] = d["acc_buff_depth"]
        for k, v in d.items():
            object.__setattr__(self, k, v)
        self._derive_layouts(keys)

    # ---- validation -------------------------------------------------------------------------
    def _validate_keys(self) -> None:
        if not isinstance(self.target, str) or self.target not in TARGETS:
            raise ConfigError(f"TARGET {self.target!r} is not one of {', '.join(TARGETS)}")
        if not isinstance(self.hw_ver, str) or not self.hw_ver:
            raise ConfigError(f"HW_VER must be a non-empty string, got {self.hw_ver!r}")
        ints = {
            "LOG_INP_WIDTH": self.log_inp_width,
            "LOG_WGT_WIDTH": self.log_wgt_width,
            "LOG_ACC_WIDTH": self.log_acc_width,
            "LOG_BATCH": self.log_batch,
            "LOG_BLOCK": self.log_block,
            "LOG_UOP_BUFF_SIZE": self.log_uop_buff_size,
            "LOG_INP_BUFF_SIZE": self.log_inp_buff_size,
            "LOG_WGT_BUFF_SIZE": self.log_wgt_buff_size,
            "LOG_ACC_BUFF_SIZE": self.log_acc_buff_size,
        }
        for key, v in ints.items():
            if isinstance(v, bool) or not isinstance(v, int):
                raise ConfigError(f"{key} must be an integer, got {v!r}")
        for key, want in (("LOG_INP_WIDTH", 3), ("LOG_WGT_WIDTH", 3), ("LOG_ACC_WIDTH", 5)):
            if ints[key] != want:
                raise ConfigError(
                    f"{key} = {ints[key]} is unsupported (only {want}: "
                    f"{1 << want}-bit scalars are supported)"
                )
        if not 0 <= self.log_batch <= 2:
            raise ConfigError(f"LOG_BATCH = {self.log_batch} is out of range [0, 2]")
        if not 3 <= self.log_block <= 6:
            raise ConfigError(
                f"LOG_BLOCK = {self.log_block} is out of range [3, 6] "
                "(a weight element must fit one 4 KiB page)"
            )
        for key in ("LOG_UOP_BUFF_SIZE", "LOG_INP_BUFF_SIZE", "LOG_WGT_BUFF_SIZE",
                    "LOG_ACC_BUFF_SIZE"):
            if not 0 <= ints[key] <= 40:
                raise ConfigError(f"{key} = {ints[key]} is out of range [0, 40]")
        if not isinstance(self.timing, TimingParams):
            raise ConfigError("timing must be a TimingParams")

    def _derive_layouts(self, keys: dict[str, tuple[str, ...]]) -> None:
        uop_d, inp_d = self.log_uop_buff_depth, self.log_inp_buff_depth
        wgt_d, acc_d = self.log_wgt_buff_depth, self.log_acc_buff_depth
        mem = _HEADER + [
            ("memory_type", 3, ()),
            ("sram_base", SRAM_ADDR_WIDTH, ()),
            ("dram_base", DRAM_ADDR_WIDTH, ()),
            ("y_size", MEMOP_SIZE_WIDTH, ()),
            ("x_size", MEMOP_SIZE_WIDTH, ()),
            ("x_stride", MEMOP_STRIDE_WIDTH, ()),
            ("y_pad_0", MEMOP_PAD_WIDTH, ()),
            ("y_pad_1", MEMOP_PAD_WIDTH, ()),
            ("x_pad_0", MEMOP_PAD_WIDTH, ()),
            ("x_pad_1", MEMOP_PAD_WIDTH, ()),
        ]
        loops = [
            ("reset_reg", 1, ()),
            ("uop_bgn", uop_d, keys["uop"]),
            ("uop_end", uop_d + 1, keys["uop"]),
            ("iter_out", LOOP_ITER_WIDTH, ()),
            ("iter_in", LOOP_ITER_WIDTH, ()),
            ("dst_factor_out", acc_d, keys["acc"]),
            ("dst_factor_in", acc_d, keys["acc"]),
        ]
        gemm = _HEADER + loops + [
            ("src_factor_out", inp_d, keys["inp"]),
            ("src_factor_in", inp_d, keys["inp"]),
            ("wgt_factor_out", wgt_d, keys["wgt"]),
            ("wgt_factor_in", wgt_d, keys["wgt"]),
        ]
        alu = _HEADER + loops + [
            ("src_factor_out", acc_d, keys["acc"]),
            ("src_factor_in", acc_d, keys["acc"]),
            ("alu_opcode", 3, ()),
            ("use_imm", 1, ()),
            ("imm", ALU_IMM_WIDTH, ()),
        ]
        src_keys = keys["acc"] if acc_d >= inp_d else keys["inp"]
        uop = [
            ("dst_idx", acc_d, keys["acc"]),
            ("src_idx", max(acc_d, inp_d), src_keys),
            ("wgt_idx", wgt_d, keys["wgt"]),
        ]
        object.__setattr__(self, "mem_fields", _pack(64, INSN_BITS, mem, "memory instruction"))
        object.__setattr__(self, "gemm_fields", _pack(64, INSN_BITS, gemm, "GEMM instruction"))
        object.__setattr__(self, "alu_fields", _pack(64, INSN_BITS, alu, "ALU instruction"))
        object.__setattr__(self, "uop_fields", _pack(32, UOP_BITS, uop, "micro-op"))

    # ---- construction -------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Any, *, source: str = "configuration") -> VTAConfig:
        """Build from a ``vta_config.json``-style mapping (the 11 keys, optional ``timing``)."""
        if not isinstance(data, Mapping):
            raise ConfigError(
                f"{source}: expected a JSON object with the keys {', '.join(CONFIG_KEYS)}"
            )
        unknown = sorted(set(data) - set(CONFIG_KEYS) - {"timing"})
        if unknown:
            raise ConfigError(f"{source}: unknown key(s) {', '.join(map(str, unknown))}")
        missing = [k for k in CONFIG_KEYS if k not in data]
        if missing:
            raise ConfigError(f"{source}: missing key(s) {', '.join(missing)}")
        try:
            timing = TimingParams.from_dict(data.get("timing", {}))
            return cls(
                target=data["TARGET"],
                hw_ver=data["HW_VER"],
                log_inp_width=data["LOG_INP_WIDTH"],
                log_wgt_width=data["LOG_WGT_WIDTH"],
                log_acc_width=data["LOG_ACC_WIDTH"],
                log_batch=data["LOG_BATCH"],
                log_block=data["LOG_BLOCK"],
                log_uop_buff_size=data["LOG_UOP_BUFF_SIZE"],
                log_inp_buff_size=data["LOG_INP_BUFF_SIZE"],
                log_wgt_buff_size=data["LOG_WGT_BUFF_SIZE"],
                log_acc_buff_size=data["LOG_ACC_BUFF_SIZE"],
                timing=timing,
            )
        except ConfigError as e:
            raise ConfigError(f"{source}: {e}") from None

    @classmethod
    def from_json(cls, text: str, *, source: str = "configuration") -> VTAConfig:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as e:
            # ValueError: a JSONDecodeError, or an integer of more digits than Python converts.
            raise ConfigError(f"{source}: not valid JSON: {' '.join(str(e).split())}") from None
        return cls.from_dict(data, source=source)

    @classmethod
    def from_file(cls, path: str | Path) -> VTAConfig:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(f"{path}: cannot read configuration: {e}") from None
        return cls.from_json(text, source=str(path))

    @classmethod
    def shipped(cls, name: str = "default") -> VTAConfig:
        """One of the configurations shipped with vta-mlir (:data:`SHIPPED_CONFIGS`)."""
        if name not in SHIPPED_CONFIGS:
            raise ConfigError(
                f"no shipped configuration named {name!r} (have {', '.join(SHIPPED_CONFIGS)})"
            )
        text = resources.files("vta_mlir").joinpath("configs", f"{name}.json").read_text()
        return cls.from_json(text, source=f"shipped configuration {name!r}")

    @classmethod
    def load(cls, spec: str | Path | None) -> VTAConfig:
        """A shipped configuration name, a path to a JSON file, or ``None`` for the default."""
        if spec is None:
            return cls.shipped("default")
        if isinstance(spec, str) and spec in SHIPPED_CONFIGS and not Path(spec).exists():
            return cls.shipped(spec)
        return cls.from_file(spec)

    # ---- export -------------------------------------------------------------------------------
    def to_dict(self, *, with_timing: bool = True) -> dict[str, Any]:
        d: dict[str, Any] = {
            "TARGET": self.target,
            "HW_VER": self.hw_ver,
            "LOG_INP_WIDTH": self.log_inp_width,
            "LOG_WGT_WIDTH": self.log_wgt_width,
            "LOG_ACC_WIDTH": self.log_acc_width,
            "LOG_BATCH": self.log_batch,
            "LOG_BLOCK": self.log_block,
            "LOG_UOP_BUFF_SIZE": self.log_uop_buff_size,
            "LOG_INP_BUFF_SIZE": self.log_inp_buff_size,
            "LOG_WGT_BUFF_SIZE": self.log_wgt_buff_size,
            "LOG_ACC_BUFF_SIZE": self.log_acc_buff_size,
        }
        if with_timing and self.timing != TimingParams():
            d["timing"] = self.timing.to_dict()
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=False)

    def same_hardware(self, other: VTAConfig) -> bool:
        """True if both describe the same architecture (TARGET, HW_VER and timing aside)."""
        return self.bitstream == other.bitstream

    # ---- names (docs/isa.md §1.3) --------------------------------------------------------------
    @property
    def bitstream(self) -> str:
        return (
            f"{self.batch}x{self.block_in}_i{self.inp_width}w{self.wgt_width}a{self.acc_width}"
            f"_{self.log_uop_buff_size}_{self.log_inp_buff_size}_{self.log_wgt_buff_size}"
            f"_{self.log_acc_buff_size}"
        )

    @property
    def model(self) -> str:
        return f"{self.target}_{self.bitstream}"

    @property
    def gemm_macs_per_cycle(self) -> int:
        return self.batch * self.block_in * self.block_out

    def field_layouts(self) -> dict[str, dict[str, Field]]:
        """All layouts by struct name, as in ``insn_field_layout.csv`` (mem, gemm, alu, uop)."""
        return {
            "mem": self.mem_fields,
            "gemm": self.gemm_fields,
            "alu": self.alu_fields,
            "uop": self.uop_fields,
        }

    def sram_depth(self, memory: str) -> int:
        """Depth in elements of the SRAM ``'uop' | 'inp' | 'wgt' | 'acc' | 'out'``."""
        return int(getattr(self, f"{memory}_buff_depth"))


DEFAULT_CONFIG_NAME = "default"
