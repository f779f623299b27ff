"""Consistency checks of a binary module, shared by the ``.vtab`` writer, reader and loader.

A module is consistent when

* its base address and every segment address are non-zero 4 KiB-aligned 32-bit addresses, the
  segments lie at or above the base, have unique names, do not share a page, fit the 32-bit
  address space and together occupy at most :data:`MAX_FOOTPRINT_BYTES`; constant contents have
  exactly the segment's size;
* every argument owns one segment outright: it starts there, its packed image has exactly the
  segment's size, and the segment has no constant contents; so does every copy (a further
  packed image of an argument read in two layouts), which packs an ``in`` / ``inout``
  argument of the same dtype, shape and quantization;
* every run is non-empty, ends in FINISH and has no earlier FINISH, fits one transfer
  (:data:`MAX_XFER_BYTES`), and has its micro-op staging image inside one scratch segment that
  holds no argument (or no image and staging address 0);
* every LOAD / STORE that moves data touches DRAM inside one segment (LOAD UOP: inside its run's
  staging image), stores only OUT and loads only loadable buffers;
* every instruction fits its encoding;
* its layers, if any, have unique printable names of at most 255 bytes, and every instruction
  has one, the layers numbered in the order of their first instruction, each with at least one.

Whether every instruction stays inside the SRAMs and the micro-op table is another question,
answered by :func:`sram_index_problems` (``vta-run`` refuses such a module, ``vta-translate
--emit=asm`` warns about it): it replays the micro-op SRAM the ``LOAD UOP`` instructions fill
and bounds each GEMM / ALU index over its whole loop nest, as the device would address it.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from vta_mlir.abi import ArgSpec, check_name
from vta_mlir.config import PAGE_BYTES, VTAConfig
from vta_mlir.errors import BinaryFormatError, EncodingError
from vta_mlir.isa import (
    AluInsn,
    FinishInsn,
    GemmInsn,
    Insn,
    MemInsn,
    MemType,
    decode_uop_fields,
    dram_elem_bytes,
    encode_insns,
)
from vta_mlir.program import Program, Run, Segment
from vta_mlir.sim.timing import insn_name

if TYPE_CHECKING:
    from vta_mlir.binary import BinaryModule

__all__ = [
    "ADDRESS_LIMIT",
    "MAX_FOOTPRINT_BYTES",
    "MAX_XFER_BYTES",
    "IndexProblem",
    "check_layers",
    "check_module",
    "dram_footprint",
    "encode_run",
    "sram_index_problems",
]

#: Physical addresses are 32-bit (``vta_phy_addr_t``); page 0 is never valid (docs/isa.md §3.1).
ADDRESS_LIMIT = 1 << 32
#: Largest total size of a module's segments (the DRAM the runtime reserves to load it).
MAX_FOOTPRINT_BYTES = 1 << 30
#: Largest instruction stream and micro-op image of one run (``VTA_MAX_XFER``, docs/isa.md §4.1).
MAX_XFER_BYTES = 1 << 25
_INSN_BYTES = 16
_UOP_BYTES = 4




def is_int(v: Any) -> bool:
    return isinstance(v, int | np.integer) and not isinstance(v, bool)


def page_end(phys: int, nbytes: int) -> int:
    return phys + -(-nbytes // PAGE_BYTES) * PAGE_BYTES


def dram_footprint(sizes: Iterable[int]) -> int:
    """Bytes of DRAM that segments of ``sizes`` bytes occupy, each on pages of its own (as the
    linker places them; checked against :data:`MAX_FOOTPRINT_BYTES`)."""
    return sum(page_end(0, max(int(n), 1)) for n in sizes)


def _check_copy(module: BinaryModule, arg: ArgSpec) -> None:
    """``arg`` is a copy exactly when it is listed among the module's copies, and a copy packs
    an input argument of the same logical values: dtype, shape and quantization."""
    what = f"argument '{arg.name}'"
    if any(a is arg for a in module.args):
        if arg.copy_of:
            raise BinaryFormatError(
                f"{what} is a copy of '{arg.copy_of}' but is listed among the arguments"
            )
        return
    if not arg.copy_of:
        raise BinaryFormatError(f"{what} is listed among the copies but copies no argument")
    source = next((a for a in module.args if a.name == arg.copy_of), None)
    if source is None:
        raise BinaryFormatError(f"{what} copies '{arg.copy_of}', which is not an argument")
    if not source.is_input:
        raise BinaryFormatError(
            f"{what} copies '{source.name}', an '{source.direction}' argument the caller does "
            "not pass"
        )
    if (arg.dtype, arg.shape, arg.quant) != (source.dtype, source.shape, source.quant):
        raise BinaryFormatError(
            f"{what} copies '{source.name}' but differs from it in dtype, shape or quantization "
            f"({arg.dtype} {arg.shape} {arg.quant} against {source.dtype} {source.shape} "
            f"{source.quant})"
        )


def check_module(module: BinaryModule, *, encode: bool = True) -> None:
    """Raise :class:`BinaryFormatError` unless ``module`` is self-consistent (module doc);
    ``encode=False`` skips encoding every instruction (for callers that encode them anyway or
    have just decoded them)."""
    if not isinstance(module.config, VTAConfig):
        raise BinaryFormatError("module config must be a VTAConfig")
    cfg = module.config
    base = module.base
    if not is_int(base) or base % PAGE_BYTES or not PAGE_BYTES <= base < ADDRESS_LIMIT:
        raise BinaryFormatError(
            f"base address {base!r} is not a non-zero, 4 KiB-aligned 32-bit address"
        )
    prog = module.program
    if not isinstance(prog, Program):
        raise BinaryFormatError("module program must be a Program")

    # -- segments
    segs = sorted(prog.segments, key=lambda s: int(s.phys) if is_int(getattr(s, "phys", None))
                  else -1)
    names: set[str] = set()
    prev: Segment | None = None
    for seg in segs:
        if not isinstance(seg, Segment):
            raise BinaryFormatError(f"program segment {seg!r} is not a Segment")
        check_name(seg.name, "segment")
        what = f"segment '{seg.name}'"
        if seg.name in names:
            raise BinaryFormatError(f"{what} is defined twice")
        names.add(seg.name)
        if not is_int(seg.phys) or seg.phys % PAGE_BYTES:
            raise BinaryFormatError(f"{what}: address {seg.phys!r} is not 4 KiB-aligned")
        if seg.phys < base:
            raise BinaryFormatError(
                f"{what}: address {seg.phys:#x} is below the module base {base:#x}"
            )
        if not is_int(seg.nbytes) or seg.nbytes < 1:
            raise BinaryFormatError(f"{what}: size {seg.nbytes!r} is not a positive integer")
        if seg.phys + seg.nbytes > ADDRESS_LIMIT:
            raise BinaryFormatError(
                f"{what}: [{seg.phys:#x}, +{seg.nbytes}) exceeds the 32-bit address space"
            )
        if seg.data is not None:
            if not isinstance(seg.data, np.ndarray) or seg.data.dtype != np.uint8 \
                    or seg.data.ndim != 1:
                raise BinaryFormatError(f"{what}: contents must be a 1-D uint8 array")
            if seg.data.size != seg.nbytes:
                raise BinaryFormatError(
                    f"{what}: {seg.data.size} bytes of contents for a {seg.nbytes}-byte segment"
                )
        if prev is not None and seg.phys < page_end(prev.phys, prev.nbytes):
            raise BinaryFormatError(
                f"segments '{prev.name}' and '{seg.name}' overlap (pages of "
                f"[{prev.phys:#x}, +{prev.nbytes}) and [{seg.phys:#x}, +{seg.nbytes}))"
            )
        prev = seg
    footprint = sum(page_end(s.phys, s.nbytes) - s.phys for s in segs)
    if footprint > MAX_FOOTPRINT_BYTES:
        raise BinaryFormatError(
            f"segments occupy {footprint} bytes of DRAM, more than the "
            f"{MAX_FOOTPRINT_BYTES >> 20} MiB limit"
        )
    by_name = {s.name: s for s in segs}
    starts = [s.phys for s in segs]

    def find(lo: int, hi: int) -> Segment | None:
        i = bisect.bisect_right(starts, lo) - 1
        if i >= 0 and hi <= segs[i].phys + segs[i].nbytes:
            return segs[i]
        return None

    # -- arguments
    arg_names: set[str] = set()
    arg_segments: dict[str, str] = {}
    for arg in [*module.args, *module.copies]:
        if not isinstance(arg, ArgSpec):
            raise BinaryFormatError(f"argument {arg!r} is not an ArgSpec")
        what = f"argument '{arg.name}'"
        if arg.name in arg_names:
            raise BinaryFormatError(f"{what} is declared twice")
        arg_names.add(arg.name)
        _check_copy(module, arg)
        seg = by_name.get(arg.segment)
        if seg is None:
            raise BinaryFormatError(f"{what}: segment {arg.segment!r} does not exist")
        if arg.segment in arg_segments:
            raise BinaryFormatError(
                f"{what}: segment '{arg.segment}' already holds argument "
                f"'{arg_segments[arg.segment]}'"
            )
        arg_segments[arg.segment] = arg.name
        if arg.phys != seg.phys:
            raise BinaryFormatError(
                f"{what}: address {arg.phys:#x} points outside the start of its segment "
                f"'{seg.name}' at {seg.phys:#x}"
            )
        if arg.packed_nbytes != seg.nbytes:
            raise BinaryFormatError(
                f"{what}: packed size {arg.packed_nbytes} differs from the size {seg.nbytes} "
                f"of its segment '{seg.name}'"
            )
        if seg.data is not None:
            raise BinaryFormatError(f"{what}: its segment '{seg.name}' has constant contents")

    # -- runs
    elem_bytes = dram_elem_bytes(cfg)
    for r, run in enumerate(prog.runs):
        if not isinstance(run, Run):
            raise BinaryFormatError(f"run {r} is not a Run")
        where = f"run {r}"
        insns = run.insns
        if not insns:
            raise BinaryFormatError(f"{where} has no instructions")
        if len(insns) * _INSN_BYTES > MAX_XFER_BYTES:
            raise BinaryFormatError(
                f"{where} has {len(insns)} instructions, more than one {MAX_XFER_BYTES}-byte "
                "transfer holds"
            )
        words = run.uop_words
        if not isinstance(words, np.ndarray) or words.ndim != 1 or words.dtype != np.uint32:
            raise BinaryFormatError(f"{where}: micro-op words must be a 1-D uint32 array")
        if words.size * _UOP_BYTES > MAX_XFER_BYTES:
            raise BinaryFormatError(f"{where}: micro-op image of {words.size} words is too large")
        ubase = run.uop_base
        if not is_int(ubase):
            raise BinaryFormatError(f"{where}: micro-op staging address {ubase!r} is not an int")
        staging: tuple[int, int] | None = None
        if words.size == 0:
            if ubase != 0:
                raise BinaryFormatError(
                    f"{where}: micro-op staging address {ubase:#x} given without micro-op words"
                )
        else:
            if ubase % _UOP_BYTES or ubase <= 0:
                raise BinaryFormatError(
                    f"{where}: micro-op staging address {ubase:#x} is not a 4-byte-aligned "
                    "non-zero address"
                )
            end = ubase + words.size * _UOP_BYTES
            seg = find(ubase, end)
            if seg is None:
                raise BinaryFormatError(
                    f"{where}: micro-op staging region [{ubase:#x}, {end:#x}) is not inside a "
                    "segment"
                )
            if seg.data is not None or seg.name in arg_segments:
                raise BinaryFormatError(
                    f"{where}: micro-op staging region lies in segment '{seg.name}', which "
                    "holds constants or an argument"
                )
            staging = (ubase, end)
        for i, insn in enumerate(insns):
            last = i == len(insns) - 1
            if isinstance(insn, FinishInsn) != last:
                raise BinaryFormatError(
                    f"{where} does not end in FINISH" if last
                    else f"{where}: FINISH at instruction {i} before the end of the run"
                )
            if isinstance(insn, MemInsn):
                _check_mem(insn, f"{where} instruction {i}", elem_bytes, cfg, find, staging)
        if encode:
            encode_run(insns, cfg, where)
    check_layers(prog)


def check_layers(prog: Program) -> None:
    """Raise :class:`BinaryFormatError` unless the layer tags of ``prog`` are consistent: no
    tags without names; otherwise unique names and one tag per instruction, numbered in the
    order of each layer's first instruction, every layer tagging at least one."""
    names = prog.layers
    if not isinstance(names, list):
        raise BinaryFormatError("program layers must be a list of names")
    for name in names:
        check_name(name, "layer")
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise BinaryFormatError(f"layer '{dup}' is named twice")
    seen = 0
    for r, run in enumerate(prog.runs):
        tags = run.layers
        if not isinstance(tags, np.ndarray) or tags.ndim != 1 or tags.dtype.kind not in "iu":
            raise BinaryFormatError(f"run {r}: layer tags must be a 1-D integer array")
        if not names:
            if tags.size:
                raise BinaryFormatError(f"run {r}: layer tags in a program without layers")
            continue
        if tags.size != len(run.insns):
            raise BinaryFormatError(
                f"run {r}: {tags.size} layer tag(s) for {len(run.insns)} instruction(s)"
            )
        if tags.size and (int(tags.min()) < 0 or int(tags.max()) >= len(names)):
            wrong = int(tags[(tags < 0) | (tags >= len(names))][0])
            raise BinaryFormatError(
                f"run {r}: layer index {wrong} is out of range ({len(names)} layers)"
            )
        # Layers first appear in index order: a tag above every earlier one is the next index.
        wide = tags.astype(np.int64)
        running = np.maximum.accumulate(np.concatenate([[seen - 1], wide]))
        bad = np.flatnonzero(wide > running[:-1] + 1)
        if bad.size:
            at = int(bad[0])
            raise BinaryFormatError(
                f"run {r} instruction {at}: layer {int(wide[at])} appears before layer "
                f"{int(running[at]) + 1}: layers are numbered in the order of their first "
                "instruction"
            )
        seen = int(running[-1]) + 1
    if names and seen != len(names):
        raise BinaryFormatError(f"layer '{names[seen]}' has no instructions")


def encode_run(insns: list[Insn], cfg: VTAConfig, where: str) -> bytes:
    """The instruction words of one run; encoding failures become BinaryFormatError."""
    try:
        return encode_insns(insns, cfg).tobytes()
    except (EncodingError, TypeError, AttributeError, KeyError) as e:
        raise BinaryFormatError(f"{where}: {e}") from None


def _check_mem(insn: MemInsn, where: str, elem_bytes: dict[int, int], cfg: VTAConfig,
               find: Any, staging: tuple[int, int] | None) -> None:
    """A memory instruction's DRAM rows must lie inside one segment (LOAD UOP: the staging)."""
    if insn.x_size == 0 or insn.y_size == 0:
        return  # NOP, or a load that writes only padding rows: no DRAM access
    if insn.is_store:
        if insn.memory_type != MemType.OUT:
            raise BinaryFormatError(f"{where}: STORE of memory type {insn.memory_type} "
                                    "(only OUT can be stored)")
        size = cfg.out_elem_bytes
    else:
        if insn.memory_type not in elem_bytes or insn.memory_type == MemType.OUT:
            raise BinaryFormatError(
                f"{where}: LOAD of memory type {insn.memory_type}, which cannot be loaded"
            )
        size = elem_bytes[insn.memory_type]
    lo = insn.dram_base * size
    hi = (insn.dram_base + (insn.y_size - 1) * insn.x_stride + insn.x_size) * size
    kind = "STORE" if insn.is_store else f"LOAD {MemType(insn.memory_type).name}"
    if insn.memory_type == MemType.UOP and not insn.is_store:
        if staging is None or lo < staging[0] or hi > staging[1]:
            raise BinaryFormatError(
                f"{where}: {kind} reads [{lo:#x}, {hi:#x}) outside the run's micro-op staging "
                "region"
            )
        return
    if find(lo, hi) is None:
        raise BinaryFormatError(
            f"{where}: {kind} touches DRAM [{lo:#x}, {hi:#x}) outside every segment"
        )


# ---------------------------------------------------------------------------------------------
# SRAM and micro-op table indices


@dataclass(frozen=True)
class IndexProblem:
    """An instruction that indexes past an SRAM or the micro-op table."""

    run: int
    insn: int
    name: str
    message: str

    def __str__(self) -> str:
        return f"run {self.run} instruction {self.insn} ({self.name}): {self.message}"


def _sram_depths(cfg: VTAConfig) -> dict[int, tuple[str, int]]:
    """Per memory type of a LOAD, the SRAM it writes and that SRAM's depth."""
    return {
        MemType.UOP: ("UOP", cfg.uop_buff_depth),
        MemType.WGT: ("WGT", cfg.wgt_buff_depth),
        MemType.INP: ("INP", cfg.inp_buff_depth),
        MemType.ACC: ("ACC", cfg.acc_buff_depth),
        MemType.ACC_8BIT: ("ACC", cfg.acc_buff_depth),
    }


def _replay_uop_load(insn: MemInsn, run: Run, table: np.ndarray, elem: int) -> None:
    """Copy what a LOAD UOP (already known to fit the table) writes into ``table``: the
    run's staging words it reads (zero where it reads outside them: :func:`check_module`
    reports that) framed by zero padding."""
    xtotal = insn.x_pad_0 + insn.x_size + insn.x_pad_1
    ytotal = insn.y_pad_0 + insn.y_size + insn.y_pad_1
    block = np.zeros((ytotal, xtotal), dtype=np.uint32)
    words = run.uop_words
    first = insn.dram_base * elem - int(run.uop_base)
    if first >= 0 and first % elem == 0:
        rows = (first // elem
                + np.arange(insn.y_size, dtype=np.int64)[:, None] * insn.x_stride
                + np.arange(insn.x_size, dtype=np.int64)[None, :])
        inside = rows < words.size
        inner = block[insn.y_pad_0:insn.y_pad_0 + insn.y_size,
                      insn.x_pad_0:insn.x_pad_0 + insn.x_size]
        inner[inside] = words[rows[inside]]
    table[insn.sram_base:insn.sram_base + xtotal * ytotal] = block.reshape(-1)


def _loop_problem(insn: GemmInsn | AluInsn, table: np.ndarray, cfg: VTAConfig) -> str | None:
    """What a GEMM or ALU indexes out of range, over its whole loop nest, if anything."""
    n_uops = insn.uop_end - insn.uop_bgn
    if insn.iter_out <= 0 or insn.iter_in <= 0 or n_uops <= 0:
        return None  # no iteration: nothing is addressed
    if insn.uop_end > cfg.uop_buff_depth:
        return (f"micro-op range [{insn.uop_bgn}, {insn.uop_end}) exceeds the UOP depth "
                f"{cfg.uop_buff_depth}")
    fields = dict(zip(("dst", "src", "wgt"),
                      decode_uop_fields(table[insn.uop_bgn:insn.uop_end], cfg), strict=True))
    # What the device addresses (docs/isa.md §3.6, §3.7): a GEMM reset only its accumulators;
    # an ALU computes (and the reference checks) its source index even with an immediate.
    if isinstance(insn, GemmInsn):
        kinds = [("dst", "accumulator", "ACC", cfg.acc_buff_depth)]
        if not insn.reset_reg:
            kinds += [("src", "input", "INP", cfg.inp_buff_depth),
                      ("wgt", "weight", "WGT", cfg.wgt_buff_depth)]
    else:
        kinds = [("dst", "destination accumulator", "ACC", cfg.acc_buff_depth),
                 ("src", "source accumulator", "ACC", cfg.acc_buff_depth)]
    for kind, what, sram, depth in kinds:
        values = fields[kind]
        worst = int(np.argmax(values))
        # Loop factors are unsigned: the last iteration of each loop reaches furthest.
        factor_out = getattr(insn, f"{kind}_factor_out")
        factor_in = getattr(insn, f"{kind}_factor_in")
        top = (int(values[worst]) + (insn.iter_out - 1) * factor_out
               + (insn.iter_in - 1) * factor_in)
        if top >= depth:
            return (f"{what} index {top} out of range ({sram} depth {depth}) at micro-op "
                    f"{insn.uop_bgn + worst} (field {int(values[worst])}), i_out "
                    f"{insn.iter_out - 1 if factor_out else 0}, i_in "
                    f"{insn.iter_in - 1 if factor_in else 0}")
    return None


def sram_index_problems(program: Program, cfg: VTAConfig) -> list[IndexProblem]:
    """Every instruction of ``program`` that indexes past an SRAM or the micro-op table, in
    stream order: a LOAD writing past the SRAM of its memory type, a STORE reading past the
    OUT buffer (the accumulators), a GEMM or ALU whose micro-op range leaves the micro-op
    SRAM or whose micro-op fields plus loop offsets reach past the ACC, INP or WGT SRAM.

    The micro-op SRAM starts zeroed and keeps its contents from one run to the next, as on a
    freshly opened device; an out-of-range LOAD UOP is not replayed.
    """
    depths = _sram_depths(cfg)
    table = np.zeros(cfg.uop_buff_depth, dtype=np.uint32)
    found: list[IndexProblem] = []
    for r, run in enumerate(program.runs):
        for i, insn in enumerate(run.insns):
            message: str | None = None
            if isinstance(insn, MemInsn) and insn.x_size:
                if insn.is_store:
                    end, sram, depth = (insn.sram_base + insn.x_size * insn.y_size, "OUT",
                                        cfg.out_buff_depth)
                elif insn.memory_type in depths:
                    sram, depth = depths[insn.memory_type]
                    end = insn.sram_base + (
                        (insn.x_pad_0 + insn.x_size + insn.x_pad_1)
                        * (insn.y_pad_0 + insn.y_size + insn.y_pad_1))
                else:
                    continue  # not a loadable memory type: check_module's business
                if end > depth:
                    message = (f"SRAM range [{insn.sram_base}, {end}) exceeds the {sram} depth "
                               f"{depth}")
                elif insn.memory_type == MemType.UOP and not insn.is_store:
                    _replay_uop_load(insn, run, table, cfg.uop_elem_bytes)
            elif isinstance(insn, GemmInsn | AluInsn):
                message = _loop_problem(insn, table, cfg)
            if message is not None:
                found.append(IndexProblem(r, i, insn_name(insn), message))
    return found
