"""Checks of a binary module (the image of a ``vtaisa.program``) and the analysis of its SRAM
indices.

The rules of a program live in the verifiers of the ``vtaisa`` ops (field widths, memory types,
runs ending in FINISH, segments, the argument table, DRAM accesses inside segments:
:mod:`vta_mlir.dialects.vtaisa_rules`).  :func:`check_module` applies them to a module that did
not come from verified ops — read from a ``.vtab``, or built by hand — by building its
``vtaisa.program`` and verifying it, after :func:`check_image` has checked what the ops cannot
express: the Python types of its parts and the layer tags of its runs (:func:`check_layers`).
A module serialised from a verified program, or read and checked, is marked ``checked`` and
not checked again.

Whether every instruction stays inside the SRAMs and the micro-op table is another question,
answered by :func:`sram_index_problems` (``vta-run`` refuses such a module, ``vta-translate
--emit=asm`` warns about it; the loader accepts it): it replays the micro-op SRAM the
``LOAD UOP`` instructions fill and bounds each GEMM / ALU index over its whole loop nest, as
the device would address it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.utils.exceptions import VerifyException

from vta_mlir.abi import ArgSpec, check_name
from vta_mlir.config import PAGE_BYTES, VTAConfig
from vta_mlir.errors import BinaryFormatError, VTAError
from vta_mlir.isa import (
    AluInsn,
    FinishInsn,
    GemmInsn,
    MemInsn,
    MemType,
    decode_uop_fields,
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
    "check_image",
    "check_layers",
    "check_module",
    "dram_footprint",
    "page_end",
    "sram_index_problems",
]

#: Physical addresses are 32-bit (``vta_phy_addr_t``); page 0 is never valid (docs/isa.md §3.1).
ADDRESS_LIMIT = 1 << 32
#: Largest total size of a module's segments (the DRAM the runtime reserves to load it).
MAX_FOOTPRINT_BYTES = 1 << 30
#: Largest instruction stream and micro-op image of one run (``VTA_MAX_XFER``, docs/isa.md §4.1).
MAX_XFER_BYTES = 1 << 25


def is_int(v: Any) -> bool:
    return isinstance(v, int | np.integer) and not isinstance(v, bool)


def page_end(phys: int, nbytes: int) -> int:
    return phys + -(-nbytes // PAGE_BYTES) * PAGE_BYTES


def dram_footprint(sizes: Iterable[int]) -> int:
    """Bytes of DRAM that segments of ``sizes`` bytes occupy, each on pages of its own (as the
    linker places them; checked against :data:`MAX_FOOTPRINT_BYTES`)."""
    return sum(page_end(0, max(int(n), 1)) for n in sizes)


def check_image(module: BinaryModule) -> None:
    """Raise :class:`BinaryFormatError` unless the parts of ``module`` are of the types a
    ``vtaisa.program`` can be built from and its layer tags are consistent."""
    if not isinstance(module.config, VTAConfig):
        raise BinaryFormatError("module config must be a VTAConfig")
    if not is_int(module.base):
        raise BinaryFormatError(f"base address {module.base!r} is not an integer")
    prog = module.program
    if not isinstance(prog, Program):
        raise BinaryFormatError("module program must be a Program")
    for seg in prog.segments:
        if not isinstance(seg, Segment):
            raise BinaryFormatError(f"program segment {seg!r} is not a Segment")
        if not isinstance(seg.name, str):
            check_name(seg.name, "segment")
        what = f"segment '{seg.name}'"
        if not is_int(seg.phys) or not is_int(seg.nbytes):
            raise BinaryFormatError(f"{what}: address {seg.phys!r} and size {seg.nbytes!r} must "
                                    "be integers")
        if seg.data is not None and (not isinstance(seg.data, np.ndarray)
                                     or seg.data.dtype != np.uint8 or seg.data.ndim != 1):
            raise BinaryFormatError(f"{what}: contents must be a 1-D uint8 array")
    for arg in [*module.args, *module.copies]:
        if not isinstance(arg, ArgSpec):
            raise BinaryFormatError(f"argument {arg!r} is not an ArgSpec")
    # The program lists the copies after the arguments; the image keeps them apart.
    for arg in module.args:
        if arg.copy_of:
            raise BinaryFormatError(f"argument '{arg.name}' is a copy of '{arg.copy_of}' but is "
                                    "listed among the arguments")
    for arg in module.copies:
        if not arg.copy_of:
            raise BinaryFormatError(f"argument '{arg.name}' is listed among the copies but "
                                    "copies no argument")
    for r, run in enumerate(prog.runs):
        if not isinstance(run, Run):
            raise BinaryFormatError(f"run {r} is not a Run")
        words = run.uop_words
        if not isinstance(words, np.ndarray) or words.ndim != 1 or words.dtype != np.uint32:
            raise BinaryFormatError(f"run {r}: micro-op words must be a 1-D uint32 array")
        if not is_int(run.uop_base):
            raise BinaryFormatError(
                f"run {r}: micro-op staging address {run.uop_base!r} is not an int")
        for i, insn in enumerate(run.insns):
            if not isinstance(insn, MemInsn | GemmInsn | AluInsn | FinishInsn):
                raise BinaryFormatError(f"run {r} instruction {i}: {insn!r} is not an "
                                        "instruction record")
    check_layers(prog)


def check_module(module: BinaryModule, *, encode: bool = True) -> None:
    """Raise :class:`BinaryFormatError` (one line) unless ``module`` is a valid program: its
    ``vtaisa.program`` verifies, SRAM bounds left out (module docstring); mark it checked.
    ``encode`` is accepted for compatibility: the verifiers check every field's width, which
    is what encoding checks."""
    del encode
    from vta_mlir.dialects.vtaisa_program import program_op
    from vta_mlir.dialects.vtaisa_rules import verify_program

    if getattr(module, "checked", False):
        return
    check_image(module)
    try:
        program = program_op(module)
    except (TypeError, ValueError, VerifyException, VTAError) as e:
        raise BinaryFormatError(str(e).splitlines()[0] if str(e) else type(e).__name__) \
            from None
    verify_program(program, module.config, sram_bounds=False)
    module.checked = True


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
